// Human labels on guardrail fires: "was this check needed?". The false-positive rate comes from these,
// never from what the agent did next — an agent retrying after a check is the check working, not a
// false positive. Pure.

import { fnv64 } from './fingerprint'
import type { Guardrail } from './guardrails'
import { CLAIM_TTL_MS, type Claim } from './pending'
import { RatchetError, type Result } from './errors'

export const LABEL_VALUES = ['needed', 'needless'] as const
export type LabelValue = (typeof LABEL_VALUES)[number]

/** One fire of one or more guardrails (a first attempt that was stopped), as sampled for labelling. */
export interface FireSample {
  id: string
  time?: string
  session?: string
  action?: string
  rules: string[]
  /** What the hook did (check, pause, deny…), for the human to judge. */
  decision?: string
}

export interface Label extends FireSample {
  label: LabelValue
  note?: string
  /** cli | telegram:@name */
  by: string
  at: string
}

export const fireId = (e: { time?: string; session?: string; action?: string; rules: string[] }): string =>
  `F-${fnv64(`${e.time ?? ''}|${e.session ?? ''}|${e.action ?? ''}|${e.rules.join(',')}`).slice(0, 8)}`

export function validateLabels(raw: unknown): Label[] | string {
  if (!Array.isArray(raw)) return 'expected an array of labels'
  for (let i = 0; i < raw.length; i++) {
    const l = raw[i] as Partial<Label>
    if (typeof l?.id !== 'string' || !LABEL_VALUES.includes(l.label as LabelValue) || !Array.isArray(l.rules))
      return `[${i}]: expected a label with id, rules and label (needed|needless)`
  }
  return raw as Label[]
}

/** Adds or replaces the label of one fire (the latest human answer wins). */
export function withLabel(list: Label[], l: Label): Label[] {
  return [...list.filter((x) => x.id !== l.id), l]
}

export interface LabelStats {
  labelled: number
  needless: number
  /** needless / labelled, or null with no labels. */
  rate: number | null
  byRule: Record<string, { labelled: number; needless: number }>
}

/** The false-positive rate from human labels on fires in the period (`from`/`to` ISO, inclusive). */
export function labelStats(labels: Label[], from?: string, to?: string): LabelStats {
  const inPeriod = labels.filter((l) => (!from || !l.time || l.time >= from) && (!to || !l.time || l.time <= to))
  const byRule: LabelStats['byRule'] = {}
  for (const l of inPeriod)
    for (const r of l.rules) {
      const s = (byRule[r] ??= { labelled: 0, needless: 0 })
      s.labelled++
      if (l.label === 'needless') s.needless++
    }
  const needless = inPeriod.filter((l) => l.label === 'needless').length
  return { labelled: inPeriod.length, needless, rate: inPeriod.length ? needless / inPeriod.length : null, byRule }
}

/** The next fires to ask the human about: not yet labelled (or asked), a spread over rules, at most `n`. */
export function toLabel(sample: FireSample[], labels: { id: string }[], n: number): FireSample[] {
  const done = new Set(labels.map((l) => l.id))
  const open = sample.filter((s) => !done.has(s.id))
  // Round-robin over rules, so one noisy rule does not fill the whole sample.
  const byRule = new Map<string, FireSample[]>()
  for (const s of open) byRule.set(s.rules[0] ?? '?', [...(byRule.get(s.rules[0] ?? '?') ?? []), s])
  const out: FireSample[] = []
  while (out.length < n && [...byRule.values()].some((l) => l.length))
    for (const l of byRule.values()) if (l.length && out.length < n) out.push(l.shift()!)
  return out
}

/**
 * Built-in rules that guard public, irreversible or catastrophic actions. Agent behaviour alone never
 * weakens them, and never firing is their purpose, not a reason to remove them.
 */
export function isProtectedBuiltin(r: Pick<Guardrail, 'id' | 'source' | 'pattern' | 'severity'>): boolean {
  const builtin = r.source === 'built-in' || /^RG-/.test(r.id)
  return builtin && (['public_surface', 'irreversible', 'catastrophic'].includes(r.pattern) || r.severity === 'hard')
}

// ---- asking over Telegram ----------------------------------------------------------------------------
//
// The weekly review sends a few unlabelled fires as messages with buttons. Each ask is recorded in
// label-asks.json and claimed under its lock before the message goes out, so parallel or repeated
// heartbeats ask once; the answer must come back with the ask's secret, from the configured chat.

export const LABEL_ANSWERS = ['needed', 'needless', 'skip'] as const
export type LabelAnswer = (typeof LABEL_ANSWERS)[number]

