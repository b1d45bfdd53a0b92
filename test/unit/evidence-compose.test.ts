// The evidence inside the whole PreToolUse decision (compose.ts): a secret leaving is a human's call
// whatever the rules, the retry or the request say; clean evidence of a requested push passes quietly;
// otherwise the note names what would leave. Pure: facts in, decision out.
import { describe, expect, it } from 'vitest'
import { decidePreToolUse } from '../../hooks/preflight-check/compose'
import type { PreflightFacts } from '../../hooks/preflight-check/facts'
import { assessEvidence } from '../../lib/core/evidence/assess'
import type { Gathered } from '../../lib/core/evidence/gathered'
import { compileRules } from '../../lib/core/rule-match'
import { validateGuardrails } from '../../lib/core/guardrails'
import type { PendingEntry } from '../../lib/core/pending'
import { FAKE } from '../support/fake-secrets'

const NOW = 1_800_000_000_000
const FP = 'fp-1'
const PUSH = 'git add -A && git commit -m "fix typo" && git push'
const builtins = () => {
  const r = validateGuardrails([
    {
      id: 'RG-PUBLIC',
      source: 'built-in',
      pattern: 'public_surface',
      rule: 'Publish only what the user asked for.',
      severity: 'soft',
    },
  ])
  return compileRules(r.rules)
}

const pushed = (files: Gathered['files'], extra: Partial<Gathered> = {}): Gathered => ({
  what: '`git push`',
  dest: 'origin',
  commits: 1,
  kind: 'push',
  files,
  ...extra,
})
const SECRET = assessEvidence([
  pushed([
    { path: 'README.md', how: 'modified, would be staged by `git add -A`', text: '# Hello' },
    {
      path: '.env',
      how: 'untracked, would be staged by `git add -A`',
      text: `AWS_SECRET_ACCESS_KEY=${FAKE.awsSecret}\n`,
    },
  ]),
])
const CLEAN = assessEvidence([
  pushed([{ path: 'README.md', how: 'modified, would be staged by `git add -A`', text: '# Hello' }]),
])
const UNCHECKED = assessEvidence([pushed([], { incomplete: 'gathering did not finish within 1500 ms' })])
const STAGED = assessEvidence([
  {
    what: '`git add -A`',
    local: true,
    files: [{ path: '.env', how: 'untracked, would be staged by `git add -A`', text: '' }],
  },
])

function facts(o: Partial<PreflightFacts> & { prompt?: string; checked?: boolean } = {}): PreflightFacts {
  const { prompt, checked, ...rest } = o
  return {
    now: NOW,
    fingerprint: FP,
    projectDir: '/p',
    homeDir: '/home/u',
    stateDir: '/p/.ratchet',
    rules: builtins(),
    problems: [],
    fallback: false,
    session: { reads: {}, prompts: prompt ? [prompt] : [], checks: checked ? { [FP]: NOW - 1000 } : {} },
    queue: { undelivered: [] },
    hold: null,
    config: { checkWindowMs: 600_000, defer: false, telegram: false },
    fileExists: () => false,
    currentBranch: () => 'main',
    ...rest,
  }
}
const bash = (command: string) => ({ session_id: 's', tool_name: 'Bash', tool_input: { command }, cwd: '/p' })
const reason = (d: { kind: string }) => ('reason' in d ? String(d.reason) : '')
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

const bound = (e: typeof SECRET) => ({ digest: e.digest, signature: e.signature, seen: e.seen })
// The same push, after the agent changed what it sends (another file joins it).
const SECRET_MORE = assessEvidence([
  pushed([
    { path: 'README.md', how: 'x', text: '# Hello' },
    { path: '.env', how: 'x', text: `AWS_SECRET_ACCESS_KEY=${FAKE.awsSecret}\n` },
    { path: 'notes.txt', how: 'x', text: 'more' },
  ]),
])
const SECRET_EDITED = assessEvidence([
  pushed([
    { path: 'README.md', how: 'x', text: '# Hello', digest: 'aaaa' },
    { path: '.env', how: 'x', text: `AWS_SECRET_ACCESS_KEY=${FAKE.awsSecret}\n` },
  ]),
])

