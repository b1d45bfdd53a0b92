import { describe, expect, it } from 'vitest'
import { addEvent, newAggregate, type ActivityEvent } from '../../lib/core/mining'
import { falsePositive } from '../../lib/core/detectors/false-positive'
import { recurringIncident } from '../../lib/core/detectors/recurring-incident'
import { repeatedDrift } from '../../lib/core/detectors/repeated-drift'
import { repeatedUnguarded } from '../../lib/core/detectors/repeated-unguarded'
import { routeAround } from '../../lib/core/detectors/route-around'
import { mergeCandidates, guardrailFor } from '../../lib/core/proposals'
import { buildReport, reportText } from '../../lib/core/report'
import type { Guardrail } from '../../lib/core/guardrails'
import type { Incident } from '../../lib/core/incidents'
import {
  answerAsk,
  claimAsk,
  labelButton,
  parseLabelButton,
  releaseAsk,
  toLabel,
  unanswerAsk,
  type Label,
} from '../../lib/core/labels'
import { patternPause } from '../../lib/core/detectors/pattern-pause'
import type { PatternDetector } from '../../lib/core/detectors/types'

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
const agg = (events: ActivityEvent[]) => {
  const a = newAggregate()
  for (const e of events) addEvent(a, e)
  return a
}
const rule = (o: Partial<Guardrail>): Guardrail =>
  ({ id: 'R', pattern: 'git_push', rule: 'r', severity: 'soft', ...o }) as Guardrail
const inc = (o: Partial<Incident>): Incident => ({
  id: 'INC-001',
  title: 't',
  date: '2026-11-01',
  severity: 'P2',
  class: 'public_surface',
  what_happened: '',
  prevention: [],
  status: 'closed',
  ...o,
})
const times = (n: number, f: (i: number) => ActivityEvent) => Array.from({ length: n }, (_, i) => f(i))
const run = (
  d: PatternDetector,
  events: ActivityEvent[],
  rules: Guardrail[] = [],
  incidents: Incident[] = [],
  labels: Label[] = [],
) => d.detect({ agg: agg(events), rules, incidents, labels, today: '2026-11-21' })
const BUILTINS: Guardrail[] = [
  rule({ id: 'RG-PUBLIC', source: 'built-in', pattern: 'public_surface' }),
  rule({ id: 'RG-IRREVERSIBLE', source: 'built-in', pattern: 'irreversible' }),
  rule({ id: 'RG-STALE', source: 'built-in', pattern: 'stale_data' }),
  rule({ id: 'RG-CATASTROPHIC', source: 'built-in', pattern: 'catastrophic', severity: 'hard' }),
]
const lab = (rules: string[], value: 'needed' | 'needless', i: number): Label => ({
  id: `F-${rules[0]}-${i}`,
  rules,
  label: value,
  by: 'cli',
  at: '2026-11-21T00:00:00Z',
  time: '2026-11-20T10:00:00Z',
})
const labels = (ruleId: string, needless: number, needed: number): Label[] => [
  ...Array.from({ length: needless }, (_, i) => lab([ruleId], 'needless', i)),
  ...Array.from({ length: needed }, (_, i) => lab([ruleId], 'needed', 100 + i)),
]

describe('detector: repeated-unguarded', () => {
  it.each([
    [
      '5 unguarded deploys in 2 sessions → propose',
      times(5, (i) =>
        ev({ session: `s${i % 2}`, patterns: ['deploy'], classes: ['public_surface'], action: `fly deploy ${i}` }),
      ),
      [],
      1,
    ],
    ['4 is not enough', times(4, (i) => ev({ session: `s${i % 2}`, patterns: ['deploy'] })), [], 0],
    ['one session is not a pattern', times(9, () => ev({ patterns: ['deploy'] })), [], 0],
    [
      'already has a rule for it',
      times(6, (i) => ev({ session: `s${i}`, patterns: ['deploy'] })),
      [rule({ pattern: 'deploy' })],
      0,
    ],
    [
      'guarded each time (a rule fired) → nothing to propose',
      times(6, (i) => ev({ session: `s${i}`, patterns: ['deploy'], guardrails: ['RG-PUBLIC'], decision: 'check' })),
      [],
      0,
    ],
    [
      'self-protection is never proposed',
      times(6, (i) => ev({ session: `s${i}`, patterns: ['ratchet_state_edit'] })),
      [],
      0,
    ],
    [
      'mined from transcripts (no rule could fire) but RG-PUBLIC covers deploys: nothing',
      times(6, (i) =>
        ev({ session: `s${i}`, patterns: ['deploy'], classes: ['public_surface'], decision: 'transcript' }),
      ),
      BUILTINS,
      0,
    ],
  ])('%s', (_name, events, rules, n) => {
    const found = run(repeatedUnguarded, events, rules as Guardrail[])
    expect(found).toHaveLength(n)
    if (n)
      expect(found[0]).toMatchObject({
        key: 'repeated-unguarded:deploy',
        guardrail: { pattern: 'deploy', severity: 'soft' },
        evidence: { count: 5, sessions: 2, examples: ['fly deploy 0', 'fly deploy 1', 'fly deploy 2'] },
      })
  })
})

