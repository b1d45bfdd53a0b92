// The case ledger: a chain of signed DSSE envelopes. Every kind of tampering fails verification and
// names the first bad entry; a ledger nobody touched verifies, through rotations and checkpoints.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { canonicalJson } from '../../lib/core/courtroom/canonical'
import { ENTRY_TYPE, envelopeHash, nextEntry, verifyChain, type Entry } from '../../lib/core/courtroom/chain'
import { appendEntry, envelopeFor, readLines, verifyLedger } from '../../lib/io/courtroom/ledger'
import { generateKey, nodeCrypto, writeKeyStore, type KeyPair } from '../../lib/io/courtroom/keys'
import { headFile } from '../../lib/io/courtroom/files'

let dir: string
let env: NodeJS.ProcessEnv
let file: string
let key: KeyPair
const AGENT = 'agent_test0001'

const caseBody = (n: number) => ({
  case_id: `case_${n}`,
  anonymized_agent_id: AGENT,
  offense_type: 'route_around',
  offense_name: 'Routing Around a Block',
  severity: 'severe',
  verdict: 'GUILTY',
  vote: '2-1',
  primary_failure: `failure ${n}`,
  agent_commentary: '',
  punishment_summary: '',
  timestamp: '2026-11-22T10:00:00.000Z',
  schema_version: '1.0.0',
  pack: 'agent',
  source: 'custodiet',
  abstentions: 0,
  evidence_digests: [],
})
const opts = (k = key) => ({ agent: AGENT, file, signers: [k], headKey: k, env })
const verify = () => verifyLedger(AGENT, file, env)
const lines = () => readLines(file)
const write = (ls: string[]) => fs.writeFileSync(file, ls.join('\n') + '\n')
const decode = (line: string): Entry => JSON.parse(Buffer.from(JSON.parse(line).payload, 'base64').toString('utf8'))
const failAt = (index: number, problem: RegExp) => {
  const v = verify()
  expect(v.ok).toBe(false)
  if (!v.ok) {
    expect(v.index).toBe(index)
    expect(v.problem).toMatch(problem)
  }
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-ledger-'))
  env = { HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config') }
  file = path.join(dir, 'ledger.jsonl')
  key = generateKey()
  writeKeyStore({ agent: AGENT, genesis_public: key.public, current: key, retired: [] }, env)
  appendEntry(opts(), 'genesis', { public_key: key.public, keyid: key.keyid })
  for (let i = 1; i <= 5; i++) appendEntry(opts(), 'case', caseBody(i))
})

describe('an untouched ledger', () => {
  it('verifies from genesis to the signed head', () => {
    const v = verify()
    expect(v.ok).toBe(true)
    if (v.ok) {
      expect(v.entries.map((e) => e.kind)).toEqual(['genesis', 'case', 'case', 'case', 'case', 'case'])
      expect(v.warnings).toEqual([])
    }
  })

  it('gets a signed checkpoint every 10 entries, and still verifies', () => {
    for (let i = 6; i <= 12; i++) appendEntry(opts(), 'case', caseBody(i))
    const v = verify()
    expect(v.ok).toBe(true)
    if (v.ok) expect(v.entries[9].kind).toBe('checkpoint')
  })

  it('verifies across a key rotation signed by the old and the new key', () => {
    const next = generateKey()
    appendEntry({ ...opts(), signers: [key, next], headKey: next }, 'rotation', {
      old_keyid: key.keyid,
      new_keyid: next.keyid,
      new_public_key: next.public,
    })
    appendEntry(opts(next), 'case', caseBody(6))
    expect(verify().ok).toBe(true)
  })

  it('every entry is a typed DSSE envelope over RFC 8785 bytes, with seq and the previous hash', () => {
    const env0 = JSON.parse(lines()[0])
    const env1 = JSON.parse(lines()[1])
    expect(env1.payloadType).toBe(ENTRY_TYPE)
    expect(decode(lines()[1])).toMatchObject({ v: 1, kind: 'case', seq: 1, prev: envelopeHash(nodeCrypto, env0) })
  })
})

