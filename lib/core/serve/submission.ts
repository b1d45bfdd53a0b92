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
import { ENTRY_TYPE, envelopeHash, type ChainCrypto, type Entry, type EntryKind } from '../courtroom/chain'
import { LIMITS } from '../courtroom/hearing'
import { SEVERITIES } from '../courtroom/offenses'
import { maskSecrets } from '../secrets'

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

/** The payload a client signs: its ledger entries with this server's origin and the time, signed by the key in force after them. */
export function submissionPayload(origin: string, submittedAt: string, entries: DsseEnvelope[]): Buffer {
  return Buffer.from(canonicalJson({ v: 1, origin, submitted_at: submittedAt, entries }), 'utf8')
}
