// What the case server accepts, pure: a submission is a DSSE envelope whose canonical payload carries
// the server's origin, the time it was signed and one entry of the agent's ledger (itself a DSSE
// envelope). Both signatures cover every byte they sign, and both are stored, so anyone can check
// the public record again. Each refusal has a status, a reason code and one line saying what is wrong;
// every check runs before anything is written.
//
// Replays: an entry is accepted only as the next link of its agent's chain (seq = last + 1, prev =
// the hash of the last accepted entry), so an old one, one from another ledger or a second copy cannot
// land; the signed time must be fresh and the signed origin must be this server's, so a submission
// cannot be kept and sent later, or sent to another server.

import { canonicalJson, fromBase64, isEnvelope, type DsseEnvelope } from '../courtroom/canonical'
import {
  ENTRY_TYPE,
  envelopeHash,
  keyIdOf,
  signersOf,
  type ChainCrypto,
  type Entry,
  type EntryKind,
} from '../courtroom/chain'
import { LIMITS } from '../courtroom/hearing'
import { SEVERITIES } from '../courtroom/offenses'
import { maskSecrets } from '../secrets'
import { CLI } from '../manifest'

export const SUBMISSION_TYPE = 'application/vnd.ratchet.courtroom.submission+json; version=1'

export interface Submission {
  v: 1
  /** The server this was signed for, as the client named it (scheme, host, port). */
  origin: string
  submitted_at: string
  /** Consecutive entries of one agent's ledger, oldest first. */
  entries: DsseEnvelope[]
}

/** Entries in one submission at most (a client sends a long ledger in several). */
export const MAX_BATCH = 64

export const REASONS = {
  malformed_json: 400,
  body_too_large: 413,
  not_an_envelope: 400,
  wrong_payload_type: 400,
  not_canonical: 400,
  malformed_submission: 400,
  malformed_entry: 400,
  invalid_case: 422,
  missing_signature: 401,
  bad_signature: 401,
  bad_entry_signature: 401,
  wrong_origin: 403,
  stale_timestamp: 403,
  future_timestamp: 403,
  unknown_key: 403,
  key_revoked: 403,
  key_bound_elsewhere: 403,
  agent_revoked: 403,
  duplicate: 409,
  duplicate_case: 409,
  sequence_replayed: 409,
  sequence_gap: 409,
  chain_broken: 409,
  rate_limited: 429,
  store_unavailable: 503,
} as const
export type Reason = keyof typeof REASONS

export interface Refusal {
  refused: true
  status: number
  reason: Reason
  detail: string
  /** The entry refused (its place in the submission), when one entry is the reason. */
  index?: number
}
export const refuse = (reason: Reason, detail: string, index?: number): Refusal => ({
  refused: true,
  status: REASONS[reason],
  reason,
  detail,
  ...(index !== undefined ? { index } : {}),
})
export const isRefusal = (x: unknown): x is Refusal => !!x && typeof x === 'object' && (x as Refusal).refused === true

export interface Item {
  entry: Entry
  /** The ledger envelope's hash (what the next entry's prev names). */
  entryHash: string
  /** The canonical ledger envelope: the transparency log's leaf, and what is stored. */
  leaf: string
  envelope: DsseEnvelope
}