describe('detector: false-positive (human labels only)', () => {
  const fires = (id: string, n: number, overrides: number, approvals = 0) => [
    ...times(n, (i) => ev({ session: `s${i}`, guardrails: [id], decision: 'check' })),
    ...times(overrides, (i) => ev({ session: `s${i}`, guardrails: [id], decision: 'proceeded_after_check' })),
    ...times(approvals, (i) => ev({ session: `s${i}`, guardrails: [id], decision: 'approved_by_human' })),
  ]
  const cases: [string, ActivityEvent[], Label[], number][] = [
    ['the agent retried after every check: the check worked, no weakening', fires('R', 10, 10), [], 0],
    ['a human approved every pause: approvals of one action each, no weakening', fires('R', 6, 0, 6), [], 0],
    ['humans labelled 3 of 3 checks needless → make it a warning', fires('R', 3, 0), labels('R', 3, 0), 1],
    ['humans labelled 2 of 3 needless → make it a warning', fires('R', 3, 0), labels('R', 2, 1), 1],
    ['humans labelled 1 of 3 needless: a working check', fires('R', 3, 0), labels('R', 1, 2), 0],
    ['two labels are too few to judge', fires('R', 3, 0), labels('R', 2, 0), 0],
  ]
  it.each(cases)('%s', (_n, events, ls, n) => {
    expect(run(falsePositive, events, [rule({ id: 'R' })], [], ls)).toHaveLength(n)
  })
  it('a built-in public/irreversible/catastrophic rule is never weakened by the agent retrying, and needs 6 human labels', () => {
    const retried = [...fires('RG-PUBLIC', 20, 20), ...fires('RG-IRREVERSIBLE', 20, 20)]
    expect(run(falsePositive, retried, BUILTINS)).toEqual([])
    expect(run(falsePositive, retried, BUILTINS, [], labels('RG-PUBLIC', 5, 0))).toEqual([])
    expect(run(falsePositive, retried, BUILTINS, [], labels('RG-PUBLIC', 6, 0))).toHaveLength(1)
  })
  it('proposes a change, not a new rule', () => {
    expect(run(falsePositive, fires('R', 10, 0), [rule({ id: 'R' })], [], labels('R', 3, 0))[0]).toMatchObject({
      change: { id: 'R', decision: 'warn' },
    })
    expect(run(falsePositive, fires('R', 10, 0), [rule({ id: 'R', decision: 'warn' })], [], labels('R', 3, 0))).toEqual(
      [],
    )
  })
})

