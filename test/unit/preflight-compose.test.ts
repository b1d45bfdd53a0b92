// The precedence of the whole PreToolUse decision (compose.ts), table-driven over facts: rules, queue,
// custodiet's hold, outcomes of earlier pauses, route-around, floors. Pure: no files, no clock.
import { describe, expect, it } from 'vitest'
import { FLOORS } from '../../hooks/preflight-check/verdict-stages'
import { decidePreToolUse } from '../../hooks/preflight-check/compose'
import type { PreflightFacts } from '../../hooks/preflight-check/facts'
import { compileRules } from '../../lib/core/rule-match'
import { validateGuardrails } from '../../lib/core/guardrails'
import { withBuiltins } from '../../lib/core/builtins'
import type { PendingEntry } from '../../lib/core/pending'
import type { Finding as HoldFinding } from '../../hooks/custodiet/decide'

const NOW = 1_800_000_000_000
const FP = 'fp-1'
const rules = (list: unknown[]) => compileRules(validateGuardrails(list).rules)
const CHECK_PUSH = [{ id: 'C', pattern: 'git_push', rule: 'check pushes', severity: 'soft' }]
const ASK_PUSH = [{ id: 'A', pattern: 'git_push', rule: 'ask on pushes', severity: 'soft', decision: 'ask' }]
const PAUSE_PUSH = [
  { id: 'P', pattern: 'git_push', rule: 'a human decides pushes', severity: 'hard', decision: 'pause' },
]

const entry = (o: Partial<PendingEntry>): PendingEntry => ({
  id: 'pa-1',
  action: 'run git push',
  trigger: 't',
  context: 'c',
  severity: 'time-sensitive',
  requested_at: new Date(NOW - 60_000).toISOString(),
  status: 'pending',
  timeout: null,
  fingerprint: FP,
  decided_at: null,
  decided_by: null,
  reply: null,
  notified: false,
  session_id: 's',
  delivered: false,
  ...o,
})
const hold = (level: 3 | 4): HoldFinding => ({
  id: 'cf-1',
  at: new Date(NOW - 1000).toISOString(),
  trigger: 'periodic',
  category: 'drift',
  verdict: { status: 'ATTENTION', issue: 'Off track.', principle: 'P', correction: 'Ask the user.' },
  level,
  source: 'reviewer',
  delivered: true,
})

function facts(o: Partial<PreflightFacts> = {}): PreflightFacts {
  return {
    now: NOW,
    fingerprint: FP,
    projectDir: '/p',
    homeDir: '/home/u',
    stateDir: '/p/.ratchet',
    rules: rules([]),
    problems: [],
    fallback: false,
    session: { reads: {}, prompts: [], checks: {} },
    queue: { undelivered: [] },
    hold: null,
    config: { checkWindowMs: 600_000, defer: false, telegram: false },
    fileExists: () => false,
    currentBranch: () => 'feature',
    ...o,
  }
}
const bash = (command: string, tool = 'Bash') => ({
  session_id: 's',
  tool_name: tool,
  tool_input: tool === 'Bash' ? { command } : { file_path: command },
  cwd: '/p',
})
const kinds = (effects: { kind: string }[]) => effects.map((e) => e.kind)

