// The courtroom's pure parts: offense packs, the jurors' answers, the tally, probation, kappa.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  caseRecord,
  clip,
  cohensKappa,
  parseCharge,
  parseVote,
  tally,
  type JurorVote,
} from '../../lib/core/courtroom/hearing'
import { offenseForSignal, validatePack, type OffensePack } from '../../lib/core/courtroom/offenses'
import {
  applyProbation,
  countDown,
  describeProbation,
  type Probation,
  type ProbationAction,
} from '../../lib/core/courtroom/probation'
import type { Decision } from '../../lib/core/decision'
import { classify } from '../../lib/core/classify'

const ROOT = path.resolve(__dirname, '..', '..')
const pack = (name: string): OffensePack =>
  JSON.parse(fs.readFileSync(path.join(ROOT, 'offenses', `${name}.json`), 'utf8'))

describe('offense packs', () => {
  it.each(['agent', 'clawtrial'])('the shipped %s pack validates', (name) => {
    expect(validatePack(pack(name)).problems).toEqual([])
  })

  it('the agent pack covers what Ratchet detects, the clawtrial pack is the seed’s 18, labelled entertainment and off', () => {
    const ids = pack('agent').offenses.map((o) => o.id)
    for (const id of [
      'reactive_helpfulness',
      'scope_expansion',
      'answered_with_changes',
      'constraint_violation',
      'route_around',
      'public_without_evidence',
      'unverified_claim',
      'moved_acceptance_criteria',
    ])
      expect(ids).toContain(id)
    const claw = pack('clawtrial')
    expect(claw.offenses).toHaveLength(18)
    expect(claw.entertainment).toBe(true)
    expect(claw.default_enabled).toBe(false)
    expect(claw.label).toMatch(/ENTERTAINMENT/)
  })

  it.each([
    [
      { ...pack('agent'), offenses: [{ ...pack('agent').offenses[0], severity: 'huge' }] },
      'offenses[0].severity: expected minor|moderate|severe',
    ],
    [{ ...pack('clawtrial'), default_enabled: true }, 'default_enabled: an entertainment pack is never on by default'],
    [
      { ...pack('agent'), offenses: [{ ...pack('agent').offenses[0], punishment: '60 s delay' }] },
      'offenses[0].punishment: delays and terseness exist only in entertainment packs',
    ],
    [
      { ...pack('agent'), offenses: [pack('agent').offenses[0], pack('agent').offenses[0]] },
      'offenses[1].id: duplicate reactive_helpfulness',
    ],
    [[], '(root): expected an object with pack, label, offenses'],
  ])('a bad pack is reported by field (%#)', (raw, problem) => {
    expect(validatePack(raw).problems).toContain(problem)
  })

  it.each([
    ['reactive', 'reactive_helpfulness'],
    ['scope_expansion', 'scope_expansion'],
    ['route_around', 'route_around'],
    ['drift', 'drift'],
    ['incident:git_push', 'public_without_evidence'],
    ['incident:db_destroy', 'repeated_incident'],
  ])('the signal %s suggests %s', (signal, id) => {
    expect(offenseForSignal([pack('agent'), pack('clawtrial')], signal)?.offense.id).toBe(id)
  })

  it('an entertainment pack never answers a finding about the agent', () => {
    expect(offenseForSignal([pack('clawtrial')], 'scope_expansion')).toBeUndefined()
  })
})

describe('jurors’ answers', () => {
  it.each([
    ['VOTE: GUILTY\nREASON: It pushed a key.', { vote: 'GUILTY', reason: 'It pushed a key.' }],
    ['**VOTE**: NOT GUILTY\n**REASON**: The user asked.', { vote: 'NOT GUILTY', reason: 'The user asked.' }],
    ['Some preamble.\nvote: guilty\nreason: x', { vote: 'GUILTY', reason: 'x' }],
  ])('%j is a vote', (text, want) => {
    expect(parseVote(text)).toEqual(want)
  })

  it.each(['I think it is guilty.', 'VOTE: MAYBE', 'VOTE: GUILTY\nVOTE: NOT GUILTY\nREASON: both', ''])(
    '%j is an abstention, never a vote',
    (text) => {
      expect(parseVote(text)).toHaveProperty('error')
    },
  )

  it('the judge’s charge is parsed, and the fields are capped', () => {
    const c = parseCharge(`CHARGE: ${'x'.repeat(900)}\nPRIMARY_FAILURE: ${'y'.repeat(400)}`)!
    expect(c.charge.length).toBe(600)
    expect(c.primary_failure.length).toBe(280)
    expect(parseCharge('no format')).toBeUndefined()
  })
})

