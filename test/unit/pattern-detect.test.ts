import { describe, expect, it } from 'vitest'
import { addEvent, newAggregate, type ActivityEvent } from '../../lib/core/mining'
import { falsePositive } from '../../lib/core/detectors/false-positive'
import { recurringIncident } from '../../lib/core/detectors/recurring-incident'
import { repeatedDrift } from '../../lib/core/detectors/repeated-drift'
import { repeatedUnguarded } from '../../lib/core/detectors/repeated-unguarded'
import { routeAround } from '../../lib/core/detectors/route-around'
import { mergeCandidates, guardrailFor } from '../../lib/core/proposals'
import { buildReport } from '../../lib/core/report'
import type { Guardrail } from '../../lib/core/guardrails'
import type { Incident } from '../../lib/core/incidents'

const ev = (o: Partial<ActivityEvent>): ActivityEvent => ({ time: '2026-11-20T10:00:00Z', hook: 'preflight-check', event: 'PreToolUse', session: 's1', tool: 'Bash', classes: [], patterns: [], guardrails: [], decision: 'allow', ...o })
const agg = (events: ActivityEvent[]) => {
  const a = newAggregate()
  for (const e of events) addEvent(a, e)
  return a
}
const rule = (o: Partial<Guardrail>): Guardrail => ({ id: 'R', pattern: 'git_push', rule: 'r', severity: 'soft', ...o }) as Guardrail
const inc = (o: Partial<Incident>): Incident => ({ id: 'INC-001', title: 't', date: '2026-11-01', severity: 'P2', class: 'public_surface', what_happened: '', prevention: [], status: 'closed', ...o })
const times = (n: number, f: (i: number) => ActivityEvent) => Array.from({ length: n }, (_, i) => f(i))
const run = (d: { detect: Function }, events: ActivityEvent[], rules: Guardrail[] = [], incidents: Incident[] = []) => d.detect({ agg: agg(events), rules, incidents, today: '2026-11-21' })

describe('detector: repeated-unguarded', () => {
  it.each([
    ['5 unguarded deploys in 2 sessions → propose', times(5, (i) => ev({ session: `s${i % 2}`, patterns: ['deploy'], classes: ['public_surface'], action: `fly deploy ${i}` })), [], 1],
    ['4 is not enough', times(4, (i) => ev({ session: `s${i % 2}`, patterns: ['deploy'] })), [], 0],
    ['one session is not a pattern', times(9, () => ev({ patterns: ['deploy'] })), [], 0],
    ['already has a rule for it', times(6, (i) => ev({ session: `s${i}`, patterns: ['deploy'] })), [rule({ pattern: 'deploy' })], 0],
    ['guarded each time (a rule fired) → nothing to propose', times(6, (i) => ev({ session: `s${i}`, patterns: ['deploy'], guardrails: ['RG-PUBLIC'], decision: 'check' })), [], 0],
    ['self-protection is never proposed', times(6, (i) => ev({ session: `s${i}`, patterns: ['ratchet_state_edit'] })), [], 0],
  ])('%s', (_name, events, rules, n) => {
    const found = run(repeatedUnguarded, events, rules as Guardrail[])
    expect(found).toHaveLength(n)
    if (n) expect(found[0]).toMatchObject({ key: 'repeated-unguarded:deploy', guardrail: { pattern: 'deploy', severity: 'soft' }, evidence: { count: 5, sessions: 2, examples: ['fly deploy 0', 'fly deploy 1', 'fly deploy 2'] } })
  })
})

describe('detector: false-positive', () => {
  const fires = (id: string, n: number, overrides: number, approvals = 0) => [
    ...times(n, (i) => ev({ session: `s${i}`, guardrails: [id], decision: 'check' })),
    ...times(overrides, (i) => ev({ session: `s${i}`, guardrails: [id], decision: 'proceeded_after_check' })),
    ...times(approvals, (i) => ev({ session: `s${i}`, guardrails: [id], decision: 'approved_by_human' })),
  ]
  it.each([
    ['overridden 9 of 10 → make it a warning', fires('R', 10, 9), 1],
    ['approved by a human 4 and overridden 4 of 5 → too (8/5 counted against fires)', fires('R', 5, 4, 4), 1],
    ['overridden 5 of 10 is a working check', fires('R', 10, 5), 0],
    ['too few fires to judge', fires('R', 4, 4), 0],
  ])('%s', (_n, events, n) => {
    expect(run(falsePositive, events, [rule({ id: 'R' })])).toHaveLength(n)
  })
  it('proposes a change, not a new rule', () => {
    expect(run(falsePositive, fires('R', 10, 10), [rule({ id: 'R' })])[0]).toMatchObject({ change: { id: 'R', decision: 'warn' } })
    expect(run(falsePositive, fires('R', 10, 10), [rule({ id: 'R', decision: 'warn' })])).toEqual([])
  })
})