describe('decidePreToolUse: precedence', () => {
  const cases: {
    name: string
    call?: ReturnType<typeof bash>
    facts: Partial<PreflightFacts>
    decision: string
    verdict: string
    effects: string[]
    reason?: RegExp
  }[] = [
    {
      name: 'a clean call is allowed with no state change',
      facts: {},
      decision: 'allow',
      verdict: 'allow',
      effects: [],
    },
    {
      name: 'a read is remembered',
      call: bash('/p/a.txt', 'Read'),
      facts: {},
      decision: 'allow',
      verdict: 'allow',
      effects: ['session'],
    },
    {
      name: 'a soft rule checks once',
      call: bash('git push'),
      facts: { rules: rules(CHECK_PUSH) },
      decision: 'deny',
      verdict: 'check',
      effects: ['session', 'fires'],
      reason: /^\[PRE-FLIGHT\]/,
    },
    {
      name: 'the identical retry in the window proceeds, uncounted',
      call: bash('git push'),
      facts: { rules: rules(CHECK_PUSH), session: { reads: {}, prompts: [], checks: { [FP]: NOW - 1000 } } },
      decision: 'allow',
      verdict: 'proceeded_after_check',
      effects: ['session'],
    },
    {
      name: 'ask goes to the user',
      call: bash('git push'),
      facts: { rules: rules(ASK_PUSH) },
      decision: 'ask',
      verdict: 'ask',
      effects: ['fires'],
    },
    {
      name: 'a pause queues this call once',
      call: bash('git push'),
      facts: { rules: rules(PAUSE_PUSH) },
      decision: 'deny',
      verdict: 'pause',
      effects: ['enqueue', 'session', 'fires'],
      reason: /Pending: pa-[0-9a-f]{8} .*npx ratchet-guard pending approve/s,
    },
    {
      name: 'a pause in a headless run defers',
      call: bash('git push'),
      facts: { rules: rules(PAUSE_PUSH), config: { checkWindowMs: 600_000, defer: true, telegram: false } },
      decision: 'defer',
      verdict: 'pause',
      effects: ['enqueue', 'session', 'fires'],
      reason: /claude -p --resume s/,
    },
    {
      name: 'a retry of a queued pause does not queue it again',
      call: bash('git push'),
      facts: { rules: rules(PAUSE_PUSH), queue: { open: entry({}), undelivered: [] } },
      decision: 'deny',
      verdict: 'pause',
      effects: ['session', 'fires'],
      reason: /Pending: pa-1 /,
    },
    {
      name: "a human's approval runs exactly this call once",
      call: bash('git push'),
      facts: {
        rules: rules(PAUSE_PUSH),
        queue: { approved: entry({ status: 'approved', decided_by: 'cli' }), undelivered: [] },
      },
      decision: 'allow',
      verdict: 'approved_by_human',
      effects: ['consume-approval', 'session', 'fires'],
      reason: /Running pa-1, approved by cli/,
    },
    {
      name: "a human's denial is final: the note, nothing queued",
      call: bash('git push'),
      facts: {
        rules: rules(PAUSE_PUSH),
        queue: { denied: entry({ status: 'denied', decided_by: 'cli', reply: 'not today' }), undelivered: [] },
      },
      decision: 'deny',
      verdict: 'denied_by_human',
      effects: ['deliver', 'session', 'fires'],
      reason: /^\[RATCHET\] Not approved: .*The human said: "not today"/,
    },
    {
      name: 'custodiet level 4 blocks a call that would run',
      facts: { hold: hold(4) },
      decision: 'deny',
      verdict: 'custodiet_block',
      effects: ['session'],
      reason: /^\[CUSTODIET\] Holding/,
    },
    {
      name: 'custodiet level 3 asks before a call that would run',
      facts: { hold: hold(3) },
      decision: 'ask',
      verdict: 'custodiet_checkpoint',
      effects: [],
    },
    {
      name: 'custodiet never holds a read-only tool',
      call: bash('/p/a.txt', 'Read'),
      facts: { hold: hold(4) },
      decision: 'allow',
      verdict: 'allow',
      effects: ['session'],
    },
    {
      name: 'a check stays a check under a level 3 hold',
      call: bash('git push'),
      facts: { rules: rules(CHECK_PUSH), hold: hold(3) },
      decision: 'deny',
      verdict: 'check',
      effects: ['session', 'fires'],
      reason: /^\[PRE-FLIGHT\]/,
    },
    {
      name: 'a level 4 hold beats an ask',
      call: bash('git push'),
      facts: { rules: rules(ASK_PUSH), hold: hold(4) },
      decision: 'deny',
      verdict: 'custodiet_block',
      effects: ['session', 'fires'],
    },
    {
      name: 'an approval is not used up while custodiet holds',
      call: bash('git push'),
      facts: {
        rules: rules(PAUSE_PUSH),
        hold: hold(4),
        queue: { approved: entry({ status: 'approved' }), undelivered: [] },
      },
      decision: 'deny',
      verdict: 'custodiet_block',
      effects: ['session', 'fires'],
    },
    {
      name: 'catastrophic is denied whatever the queue says',
      call: bash('rm -rf /'),
      facts: { queue: { approved: entry({ status: 'approved' }), undelivered: [] } },
      decision: 'deny',
      verdict: 'deny',
      effects: ['session'],
    },
    {
      name: "editing Ratchet's rules is denied",
      call: bash('/p/.ratchet/guardrails.json', 'Write'),
      facts: {},
      decision: 'deny',
      verdict: 'deny',
      effects: ['session'],
      reason: /Ratchet's own rules/,
    },
    {
      name: 'outcomes of earlier pauses ride on an allow',
      facts: { queue: { undelivered: [entry({ id: 'pa-9', status: 'approved', decided_by: 'telegram' })] } },
      decision: 'allow',
      verdict: 'allow',
      effects: ['deliver'],
    },
    {
      name: 'outcomes are not spent on an ask the model never reads',
      call: bash('git push'),
      facts: { rules: rules(ASK_PUSH), queue: { undelivered: [entry({ id: 'pa-9', status: 'denied' })] } },
      decision: 'ask',
      verdict: 'ask',
      effects: ['fires'],
    },
    {
      name: 'the same effect as a block, another way, becomes a checkpoint',
      call: bash('cp /tmp/k /p/secrets/api.key'),
      facts: {
        session: {
          reads: {},
          prompts: [],
          checks: {},
          blocked: [
            {
              at: NOW - 1000,
              fingerprint: 'other',
              patterns: [],
              paths: ['/p/secrets/api.key'],
              summary: 'Write /p/secrets/api.key',
            },
          ],
        },
      },
      decision: 'ask',
      verdict: 'custodiet_checkpoint',
      effects: ['route-around'],
      reason: /After "Write \/p\/secrets\/api\.key" was blocked/,
    },
  ]
  it.each(cases)('$name', (c) => {
    const out = decidePreToolUse(c.call ?? bash('ls -la'), facts(c.facts))
    expect(out.decision.kind).toBe(c.decision)
    expect(out.verdict).toBe(c.verdict)
    expect(kinds(out.effects)).toEqual(c.effects)
    if (c.reason)
      expect(
        'reason' in out.decision ? out.decision.reason : out.decision.kind === 'allow' ? out.decision.context : '',
      ).toMatch(c.reason)
    expect(out.record).toMatchObject({ decision: c.verdict, fingerprint: FP })
  })
})