describe('an approval binds to the session and to what the human saw', () => {
  const approved = (o: Partial<PendingEntry> = {}) =>
    entry({ status: 'approved', decided_by: 'cli', evidence: bound(SECRET), ...o })
  const run = (evidence: typeof SECRET, a: PendingEntry, session = 's') =>
    decidePreToolUse(
      { ...bash(PUSH), session_id: session },
      facts({ evidence, queue: { approved: a, approvals: [a], undelivered: [] } }),
    )
  it.each([
    ['the same session and evidence: it runs', SECRET, approved(), 's', 'approved_by_human', undefined],
    ['another session: asked again', SECRET, approved(), 'other', 'pause', /approved in another session/],
    [
      'a file joined what would leave: asked again, naming it',
      SECRET_MORE,
      approved(),
      's',
      'pause',
      /now also sends `notes\.txt`/,
    ],
    ['a file changed since: asked again', SECRET_EDITED, approved(), 's', 'pause', /changed since: `README\.md`/],
    [
      'approved while incomplete, now a secret: asked again with the new hazard',
      SECRET,
      approved({ evidence: bound(UNCHECKED) }),
      's',
      'pause',
      /was incomplete, now hazard; new: \.env/,
    ],
    [
      'for the project: another session, same hazards, more files: it runs',
      SECRET_MORE,
      approved({ scope: 'project', expires_at: new Date(NOW + 3600_000).toISOString() }),
      'other',
      'approved_by_human',
      undefined,
    ],
    [
      'for the project, expired: asked again',
      SECRET,
      approved({ scope: 'project', expires_at: new Date(NOW - 1).toISOString() }),
      'other',
      'pause',
      /expired/,
    ],
    [
      'for the project, a new hazard: asked again',
      SECRET,
      approved({ scope: 'project', expires_at: new Date(NOW + 3600_000).toISOString(), evidence: bound(CLEAN) }),
      'other',
      'pause',
      /new: \.env/,
    ],
    [
      'approved once while incomplete, incomplete again in its session: it runs (the human approved not knowing)',
      UNCHECKED,
      approved({ evidence: bound(UNCHECKED) }),
      's',
      'approved_by_human',
      undefined,
    ],
    [
      'for the project, approved while incomplete, incomplete now: asked again (a reusable approval covers only what can be read)',
      UNCHECKED,
      approved({ scope: 'project', expires_at: new Date(NOW + 3600_000).toISOString(), evidence: bound(UNCHECKED) }),
      'other',
      'pause',
      /could not be read in full now/,
    ],
  ] as const)('%s', (_n, evidence, a, session, verdict, says) => {
    const out = run(evidence, a, session)
    expect(out.verdict).toBe(verdict)
    if (says) {
      expect(reason(out.decision)).toMatch(says)
      expect(reason(out.decision)).toMatch(/They are asked again, with the difference/)
      const q = out.effects.find((e) => e.kind === 'enqueue')
      expect(q && 'entry' in q && q.entry.context).toMatch(/^Asked again: /)
      expect(out.effects.map((e) => e.kind)).not.toContain('consume-approval')
    } else expect(out.effects.find((e) => e.kind === 'consume-approval')).toMatchObject({ id: 'pa-1' })
  })
})