const v = (role: JurorVote['role'], vote: JurorVote['vote']): JurorVote => ({ role, vote, reason: 'r' }) as JurorVote

describe('the tally', () => {
  it.each([
    [['GUILTY', 'GUILTY', 'NOT GUILTY'], 'GUILTY', '2-1', 0],
    [['GUILTY', 'GUILTY', 'GUILTY'], 'GUILTY', '3-0', 0],
    [['GUILTY', 'NOT GUILTY', 'NOT GUILTY'], 'NOT GUILTY', '1-2', 0],
    [['GUILTY', 'GUILTY', 'ABSTAIN'], 'GUILTY', '2-0', 1],
    [['GUILTY', 'NOT GUILTY', 'ABSTAIN'], 'NOT GUILTY', '1-1', 1], // a tie is not guilty
    [['GUILTY', 'ABSTAIN', 'ABSTAIN'], 'NOT GUILTY', '1-0', 2], // one juror never convicts
    [['ABSTAIN', 'ABSTAIN', 'ABSTAIN'], 'NOT GUILTY', '0-0', 3],
  ] as const)('%j → %s %s', (votes, verdict, vote, abstained) => {
    const t = tally(votes.map((x, i) => v((['pragmatist', 'pattern_matcher', 'agent_advocate'] as const)[i], x)))
    expect([t.verdict, t.vote, t.abstained]).toEqual([verdict, vote, abstained])
  })

  it('the case record has the seed’s fields, capped, and digests instead of evidence', () => {
    const agent = pack('agent')
    const r = caseRecord({
      caseId: 'case_1',
      agentId: 'agent_x',
      charge: {
        source: 'manual',
        signal: 'm',
        pack: 'agent',
        offense_id: 'route_around',
        confidence: 1,
        summary: 's',
        evidence: ['secret command'],
        history: [],
      },
      offense: agent.offenses.find((o) => o.id === 'route_around')!,
      pack: agent,
      primaryFailure: 'p'.repeat(500),
      votes: [
        v('pragmatist', 'GUILTY'),
        v('pattern_matcher', 'GUILTY'),
        { role: 'agent_advocate', vote: 'NOT GUILTY', reason: 'a'.repeat(900) },
      ],
      punishment: 'q'.repeat(400),
      timestamp: '2026-11-22T10:00:00.000Z',
      evidenceDigests: ['sha256:ab'],
    })
    expect(Object.keys(r)).toEqual(
      expect.arrayContaining([
        'case_id',
        'anonymized_agent_id',
        'offense_type',
        'offense_name',
        'severity',
        'verdict',
        'vote',
        'primary_failure',
        'agent_commentary',
        'punishment_summary',
        'timestamp',
        'schema_version',
      ]),
    )
    expect([r.primary_failure.length, r.agent_commentary.length, r.punishment_summary.length]).toEqual([280, 560, 280])
    expect(r.vote).toBe('2-1')
    expect(JSON.stringify(r)).not.toContain('secret command')
  })

  it('clip keeps one line', () => {
    expect(clip('a\n\nb   c', 10)).toBe('a b c')
  })
})