export interface LabelAsk {
  /** The fire's id (F-…). */
  id: string
  fire: FireSample
  /** Carried in the buttons: a stale or forged tap cannot label another fire. */
  secret: string
  asked_at: string
  /** The Telegram message with the buttons, once sent. */
  message_id?: number
  claim?: Claim
  answer?: LabelAnswer
  answered_by?: string
  answered_at?: string
  attempts?: number
  last_error?: string | null
}

export function validateAsks(raw: unknown): LabelAsk[] | string {
  if (!Array.isArray(raw)) return 'expected an array of label asks'
  for (let i = 0; i < raw.length; i++) {
    const a = raw[i] as Partial<LabelAsk>
    if (typeof a?.id !== 'string' || typeof a.secret !== 'string' || !Array.isArray(a.fire?.rules))
      return `[${i}]: expected an ask with id, secret and fire`
  }
  return raw as LabelAsk[]
}

/**
 * Claims the right to ask about one fire (null: already asked or answered, or another heartbeat is
 * sending it right now). A failed send releases the claim without a message id, so a later beat retries.
 */
export function claimAsk(
  list: LabelAsk[],
  fire: FireSample,
  secret: string,
  by: string,
  now: Date,
  alive: (by: string) => boolean,
): { next: LabelAsk[]; result: LabelAsk | null } {
  const i = list.findIndex((a) => a.id === fire.id)
  const old = i >= 0 ? list[i] : undefined
  if (old && (old.message_id !== undefined || old.answer)) return { next: list, result: null }
  if (old?.claim && old.claim.by !== by && now.getTime() - old.claim.at < CLAIM_TTL_MS && alive(old.claim.by))
    return { next: list, result: null }
  const ask: LabelAsk = {
    ...(old ?? { id: fire.id, fire, secret, asked_at: now.toISOString() }),
    claim: { by, at: now.getTime() },
  }
  return { next: old ? list.map((a, j) => (j === i ? ask : a)) : [...list, ask], result: ask }
}

export function releaseAsk(
  list: LabelAsk[],
  id: string,
  patch: (a: LabelAsk) => Partial<LabelAsk>,
): { next: LabelAsk[]; result: undefined } {
  return {
    next: list.map((a) => (a.id === id ? (({ claim: _c, ...rest }) => ({ ...rest, ...patch(a) }))(a) : a)),
    result: undefined,
  }
}

/** Records the human's press, once: a second press, a redelivered update or a racing heartbeat changes nothing. */
export function answerAsk(
  list: LabelAsk[],
  id: string,
  secret: string,
  answer: LabelAnswer,
  by: string,
  now: Date,
): { next: LabelAsk[]; result: Result<LabelAsk> } {
  const i = list.findIndex((a) => a.id === id && a.secret === secret)
  if (i < 0)
    return { next: list, result: { ok: false, error: new RatchetError('not_found', `no label question for ${id}`) } }
  if (list[i].answer)
    return {
      next: list,
      result: { ok: false, error: new RatchetError('conflict', `${id} is already answered (${list[i].answer})`) },
    }
  const ask: LabelAsk = { ...list[i], answer, answered_by: by, answered_at: now.toISOString() }
  return { next: list.map((a, j) => (j === i ? ask : a)), result: { ok: true, value: ask } }
}

/** Undoes an answer whose label could not be written, so the human can press again. */
export function unanswerAsk(list: LabelAsk[], id: string): { next: LabelAsk[]; result: undefined } {
  return {
    next: list.map((a) => (a.id === id ? (({ answer: _a, answered_by: _b, answered_at: _t, ...rest }) => rest)(a) : a)),
    result: undefined,
  }
}

/** Button data: `lb:<fire id>:<secret>:<n|x|s>` (needed, not needed, skip) — well under Telegram's 64 bytes. */
export const labelButton = (a: Pick<LabelAsk, 'id' | 'secret'>, answer: LabelAnswer): string =>
  `lb:${a.id}:${a.secret}:${answer === 'needed' ? 'n' : answer === 'needless' ? 'x' : 's'}`

/** Parses button data (anchored, fixed-length pieces: linear). */
export function parseLabelButton(data: string): { id: string; secret: string; answer: LabelAnswer } | null {
  const m = /^lb:(F-[0-9a-f]{8}):([0-9a-f]{16}):([nxs])$/.exec(data)
  return m ? { id: m[1], secret: m[2], answer: m[3] === 'n' ? 'needed' : m[3] === 'x' ? 'needless' : 'skip' } : null
}