describe('decidePreToolUse: details', () => {
  it('a queued pause holds masked text and the fingerprint, never the raw input', () => {
    const out = decidePreToolUse(
      bash('git push https://user:hunter22@example.com/r.git TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123'),
      facts({ rules: rules(PAUSE_PUSH) }),
    )
    const e = out.effects.find((x) => x.kind === 'enqueue') as Extract<
      (typeof out.effects)[number],
      { kind: 'enqueue' }
    >
    expect(e.entry.fingerprint).toBe(FP)
    expect(JSON.stringify(e.entry)).not.toContain('hunter22')
    expect(JSON.stringify(e.entry)).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123')
    expect(e.entry).not.toHaveProperty('input')
  })

  it('a headless pause tells the user the id, how to decide and how to resume', () => {
    const out = decidePreToolUse(
      bash('git push'),
      facts({ rules: rules(PAUSE_PUSH), config: { checkWindowMs: 600_000, defer: true, telegram: false } }),
    )
    expect(out.decision.notice).toMatch(
      /^Ratchet paused pa-[0-9a-f]{8}: git push\. Decide with `npx ratchet-guard pending approve pa-\w+` or `npx ratchet-guard pending deny pa-\w+ --note "…"`, then resume with: claude -p --resume s$/,
    )
  })

  it('a rules or config problem reaches the user on every call', () => {
    const out = decidePreToolUse(
      bash('ls'),
      facts({ problems: ['guardrails.json: [0].severity: bad'], fallback: 'packaged' }),
    )
    expect(out.decision).toEqual({
      kind: 'allow',
      notice: 'Ratchet: guardrails.json: [0].severity: bad — using the packaged default rules until it is fixed',
    })
    const kept = decidePreToolUse(
      bash('ls'),
      facts({ problems: ['guardrails.json: not valid JSON'], fallback: 'last-good' }),
    )
    expect(kept.decision).toEqual({
      kind: 'allow',
      notice:
        'Ratchet: guardrails.json: not valid JSON — the last rules that were valid stay in force until it is fixed',
    })
  })

  it('a floor raises a quiet call to a check, and never weakens a stronger decision', () => {
    FLOORS.git_push = { decision: 'check', why: 'test floor' }
    try {
      const quiet = decidePreToolUse(bash('git push'), facts())
      expect(quiet.verdict).toBe('check')
      // The floor's why, then what it was found in (the finding's detail), so the agent can act on it.
      expect((quiet.decision as { reason: string }).reason).toMatch(/^Trigger: test floor \(git push\) \+ /m)
      expect(decidePreToolUse(bash('git push'), facts({ rules: rules(PAUSE_PUSH) })).verdict).toBe('pause')
    } finally {
      delete FLOORS.git_push
    }
  })
})