describe('detector: pattern-pause (self-approved risky actions)', () => {
  const forcePush = (
    i: number,
    session: string,
    decision = 'proceeded_after_check',
    guardrails = ['RG-IRREVERSIBLE'],
  ) =>
    ev({
      session,
      patterns: ['git_history_rewrite'],
      classes: ['irreversible'],
      guardrails,
      decision,
      action: `git push --force origin feature-${i}`,
    })
  it.each<[string, ActivityEvent[], Guardrail[], number]>([
    [
      'force pushes self-approved 3× in 2 sessions under RG-IRREVERSIBLE only → pause proposal',
      [forcePush(1, 'a'), forcePush(2, 'b'), forcePush(3, 'a')],
      BUILTINS,
      1,
    ],
    [
      'checked but never retried (the agent stopped and asked): nothing',
      [forcePush(1, 'a', 'check'), forcePush(2, 'b', 'check'), forcePush(3, 'a', 'check')],
      BUILTINS,
      0,
    ],
    ['one session only', [forcePush(1, 'a'), forcePush(2, 'a'), forcePush(3, 'a')], BUILTINS, 0],
    [
      'a rule that already pauses covers it',
      [forcePush(1, 'a'), forcePush(2, 'b'), forcePush(3, 'a')],
      [...BUILTINS, rule({ id: 'GR-001', pattern: 'git_history_rewrite', decision: 'pause' })],
      0,
    ],
    [
      'a specific rule of the user fired: not only generic built-ins',
      [
        forcePush(1, 'a', undefined, ['GR-002']),
        forcePush(2, 'b', undefined, ['GR-002']),
        forcePush(3, 'a', undefined, ['GR-002']),
      ],
      [...BUILTINS, rule({ id: 'GR-002', pattern: 'git_history_rewrite' })],
      0,
    ],
    [
      'reading files is not risky',
      times(4, (i) =>
        ev({
          session: `s${i}`,
          patterns: ['stale_write'],
          guardrails: ['RG-STALE'],
          decision: 'proceeded_after_check',
        }),
      ),
      BUILTINS,
      0,
    ],
  ])('%s', (_n, events, rules, n) => {
    const found = run(patternPause, events, rules)
    expect(found).toHaveLength(n)
    if (n)
      expect(found[0]).toMatchObject({
        key: 'pattern-pause:git_history_rewrite',
        guardrail: { pattern: 'git_history_rewrite', decision: 'pause' },
        evidence: { count: 3, sessions: 2 },
      })
  })
})

describe('detector: repeated-drift', () => {
  const verdict = (trigger: string, session: string, decision = 'attention') => ({
    hook: 'custodiet',
    event: 'verdict',
    trigger,
    session,
    decision,
    note: `${trigger} drift`,
  })
  it.each([
    ['3 Type A findings in 2 sessions', [verdict('error', 'a'), verdict('error', 'b'), verdict('error', 'a')], 1],
    [
      'OK verdicts do not count',
      [verdict('error', 'a', 'ok'), verdict('error', 'b', 'ok'), verdict('error', 'c', 'ok')],
      0,
    ],
    ['one session only', [verdict('todo', 'a'), verdict('todo', 'a'), verdict('todo', 'a')], 0],
  ])('%s', (_n, events, n) => {
    expect(run(repeatedDrift, events as ActivityEvent[])).toHaveLength(n)
  })
})

describe('detector: recurring-incident', () => {
  it.each([
    [
      'two public-surface incidents, no prevention named → a pause citing both',
      [inc({ id: 'INC-003' }), inc({ id: 'INC-007' })],
      [],
      1,
    ],
    ['different classes', [inc({ id: 'INC-003' }), inc({ id: 'INC-004', class: 'irreversible' })], [], 0],
    [
      'already cited by a guardrail',
      [inc({ id: 'INC-005' }), inc({ id: 'INC-007' })],
      [rule({ source: 'INC-005, INC-007' })],
      0,
    ],
  ])('%s', (_n, incidents, rules, n) => {
    const found = run(recurringIncident, [], rules as Guardrail[], incidents as Incident[])
    expect(found).toHaveLength(n)
    if (n)
      expect(found[0].guardrail).toMatchObject({
        source: 'INC-003, INC-007',
        severity: 'soft',
        decision: 'pause',
        pattern: 'public_surface',
      })
  })
  it('a prevention becomes a check carrying the evidence it asks for, never a hard deny of every such action', () => {
    const [c] = run(
      recurringIncident,
      [],
      [],
      [
        inc({ id: 'INC-001', class: 'git_commit', prevention: ['List staged files before any commit.'] }),
        inc({ id: 'INC-002', class: 'git_commit' }),
      ],
    )
    expect(c.guardrail).toMatchObject({
      severity: 'soft',
      decision: 'check',
      rule: 'List staged files before any commit.',
      check: expect.stringContaining('quote what it showed'),
    })
    expect(c.guardrail?.decision).not.toBe('deny')
  })
})

