// The session file and config.json are read on every tool call and checked by hand (no zod on the hot
// path). The hand check may only ever agree with the schema: each case is run through both, and they must
// accept the same inputs with the same value; what the hand check leaves alone still gets the schema's answer.
import { describe, expect, it } from 'vitest'
import { STATE, configSchema, sessionSchema } from '../../lib/io/registry'

const viaSchema = (build: () => { safeParse(raw: unknown): { success: boolean; data?: unknown } }, raw: unknown) => {
  const r = build().safeParse(raw)
  return r.success ? { ok: true, value: r.data } : { ok: false }
}
const viaStore = (check: (raw: unknown) => unknown, raw: unknown) => {
  const v = check(raw)
  return typeof v === 'string' ? { ok: false } : { ok: true, value: v }
}

const session = { reads: { '/p/a.ts': 1 }, prompts: ['fix it'], checks: { fp1: 2 } }
const blocked = { at: 1, fingerprint: 'f', patterns: ['git_push'], paths: ['/p/x'], summary: 'git push' }
const SESSIONS: unknown[] = [
  session,
  { reads: {}, prompts: [], checks: {} },
  { ...session, compactions: 2, updated: 3, created: { '/p/n.ts': 4 }, secrets: { '.env': 5 }, blocked: [blocked] },
  { ...session, extra: 1 }, // stripped by the schema
  { ...session, blocked: [{ ...blocked, more: true }] }, // stripped inside
  { ...session, reads: [] },
  { ...session, reads: { a: '1' } },
  { ...session, reads: null },
  { ...session, prompts: ['a', 2] },
  { ...session, prompts: 'fix' },
  { ...session, checks: undefined },
  { ...session, compactions: '2' },
  { ...session, compactions: null },
  { ...session, updated: {} },
  { ...session, created: [] },
  { ...session, secrets: { '.env': true } },
  { ...session, blocked: {} },
  { ...session, blocked: [{ ...blocked, at: '1' }] },
  { ...session, blocked: [{ ...blocked, paths: [1] }] },
  { ...session, blocked: [null] },
  { prompts: [], checks: {} },
  [],
  null,
  'session',
  3,
]
const CONFIGS: unknown[] = [
  {},
  { checkWindowSeconds: 60, firstUsePause: false, headlessDefer: true },
  { checkWindowSeconds: 60, somethingNew: { a: 1 } }, // looseObject: kept
  { telegram: { chat_id: 12, token: 't', api_url: 'https://x', extra: 1 } },
  { telegram: { chat_id: '12' } },
  { checkWindowSeconds: 'ten' },
  { firstUsePause: 'no' },
  { headlessDefer: 0 },
  { telegram: null },
  { telegram: [] },
  { telegram: { chat_id: true } },
  { telegram: { token: 5 } },
  [],
  null,
  'x',
]

describe('the hand checks of the files read on every call agree with their schemas', () => {
  it.each(SESSIONS.map((s) => [JSON.stringify(s), s]))('session %s', (_, raw) => {
    // Through JSON, as the store reads it (an own __proto__ key included, below).
    const a = JSON.parse(JSON.stringify(raw))
    expect(viaStore(STATE.session.schema!(), a)).toEqual(viaSchema(sessionSchema, JSON.parse(JSON.stringify(raw))))
  })

  it.each(CONFIGS.map((c) => [JSON.stringify(c), c]))('config %s', (_, raw) => {
    expect(viaStore(STATE.config.schema!(), JSON.parse(JSON.stringify(raw)))).toEqual(
      viaSchema(configSchema, JSON.parse(JSON.stringify(raw))),
    )
  })

  it('the shapes Ratchet writes are taken by hand (zod is not loaded for them)', () => {
    // The hand check returns the parsed value itself; the schema makes a new one.
    for (const raw of SESSIONS.slice(0, 3)) {
      const a = JSON.parse(JSON.stringify(raw))
      expect(STATE.session.schema!()(a)).toBe(a)
    }
    for (const raw of CONFIGS.slice(0, 5)) {
      const a = JSON.parse(JSON.stringify(raw))
      expect(STATE.config.schema!()(a)).toBe(a)
    }
  })

  it('a key named like a prototype member gets the schema’s answer, not the hand check’s', () => {
    for (const text of [
      '{"reads":{"__proto__":1},"prompts":[],"checks":{}}',
      '{"__proto__":{"a":1},"reads":{},"prompts":[],"checks":{}}',
      '{"reads":{"constructor":1,"toString":2},"prompts":[],"checks":{}}',
    ]) {
      expect(viaStore(STATE.session.schema!(), JSON.parse(text))).toEqual(viaSchema(sessionSchema, JSON.parse(text)))
    }
    expect(viaStore(STATE.config.schema!(), JSON.parse('{"__proto__":{"checkWindowSeconds":"x"}}'))).toEqual(
      viaSchema(configSchema, JSON.parse('{"__proto__":{"checkWindowSeconds":"x"}}')),
    )
  })
})
