// The shapes of the two files every tool call reads (the session record and config.json), checked by hand:
// exactly what their zod schemas in lib/io/registry.ts accept, without loading zod. The store takes what
// these accept and gives anything else to the schema (which also words the problem); preflight-check's fast
// path hands anything else to the full engine. test/unit/state-hand-checks.test.ts compares them with zod.
// Pure, with no imports: the fast path's small bundle carries it.

/** A JSON object as JSON.parse makes it (an own `__proto__` key is left to the schema). */
const plainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.getPrototypeOf(v) === Object.prototype &&
  !Object.hasOwn(v, '__proto__')
const numbers = (v: unknown) => plainObject(v) && Object.values(v).every((x) => typeof x === 'number')
const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string')
const optional = (v: unknown, ok: (v: unknown) => boolean) => v === undefined || ok(v)
const isNumber = (v: unknown) => typeof v === 'number'
const isBoolean = (v: unknown) => typeof v === 'boolean'
const isString = (v: unknown) => typeof v === 'string'

/** A session record's fields (the schema is lib/io/registry.ts sessionSchema). */
export interface SessionShape {
  reads: Record<string, number>
  prompts: string[]
  checks: Record<string, number>
  blocked?: { at: number; fingerprint: string; patterns: string[]; paths: string[]; summary: string }[]
  compactions?: number
  updated?: number
  created?: Record<string, number>
  secrets?: Record<string, number>
}

const SESSION_KEYS: ReadonlySet<string> = new Set([
  'reads',
  'prompts',
  'checks',
  'blocked',
  'compactions',
  'updated',
  'created',
  'secrets',
])
const BLOCKED_KEYS: ReadonlySet<string> = new Set(['at', 'fingerprint', 'patterns', 'paths', 'summary'])

/** The session record itself, when the schema would take it as it is (no key it would strip), else undefined. */
export function plainSession(raw: unknown): SessionShape | undefined {
  if (!plainObject(raw) || Object.keys(raw).some((k) => !SESSION_KEYS.has(k))) return undefined
  if (!numbers(raw.reads) || !strings(raw.prompts) || !numbers(raw.checks)) return undefined
  if (
    !optional(raw.compactions, isNumber) ||
    !optional(raw.updated, isNumber) ||
    !optional(raw.created, numbers) ||
    !optional(raw.secrets, numbers)
  )
    return undefined
  const blocked = (b: unknown) =>
    plainObject(b) &&
    Object.keys(b).every((k) => BLOCKED_KEYS.has(k)) &&
    isNumber(b.at) &&
    isString(b.fingerprint) &&
    strings(b.patterns) &&
    strings(b.paths) &&
    isString(b.summary)
  if (!optional(raw.blocked, (v) => Array.isArray(v) && v.every(blocked))) return undefined
  return raw as unknown as SessionShape
}

/** Whether config.json's content is what its schema accepts (a looseObject: other keys pass through). */
export function plainConfig(raw: unknown): raw is Record<string, unknown> {
  if (
    !plainObject(raw) ||
    !optional(raw.checkWindowSeconds, isNumber) ||
    !optional(raw.firstUsePause, isBoolean) ||
    !optional(raw.headlessDefer, isBoolean)
  )
    return false
  const telegram = (t: unknown) =>
    plainObject(t) &&
    optional(t.token, isString) &&
    optional(t.chat_id, (c) => isString(c) || isNumber(c)) &&
    optional(t.api_url, isString)
  return optional(raw.telegram, telegram)
}
