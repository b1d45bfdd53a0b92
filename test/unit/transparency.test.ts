// The transparency log's Merkle tree and checkpoints against published conformance data: the RFC 6962 /
// RFC 9162 inclusion and consistency vectors of transparency-dev/merkle (test/fixtures/merkle, with its
// NOTICE), every malformed proof refused; proofs this code builds from stored nodes match the published
// ones for the RFC's eight test leaves; C2SP signed-note checkpoints sign, verify and refuse tampering.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  appendLeaf,
  consistencyRanges,
  frontierRoot,
  hashRange,
  inclusionRanges,
  leafHash,
  nodesFor,
  verifyConsistency,
  verifyInclusion,
  type Frontier,
  type Hasher,
  type NodeId,
} from '../../lib/core/transparency/merkle'
import {
  checkpointText,
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  signNote,
  verifierKey,
} from '../../lib/core/transparency/note'

const h: Hasher = { sha256: (d) => crypto.createHash('sha256').update(d).digest() }
const DIR = path.join(__dirname, '..', 'fixtures', 'merkle')
const b64 = (s: string) => Buffer.from(s, 'base64')

function vectors(kind: 'inclusion' | 'consistency'): [string, Record<string, unknown>][] {
  const out: [string, Record<string, unknown>][] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.endsWith('.json')) out.push([path.relative(DIR, p), JSON.parse(fs.readFileSync(p, 'utf8'))])
    }
  }
  walk(path.join(DIR, kind))
  return out.sort((a, b) => a[0].localeCompare(b[0]))
}

describe('RFC 6962 / RFC 9162 proof vectors (transparency-dev/merkle)', () => {
  const inc = vectors('inclusion')
  const con = vectors('consistency')
  it('the fixtures are all there, with their notice', () => {
    expect(inc.length).toBeGreaterThan(90)
    expect(con.length).toBeGreaterThan(70)
    expect(fs.readFileSync(path.join(DIR, 'NOTICE.md'), 'utf8')).toMatch(/Apache License 2\.0/)
    expect(inc.filter(([, v]) => v.wantErr).length).toBeGreaterThan(70)
  })
  it.each(inc)('inclusion %s', (_name, v) => {
    const r = verifyInclusion(
      h,
      v.leafIdx as number,
      v.treeSize as number,
      b64(v.leafHash as string),
      ((v.proof as string[] | null) ?? []).map(b64),
      b64(v.root as string),
    )
    expect(r.ok, JSON.stringify(r)).toBe(!v.wantErr)
  })
  it.each(con)('consistency %s', (_name, v) => {
    const r = verifyConsistency(
      h,
      v.size1 as number,
      v.size2 as number,
      ((v.proof as string[] | null) ?? []).map(b64),
      b64(v.root1 as string),
      b64(v.root2 as string),
    )
    expect(r.ok, JSON.stringify(r)).toBe(!v.wantErr)
  })
})

// RFC 6962's test leaves (as transparency-dev/merkle uses them): the trees the vectors' happy paths come from.
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(
  (x) => Buffer.from(x, 'hex'),
)

/** A tree built the way the server builds it: leaf by leaf, keeping the perfect nodes. */
function build(leaves: Buffer[]) {
  const nodes = new Map<string, Buffer>()
  let f: Frontier = { size: 0, hashes: [] }
  const roots: Buffer[] = [frontierRoot(h, f)]
  for (const l of leaves) {
    const r = appendLeaf(h, f, leafHash(h, l))
    for (const n of r.nodes) nodes.set(`${n.level}/${n.index}`, n.hash)
    f = r.next
    roots.push(frontierRoot(h, f))
  }
  const node = (id: NodeId) => {
    const x = nodes.get(`${id.level}/${id.index}`)
    if (!x) throw new Error(`no node ${id.level}/${id.index}`)
    return x
  }
  return { roots, node, hashes: (ranges: [number, number][]) => ranges.map(([lo, hi]) => hashRange(h, lo, hi, node)) }
}