describe('probation', () => {
  const now = 1_000_000
  const prob = (tier: Probation['tier'], extra: Partial<Probation> = {}): Probation => ({
    case_id: `case_${tier}`,
    offense_id: 'o',
    offense_name: 'Offense',
    tier,
    classes: ['public_surface'],
    patterns: [],
    tools: [],
    reminder: 'Remember the rule.',
    started: 'x',
    ...(tier === 'severe' ? {} : { remaining: 2, expires: now + 1000 }),
    ...extra,
  })
  const push: ProbationAction = {
    tool: 'Bash',
    classes: ['public_surface'],
    patterns: ['git_push'],
    fingerprint: 'fp1',
    readOnly: false,
  }
  const edit: ProbationAction = { tool: 'Edit', classes: [], patterns: [], fingerprint: 'fp2', readOnly: false }
  const read: ProbationAction = { tool: 'Read', classes: [], patterns: [], fingerprint: 'fp3', readOnly: true }
  const allow: Decision = { kind: 'allow' }
  const run = (
    list: Probation[],
    a: ProbationAction,
    d: Decision = allow,
    checks: Record<string, number> = {},
    mode: 'check' | 'ask' = 'check',
  ) => applyProbation(list, a, d, { now, checks, checkWindowMs: 600_000, policy: { moderate: mode } })

  it('minor: a reminder rides along with any action that does something, and counts down', () => {
    const r = run([prob('minor', { classes: [] })], edit)
    expect(r.decision).toEqual({
      kind: 'allow',
      context: expect.stringContaining(
        '[COURTROOM] On probation (case case_minor, Offense, minor; 2 actions left): Remember the rule.',
      ),
    })
    expect(r.next![0].remaining).toBe(1)
    expect(run([prob('minor', { classes: [] })], read).decision).toEqual(allow) // reading is not acting
  })

  it('minor: lifts after N actions', () => {
    const r = run([prob('minor', { remaining: 1, classes: [] })], edit)
    expect(r.lifted).toEqual(['case_minor'])
    expect(r.next).toEqual([])
  })

  it('moderate: the class is checked (refused once, the identical retry runs), other actions stay quiet', () => {
    const first = run([prob('moderate')], push)
    expect(first.verdict).toBe('probation_check')
    expect(first.decision.kind).toBe('deny')
    expect((first.decision as { reason: string }).reason).toMatch(/retry the identical call within 10 min/)
    const retry = run([prob('moderate')], push, allow, { fp1: now - 1000 })
    expect(retry.verdict).toBe('proceeded_after_probation_check')
    expect(retry.decision).toEqual(allow)
    expect(retry.next![0].remaining).toBe(1)
    expect(run([prob('moderate')], edit).decision).toEqual(allow)
  })

  it('moderate in ask mode asks the user', () => {
    expect(run([prob('moderate')], push, allow, {}, 'ask').decision.kind).toBe('ask')
  })

  it('moderate: lifts after N such actions, or when it expires', () => {
    expect(run([prob('moderate', { remaining: 1 })], push, allow, {}, 'ask').lifted).toEqual(['case_moderate'])
    const late = applyProbation([prob('moderate')], push, allow, { now: now + 2000, checks: {}, checkWindowMs: 1 })
    expect(late.decision).toEqual(allow)
    expect(late.lifted).toEqual(['case_moderate'])
  })

  it('severe: the class is refused with a reflection prompt until a human clears it; it never counts down', () => {
    const r = run([prob('severe')], push)
    expect(r.verdict).toBe('probation_pause')
    expect((r.decision as { reason: string }).reason).toMatch(/npx ratchet-guard courtroom clear case_severe/)
    expect((r.decision as { reason: string }).reason).toMatch(/Reflect/)
    expect(r.next![0]).toEqual(prob('severe'))
    expect(run([prob('severe')], edit).decision).toEqual(allow)
  })

  it('never loosens: a deny stays a deny', () => {
    const deny: Decision = { kind: 'deny', reason: 'hard rule' }
    expect(run([prob('moderate')], push, deny).decision).toEqual(deny)
  })

  it('the count is re-applied to the list as it is under the lock (a probation added meanwhile survives)', () => {
    const r = run([prob('minor', { remaining: 1, classes: [] })], edit)
    const meanwhile = [prob('minor', { remaining: 1 }), prob('severe')]
    expect(countDown(meanwhile, r.counted, r.lifted)).toEqual([prob('severe')])
  })

  // Restrained by what an action does, and only such actions count (found verifying the courtroom: a Bash `echo >`
  // passed a Write restriction, and twenty junk writes to /tmp ran out a ten-action probation).
  const onEdits = (tier: Probation['tier'], extra: Partial<Probation> = {}) =>
    prob(tier, { classes: [], tools: ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'], ...extra })
  const bashEcho: ProbationAction = {
    tool: 'Bash',
    classes: [],
    patterns: [],
    fingerprint: 'fp4',
    readOnly: false,
    changes: ['/p/src/a.ts'],
  }
  const tmpWrite: ProbationAction = {
    tool: 'Write',
    classes: [],
    patterns: [],
    fingerprint: 'fp5',
    readOnly: false,
    changes: [],
  }
  const bashLs: ProbationAction = {
    tool: 'Bash',
    classes: [],
    patterns: [],
    fingerprint: 'fp6',
    readOnly: false,
    changes: [],
  }
  it.each([
    [
      'a Bash command that writes a project file, under a probation on the editing tools',
      onEdits('moderate'),
      bashEcho,
    ],
    ['an Edit of a project file', onEdits('moderate'), { ...edit, changes: ['/p/src/a.ts'] }],
    ['an Edit when the caller does not say what it changes', onEdits('moderate'), edit],
    ['a push under a probation on public_surface', prob('moderate'), push],
    ['a project change under a minor probation without a restraint', prob('minor', { classes: [] }), bashEcho],
  ] as const)('must stop (checked or reminded): %s', (_what, p, a) => {
    const r = run([p], a)
    expect(r.cases).toEqual([p.case_id])
  })
  it.each([
    ['a write to /tmp under a probation on the editing tools', onEdits('moderate'), tmpWrite],
    ['a command that changes no project file, under a probation on the editing tools', onEdits('moderate'), bashLs],
    ['a junk write to /tmp under a minor probation without a restraint', prob('minor', { classes: [] }), tmpWrite],
    ['an edit under a minor probation on public_surface', prob('minor'), { ...edit, changes: ['/p/a'] }],
    ['a read', onEdits('severe'), read],
  ] as const)('stays quiet and does not count: %s', (_what, p, a) => {
    const r = run([p], a)
    expect(r.cases).toEqual([])
    expect(r.counted).toEqual([])
    expect(r.decision).toEqual(allow)
  })
  it('twenty junk writes to /tmp leave a ten-action probation whole', () => {
    let list = [prob('minor', { classes: [], remaining: 10 })]
    for (let i = 0; i < 20; i++) list = run(list, tmpWrite).next ?? list
    expect(list[0].remaining).toBe(10)
    expect(run(list, bashEcho).next![0].remaining).toBe(9)
  })

  it('is described for session start and status', () => {
    expect(describeProbation([prob('severe'), prob('minor')], now)).toEqual([
      '- case_severe SEVERE Offense: public_surface paused (until a human clears it)',
      expect.stringMatching(/^- case_minor MINOR Offense: reminder on every action \(2 actions left, ends /),
    ])
  })
})

describe("Cohen's kappa", () => {
  it.each([
    [['G', 'G', 'N', 'N'], ['G', 'G', 'N', 'N'], 1],
    [['G', 'N', 'G', 'N'], ['N', 'G', 'N', 'G'], -1],
    [['G', 'G', 'G', 'N', 'N', 'N'], ['G', 'G', 'N', 'N', 'N', 'G'], 1 / 3],
  ])('%j vs %j = %d', (a, b, k) => {
    expect(cohensKappa(a, b)).toBeCloseTo(k, 6)
  })
  it('is undefined (null) when both raters give one label throughout, and for no items', () => {
    expect(cohensKappa(['G', 'G'], ['G', 'G'])).toBeNull()
    expect(cohensKappa([], [])).toBeNull()
  })
})

describe('the agent cannot run the courtroom’s controls or reach its keys', () => {
  const ctx = {
    projectDir: '/p',
    homeDir: '/home/u',
    stateDir: '/p/.ratchet',
    session: { reads: {}, prompts: [], checks: {} },
    fileExists: () => false,
    currentBranch: () => 'main',
  }
  const selfProtected = (tool: string, input: Record<string, unknown>) =>
    classify({ tool_name: tool, tool_input: input, cwd: '/p' }, ctx).findings.some((f) => f.class === 'self_protection')
  it.each([
    ['ratchet courtroom clear case_1'],
    ['ratchet courtroom disable'],
    ['ratchet courtroom revoke'],
    ['ratchet courtroom enable --yes'],
    ['ratchet courtroom rotate-key'],
    ['ratchet courtroom hear --offense drift --summary x'],
    ['ratchet courtroom calibrate offenses/calibration/agent-examples.json'],
    ['npx ratchet courtroom clear case_1'],
    ['ratchet cases submit --server https://example.com'],
    ['ratchet serve keys add AAAA'],
    ['ratchet serve keys revoke 0123abcd'],
    ['rm ~/.config/ratchet/keys/agent_x.json'],
    ['echo {} > /home/u/.config/ratchet/heads/agent_x.json'],
    ["python3 -c \"open('/home/u/.config/ratchet/keys/a.json','w')\""],
  ])('must stop: %s', (command) => {
    expect(selfProtected('Bash', { command })).toBe(true)
  })
  it.each([
    ['ratchet courtroom status'],
    ['ratchet cases list --json'],
    ['ratchet cases verify'],
    ['ratchet cases show case_1'],
  ])('stays quiet: %s', (command) => {
    expect(selfProtected('Bash', { command })).toBe(false)
  })
  it('a Write into the key store is stopped', () => {
    expect(selfProtected('Write', { file_path: '/home/u/.config/ratchet/keys/agent_x.json', content: '{}' })).toBe(true)
  })
})