export interface Parsed {
  refused?: false
  outer: DsseEnvelope
  submission: Submission
  items: Item[]
  agent: string
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/
const AGENT = /^agent_[0-9a-f]{16}$/
const KINDS: EntryKind[] = ['genesis', 'case', 'checkpoint', 'rotation', 'revocation', 'repair']

function decode(
  env: DsseEnvelope,
  type: string,
  what: string,
  index?: number,
): { value: Record<string, unknown> } | Refusal {
  if (env.payloadType !== type)
    return refuse(
      'wrong_payload_type',
      `${what}: payloadType is "${String(env.payloadType).slice(0, 80)}", expected "${type}"`,
      index,
    )
  const text = fromBase64(env.payload).toString('utf8')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return refuse('not_canonical', `${what}: the payload is not JSON`, index)
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return refuse(
      index === undefined ? 'malformed_submission' : 'malformed_entry',
      `${what}: the payload is not an object`,
      index,
    )
  // The signature covers the bytes; the bytes must be the one canonical form, so what is stored and shown is what was signed.
  if (canonicalJson(value) !== text)
    return refuse('not_canonical', `${what}: the payload is not in RFC 8785 canonical form`, index)
  return { value: value as Record<string, unknown> }
}

function parseEntry(c: Pick<ChainCrypto, 'sha256'>, raw: unknown, i: number): Item | Refusal {
  const what = `entries[${i}]`
  if (!isEnvelope(raw)) return refuse('malformed_submission', `${what} is not a DSSE envelope`, i)
  if (!raw.signatures.length) return refuse('missing_signature', `${what} carries no signature`, i)
  const inner = decode(raw, ENTRY_TYPE, what, i)
  if (isRefusal(inner)) return inner
  const e = inner.value as unknown as Entry
  if (
    e.v !== 1 ||
    !KINDS.includes(e.kind) ||
    typeof e.agent !== 'string' ||
    !AGENT.test(e.agent) ||
    !Number.isSafeInteger(e.seq) ||
    e.seq < 0 ||
    typeof e.at !== 'string' ||
    !ISO.test(e.at) ||
    !e.body ||
    typeof e.body !== 'object' ||
    Array.isArray(e.body)
  )
    return refuse('malformed_entry', `${what}: not a version 1 ledger entry (v, kind, agent, seq, prev, at, body)`, i)
  if (e.seq === 0 ? e.prev !== null : typeof e.prev !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(e.prev))
    return refuse('malformed_entry', `${what}: prev must be null for the genesis and a sha256 hash after it`, i)
  if (e.kind === 'case') {
    const problem = caseProblem(e.body, e.agent)
    if (problem) return refuse('invalid_case', `${what}: ${problem}`, i)
  }
  const envelope: DsseEnvelope = {
    payload: raw.payload,
    payloadType: raw.payloadType,
    signatures: raw.signatures.map((x) => ({ ...(x.keyid !== undefined ? { keyid: x.keyid } : {}), sig: x.sig })),
  }
  return { entry: e, entryHash: envelopeHash(c, envelope), leaf: canonicalJson(envelope), envelope }
}

/** Parses and checks the shape of a submission; signatures are checked by `judge`, with the keys on record. */
export function parseSubmission(c: Pick<ChainCrypto, 'sha256'>, body: unknown): Parsed | Refusal {
  if (!isEnvelope(body))
    return refuse('not_an_envelope', 'the body is not a DSSE envelope ({payload, payloadType, signatures[]})')
  const outer = decode(body, SUBMISSION_TYPE, 'submission')
  if (isRefusal(outer)) return outer
  const s = outer.value
  const extra = Object.keys(s).filter((k) => !['v', 'origin', 'submitted_at', 'entries'].includes(k))
  if (
    s.v !== 1 ||
    typeof s.origin !== 'string' ||
    typeof s.submitted_at !== 'string' ||
    !ISO.test(s.submitted_at) ||
    !Array.isArray(s.entries) ||
    extra.length
  )
    return refuse(
      'malformed_submission',
      extra.length
        ? `unknown field ${extra[0].slice(0, 40)}`
        : 'expected {v: 1, origin, submitted_at (ISO 8601, UTC), entries: [ledger envelopes]}',
    )
  if (!s.entries.length || s.entries.length > MAX_BATCH)
    return refuse('malformed_submission', `entries: expected 1 to ${MAX_BATCH} ledger envelopes`)
  const items: Item[] = []
  for (const [i, raw] of s.entries.entries()) {
    const item = parseEntry(c, raw, i)
    if (isRefusal(item)) return item
    if (items.length && item.entry.agent !== items[0].entry.agent)
      return refuse(
        'malformed_submission',
        `entries[${i}] belongs to ${item.entry.agent}, not ${items[0].entry.agent}: one agent per submission`,
        i,
      )
    items.push(item)
  }
  // Unsigned only when the entries end the chain (a revocation): no key is left in force to sign with.
  if (!body.signatures.length && items[items.length - 1].entry.kind !== 'revocation')
    return refuse('missing_signature', 'the submission carries no signature')
  return { outer: body, submission: s as unknown as Submission, items, agent: items[0].entry.agent }
}

// ---- the case record ----------------------------------------------------------------------------

export const CASE_FIELDS = [
  'case_id',
  'anonymized_agent_id',
  'offense_type',
  'offense_name',
  'severity',
  'verdict',
  'vote',
  'primary_failure',
  'agent_commentary',
  'punishment_summary',
  'timestamp',
  'schema_version',
  'pack',
  'source',
  'abstentions',
  'evidence_digests',
] as const
export const CASE_ID = /^case_[0-9]{1,16}_[0-9a-f]{8,16}$/
export const OFFENSE = /^[a-z][a-z0-9_]{0,63}$/
export const VERDICTS = ['GUILTY', 'NOT GUILTY'] as const
const SOURCES = ['custodiet', 'route_around', 'incident', 'manual']
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a case field must not hold
const CONTROL = /[\u0000-\u001f\u007f]/

/** What is wrong with a case record, naming the field; undefined when it is a record the server can publish. */
export function caseProblem(b: Record<string, unknown>, agent: string): string | undefined {
  const extra = Object.keys(b).filter((k) => !(CASE_FIELDS as readonly string[]).includes(k))
  if (extra.length) return `unknown field ${extra[0].slice(0, 40)}`
  const text = (k: string, max: number) =>
    typeof b[k] !== 'string'
      ? `${k}: expected text`
      : (b[k] as string).length > max
        ? `${k}: longer than ${max} characters`
        : CONTROL.test(b[k] as string)
          ? `${k}: control characters`
          : // The public record never carries a credential, whichever client signed it (Ratchet's masks before signing).
            maskSecrets(b[k] as string) !== b[k]
            ? `${k}: holds what looks like a credential (mask it before signing)`
            : undefined
  const checks: (string | undefined)[] = [
    typeof b.case_id === 'string' && CASE_ID.test(b.case_id) ? undefined : 'case_id: expected case_<digits>_<hex>',
    b.anonymized_agent_id === agent ? undefined : 'anonymized_agent_id: not the agent whose ledger this is',
    typeof b.offense_type === 'string' && OFFENSE.test(b.offense_type)
      ? undefined
      : 'offense_type: expected snake_case',
    text('offense_name', 120),
    (SEVERITIES as readonly unknown[]).includes(b.severity) ? undefined : 'severity: expected minor|moderate|severe',
    (VERDICTS as readonly unknown[]).includes(b.verdict) ? undefined : 'verdict: expected GUILTY or NOT GUILTY',
    typeof b.vote === 'string' && /^[0-9]-[0-9]$/.test(b.vote)
      ? undefined
      : 'vote: expected <guilty>-<not guilty>, e.g. 2-1',
    text('primary_failure', LIMITS.primary_failure),
    text('agent_commentary', LIMITS.agent_commentary),
    text('punishment_summary', LIMITS.punishment_summary),
    typeof b.timestamp === 'string' && ISO.test(b.timestamp) ? undefined : 'timestamp: expected ISO 8601, UTC',
    b.schema_version === '1.0.0' ? undefined : 'schema_version: expected 1.0.0',
    typeof b.pack === 'string' && /^[a-z][a-z0-9_-]{0,31}$/.test(b.pack) ? undefined : 'pack: expected a pack name',
    SOURCES.includes(b.source as string) ? undefined : `source: expected ${SOURCES.join('|')}`,
    Number.isInteger(b.abstentions) && (b.abstentions as number) >= 0 && (b.abstentions as number) <= 3
      ? undefined
      : 'abstentions: expected 0 to 3',
    Array.isArray(b.evidence_digests) &&
    b.evidence_digests.length <= 64 &&
    b.evidence_digests.every((d) => typeof d === 'string' && /^sha256:[0-9a-f]{64}$/.test(d))
      ? undefined
      : 'evidence_digests: expected at most 64 sha256 digests',
  ]
  const first = checks.find(Boolean)
  if (first) return first
  const [g, n] = (b.vote as string).split('-').map(Number)
  if (g + n + (b.abstentions as number) > 3) return 'vote: more votes and abstentions than the three jurors'
  // The quorum rule of lib/core/courtroom/hearing.ts tally(): the verdict must follow from the vote it states.
  const follows = g + n >= 2 && g > n ? 'GUILTY' : 'NOT GUILTY'
  if (b.verdict !== follows) return `verdict: ${b.verdict} does not follow from the vote ${b.vote}`
  if (g + n < 2) return `vote: ${b.vote} is fewer votes than a quorum (2): no verdict, nothing to publish`
  return undefined
}

// ---- the decision, with the keys and the chain on record ------------------------------------------

export interface KeyOnRecord {
  key_id: string
  public_key: string
  agent_id: string | null
  enrolled_by: 'operator' | 'tofu' | 'rotation' | 'code'
  revoked_at: string | null
  retired_at: string | null
}

export interface AgentOnRecord {
  agent_id: string
  last_seq: number
  last_hash: string
  key_id: string
  revoked: boolean
}

export interface Context {
  /** This server's origin, as clients must sign it. */
  origin: string
  now: number
  /** How far the signed time may lie in the past / future. */
  freshMs: number
  skewMs: number
  /** Trust on first use: an unknown key's genesis enrolls it (labelled tofu). Off unless the operator turns it on. */
  tofu: boolean
}

export interface Accepted {
  refused?: false
  /** Per entry: the key that signed it and the trust it carries. */
  signed: { keyId: string; trust: 'enrolled' | 'tofu' }[]
  /** Keys to write: new ones (first use, rotation), the one bound to the agent, retired and revoked ones. */
  enroll: { key_id: string; public_key: string; enrolled_by: KeyOnRecord['enrolled_by'] }[]
  bind?: string
  retire: string[]
  revoke: string[]
  /** The agent's chain after these entries. */
  agent: AgentOnRecord
}

const normOrigin = (o: string) => o.replace(/\/+$/, '').toLowerCase()

/** Origin and freshness: what the signed context says, against this server. */
export function checkContext(
  s: Submission,
  ctx: Pick<Context, 'origin' | 'now' | 'freshMs' | 'skewMs'>,
): Refusal | undefined {
  if (normOrigin(s.origin) !== normOrigin(ctx.origin))
    return refuse('wrong_origin', `signed for ${s.origin.slice(0, 200)}, not for this server (${ctx.origin})`)
  const at = Date.parse(s.submitted_at)
  if (at < ctx.now - ctx.freshMs)
    return refuse(
      'stale_timestamp',
      `signed at ${s.submitted_at}, more than ${Math.round(ctx.freshMs / 60000)} min ago: sign it again`,
    )
  if (at > ctx.now + ctx.skewMs)
    return refuse('future_timestamp', `signed at ${s.submitted_at}, in the future (check the clock)`)
  return undefined
}

const verifies = (c: ChainCrypto, env: DsseEnvelope, keyId: string, pub: string) =>
  signersOf(c, env, { [keyId]: pub }).has(keyId)

/**
 * Signatures and the chain, entry by entry, then the submission's own signature: by the key the chain
 * leaves in force (after any rotation in it), never one the request names. `agent` is the agent's chain
 * so far (undefined before its first entry); `keyOf` the keys on record.
 */
export function judge(
  c: ChainCrypto,
  p: Parsed,
  ctx: Context,
  agent: AgentOnRecord | undefined,
  keyOf: (keyId: string) => KeyOnRecord | undefined,
): Accepted | Refusal {
  const context = checkContext(p.submission, ctx)
  if (context) return context
  const out: Accepted = { signed: [], enroll: [], retire: [], revoke: [], agent: agent as AgentOnRecord }
  const known = (id: string): KeyOnRecord | undefined =>
    keyOf(id) ??
    (out.enroll.find((k) => k.key_id === id) && {
      ...out.enroll.find((k) => k.key_id === id)!,
      agent_id: p.agent,
      revoked_at: null,
      retired_at: null,
    })
  let state = agent
  let pub = ''
  let trust: 'enrolled' | 'tofu' = 'enrolled'
  for (const [i, { entry: e, entryHash, envelope }] of p.items.entries()) {
    const at = `entries[${i}] (seq ${e.seq})`
    if (!state) {
      if (e.kind !== 'genesis' || e.seq !== 0)
        return refuse(
          'sequence_gap',
          `this server holds nothing of ${e.agent} yet: its entries start with the genesis (seq 0), ${at} is not it`,
          i,
        )
      if (typeof e.body.public_key !== 'string' || fromBase64(e.body.public_key).length !== 32)
        return refuse('malformed_entry', `${at}: the genesis names no 32-byte public_key`, i)
      pub = e.body.public_key
      const keyId = keyIdOf(c, pub)
      const k = keyOf(keyId)
      if (!k) {
        if (!ctx.tofu)
          return refuse(
            'unknown_key',
            `key ${keyId} is not enrolled here (the operator runs: ${CLI} serve keys add <public key>)`,
            i,
          )
        out.enroll.push({ key_id: keyId, public_key: pub, enrolled_by: 'tofu' })
        trust = 'tofu'
      } else {
        if (k.revoked_at) return refuse('key_revoked', `key ${keyId} was revoked on ${k.revoked_at}`, i)
        if (k.agent_id && k.agent_id !== e.agent)
          return refuse('key_bound_elsewhere', `key ${keyId} belongs to another agent`, i)
        trust = k.enrolled_by === 'tofu' ? 'tofu' : 'enrolled'
      }
      out.bind = keyId
      if (!verifies(c, envelope, keyId, pub))
        return refuse('bad_entry_signature', `${at}: the genesis is not signed by the key it names`, i)
      out.signed.push({ keyId, trust })
      state = { agent_id: e.agent, last_seq: 0, last_hash: entryHash, key_id: keyId, revoked: false }
      continue
    }
    if (state.revoked)
      return refuse(
        'agent_revoked',
        `${e.agent} closed its ledger with a revocation: nothing more is accepted from it`,
        i,
      )
    if (e.seq <= state.last_seq)
      return refuse(
        'sequence_replayed',
        `${at} is not after the last accepted entry of ${e.agent} (seq ${state.last_seq})`,
        i,
      )
    if (e.seq > state.last_seq + 1)
      return refuse(
        'sequence_gap',
        `${at} skips seq ${state.last_seq + 1} of ${e.agent}: submit the ledger in order`,
        i,
      )
    if (e.prev !== state.last_hash)
      return refuse(
        'chain_broken',
        `${at} does not follow the entry accepted as seq ${state.last_seq} (its prev hash differs): the ledger was rewritten`,
        i,
      )
    const k = known(state.key_id)
    if (!k) return refuse('unknown_key', `the key in force for ${e.agent} (${state.key_id}) is not on record`, i)
    if (k.revoked_at) return refuse('key_revoked', `key ${k.key_id} was revoked on ${k.revoked_at}`, i)
    pub = k.public_key
    trust = k.enrolled_by === 'tofu' || trust === 'tofu' ? 'tofu' : 'enrolled'
    let next = state.key_id
    if (e.kind === 'rotation') {
      const newPub = e.body.new_public_key
      if (typeof newPub !== 'string' || fromBase64(newPub).length !== 32)
        return refuse('malformed_entry', `${at}: the rotation names no 32-byte new_public_key`, i)
      const newId = keyIdOf(c, newPub)
      if (!verifies(c, envelope, state.key_id, pub) || !verifies(c, envelope, newId, newPub))
        return refuse('bad_entry_signature', `${at}: a rotation is signed by the key in force and by the new key`, i)
      const had = keyOf(newId)
      if (had?.agent_id && had.agent_id !== e.agent)
        return refuse('key_bound_elsewhere', `key ${newId} belongs to another agent`, i)
      if (had?.revoked_at) return refuse('key_revoked', `key ${newId} was revoked on ${had.revoked_at}`, i)
      if (!had) out.enroll.push({ key_id: newId, public_key: newPub, enrolled_by: 'rotation' })
      out.retire.push(state.key_id)
      next = newId
    } else if (!verifies(c, envelope, state.key_id, pub))
      return refuse(
        'bad_entry_signature',
        `${at}: the signature does not verify with key ${state.key_id}: changed after signing, or signed by another key`,
        i,
      )
    if (e.kind === 'revocation') out.revoke.push(state.key_id)
    out.signed.push({ keyId: state.key_id, trust })
    state = { agent_id: e.agent, last_seq: e.seq, last_hash: entryHash, key_id: next, revoked: e.kind === 'revocation' }
  }
  out.agent = state!
  if (!state!.revoked) {
    const k = known(state!.key_id)!
    if (!p.outer.signatures.length) return refuse('missing_signature', 'the submission carries no signature')
    if (!verifies(c, p.outer, k.key_id, k.public_key))
      return refuse(
        'bad_signature',
        `the submission's signature does not verify with key ${k.key_id}, the key in force after these entries`,
      )
  }
  return out
}

/** The payload a client signs: its ledger entries with this server's origin and the time, signed by the key in force after them. */
export function submissionPayload(origin: string, submittedAt: string, entries: DsseEnvelope[]): Buffer {
  return Buffer.from(canonicalJson({ v: 1, origin, submitted_at: submittedAt, entries }), 'utf8')
}
