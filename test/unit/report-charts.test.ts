// The weekly review's page and lines on a first day, and the reviewer's cost in them.
import { describe, expect, it } from 'vitest'
import { addEvent, newAggregate, type ActivityEvent } from '../../lib/core/mining'
import { buildReport, reportText, reviewerText, type ReviewerSpend } from '../../lib/core/report'
import { reportHtml } from '../../lib/report/html'
import type { Guardrail } from '../../lib/core/guardrails'

const ev = (o: Partial<ActivityEvent>): ActivityEvent => ({
  time: '2026-11-20T10:00:00Z',
  hook: 'preflight-check',
  event: 'PreToolUse',
  session: 's1',
  tool: 'Bash',
  classes: [],
  patterns: [],
  guardrails: [],
  decision: 'allow',
  ...o,
})
const RULES = [
  { id: 'RG-PUBLIC', pattern: 'public_surface', rule: 'r', severity: 'soft', source: 'built-in' },
] as Guardrail[]
const report = (events: ActivityEvent[]) => {
  const a = newAggregate()
  for (const e of events) addEvent(a, e)
  return buildReport(a, RULES, [], [])
}
const fire = (time: string) => ev({ time, guardrails: ['RG-PUBLIC'], classes: ['public_surface'], decision: 'check' })
/** Points the chart draws: every dot, as [x, y]. */
const dots = (html: string) =>
  [...html.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)"/g)].map((m) => [Number(m[1]), Number(m[2])])

describe('Fires over time', () => {
  it('on a first day (one day of fires) shows that day as a point, not an empty frame', () => {
    const html = reportHtml(report([fire('2026-11-20T10:00:00Z'), fire('2026-11-20T11:00:00Z')]))
    expect(html).not.toContain('No guardrail fired in this period')
    expect(dots(html)).toHaveLength(1)
    expect(html).toContain('<title>RG-PUBLIC 2026-11-20: 2</title>')
  })

  it('over several days, one point a day, the busier day higher', () => {
    const html = reportHtml(
      report([fire('2026-11-20T10:00:00Z'), fire('2026-11-21T10:00:00Z'), fire('2026-11-21T11:00:00Z')]),
    )
    const [a, b] = dots(html)
    expect(dots(html)).toHaveLength(2)
    expect(b[0]).toBeGreaterThan(a[0])
    expect(b[1]).toBeLessThan(a[1])
  })

  it('must stay quiet: with no fire there is no chart to draw, and it says so', () => {
    const html = reportHtml(report([ev({})]))
    expect(html).toContain('No guardrail fired in this period')
    expect(dots(html)).toEqual([])
  })
})

describe("the reviewer's cost in the weekly review", () => {
  const spend = (o: Partial<ReviewerSpend>): ReviewerSpend => ({
    on: true,
    reviewer: 'claude -p --model haiku',
    cap: { usd: 2, calls: 500 },
    days: [],
    total: { calls: 0, usd: 0 },
    ...o,
  })
  it.each([
    [
      'calls and cost, the worst day, and the cap',
      spend({
        days: [
          { day: '2026-11-20', calls: 12, usd: 0.031 },
          { day: '2026-11-21', calls: 3, usd: 0.008 },
        ],
        total: { calls: 15, usd: 0.039 },
      }),
      'Reviewer (custodiet): claude -p --model haiku — 15 model calls, $0.0390 in the period (most in a day: $0.0310 on 2026-11-20); daily cap $2.00 or 500 calls',
    ],
    [
      'nothing spent is said, not left out',
      spend({}),
      'Reviewer (custodiet): claude -p --model haiku — 0 model calls, $0.00 in the period; daily cap $2.00 or 500 calls',
    ],
    [
      'off',
      spend({ on: false, reviewer: 'off' }),
      'Reviewer (custodiet): off — deterministic checks only, no model calls',
    ],
    [
      'an unreadable cost file is named',
      spend({ unreadable: 'cost-daily.json: not JSON' }),
      'Reviewer (custodiet): claude -p --model haiku; cost unknown: cost-daily.json: not JSON',
    ],
  ])('%s', (_n, s, line) => {
    expect(reviewerText(s)).toBe(line)
    const r = { ...report([]), reviewer: s }
    expect(reportText(r)).toContain(line)
    expect(reportHtml(r)).toContain(line.replace(/—/g, '—'))
  })
})
