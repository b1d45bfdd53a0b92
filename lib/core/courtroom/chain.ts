// The case ledger's rules, pure: every entry is a DSSE envelope over an RFC 8785 canonical payload,
// and entries form a per-agent hash chain (seq, prev = hash of the previous envelope). Signature
// checks and hashing come in through `ChainCrypto`, so this file needs no node:crypto and tests can
// see every rule.
//
// What verification rejects, naming the first bad entry:
//   edit      the payload no longer matches its signature
//   delete    a gap in seq / a prev that does not match (or, at the end, fewer entries than the
//             signed head kept outside the project)
//   insert    a seq out of place, or a signature from no key in force
//   reorder   seq and prev out of step
//   swapped key   a genesis key that is not the one on record, or a signature by another key
//   replay    an entry from another agent's ledger, or a case id seen before

import { canonicalJson, fromBase64, isEnvelope, pae, type DsseEnvelope } from './canonical'

export const ENTRY_TYPE = 'application/vnd.ratchet.courtroom.entry+json; version=1'
export const HEAD_TYPE = 'application/vnd.ratchet.courtroom.head+json; version=1'

export type EntryKind = 'genesis' | 'case' | 'checkpoint' | 'rotation' | 'revocation' | 'repair'

export interface Entry {
  v: 1
  kind: EntryKind
  agent: string
  seq: number
  prev: string | null
  at: string
  body: Record<string, unknown>
}

export interface ChainCrypto {
  /** Hex SHA-256. */
  sha256(data: Uint8Array | string): string
  /** Ed25519 verify with a raw 32-byte public key (base64). */
  verify(publicKey: string, data: Uint8Array, sig: Uint8Array): boolean
}

/** A signed head, kept outside the project: how many entries the ledger had, and the last one's hash. */
export interface Head {
  agent: string
  seq: number
  hash: string
  at: string
}

export const keyIdOf = (c: Pick<ChainCrypto, 'sha256'>, publicKey: string): string =>
  c.sha256(fromBase64(publicKey)).slice(0, 32)

/** The hash the next entry's `prev` must carry: over the whole canonical envelope, signatures included. */
export const envelopeHash = (c: Pick<ChainCrypto, 'sha256'>, env: DsseEnvelope): string =>
  'sha256:' + c.sha256(canonicalJson(env))

export function payloadBytes(entry: Entry): Buffer {
  return Buffer.from(canonicalJson(entry), 'utf8')
}

/** Verifies one envelope: accepted key ids among `keys` (keyid → public key) whose signature holds. */
export function signersOf(c: ChainCrypto, env: DsseEnvelope, keys: Record<string, string>): Set<string> {
  const body = fromBase64(env.payload)
  const msg = pae(env.payloadType, body)
  const ok = new Set<string>()
  for (const s of env.signatures) {
    // keyid is only a hint (DSSE): try every trusted key when it is absent or unknown.
    const candidates = s.keyid && keys[s.keyid] ? [s.keyid] : Object.keys(keys)
    for (const id of candidates) {
      try {
        if (c.verify(keys[id], msg, fromBase64(s.sig))) {
          ok.add(id)
          break
        }
      } catch {
        /* a malformed signature verifies nothing */
      }
    }
  }
  return ok
}

export interface Trust {
  agent: string
  /** The genesis public key on record (from the key store outside the project, or given by hand). */
  genesisKey?: string
  /** The last signed head, if one is kept. */
  head?: Head & { sig: string; keyid: string }
}

export type VerifyResult =
  | {
      ok: true
      entries: Entry[]
      envelopes: DsseEnvelope[]
      head: { seq: number; hash: string } | null
      warnings: string[]
    }
  | { ok: false; index: number; problem: string; entries: Entry[]; warnings: string[] }