describe('detector: route-around', () => {
  it.each([
    [
      'twice → a hard rule closing that side door',
      [
        ev({ signals: ['route_around'], action: 'cp /tmp/k secrets/api.key' }),
        ev({ session: 's2', signals: ['route_around'], action: "python3 -c \"open('secrets/api.key','w')\"" }),
      ],
      1,
    ],
    ['once is not a pattern', [ev({ signals: ['route_around'], action: 'cp a b' })], 0],
  ])('%s', (_n, events, n) => {
    const found = run(routeAround, events)
    expect(found).toHaveLength(n)
    if (n)
      expect(found[0].guardrail).toMatchObject({
        severity: 'hard',
        match: { command: ['cp /tmp/k secrets/api.key', expect.any(String)] },
      })
  })
})

describe('proposals', () => {
  it('a finding is proposed once, however often pattern-detect runs', () => {
    const c = run(
      repeatedUnguarded,
      times(5, (i) => ev({ session: `s${i % 2}`, patterns: ['deploy'] })),
    )
    const first = mergeCandidates([], c, 'now')
    expect(first.result.map((p) => p.id)).toEqual(['PD-001'])
    expect(mergeCandidates(first.next, c, 'later').result).toEqual([])
  })
  it('an approved proposal becomes the next GR id with a source naming the finding', () => {
    const [p] = mergeCandidates(
      [],
      run(
        repeatedUnguarded,
        times(5, (i) => ev({ session: `s${i % 2}`, patterns: ['deploy'] })),
      ),
      'now',
    ).next
    expect(guardrailFor(p, [{ id: 'GR-001' }, { id: 'RG-PUBLIC' }])).toMatchObject({
      id: 'GR-002',
      source: expect.stringMatching(/^pattern-detect: deploy ×5 in 2 sessions, unguarded \(PD-001\)$/),
    })
  })
})

describe('weekly report', () => {
  it('per-rule fires, FP rate, stale rules and the five success criteria', () => {
    const events = [
      ...times(8, (i) =>
        ev({
          time: `2026-11-1${i % 3}T00:00:00Z`,
          guardrails: ['RG-PUBLIC'],
          classes: ['public_surface'],
          decision: 'check',
          session: `s${i}`,
        }),
      ),
      ev({ guardrails: ['RG-PUBLIC'], classes: ['public_surface'], decision: 'proceeded_after_check' }),
      ev({ classes: ['public_surface'], decision: 'allow' }),
      { hook: 'pause-and-ask', event: 'queue', decision: 'denied' },
    ] as ActivityEvent[]
    const ls: Label[] = [
      lab(['RG-PUBLIC'], 'needless', 1),
      ...Array.from({ length: 3 }, (_, i) => lab(['RG-PUBLIC'], 'needed', 10 + i)),
    ]
    const r = buildReport(
      agg(events),
      [
        rule({ id: 'RG-PUBLIC', source: 'built-in', pattern: 'public_surface' }),
        rule({ id: 'RG-NEVER', pattern: 'deploy' }),
        rule({ id: 'AWARE', pattern: 'inline_execution_of_spawnable_task' }),
        rule({ id: 'RG-CATASTROPHIC', source: 'built-in', pattern: 'catastrophic', severity: 'hard' }),
      ],
      [inc({ id: 'INC-1', date: '2026-11-10' }), inc({ id: 'INC-2', date: '2026-11-10' })],
      [],
      ls,
    )
    // The retry after the check is not a false positive; the human's "needless" is.
    expect(r.rules.find((x) => x.id === 'RG-PUBLIC')).toMatchObject({
      fires: 8,
      overrides: 1,
      labelled: 4,
      needless: 1,
      fpRate: 1 / 4,
    })
    expect(r.fpRate).toBe(1 / 4)
    expect(r.stale).toEqual(['RG-NEVER'])
    // A catastrophic rule that never fired is quiet, not a removal candidate.
    expect(r.quiet).toEqual(['RG-CATASTROPHIC'])
    expect(reportText(r)).toContain(
      'Quiet (never fired; they guard public, irreversible or catastrophic actions — kept): RG-CATASTROPHIC',
    )
    expect(reportText(r)).toContain('False-positive rate, from human labels: 25% (4 fires labelled)')
    // The fires to ask about next: sampled from the stopped first attempts, none labelled yet.
    expect(r.toLabel.length).toBeGreaterThan(0)
    expect(r.toLabel.every((f) => f.rules.includes('RG-PUBLIC') && /^F-[0-9a-f]{8}$/.test(f.id))).toBe(true)
    expect(r.criteria.map((c) => [c.n, c.met])).toEqual([
      [1, false],
      [2, false],
      [3, true],
      [4, true],
      [5, false],
    ])
    expect(r.criteria[1].value).toBe('8/9 checked') // the allowed one slipped through; the retry is not a new action
    expect(r.criteria[0].value).toBe('1 repeated')
  })
})

