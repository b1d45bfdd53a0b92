// session-start's decision: pure. Builds the compact "active guardrails" block the agent sees when a
// session begins (the seed's awareness injection point), hard rules first, at most five lines.

import type { Decision } from '../../lib/core/decision'
import { decisionOf, type Guardrail } from '../../lib/core/guardrails'
import { CLI } from '../../lib/core/manifest'

export interface PendingSummary {
  id: string
  action: string
  severity?: string
  requested_at?: string
}

export const MAX_RULE_LINES = 5

export function activeGuardrailsBlock(rules: Guardrail[], pending: PendingSummary[]): string {
  const active = rules.filter((r) => r.enabled !== false)
  // The project's own rules carry its incident learnings: they come first; the built-ins are generic.
  const builtin = (r: Guardrail) => (r as { origin?: string }).origin === 'built-in'
  const ordered = [...active].sort(
    (a, b) =>
      Number(builtin(a)) - Number(builtin(b)) ||
      rank(a) - rank(b) ||
      (b.fire_count ?? 0) - (a.fire_count ?? 0) ||
      a.id.localeCompare(b.id),
  )
  const nBuiltin = active.filter(builtin).length
  const count = nBuiltin ? `${active.length - nBuiltin} from this project + ${nBuiltin} built-in` : `${active.length}`
  const lines = [
    `[RATCHET] Active guardrails (${count}). A matching action is stopped once with a [PRE-FLIGHT] note; hard rules block.`,
  ]
  for (const r of ordered.slice(0, MAX_RULE_LINES)) {
    const when = r.trigger ? `when ${r.trigger}: ` : ''
    lines.push(`- ${r.severity.toUpperCase()} ${r.id}${r.source ? ` (${r.source})` : ''}: ${when}${r.rule}`)
  }
  const rest = ordered.length - MAX_RULE_LINES
  if (rest > 0) lines.push(`  …and ${rest} more (${CLI} guardrails list).`)
  if (pending.length) {
    lines.push(`Pending approvals (${pending.length}) — do not retry these until the user decides:`)
    for (const p of pending.slice(0, 3)) lines.push(`- ${p.id}: ${p.action}${p.severity ? ` [${p.severity}]` : ''}`)
    if (pending.length > 3) lines.push(`  …and ${pending.length - 3} more (${CLI} pending list).`)
  }
  return lines.join('\n')
}

function rank(r: Guardrail): number {
  const d = decisionOf(r)
  return r.severity === 'hard' ? 0 : d === 'ask' || d === 'pause' ? 1 : 2
}

export function decide(rules: Guardrail[], pending: PendingSummary[], problems: string[]): Decision {
  const context = activeGuardrailsBlock(rules, pending)
  return problems.length ? { kind: 'allow', context, notice: `Ratchet: ${problems[0]}` } : { kind: 'allow', context }
}