describe('proofs built from stored nodes', () => {
  const t = build(LEAVES)
  it('the root of the eight test leaves is the RFC 6962 one', () => {
    expect(t.roots[8].toString('hex')).toBe('5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328')
  })
  it('inclusion proofs match the published happy paths', () => {
    for (const [name, v] of vectors('inclusion').filter(([n]) => /^inclusion\/\d\/happy-path\.json$/.test(n))) {
      const proof = t.hashes(inclusionRanges(v.leafIdx as number, v.treeSize as number))
      expect(
        proof.map((p) => p.toString('base64')),
        name,
      ).toEqual(v.proof ?? [])
    }
  })
  it('consistency proofs match the published happy paths', () => {
    for (const [name, v] of vectors('consistency').filter(([n]) => /^consistency\/\d\/happy-path\.json$/.test(n))) {
      const proof = t.hashes(consistencyRanges(v.size1 as number, v.size2 as number))
      expect(
        proof.map((p) => p.toString('base64')),
        name,
      ).toEqual(v.proof ?? [])
    }
  })
  it('every leaf of every tree up to 40 proves in, and every pair of sizes is consistent', () => {
    const big = build(Array.from({ length: 40 }, (_, i) => Buffer.from(`leaf ${i}`)))
    for (let n = 1; n <= 40; n++)
      for (let m = 0; m < n; m++) {
        const ok = verifyInclusion(
          h,
          m,
          n,
          leafHash(h, Buffer.from(`leaf ${m}`)),
          big.hashes(inclusionRanges(m, n)),
          big.roots[n],
        )
        expect(ok.ok, `leaf ${m} of ${n}`).toBe(true)
        if (m > 0)
          expect(
            verifyConsistency(h, m, n, big.hashes(consistencyRanges(m, n)), big.roots[m], big.roots[n]).ok,
            `${m} → ${n}`,
          ).toBe(true)
      }
  })
  it('a proof needs only O(log² n) stored nodes, never the leaves', () => {
    expect(nodesFor(inclusionRanges(12345, 1_000_000)).length).toBeLessThan(60)
    expect(nodesFor(consistencyRanges(999_999, 1_000_000)).length).toBeLessThan(60)
  })
  it('a leaf proven against the wrong tree, or a rewritten history, is refused', () => {
    const other = build([...LEAVES.slice(0, 5), Buffer.from('rewritten'), ...LEAVES.slice(6)])
    expect(verifyInclusion(h, 5, 8, leafHash(h, LEAVES[5]), t.hashes(inclusionRanges(5, 8)), other.roots[8]).ok).toBe(
      false,
    )
    // The rewritten tree agrees up to 5 leaves, and its 8 cannot be proven to extend the genuine 6.
    expect(verifyConsistency(h, 5, 8, other.hashes(consistencyRanges(5, 8)), t.roots[5], other.roots[8]).ok).toBe(true)
    expect(verifyConsistency(h, 6, 8, other.hashes(consistencyRanges(6, 8)), t.roots[6], other.roots[8])).toMatchObject(
      { ok: false },
    )
  })
})

describe('C2SP signed-note checkpoints', () => {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url')
  const key = { name: 'example.com/log', publicKey: raw }
  const sign = (m: Buffer) => crypto.sign(null, m, privateKey)
  const verify = (m: Buffer, s: Buffer) => crypto.verify(null, m, publicKey, s)
  const cp = { origin: 'example.com/log', size: 8, root: 'XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=' }
  const note = signNote(h, checkpointText(cp), key, sign)

  it('signs and opens a checkpoint; the verifier key round-trips', () => {
    expect(note).toMatch(
      /^example\.com\/log\n8\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz\+Nw7\/RgQyg=\n\n— example\.com\/log [A-Za-z0-9+/]{91}=\n$/,
    )
    const vkey = verifierKey(h, key)
    const parsed = parseVerifierKey(h, vkey)
    expect('problem' in parsed).toBe(false)
    const opened = openNote(h, note, parsed as typeof key, verify)
    expect(opened).toEqual({ text: checkpointText(cp) })
    expect(parseCheckpoint(checkpointText(cp))).toEqual(cp)
  })
  it.each([
    ['a changed size', note.replace('\n8\n', '\n9\n')],
    ['a changed root', note.replace('XcnaeacG', 'XcnaeacH')],
    ['no signature', checkpointText(cp)],
    ['a signature by another key name', note.replace('— example.com/log', '— other.org/log')],
    ['a truncated signature', note.replace(/.{8}\n$/, '\n')],
    ['a signature line without the dash', note.replace('— ', '- ')],
  ])('refuses %s', (_what, bad) => {
    expect('problem' in openNote(h, bad, key, verify)).toBe(true)
  })
  it('the same note under another key with the same name is refused (re-keyed log)', () => {
    const other = crypto.generateKeyPairSync('ed25519')
    const forged = signNote(
      h,
      checkpointText(cp),
      { name: key.name, publicKey: Buffer.from(other.publicKey.export({ format: 'jwk' }).x as string, 'base64url') },
      (m) => crypto.sign(null, m, other.privateKey),
    )
    expect(openNote(h, forged, key, verify)).toEqual({ problem: 'no signature by example.com/log' })
  })
  it.each([
    ['8 lines', 'a\nb\n'],
    ['a size that is not a number', 'o\n1e3\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n'],
    ['a negative size', 'o\n-1\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n'],
    ['a short root', 'o\n1\nAAAA\n'],
    ['no origin', '\n1\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n'],
  ])('parseCheckpoint refuses %s', (_w, text) => {
    expect('problem' in parseCheckpoint(text)).toBe(true)
  })
  it.each([
    ['no parts', 'abc'],
    ['a bad hash', 'n+00000000+' + Buffer.concat([Buffer.from([1]), raw]).toString('base64')],
    [
      'another algorithm',
      `n+${verifierKey(h, { name: 'n', publicKey: raw }).split('+')[1]}+` +
        Buffer.concat([Buffer.from([2]), raw]).toString('base64'),
    ],
  ])('parseVerifierKey refuses %s', (_w, s) => {
    expect('problem' in parseVerifierKey(h, s)).toBe(true)
  })
})
