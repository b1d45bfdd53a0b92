// guardrails.json: the seed's format as-is (a bare array of {id, source, pattern, trigger, rule,
// severity, added, last_fired, fire_count}) plus optional machine matching (`match`) and an explicit
// `decision`. Validation returns problems as data; only the edges turn them into messages or exits.

import * as z from 'zod/mini'
import { isKnownPattern } from './patterns'
import { issueMessage } from './payloads'

export const DECISIONS = ['warn', 'check', 'ask', 'pause', 'deny'] as const
export type RuleDecision = (typeof DECISIONS)[number]
/** Strength order: a stronger decision wins when several rules fire. */
export const STRENGTH: Record<RuleDecision, number> = { warn: 1, check: 2, ask: 3, pause: 4, deny: 5 }

const guardrailSchema = () => {
  const globList = z.optional(z.array(z.string()))
  const match = z.strictObject({ tools: globList, command: globList, paths: globList, urls: globList })
  return z.looseObject({
    id: z.string().check(z.minLength(1)),
    source: z.optional(z.nullable(z.string())),
    pattern: z.string().check(z.minLength(1)),
    trigger: z.optional(z.nullable(z.string())),
    rule: z.string(),
    severity: z.enum(['hard', 'soft']),
    added: z.optional(z.nullable(z.string())),
    last_fired: z.optional(z.nullable(z.string())),
    fire_count: z.optional(z.nullable(z.number())),
    match: z.optional(match),
    decision: z.optional(z.enum(DECISIONS)),
    check: z.optional(z.string()),
    enabled: z.optional(z.boolean()),
  })
}
const tuningSchema = () =>
  z.looseObject({
    id: z.string().check(z.minLength(1)),
    decision: z.optional(z.enum(DECISIONS)),
    enabled: z.optional(z.boolean()),
    check: z.optional(z.string()),
    severity: z.optional(z.enum(['hard', 'soft'])),
    match: z.optional(
      z.strictObject({
        tools: z.optional(z.array(z.string())),
        command: z.optional(z.array(z.string())),
        paths: z.optional(z.array(z.string())),
        urls: z.optional(z.array(z.string())),
      }),
    ),
  })
let tuning: ReturnType<typeof tuningSchema> | undefined
const TuningSchema = () => (tuning ??= tuningSchema())
let schema: ReturnType<typeof guardrailSchema> | undefined
/** The zod schema of one guardrail, built on first use (a hook whose file is already validated never needs it). */
export const GuardrailSchema = () => (schema ??= guardrailSchema())
export type Guardrail = z.infer<ReturnType<typeof guardrailSchema>>

export interface Problem {
  /** JSON path inside the file, e.g. `[2].severity`. */
  where: string
  message: string
}

export interface LoadedRules {
  rules: Guardrail[]
  problems: Problem[]
  /** True when the file could not be used at all (bad JSON, not an array). */
  fatal: boolean
}

/** Validates the parsed file entry by entry: one bad rule is reported and skipped, the rest still work. */
export function validateGuardrails(raw: unknown): LoadedRules {
  const list = Array.isArray(raw)
    ? raw
    : raw && typeof raw === 'object' && Array.isArray((raw as { guardrails?: unknown }).guardrails)
      ? (raw as { guardrails: unknown[] }).guardrails
      : null
  if (!list)
    return {
      rules: [],
      problems: [{ where: '(root)', message: 'expected an array of guardrails (or {"guardrails": [...]})' }],
      fatal: true,
    }
  const rules: Guardrail[] = []
  const problems: Problem[] = []
  const ids = new Set<string>()
  list.forEach((entry, i) => {
    // An entry with neither `pattern` nor `rule` tunes a built-in by id (see builtins.ts).
    // Built-in ids are RG-*; tunings of an unknown RG- id are reported when the built-ins are merged.
    const tuning =
      entry &&
      typeof entry === 'object' &&
      /^RG-/.test(String((entry as { id?: unknown }).id)) &&
      !('pattern' in entry) &&
      !('rule' in entry)
    const r = (tuning ? TuningSchema() : GuardrailSchema()).safeParse(entry)
    if (!r.success) {
      for (const issue of r.error.issues.slice(0, 3))
        problems.push({
          where: `[${i}]${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`,
          message: issueMessage(issue),
        })
      return
    }
    const g = r.data as Guardrail
    if (ids.has(g.id)) problems.push({ where: `[${i}].id`, message: `duplicate id ${g.id}; the first one wins` })
    else {
      ids.add(g.id)
      rules.push(g)
    }
  })
  return { rules, problems, fatal: false }
}

/** Why a rule can or cannot be matched by machine; shown by `guardrails list` and `explain`. */
export function matchability(g: Guardrail): 'pattern' | 'match' | 'pattern+match' | 'awareness' {
  const known = isKnownPattern(g.pattern)
  if (g.match && known) return 'pattern+match'
  if (g.match) return 'match'
  if (known) return 'pattern'
  return 'awareness'
}

export function decisionOf(g: Guardrail): RuleDecision {
  return g.decision ?? (g.severity === 'hard' ? 'deny' : 'check')
}

/** The next free `GR-NNN` id (after the highest in use). */
export function nextGuardrailId(ids: Iterable<string>): string {
  let n = 0
  const taken = new Set(ids)
  for (const id of taken) n = Math.max(n, Number(/^GR-(\d+)$/.exec(id)?.[1] ?? 0))
  let id = `GR-${String(++n).padStart(3, '0')}`
  while (taken.has(id)) id = `GR-${String(++n).padStart(3, '0')}`
  return id
}

export const citesIncident = (g: Guardrail) => /\bINC-\d+/i.test(g.source ?? '')
