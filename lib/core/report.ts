// The seed's weekly review, as data: which rules fired, which never do, which are overridden (false
// positives), what was paused and how it ended, custodiet's verdicts, and the five success criteria.

import type { Aggregate } from './mining'
import type { Guardrail } from './guardrails'
import { matchability } from './guardrails'
import type { Incident } from './incidents'
import type { Proposal } from './proposals'
import { isProtectedBuiltin, labelStats, toLabel, type FireSample, type Label } from './labels'
import { CLI } from './manifest'

export interface RuleRow {
  id: string
  severity: string
  fires: number
  overrides: number
  approvals: number
  /** Humans' "was this check needed?" answers on this rule's fires. */
  labelled: number
  needless: number
  /** needless / labelled (human labels only), or null with no labels. */
  fpRate: number | null
  lastFired?: string
  byDay: [string, number][]
  stale: boolean
  /** Never fired, and guards something public, irreversible or catastrophic: quiet is its job. */
  quiet: boolean
  source?: string | null
}

export interface Criterion {
  n: number
  text: string
  met: boolean
  value: string
}

export interface Report {
  period: { from?: string; to?: string; events: number }
  rules: RuleRow[]
  stale: string[]
  quiet: string[]
  /** From human labels only; `labelled` says on how many. */
  fpRate: number | null
  labelled: number
  /** Fires to ask the human about next (ratchet report label, or Telegram buttons). */
  toLabel: FireSample[]
  pauses: Aggregate['pauses']
  custodiet: { trigger: string; attention: number; ok: number; other: number }[]
  repeatedInSession: { session: string; cls: string; times: number }[]
  incidents: { open: number; closed: number; repeatedSameDay: string[] }
  proposals: { pending: number; approved: number; rejected: number }
  criteria: Criterion[]
  /** custodiet's reviewer, a paid model: what it is, its daily cap, and its calls and cost in the period. */
  reviewer?: ReviewerSpend
}

export interface ReviewerSpend {
  on: boolean
  reviewer: string
  cap: { usd: number; calls: number }
  days: { day: string; calls: number; usd: number }[]
  total: { calls: number; usd: number }
  /** The cost file cannot be read (reviews are off as at the cap). */
  unreadable?: string
}

const dollars = (x: number) => `$${x.toFixed(x > 0 && x < 1 ? 4 : 2)}`