describe('tampering fails verification and names the first bad entry', () => {
  it('an edit (the verdict changed, payload re-encoded)', () => {
    const ls = lines()
    const env3 = JSON.parse(ls[3])
    const e = decode(ls[3])
    ;(e.body as Record<string, unknown>).verdict = 'NOT GUILTY'
    env3.payload = Buffer.from(JSON.stringify(e)).toString('base64')
    ls[3] = JSON.stringify(env3)
    write(ls)
    failAt(3, /canonical|signature does not verify/)
  })

  it('an edit kept canonical (so only the signature can tell)', () => {
    const ls = lines()
    const e = decode(ls[2])
    ;(e.body as Record<string, unknown>).vote = '3-0'
    const envl = JSON.parse(ls[2])
    envl.payload = Buffer.from(canonicalJson(e)).toString('base64')
    ls[2] = JSON.stringify(envl)
    write(ls)
    failAt(2, /signature does not verify/)
  })

  it('a deletion in the middle', () => {
    const ls = lines()
    ls.splice(2, 1)
    write(ls)
    failAt(2, /seq is 3 where 2 was expected/)
  })

  it('a deletion at the end (caught by the signed head kept outside the project)', () => {
    write(lines().slice(0, -1))
    failAt(5, /missing: the signed head says the ledger reached seq 5/)
  })

  it('an insertion of a forged entry, chained properly but signed by another key', () => {
    const ls = lines()
    const last = JSON.parse(ls[ls.length - 1])
    const forged = nextEntry(
      { seq: 5, hash: envelopeHash(nodeCrypto, last) },
      AGENT,
      'case',
      caseBody(99),
      '2026-11-22T11:00:00.000Z',
    )
    ls.push(JSON.stringify(envelopeFor(forged, [generateKey()])))
    write(ls)
    failAt(6, /signature does not verify with the key in force/)
  })

  it('an insertion in the middle', () => {
    const ls = lines()
    ls.splice(3, 0, ls[1])
    write(ls)
    failAt(3, /seq is 1 where 3 was expected/)
  })

  it('a reordering', () => {
    const ls = lines()
    ;[ls[2], ls[3]] = [ls[3], ls[2]]
    write(ls)
    failAt(2, /seq is 3 where 2 was expected/)
  })

  it('a swapped key: the whole ledger re-signed with another key', () => {
    const evil = generateKey()
    fs.rmSync(file)
    fs.rmSync(headFile(AGENT, env))
    appendEntry(opts(evil), 'genesis', { public_key: evil.public, keyid: evil.keyid })
    appendEntry(opts(evil), 'case', caseBody(1))
    failAt(0, /genesis key is not the key on record/)
  })

  it('a replayed record from another agent’s ledger', () => {
    const otherFile = path.join(dir, 'other.jsonl')
    const other = generateKey()
    const o = { agent: 'agent_other', file: otherFile, signers: [other], headKey: other, env }
    appendEntry(o, 'genesis', { public_key: other.public, keyid: other.keyid })
    appendEntry(o, 'case', caseBody(42))
    const ls = lines()
    ls.push(readLines(otherFile)[1])
    write(ls)
    failAt(6, /belongs to agent agent_other/)
  })

  it('a replayed case, re-appended under the key (same case id twice)', () => {
    appendEntry(opts(), 'case', caseBody(3))
    failAt(6, /case case_3 appears twice/)
  })

  it('an old entry replayed at the end', () => {
    const ls = lines()
    ls.push(ls[2])
    write(ls)
    failAt(6, /seq is 2 where 6 was expected/)
  })

  it('a rotation not signed by the key in force', () => {
    const evil = generateKey()
    appendEntry({ ...opts(), signers: [evil], headKey: evil }, 'rotation', {
      old_keyid: key.keyid,
      new_keyid: evil.keyid,
      new_public_key: evil.public,
    })
    failAt(6, /rotation is not signed by the key in force/)
  })

  it('an entry after revocation', () => {
    appendEntry(opts(), 'revocation', { keyid: key.keyid, reason: 'test' })
    appendEntry(opts(), 'case', caseBody(7))
    failAt(7, /after the key was revoked/)
  })

  it('an edited head', () => {
    const h = JSON.parse(fs.readFileSync(headFile(AGENT, env), 'utf8'))
    fs.writeFileSync(headFile(AGENT, env), JSON.stringify({ ...h, seq: 2 }))
    failAt(2, /signed head .* does not verify/)
  })

  it('without a key on record, a ledger verifies only with a warning', () => {
    const v = verifyChain(nodeCrypto, lines(), { agent: AGENT })
    expect(v.ok).toBe(true)
    expect(v.warnings.join(' ')).toMatch(/no key on record/)
  })
})