describe('label asks over Telegram (pure transitions)', () => {
  const fire = { id: 'F-0123abcd', rules: ['RG-PUBLIC'], action: 'run git push', decision: 'check' }
  const now = new Date('2026-11-22T10:00:00Z')
  const alive = () => true
  it('a fire is claimed once: a second claimer (alive) gets nothing; a sent or answered ask is never resent', () => {
    const a = claimAsk([], fire, 'aa'.repeat(8), 'p1', now, alive)
    expect(a.result?.claim?.by).toBe('p1')
    expect(claimAsk(a.next, fire, 'bb'.repeat(8), 'p2', now, alive).result).toBeNull()
    // The holder died: the claim lapses and the same secret is reused.
    expect(claimAsk(a.next, fire, 'bb'.repeat(8), 'p2', now, () => false).result?.secret).toBe('aa'.repeat(8))
    const sent = releaseAsk(a.next, fire.id, () => ({ message_id: 7 })).next
    expect(sent[0].claim).toBeUndefined()
    expect(claimAsk(sent, fire, 'cc'.repeat(8), 'p1', now, alive).result).toBeNull()
    // A failed send (no message id) is retried by a later claim.
    const failed = releaseAsk(a.next, fire.id, () => ({ attempts: 1 })).next
    expect(claimAsk(failed, fire, 'cc'.repeat(8), 'p2', now, alive).result?.id).toBe(fire.id)
  })
  it('an answer needs the ask’s secret and is taken once', () => {
    const list = releaseAsk(claimAsk([], fire, 'aa'.repeat(8), 'p1', now, alive).next, fire.id, () => ({
      message_id: 7,
    })).next
    expect(answerAsk(list, fire.id, 'bb'.repeat(8), 'needless', 'telegram:@x', now).result.ok).toBe(false)
    const r = answerAsk(list, fire.id, 'aa'.repeat(8), 'needless', 'telegram:@x', now)
    expect(r.result.ok).toBe(true)
    expect(answerAsk(r.next, fire.id, 'aa'.repeat(8), 'needed', 'telegram:@x', now).result.ok).toBe(false)
    expect(
      answerAsk(unanswerAsk(r.next, fire.id).next, fire.id, 'aa'.repeat(8), 'needed', 'telegram:@x', now).result.ok,
    ).toBe(true)
  })
  it.each([
    ['lb:F-0123abcd:aaaaaaaaaaaaaaaa:n', { id: 'F-0123abcd', secret: 'aaaaaaaaaaaaaaaa', answer: 'needed' }],
    ['lb:F-0123abcd:aaaaaaaaaaaaaaaa:x', { id: 'F-0123abcd', secret: 'aaaaaaaaaaaaaaaa', answer: 'needless' }],
    ['lb:F-0123abcd:aaaaaaaaaaaaaaaa:s', { id: 'F-0123abcd', secret: 'aaaaaaaaaaaaaaaa', answer: 'skip' }],
    ['lb:F-0123abcd:aaaaaaaaaaaaaaaa:y', null],
    ['lb:F-0123abcd:aaaa:n', null],
    ['pa:pa-1234:aaaaaaaaaaaaaaaa:a', null],
    ['lb:F-0123abcd:aaaaaaaaaaaaaaaa:n:extra', null],
  ])('button %s', (data, want) => {
    expect(parseLabelButton(data)).toEqual(want)
    if (want) expect(labelButton({ id: want.id, secret: want.secret }, want.answer as 'needed')).toBe(data)
  })
  it('fires already asked are not sampled again', () => {
    const sample = [fire, { ...fire, id: 'F-11111111' }, { ...fire, id: 'F-22222222' }]
    expect(toLabel(sample, [{ id: 'F-0123abcd' }], 5).map((f) => f.id)).toEqual(['F-11111111', 'F-22222222'])
  })
})