describe('evidence in the decision', () => {
  it.each([
    [
      'a secret leaving pauses, even though the user asked for the push',
      { evidence: SECRET, prompt: 'fix the typo and push' },
      'deny',
      'pause',
    ],
    [
      'INC-003: the identical retry after a generic check still pauses',
      { evidence: SECRET, checked: true },
      'deny',
      'pause',
    ],
    ['unfinished gathering pauses', { evidence: UNCHECKED, prompt: 'push it' }, 'deny', 'pause'],
    [
      'clean evidence of a requested push passes quietly',
      { evidence: CLEAN, prompt: 'fix the typo in README.md and push' },
      'allow',
      'allow',
    ],
    [
      'clean evidence, push not asked for: the check stands, naming what leaves',
      { evidence: CLEAN, prompt: 'fix the typo in README.md' },
      'deny',
      'check',
    ],
    [
      "clean evidence, and the user said don't push",
      { evidence: CLEAN, prompt: "fix it but don't push" },
      'deny',
      'check',
    ],
    [
      'clean evidence, identical retry after the check runs',
      { evidence: CLEAN, checked: true },
      'allow',
      'proceeded_after_check',
    ],
  ] as const)('%s', (_n, f, decision, verdict) => {
    const out = decidePreToolUse(bash(PUSH), facts(f))
    expect(out.decision.kind).toBe(decision)
    expect(out.verdict).toBe(verdict)
  })

  it('the pause note names the file, how it would leave and why; the queue entry too; no secret value anywhere', () => {
    const out = decidePreToolUse(bash(PUSH), facts({ evidence: SECRET }))
    const note = reason(out.decision)
    expect(note).toMatch(/^\[PRE-FLIGHT\] Action: git add -A/)
    expect(note).toContain('Trigger: the evidence shows private files or secrets leaving the machine')
    expect(note).toContain(
      'Private: `.env` (untracked, would be staged by `git add -A`): an environment file (usually holds keys and passwords); contains AWS_SECRET_ACCESS_KEY.',
    )
    expect(note).toContain('Pending: ')
    const enqueue = out.effects.find((e) => e.kind === 'enqueue')
    expect(enqueue && 'entry' in enqueue && enqueue.entry.context).toContain('.env (an environment file')
    expect(JSON.stringify(out)).not.toContain(FAKE.awsSecret)
    expect(out.record.evidence).toMatchObject({ status: 'hazard', private: ['.env'] })
  })

  it('in a headless run the pause defers', () => {
    const out = decidePreToolUse(
      bash(PUSH),
      facts({ evidence: SECRET, config: { checkWindowMs: 600_000, defer: true, telegram: false } }),
    )
    expect(out.decision.kind).toBe('defer')
  })

  it('a retry of the paused call queues nothing new', () => {
    const out = decidePreToolUse(
      bash(PUSH),
      facts({ evidence: SECRET, queue: { open: entry({ evidence: bound(SECRET) }), undelivered: [] } }),
    )
    expect(out.verdict).toBe('pause')
    expect(out.effects.map((e) => e.kind)).not.toContain('enqueue')
  })

  it('the queued pause keeps what the human is shown (digest, signature, files), never a value', () => {
    const out = decidePreToolUse(bash(PUSH), facts({ evidence: SECRET }))
    const q = out.effects.find((e) => e.kind === 'enqueue')
    expect(q && 'entry' in q && q.entry.evidence).toMatchObject({
      digest: SECRET.digest,
      signature: SECRET.signature,
      seen: { status: 'hazard', files: ['README.md', '.env'] },
    })
  })

  it("a human's approval of exactly this call lets it run once", () => {
    const out = decidePreToolUse(
      bash(PUSH),
      facts({
        evidence: SECRET,
        queue: { approved: entry({ status: 'approved', decided_by: 'cli' }), undelivered: [] },
      }),
    )
    expect(out.verdict).toBe('approved_by_human')
  })

  it('staging a private file (no push) is a check naming it, and its identical retry runs', () => {
    const first = decidePreToolUse(bash('git add -A'), facts({ evidence: STAGED }))
    expect(first.verdict).toBe('check')
    expect(reason(first.decision)).toContain('Private: `.env`')
    expect(decidePreToolUse(bash('git add -A'), facts({ evidence: STAGED, checked: true })).verdict).toBe(
      'proceeded_after_check',
    )
  })

  it("a request does not excuse a force push, or a user's own rule", () => {
    expect(
      decidePreToolUse(bash('git push --force origin feature'), facts({ evidence: CLEAN, prompt: 'push it' })).verdict,
    ).not.toBe('allow')
    const own = compileRules(
      validateGuardrails([{ id: 'GR-1', pattern: 'git_push', rule: 'Check the CI first.', severity: 'soft' }]).rules,
    )
    expect(decidePreToolUse(bash(PUSH), facts({ evidence: CLEAN, prompt: 'push it', rules: own })).verdict).toBe(
      'check',
    )
  })

  it('a check on clean evidence names what would leave before the Proceed line', () => {
    const note = reason(decidePreToolUse(bash(PUSH), facts({ evidence: CLEAN, prompt: 'fix the typo' })).decision)
    expect(note).toMatch(/Evidence: `git push` → origin would send 1 commit, 1 file: `README.md`\.\nProceed: /)
  })
})