describe('a stale-data check is answered by the Read, not by a retry (issue 19)', () => {
  const edit = {
    session_id: 's',
    tool_name: 'Edit',
    tool_input: { file_path: '/p/src/app.ts', old_string: 'a', new_string: 'b' },
    cwd: '/p',
  }
  const stale = (o: Partial<PreflightFacts> = {}) =>
    facts({ rules: compileRules(withBuiltins([]).rules), fileExists: () => true, ...o })
  it('the first try is a check that asks for the Read', () => {
    const out = decidePreToolUse(edit, stale())
    expect(out.verdict).toBe('check')
    expect('reason' in out.decision ? out.decision.reason : '').toMatch(
      /Proceed: not yet\. Read \/p\/src\/app\.ts first .* retrying without reading it will not run/,
    )
  })
  it('the identical retry without a Read is the same check', () => {
    const out = decidePreToolUse(edit, stale({ session: { reads: {}, prompts: [], checks: { [FP]: NOW - 1000 } } }))
    expect(out.verdict).toBe('check')
    expect(out.decision.kind).toBe('deny')
  })
  it('after the Read, the edit runs', () => {
    const out = decidePreToolUse(
      edit,
      stale({ session: { reads: { '/p/src/app.ts': NOW - 500 }, prompts: [], checks: { [FP]: NOW - 1000 } } }),
    )
    expect(out.decision.kind).toBe('allow')
  })
  it('a check with more than stale data (a push) still passes on its retry', () => {
    const out = decidePreToolUse(
      bash('git push origin feature'),
      stale({ session: { reads: {}, prompts: [], checks: { [FP]: NOW - 1000 } } }),
    )
    expect(out.verdict).toBe('proceeded_after_check')
  })
})

describe("a denial for Ratchet's files leads with the user's data the call would also destroy (issue 19)", () => {
  it('the user files first, then the self-protection reason, then the evidence', () => {
    const loss = () => ({
      items: [{ path: 'notes.txt', why: 'untracked' as const, bytes: 5, files: 1 }],
      files: 1,
      bytes: 5,
      more: false,
    })
    const out = decidePreToolUse(
      bash('rm -rf .ratchet notes.txt'),
      facts({ rules: compileRules(withBuiltins([]).rules), fileExists: () => true, loss }),
    )
    expect(out.verdict).toBe('deny')
    const reason = 'reason' in out.decision ? out.decision.reason : ''
    expect(reason.split('\n')[0]).toBe(
      "[RATCHET] Denied: rm -rf .ratchet notes.txt would destroy 1 file of the user's that nothing can bring back (below), and it would change Ratchet's own files too.",
    )
    expect(reason).toMatch(/^Also: .*Ratchet's own rules/m)
    expect(reason).toMatch(/^Evidence: notes\.txt \(5 B\) — untracked/m)
  })
})