describe('detector: repeated-drift', () => {
  const verdict = (trigger: string, session: string, decision = 'attention') => ({ hook: 'custodiet', event: 'verdict', trigger, session, decision, note: `${trigger} drift` })
  it.each([
    ['3 Type A findings in 2 sessions', [verdict('error', 'a'), verdict('error', 'b'), verdict('error', 'a')], 1],
    ['OK verdicts do not count', [verdict('error', 'a', 'ok'), verdict('error', 'b', 'ok'), verdict('error', 'c', 'ok')], 0],
    ['one session only', [verdict('todo', 'a'), verdict('todo', 'a'), verdict('todo', 'a')], 0],
  ])('%s', (_n, events, n) => {
    expect(run(repeatedDrift, events as ActivityEvent[])).toHaveLength(n)
  })
})

describe('detector: recurring-incident', () => {
  it.each([
    ['two public-surface incidents, no rule cites them → hard rule citing both', [inc({ id: 'INC-003' }), inc({ id: 'INC-007' })], [], 1],
    ['different classes', [inc({ id: 'INC-003' }), inc({ id: 'INC-004', class: 'irreversible' })], [], 0],
    ['already cited by a guardrail', [inc({ id: 'INC-005' }), inc({ id: 'INC-007' })], [rule({ source: 'INC-005, INC-007' })], 0],
  ])('%s', (_n, incidents, rules, n) => {
    const found = run(recurringIncident, [], rules as Guardrail[], incidents as Incident[])
    expect(found).toHaveLength(n)
    if (n) expect(found[0].guardrail).toMatchObject({ source: 'INC-003, INC-007', severity: 'hard', pattern: 'public_surface' })
  })
})

describe('detector: route-around', () => {
  it.each([
    ['twice → a hard rule closing that side door', [ev({ signals: ['route_around'], action: 'cp /tmp/k secrets/api.key' }), ev({ session: 's2', signals: ['route_around'], action: 'python3 -c "open(\'secrets/api.key\',\'w\')"' })], 1],
    ['once is not a pattern', [ev({ signals: ['route_around'], action: 'cp a b' })], 0],
  ])('%s', (_n, events, n) => {
    const found = run(routeAround, events)
    expect(found).toHaveLength(n)
    if (n) expect(found[0].guardrail).toMatchObject({ severity: 'hard', match: { command: ['cp /tmp/k secrets/api.key', expect.any(String)] } })
  })
})

describe('proposals', () => {
  it('a finding is proposed once, however often pattern-detect runs', () => {
    const c = run(repeatedUnguarded, times(5, (i) => ev({ session: `s${i % 2}`, patterns: ['deploy'] })))
    const first = mergeCandidates([], c, 'now')
    expect(first.result.map((p) => p.id)).toEqual(['PD-001'])
    expect(mergeCandidates(first.next, c, 'later').result).toEqual([])
  })
  it('an approved proposal becomes the next GR id with a source naming the finding', () => {
    const [p] = mergeCandidates([], run(repeatedUnguarded, times(5, (i) => ev({ session: `s${i % 2}`, patterns: ['deploy'] }))), 'now').next
    expect(guardrailFor(p, [{ id: 'GR-001' }, { id: 'RG-PUBLIC' }])).toMatchObject({ id: 'GR-002', source: expect.stringMatching(/^pattern-detect: deploy ×5 in 2 sessions, unguarded \(PD-001\)$/) })
  })
})

describe('weekly report', () => {
  it('per-rule fires, FP rate, stale rules and the five success criteria', () => {
    const events = [
      ...times(8, (i) => ev({ time: `2026-11-1${i % 3}T00:00:00Z`, guardrails: ['RG-PUBLIC'], classes: ['public_surface'], decision: 'check', session: `s${i}` })),
      ev({ guardrails: ['RG-PUBLIC'], classes: ['public_surface'], decision: 'proceeded_after_check' }),
      ev({ classes: ['public_surface'], decision: 'allow' }),
      { hook: 'pause-and-ask', event: 'queue', decision: 'denied' },
    ] as ActivityEvent[]
    const r = buildReport(agg(events), [rule({ id: 'RG-PUBLIC', pattern: 'public_surface' }), rule({ id: 'RG-NEVER', pattern: 'deploy' }), rule({ id: 'AWARE', pattern: 'inline_execution_of_spawnable_task' })], [inc({ id: 'INC-1', date: '2026-11-10' }), inc({ id: 'INC-2', date: '2026-11-10' })], [])
    expect(r.rules.find((x) => x.id === 'RG-PUBLIC')).toMatchObject({ fires: 8, overrides: 1, fpRate: 1 / 8 })
    expect(r.stale).toEqual(['RG-NEVER'])
    expect(r.criteria.map((c) => [c.n, c.met])).toEqual([[1, false], [2, false], [3, true], [4, true], [5, false]])
    expect(r.criteria[1].value).toBe('8/9 checked') // the allowed one slipped through; the retry is not a new action
    expect(r.criteria[0].value).toBe('1 repeated')
  })
})
