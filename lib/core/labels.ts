// Human labels on guardrail fires: "was this check needed?". The false-positive rate comes from these,
// never from what the agent did next — an agent retrying after a check is the check working, not a
// false positive. Pure.

import { fnv64 } from './fingerprint'
import type { Guardrail } from './guardrails'

export const LABEL_VALUES = ['needed', 'needless'] as const
export type LabelValue = (typeof LABEL_VALUES)[number]

/** One fire of one or more guardrails (a first attempt that was stopped), as sampled for labelling. */
export interface FireSample {
  id: string
  time?: string
  session?: string
  action?: string
  rules: string[]
}

export interface Label extends FireSample {
  label: LabelValue
  note?: string
  /** cli | telegram:@name */
  by: string
  at: string
}

export const fireId = (e: { time?: string; session?: string; action?: string; rules: string[] }): string => `F-${fnv64(`${e.time ?? ''}|${e.session ?? ''}|${e.action ?? ''}|${e.rules.join(',')}`).slice(0, 8)}`

export function validateLabels(raw: unknown): Label[] | string {
  if (!Array.isArray(raw)) return 'expected an array of labels'
  for (let i = 0; i < raw.length; i++) {
    const l = raw[i] as Partial<Label>
    if (typeof l?.id !== 'string' || !LABEL_VALUES.includes(l.label as LabelValue) || !Array.isArray(l.rules)) return `[${i}]: expected a label with id, rules and label (needed|needless)`
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

/** The next fires to ask the human about: not yet labelled, a spread over rules, at most `n`. */
export function toLabel(sample: FireSample[], labels: Label[], n: number): FireSample[] {
  const done = new Set(labels.map((l) => l.id))
  const open = sample.filter((s) => !done.has(s.id))
  // Round-robin over rules, so one noisy rule does not fill the whole sample.
  const byRule = new Map<string, FireSample[]>()
  for (const s of open) byRule.set(s.rules[0] ?? '?', [...(byRule.get(s.rules[0] ?? '?') ?? []), s])
  const out: FireSample[] = []
  while (out.length < n && [...byRule.values()].some((l) => l.length)) for (const l of byRule.values()) if (l.length && out.length < n) out.push(l.shift()!)
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
