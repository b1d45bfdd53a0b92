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
  const walk: Walk = { keys: {}, current: undefined, revoked: false, prev: null, caseIds: new Set() }
  const hashes: string[] = []

  for (let i = 0; i < lines.length; i++) {
    const read = readEntryLine(lines[i])
    if (typeof read === 'string') return fail(i, read)
    const { env, entry } = read
    const problem = linkProblem(entry, i, trust, walk) ?? kindProblem(c, env, entry, i, trust, walk, warnings)
    if (problem) return fail(i, problem)
    const h = envelopeHash(c, env)
    hashes.push(h)
    walk.prev = h
    entries.push(entry)
    envelopes.push(env)
  }

  if (trust.head) {
    const wrong = signedHeadProblem(c, trust.head, entries, hashes)
    if (wrong) return fail(wrong.index, wrong.problem)
  } else if (lines.length) warnings.push('no signed head on record: deleting entries from the end cannot be detected')

  const head = lines.length ? { seq: lines.length - 1, hash: walk.prev! } : null
  return { ok: true, entries, envelopes, head, warnings }
}

/** Where the walk along the ledger stands: the keys in force, and what the entries so far have said. */
interface Walk {
  keys: Record<string, string>
  current: string | undefined
  revoked: boolean
  prev: string | null
  caseIds: Set<string>
}

/** One JSONL line as a canonical version 1 ledger entry in its envelope, or what is wrong with it. */
function readEntryLine(line: string): { env: DsseEnvelope; entry: Entry } | string {
  let env: unknown
  try {
    env = JSON.parse(line)
  } catch {
    return 'not valid JSON'
  }
  if (!isEnvelope(env)) return 'not a DSSE envelope'
  if (env.payloadType !== ENTRY_TYPE) return `payloadType is "${env.payloadType}", not a ledger entry`
  const bytes = fromBase64(env.payload)
  let entry: Entry
  try {
    entry = JSON.parse(bytes.toString('utf8'))
  } catch {
    return 'payload is not JSON'
  }
  if (canonicalJson(entry) !== bytes.toString('utf8')) return 'payload is not in RFC 8785 canonical form'
  if (
    entry.v !== 1 ||
    typeof entry.kind !== 'string' ||
    typeof entry.seq !== 'number' ||
    !entry.body ||
    typeof entry.body !== 'object'
  )
    return 'not a version 1 ledger entry'
  return { env, entry }
}

/** Why entry `i` is not the next link of this agent's chain: another agent's, out of place, or after a revocation. */
function linkProblem(entry: Entry, i: number, trust: Trust, walk: Walk): string | undefined {
  if (entry.agent !== trust.agent)
    return `belongs to agent ${entry.agent}, not ${trust.agent} (replayed from another ledger?)`
  if (entry.seq !== i)
    return `seq is ${entry.seq} where ${i} was expected (an entry was deleted, inserted, reordered or replayed)`
  if (entry.prev !== walk.prev) return `prev hash does not match entry ${i - 1} (the chain is broken here)`
  if (walk.revoked) return 'written after the key was revoked'
  return undefined
}

/** What is wrong with entry `i` for its kind and its signatures; the keys in force move on at the genesis and a rotation. */
function kindProblem(
  c: ChainCrypto,
  env: DsseEnvelope,
  entry: Entry,
  i: number,
  trust: Trust,
  walk: Walk,
  warnings: string[],
): string | undefined {
  if (i === 0) {
    if (entry.kind !== 'genesis') return 'the first entry is not the genesis'
    const pub = entry.body.public_key
    if (typeof pub !== 'string') return 'genesis has no public_key'
    if (trust.genesisKey && pub !== trust.genesisKey) return 'genesis key is not the key on record (swapped key)'
    if (!trust.genesisKey) warnings.push('no key on record to anchor the genesis: its own key was trusted')
    walk.current = keyIdOf(c, pub)
    walk.keys = { [walk.current]: pub }
    if (!signersOf(c, env, walk.keys).has(walk.current)) return 'genesis signature does not verify'
    return undefined
  }
  if (entry.kind === 'genesis') return 'a second genesis'
  const current = walk.current!
  if (entry.kind === 'rotation') {
    const pub = entry.body.new_public_key
    if (typeof pub !== 'string') return 'rotation has no new_public_key'
    const next = keyIdOf(c, pub)
    const signers = signersOf(c, env, { [current]: walk.keys[current], [next]: pub })
    if (!signers.has(current)) return 'rotation is not signed by the key in force'
    if (!signers.has(next)) return 'rotation is not signed by the new key'
    walk.keys = { [next]: pub }
    walk.current = next
    return undefined
  }
  if (!signersOf(c, env, walk.keys).has(current))
    return `signature does not verify with the key in force (${current.slice(0, 12)}…): edited, or signed by another key`
  return bodyProblem(entry, i, walk)
}

/** What is wrong with the body of a signed case, checkpoint, revocation or repair entry (any other kind is unknown). */
function bodyProblem(entry: Entry, i: number, walk: Walk): string | undefined {
  if (entry.kind === 'case') {
    const id = (entry.body as { case_id?: unknown }).case_id
    if (typeof id !== 'string') return 'case entry has no case_id'
    if (walk.caseIds.has(id)) return `case ${id} appears twice (replayed)`
    walk.caseIds.add(id)
  } else if (entry.kind === 'checkpoint') {
    if (entry.body.through !== i - 1 || entry.body.head !== walk.prev)
      return 'checkpoint does not match the entries before it'
  } else if (entry.kind === 'revocation') {
    walk.revoked = true
  } else if (entry.kind === 'repair') {
    // A torn last line, moved out of the ledger and recorded here (its digest and bytes): see ledger.ts repairTail.
    if (typeof entry.body.torn_digest !== 'string') return 'repair entry names no torn_digest'
  } else {
    return `unknown entry kind ${entry.kind}`
  }
  return undefined
}

/** The signed head kept outside the project against the ledger: signed by one of its keys, reached, and matching. */
function signedHeadProblem(
  c: ChainCrypto,
  head: NonNullable<Trust['head']>,
  entries: Entry[],
  hashes: string[],
): { index: number; problem: string } | undefined {
  const length = hashes.length
  const headBody = Buffer.from(
    canonicalJson({ agent: head.agent, seq: head.seq, hash: head.hash, at: head.at }),
    'utf8',
  )
  const signer = [...Object.entries(allKeys(c, entries))].find(
    ([id, pub]) => id === head.keyid && safeVerify(c, pub, pae(HEAD_TYPE, headBody), fromBase64(head.sig)),
  )
  if (!signer)
    return { index: Math.min(head.seq, length), problem: 'the signed head kept outside the project does not verify' }
  if (head.seq >= length)
    return {
      index: length,
      problem: `entries ${length}–${head.seq} are missing: the signed head says the ledger reached seq ${head.seq}`,
    }
  if (hashes[head.seq] !== head.hash)
    return { index: head.seq, problem: 'does not match the signed head kept outside the project' }
  return undefined
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
