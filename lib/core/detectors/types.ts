// A detector looks at the mined aggregates (and the incident log) and proposes guardrails, each with
// its evidence. One file per detector, each with a table of cases in its tests (eslint-rule style).

import type { Aggregate } from '../mining'
import type { Guardrail } from '../guardrails'
import type { Incident } from '../incidents'
import type { Label } from '../labels'

export interface Evidence {
  count: number
  sessions: number
  examples: string[]
  detail?: string
}

export interface Candidate {
  /** Stable identity: the same finding is proposed once, however often pattern-detect runs. */
  key: string
  detector: string
  title: string
  evidence: Evidence
  /** A new guardrail to append… */
  guardrail?: Guardrail
  /** …or a change to an existing one (e.g. a rule that is always overridden becomes a warning). */
  change?: { id: string; decision: Guardrail['decision']; why: string }
}

export interface DetectInput {
  agg: Aggregate
  rules: Guardrail[]
  incidents: Incident[]
  /** Human answers to "was this check needed?" (the only source of false positives). */
  labels: Label[]
  today: string
}

export interface PatternDetector {
  id: string
  description: string
  detect(input: DetectInput): Candidate[]
}

export const draft = (fields: Omit<Guardrail, 'added' | 'last_fired' | 'fire_count'>, today: string): Guardrail =>
  ({ ...fields, added: today, last_fired: null, fire_count: 0 }) as Guardrail

/** Rules in force that already act on a pattern (its own rules, or its class's), at least as strongly as `min`. */
export function coveredBy(
  rules: Guardrail[],
  pattern: string,
  cls: string | undefined,
  min: 'any' | 'human' = 'any',
): Guardrail[] {
  return rules.filter((r) => {
    if (r.enabled === false) return false
    if (r.pattern !== pattern && r.pattern !== cls) return false
    if (min === 'any') return true
    // A human in the loop: a pause, an ask, or a hard deny.
    return (
      r.decision === 'pause' || r.decision === 'ask' || r.decision === 'deny' || (!r.decision && r.severity === 'hard')
    )
  })
}