/** Walks the ledger from genesis. `lines` are its JSONL lines (blank ones are not allowed). */
export function verifyChain(c: ChainCrypto, lines: string[], trust: Trust): VerifyResult {
  const entries: Entry[] = []
  const envelopes: DsseEnvelope[] = []
  const warnings: string[] = []
  const fail = (index: number, problem: string): VerifyResult => ({ ok: false, index, problem, entries, warnings })
  let keys: Record<string, string> = {}
  let current: string | undefined
  let revoked = false
  let prev: string | null = null
  const caseIds = new Set<string>()
  const hashes: string[] = []

  for (let i = 0; i < lines.length; i++) {
    let env: unknown
    try {
      env = JSON.parse(lines[i])
    } catch {
      return fail(i, 'not valid JSON')
    }
    if (!isEnvelope(env)) return fail(i, 'not a DSSE envelope')
    if (env.payloadType !== ENTRY_TYPE) return fail(i, `payloadType is "${env.payloadType}", not a ledger entry`)
    const bytes = fromBase64(env.payload)
    let entry: Entry
    try {
      entry = JSON.parse(bytes.toString('utf8'))
    } catch {
      return fail(i, 'payload is not JSON')
    }
    if (canonicalJson(entry) !== bytes.toString('utf8')) return fail(i, 'payload is not in RFC 8785 canonical form')
    if (
      entry.v !== 1 ||
      typeof entry.kind !== 'string' ||
      typeof entry.seq !== 'number' ||
      !entry.body ||
      typeof entry.body !== 'object'
    )
      return fail(i, 'not a version 1 ledger entry')
    if (entry.agent !== trust.agent)
      return fail(i, `belongs to agent ${entry.agent}, not ${trust.agent} (replayed from another ledger?)`)
    if (entry.seq !== i)
      return fail(
        i,
        `seq is ${entry.seq} where ${i} was expected (an entry was deleted, inserted, reordered or replayed)`,
      )
    if (entry.prev !== prev) return fail(i, `prev hash does not match entry ${i - 1} (the chain is broken here)`)
    if (revoked) return fail(i, 'written after the key was revoked')

    if (i === 0) {
      if (entry.kind !== 'genesis') return fail(i, 'the first entry is not the genesis')
      const pub = entry.body.public_key
      if (typeof pub !== 'string') return fail(i, 'genesis has no public_key')
      if (trust.genesisKey && pub !== trust.genesisKey)
        return fail(i, 'genesis key is not the key on record (swapped key)')
      if (!trust.genesisKey) warnings.push('no key on record to anchor the genesis: its own key was trusted')
      current = keyIdOf(c, pub)
      keys = { [current]: pub }
      if (!signersOf(c, env, keys).has(current)) return fail(i, 'genesis signature does not verify')
    } else if (entry.kind === 'genesis') {
      return fail(i, 'a second genesis')
    } else if (entry.kind === 'rotation') {
      const pub = entry.body.new_public_key
      if (typeof pub !== 'string') return fail(i, 'rotation has no new_public_key')
      const next = keyIdOf(c, pub)
      const signers = signersOf(c, env, { [current!]: keys[current!], [next]: pub })
      if (!signers.has(current!)) return fail(i, 'rotation is not signed by the key in force')
      if (!signers.has(next)) return fail(i, 'rotation is not signed by the new key')
      keys = { [next]: pub }
      current = next
    } else {
      if (!signersOf(c, env, keys).has(current!))
        return fail(
          i,
          `signature does not verify with the key in force (${current!.slice(0, 12)}…): edited, or signed by another key`,
        )
      if (entry.kind === 'case') {
        const id = (entry.body as { case_id?: unknown }).case_id
        if (typeof id !== 'string') return fail(i, 'case entry has no case_id')
        if (caseIds.has(id)) return fail(i, `case ${id} appears twice (replayed)`)
        caseIds.add(id)
      } else if (entry.kind === 'checkpoint') {
        if (entry.body.through !== i - 1 || entry.body.head !== prev)
          return fail(i, 'checkpoint does not match the entries before it')
      } else if (entry.kind === 'revocation') {
        revoked = true
      } else if (entry.kind === 'repair') {
        // A torn last line, moved out of the ledger and recorded here (its digest and bytes): see ledger.ts repairTail.
        if (typeof entry.body.torn_digest !== 'string') return fail(i, 'repair entry names no torn_digest')
      } else {
        return fail(i, `unknown entry kind ${entry.kind}`)
      }
    }
    const h = envelopeHash(c, env)
    hashes.push(h)
    prev = h
    entries.push(entry)
    envelopes.push(env)
  }

  if (trust.head) {
    const head = trust.head
    const headBody = Buffer.from(
      canonicalJson({ agent: head.agent, seq: head.seq, hash: head.hash, at: head.at }),
      'utf8',
    )
    const signer = [...Object.entries(allKeys(c, entries))].find(
      ([id, pub]) => id === head.keyid && safeVerify(c, pub, pae(HEAD_TYPE, headBody), fromBase64(head.sig)),
    )
    if (!signer)
      return fail(Math.min(head.seq, lines.length), 'the signed head kept outside the project does not verify')
    if (head.seq >= lines.length)
      return fail(
        lines.length,
        `entries ${lines.length}–${head.seq} are missing: the signed head says the ledger reached seq ${head.seq}`,
      )
    if (hashes[head.seq] !== head.hash) return fail(head.seq, 'does not match the signed head kept outside the project')
  } else if (lines.length) warnings.push('no signed head on record: deleting entries from the end cannot be detected')

  return { ok: true, entries, envelopes, head: lines.length ? { seq: lines.length - 1, hash: prev! } : null, warnings }
}

function safeVerify(c: ChainCrypto, pub: string, msg: Uint8Array, sig: Uint8Array): boolean {
  try {
    return c.verify(pub, msg, sig)
  } catch {
    return false
  }
}

/** Every key that was ever in force on this chain (the head may be signed by an earlier one). */
function allKeys(c: ChainCrypto, entries: Entry[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const e of entries) {
    const pub = e.kind === 'genesis' ? e.body.public_key : e.kind === 'rotation' ? e.body.new_public_key : undefined
    if (typeof pub === 'string') out[keyIdOf(c, pub)] = pub
  }
  return out
}

/** The next entry, unsigned: the caller signs PAE(ENTRY_TYPE, payloadBytes(entry)). */
export function nextEntry(
  last: { seq: number; hash: string } | null,
  agent: string,
  kind: EntryKind,
  body: Record<string, unknown>,
  at: string,
): Entry {
  return { v: 1, kind, agent, seq: last ? last.seq + 1 : 0, prev: last ? last.hash : null, at, body }
}

export const CHECKPOINT_EVERY = 10