/** The reviewer's line of the weekly review. */
export function reviewerText(s: ReviewerSpend): string {
  if (!s.on) return 'Reviewer (custodiet): off — deterministic checks only, no model calls'
  if (s.unreadable) return `Reviewer (custodiet): ${s.reviewer}; cost unknown: ${s.unreadable}`
  const worst = s.days.reduce((a, d) => (d.usd > a.usd ? d : a), { day: '', calls: 0, usd: 0 })
  return `Reviewer (custodiet): ${s.reviewer} — ${s.total.calls} model call${s.total.calls === 1 ? '' : 's'}, ${dollars(s.total.usd)} in the period${worst.day ? ` (most in a day: ${dollars(worst.usd)} on ${worst.day})` : ''}; daily cap ${dollars(s.cap.usd)} or ${s.cap.calls} calls`
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 100)}%`)

export function buildReport(
  agg: Aggregate,
  rules: Guardrail[],
  incidents: Incident[],
  proposals: Proposal[],
  labels: Label[] = [],
  sampleSize = 5,
): Report {
  const ls = labelStats(labels, agg.first, agg.last)
  const rows = ruleRows(agg, rules, ls)
  const repeatedInSession: Report['repeatedInSession'] = []
  for (const [session, m] of agg.sessionIncidentClasses)
    for (const [cls, times] of m) if (times >= 2) repeatedInSession.push({ session, cls, times })
  const repeatedSameDay = repeatsSameDay(incidents)
  return {
    period: { from: agg.first, to: agg.last, events: agg.events },
    rules: rows.sort((a, b) => b.fires - a.fires || a.id.localeCompare(b.id)),
    stale: rows.filter((r) => r.stale).map((r) => r.id),
    quiet: rows.filter((r) => r.quiet).map((r) => r.id),
    fpRate: ls.rate,
    labelled: ls.labelled,
    toLabel: toLabel(
      agg.fireSample.map(({ rank: _rank, ...f }) => f),
      labels,
      sampleSize,
    ),
    pauses: agg.pauses,
    custodiet: [...agg.custodiet].map(([trigger, c]) => ({
      trigger,
      attention: c.attention,
      ok: c.ok,
      other: c.other,
    })),
    repeatedInSession,
    incidents: {
      open: incidents.filter((i) => i.status === 'open').length,
      closed: incidents.filter((i) => i.status === 'closed').length,
      repeatedSameDay,
    },
    proposals: {
      pending: proposals.filter((p) => p.status === 'pending').length,
      approved: proposals.filter((p) => p.status === 'approved').length,
      rejected: proposals.filter((p) => p.status === 'rejected').length,
    },
    criteria: successCriteria(agg, rows, ls, proposals, repeatedSameDay),
  }
}

/** One row per rule: its fires, overrides and human labels in the period, and whether it is stale or quiet by design. */
function ruleRows(agg: Aggregate, rules: Guardrail[], ls: ReturnType<typeof labelStats>): RuleRow[] {
  return rules.map((r) => {
    const s = agg.rules.get(r.id)
    const fires = s?.fires ?? 0
    const l = ls.byRule[r.id] ?? { labelled: 0, needless: 0 }
    const never = fires === 0 && matchability(r) !== 'awareness' && r.enabled !== false
    return {
      id: r.id,
      severity: r.severity,
      fires,
      overrides: s?.overrides ?? 0,
      approvals: s?.approvals ?? 0,
      labelled: l.labelled,
      needless: l.needless,
      fpRate: l.labelled ? l.needless / l.labelled : null,
      lastFired: s?.lastFired ?? r.last_fired ?? undefined,
      byDay: [...(s?.byDay ?? new Map())].sort(),
      stale: never && !isProtectedBuiltin(r),
      quiet: never && isProtectedBuiltin(r),
      source: r.source,
    }
  })
}

/** Two incidents of one class on the same day (or in the same recorded session) count as a repeat. */
function repeatsSameDay(incidents: Incident[]): string[] {
  const seen = new Map<string, string>()
  const repeatedSameDay: string[] = []
  for (const i of incidents) {
    const k = `${i.pattern || i.class}|${i.session ?? i.date}`
    if (seen.has(k)) repeatedSameDay.push(`${seen.get(k)} → ${i.id}`)
    else seen.set(k, i.id)
  }
  return repeatedSameDay
}

/** The five success criteria of the seed, each met or not, with the number behind it. */
function successCriteria(
  agg: Aggregate,
  rows: RuleRow[],
  ls: ReturnType<typeof labelStats>,
  proposals: Proposal[],
  repeatedSameDay: string[],
): Criterion[] {
  const totalFires = rows.reduce((a, r) => a + r.fires, 0)
  const fpRate = ls.rate
  const approvedFromDetect = proposals.filter((p) => p.status === 'approved' && p.guardrail).length
  const prevented = agg.pauses.denied + agg.pauses.timeout
  return [
    {
      n: 1,
      text: 'Zero repeated-class incidents within a session',
      met: repeatedSameDay.length === 0,
      value: `${repeatedSameDay.length} repeated`,
    },
    {
      n: 2,
      text: 'All public-surface actions pass through preflight',
      met: agg.publicSurface.total === agg.publicSurface.checked,
      value: `${agg.publicSurface.checked}/${agg.publicSurface.total} checked`,
    },
    {
      n: 3,
      text: 'At least one incident prevented by a pause',
      met: prevented >= 1,
      value: `${prevented} paused actions not done (${agg.pauses.denied} denied, ${agg.pauses.timeout} timed out)`,
    },
    {
      n: 4,
      text: 'Guardrail fire rate > 0 and false-positive rate < 30% (human labels)',
      met: totalFires > 0 && fpRate !== null && fpRate < 0.3,
      value: `${totalFires} fires, FP ${pct(fpRate)}${ls.labelled ? ` on ${ls.labelled} labelled` : ` (no labels yet: ${CLI} report label)`}`,
    },
    {
      n: 5,
      text: 'At least 2 guardrails added from pattern-detect',
      met: approvedFromDetect >= 2,
      value: `${approvedFromDetect} added`,
    },
  ]
}

export function reportText(r: Report): string {
  const lines = [
    `Ratchet weekly review — ${r.period.from?.slice(0, 10) ?? '?'} to ${r.period.to?.slice(0, 10) ?? '?'} (${r.period.events} events)`,
    '',
    'Guardrails (fires · retried after check · approved · needless by human label · last fired):',
  ]
  for (const x of r.rules)
    lines.push(
      `  ${x.id.padEnd(18)} ${String(x.fires).padStart(5)} · ${String(x.overrides).padStart(4)} · ${String(x.approvals).padStart(4)} · ${(x.labelled ? `${x.needless}/${x.labelled}` : '-').padStart(5)} · ${x.lastFired ?? 'never'}`,
    )
  lines.push(
    `  False-positive rate, from human labels: ${pct(r.fpRate)}${r.labelled ? ` (${r.labelled} fires labelled)` : ' (no fires labelled yet)'} (target < 30%)`,
  )
  lines.push(`  Never fired (candidates for removal): ${r.stale.length ? r.stale.join(', ') : 'none'}`)
  if (r.quiet.length)
    lines.push(
      `  Quiet (never fired; they guard public, irreversible or catastrophic actions — kept): ${r.quiet.join(', ')}`,
    )
  if (r.toLabel.length) {
    lines.push('', 'Was this check needed? Label these fires (the false-positive rate comes from your answers):')
    for (const f of r.toLabel)
      lines.push(`  ${f.id}  ${f.rules.join(',')}  ${f.time?.slice(0, 16) ?? ''}  ${f.action ?? ''}`)
    lines.push(`  ${CLI} report label <id> needed|needless [--note "why"]`)
  }
  lines.push(
    '',
    `Paused actions: ${r.pauses.paused} paused, ${r.pauses.approved} approved, ${r.pauses.denied} denied, ${r.pauses.timeout} timed out, ${r.pauses.consumed} ran after approval`,
  )
  if (r.reviewer) lines.push(reviewerText(r.reviewer))
  lines.push(
    `custodiet verdicts: ${r.custodiet.length ? r.custodiet.map((c) => `${c.trigger}: ${c.attention} attention / ${c.ok} ok${c.other ? ` / ${c.other} unusable` : ''}`).join('; ') : 'none'}`,
  )
  lines.push(
    `Repeated incident classes within a session (caught by guardrails): ${r.repeatedInSession.length ? r.repeatedInSession.map((x) => `${x.cls} ×${x.times}`).join(', ') : 'none'}`,
  )
  lines.push(
    `Incidents: ${r.incidents.open} open, ${r.incidents.closed} closed. Proposals: ${r.proposals.pending} pending, ${r.proposals.approved} approved, ${r.proposals.rejected} rejected.`,
  )
  lines.push('', 'Success criteria:')
  for (const c of r.criteria) lines.push(`  ${c.met ? '✓' : '✗'} ${c.n}. ${c.text} — ${c.value}`)
  return lines.join('\n')
}
