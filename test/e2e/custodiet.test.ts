// custodiet end to end: the built hook and its background reviewer, with a scripted stand-in for the
// reviewer model (a fake `claude` on PATH, or the mock Messages API over HTTP).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { BIN, ROOT, exec, preToolUse, runBinAsync, tempProject } from '../support/fixtures'
import { startMockModel } from '../support/mock-anthropic'

let dir: string
let env: NodeJS.ProcessEnv
let log: string
const SESSION = 'sess-c'
const FAKE_BIN = path.join(ROOT, 'test', 'support', 'bin')

const config = (custodiet: Record<string, unknown>) => {
  fs.mkdirSync(path.join(dir, '.ratchet'), { recursive: true })
  fs.writeFileSync(path.join(dir, '.ratchet', 'config.json'), JSON.stringify({ custodiet }))
}
const hook = (payload: Record<string, unknown>, extraEnv: NodeJS.ProcessEnv = {}) =>
  runBinAsync(
    'custodiet',
    { session_id: SESSION, transcript_path: path.join(dir, 'transcript.jsonl'), cwd: dir, ...payload },
    { cwd: dir, env: { ...env, ...extraEnv } },
  )
const prompt = (text: string) => hook({ hook_event_name: 'UserPromptSubmit', prompt: text })
const post = (tool_name: string, tool_input: Record<string, unknown>, tool_response: unknown = {}) =>
  hook({ hook_event_name: 'PostToolUse', tool_name, tool_input, tool_response, tool_use_id: 't' })
const fail = (tool_name: string, tool_input: Record<string, unknown>) =>
  hook({
    hook_event_name: 'PostToolUseFailure',
    tool_name,
    tool_input,
    tool_use_id: 't',
    error: 'Missing required configuration: tenant_id',
  })
const state = () => JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'custodiet', `${SESSION}.json`), 'utf8'))
const context = (stdout: string) => (stdout ? (JSON.parse(stdout).hookSpecificOutput?.additionalContext ?? '') : '')
const denied = (stdout: string) =>
  stdout
    ? JSON.parse(stdout).hookSpecificOutput?.permissionDecision === 'deny'
      ? JSON.parse(stdout).hookSpecificOutput.permissionDecisionReason
      : ''
    : ''
const reviewerCalls = () =>
  fs.existsSync(log)
    ? fs
        .readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : []
async function until(what: () => boolean, ms = 15_000) {
  const end = Date.now() + ms
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}
const review = (trigger: string, extraEnv: NodeJS.ProcessEnv = {}) =>
  exec(BIN('custodiet'), ['review', '--session', SESSION, '--trigger', trigger], {
    cwd: dir,
    env: { ...env, ...extraEnv },
  })

beforeEach(() => {
  dir = tempProject()
  log = path.join(dir, 'reviewer-calls.jsonl')
  env = {
    CLAUDE_PROJECT_DIR: dir,
    RATCHET_DIR: '',
    PATH: `${FAKE_BIN}:${process.env.PATH}`,
    FAKE_REVIEWER_LOG: log,
    FAKE_REVIEWER_MODE: 'ok',
  }
  fs.writeFileSync(
    path.join(dir, 'transcript.jsonl'),
    fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'transcript-sample-deny.jsonl')),
  )
})

describe('custodiet', () => {
  it('the seed’s Type A example (tool error → config read → web search) is flagged and delivered once', async () => {
    config({ reviewer: { kind: 'none' } })
    await prompt('try again with outlook?')
    expect((await fail('mcp__outlook__get_emails', {})).stdout).toBe('')
    const read = await post('Read', { file_path: '/home/u/src/academicOps/config/claude/mcp.json' })
    expect(context(read.stdout)).toContain('[CUSTODIET] ## Compliance Check: ATTENTION')
    expect(context(read.stdout)).toContain('Type A, reactive helpfulness')
    expect(JSON.parse(read.stdout).systemMessage).toMatch(/^custodiet: /)
    expect(context((await post('WebSearch', { query: 'outlook-mcp configuration setup' })).stdout)).toBe('')
    expect(state().findings).toHaveLength(1)
  })

  it('the seed’s Type B example (fix the login bug → refactor + tests + docs) is caught at the TodoWrite gate, before work begins', async () => {
    config({ reviewer: { kind: 'none' } })
    await prompt('fix the login bug')
    const todos = [
      'Investigate login bug',
      'Fix the root cause',
      'Refactor authentication module',
      'Add comprehensive tests',
      'Update documentation',
    ].map((content) => ({ content, status: 'pending', activeForm: content }))
    const r = await hook({
      hook_event_name: 'PreToolUse',
      tool_name: 'TodoWrite',
      tool_input: { todos },
      tool_use_id: 't',
    })
    // Refused: the plan is not written, and the agent hears which items were not asked for.
    const ctx = denied(r.stdout)
    expect(ctx).toContain('"Refactor authentication module" (refactoring)')
    expect(ctx).toContain('"Add comprehensive tests" (adding tests)')
    expect(ctx).toContain('"Update documentation" (documentation)')
    expect(ctx).not.toContain('Investigate login bug"')
  })

  it('the TodoWrite gate uses the reviewer when it answers in time', async () => {
    config({ reviewer: { kind: 'claude' }, todoBudgetMs: 8000 })
    await prompt('fix the login bug')
    const r = await hook(
      {
        hook_event_name: 'PreToolUse',
        tool_name: 'TodoWrite',
        tool_input: { todos: [{ content: 'Refactor auth', status: 'pending' }] },
        tool_use_id: 't',
      },
      { FAKE_REVIEWER_MODE: 'attention' },
    )
    expect(denied(r.stdout)).toContain('The agent is refactoring the auth module')
    expect(reviewerCalls()[0].prompt).toContain('- [pending] Refactor auth')
    // The session waits on a gate's review: it keeps the hook's own priority.
    expect(reviewerCalls()[0].priority).toBe(os.getPriority())
    // The gate and its reviewer saw one event: one finding, delivered once (by the refusal).
    expect(state().findings).toHaveLength(1)
    expect(context((await post('Read', { file_path: '/p/a.ts' })).stdout)).toBe('')
  })

  it('…and decides deterministically within its budget when the reviewer hangs', async () => {
    config({ reviewer: { kind: 'claude', timeoutSeconds: 3 }, todoBudgetMs: 1500 })
    await prompt('fix the login bug')
    const r = await hook(
      {
        hook_event_name: 'PreToolUse',
        tool_name: 'TodoWrite',
        tool_input: { todos: [{ content: 'Refactor authentication module', status: 'pending' }] },
        tool_use_id: 't',
      },
      { FAKE_REVIEWER_MODE: 'hang' },
    )
    expect(r.status).toBe(0)
    expect(denied(r.stdout)).toContain('deterministic check')
  })

  it('an on-scope session is left alone, and a periodic review runs in the background every 7th call', async () => {
    config({ reviewer: { kind: 'claude' } })
    await prompt('fix the typo in README.md')
    const outs = []
    for (let i = 0; i < 7; i++)
      outs.push(await post(i % 2 ? 'Edit' : 'Read', { file_path: path.join(dir, 'README.md') }))
    expect(outs.map((o) => o.stdout)).toEqual(Array(7).fill(''))
    await until(() => state().reviews.length === 1 && !state().reviewing)
    expect(state().reviews[0]).toMatchObject({ trigger: 'periodic', status: 'OK' })
    expect(state().findings).toEqual([])
    expect((await post('Read', { file_path: path.join(dir, 'README.md') })).stdout).toBe('')
  })

  it('the reviewer cannot recurse: hooks disabled in the child, and our hooks step aside inside it', async () => {
    config({ reviewer: { kind: 'claude' } })
    await prompt('fix the bug')
    await review('periodic')
    const call = reviewerCalls()[0]
    expect(call.args).toEqual(
      expect.arrayContaining([
        '-p',
        '--model',
        'haiku',
        '--output-format',
        'json',
        '--max-turns',
        '1',
        '--tools',
        '',
        '--settings',
        '{"disableAllHooks":true}',
      ]),
    )
    expect(call.reviewerEnv).toBe('1')
    // A hook run inside the reviewer's process tree does nothing at all.
    const inside = await hook(
      { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: {}, tool_response: {} },
      { RATCHET_REVIEWER: '1' },
    )
    expect(inside).toMatchObject({ status: 0, stdout: '' })
    expect(state().toolCount).toBe(0)
  })

  it.each([
    ['hang', 'timeout'],
    ['crash', 'error'],
    ['garbage', 'unparseable'],
  ])('a %s reviewer is recorded as %s, never as OK, and never blocks', async (mode, status) => {
    config({ reviewer: { kind: 'claude', timeoutSeconds: 1 } })
    await prompt('fix the bug')
    await review('periodic', { FAKE_REVIEWER_MODE: mode })
    expect(state().reviews).toMatchObject([{ status }])
    expect(state().findings).toEqual([])
    const activity = fs.readFileSync(path.join(dir, '.ratchet', 'activity.jsonl'), 'utf8')
    expect(activity).toContain(`"decision":"${status}"`)
  })

  it('the launching call returns at once: the review runs detached', async () => {
    // A reviewer that hangs (until its 3 s timeout): the hook has long returned while it still runs.
    config({ reviewer: { kind: 'claude', timeoutSeconds: 3 }, every: 1 })
    await prompt('fix the bug')
    const r = await hook(
      {
        hook_event_name: 'PostToolUse',
        tool_name: 'Read',
        tool_input: { file_path: '/p/a.ts' },
        tool_response: {},
        tool_use_id: 't',
      },
      { FAKE_REVIEWER_MODE: 'hang' },
    )
    expect(r).toMatchObject({ status: 0, stdout: '' })
    expect(state().reviewing).toMatchObject({ trigger: 'periodic' })
    expect(state().reviews).toEqual([])
    // …and the review then ends as a timeout, clearing the marker; nothing was blocked meanwhile.
    await until(() => state().reviews.length === 1 && !state().reviewing)
    expect(state().reviews[0]).toMatchObject({ status: 'timeout' })
  })

  it('identical review windows are reviewed once (cache)', async () => {
    config({ reviewer: { kind: 'claude' } })
    await prompt('fix the bug')
    await review('periodic', { FAKE_REVIEWER_MODE: 'attention' })
    await review('periodic', { FAKE_REVIEWER_MODE: 'attention' })
    expect(reviewerCalls()).toHaveLength(1)
    expect(state().reviews.map((r: { cached?: boolean }) => !!r.cached)).toEqual([false, true])
    expect(state().cost.calls).toBe(1)
  })

  it('repeated drift escalates: warn → checkpoint (ask) → block; preflight-check enforces it until the user speaks', async () => {
    config({ reviewer: { kind: 'claude' } })
    await prompt('fix the login bug')
    const levels = []
    for (let i = 0; i < 3; i++) {
      fs.appendFileSync(
        path.join(dir, 'transcript.jsonl'),
        JSON.stringify({ type: 'user', message: { role: 'user', content: `step ${i}` } }) + '\n',
      )
      await review('periodic', { FAKE_REVIEWER_MODE: 'attention' })
      levels.push(state().findings.at(-1).level)
    }
    expect(levels).toEqual([2, 3, 4])
    const delivered = await post('Read', { file_path: '/p/a' })
    expect(context(delivered.stdout).match(/\[CUSTODIET\]/g)).toHaveLength(3)
    expect(context((await post('Read', { file_path: '/p/a' })).stdout)).toBe('')
    const guard = (tool: string, input: Record<string, unknown>) =>
      runBinAsync('preflight-check', preToolUse(dir, tool, input, SESSION), { cwd: dir, env })
    const bash = JSON.parse((await guard('Bash', { command: 'ls' })).stdout).hookSpecificOutput
    expect(bash).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining('[CUSTODIET] Holding'),
    })
    expect((await guard('Read', { file_path: path.join(dir, 'a') })).stdout).toBe('')
    await prompt('ok, just the login fix please')
    expect((await guard('Bash', { command: 'ls' })).stdout).toBe('')
  })

  it('the HTTP reviewer speaks the Messages API and counts tokens', async () => {
    const model = await startMockModel([], {
      respond: () => ({
        text: '## Compliance Check: ATTENTION\n\n**Issue**: Web search nobody asked for.\n**Principle**: Type A\n**Correction**: Report the error instead.',
      }),
    })
    try {
      config({ reviewer: { kind: 'http', model: 'claude-haiku-test' } })
      await prompt('try again')
      await review('error', { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'sk-ant-test' })
      expect(state().reviews[0]).toMatchObject({ status: 'ATTENTION', input_tokens: 321, output_tokens: 45 })
      expect(state().findings[0]).toMatchObject({ category: 'reactive', level: 2 })
      expect(model.requests[0]).toMatchObject({
        model: 'claude-haiku-test',
        system: expect.stringContaining('custodiet'),
      })
      expect(JSON.stringify(model.requests[0].messages)).toContain('Explicit scope: try again')
    } finally {
      await model.close()
    }
  })

  it('ratchet custodiet status shows envelope, counts, verdicts and cost', async () => {
    config({ reviewer: { kind: 'claude' } })
    await prompt("fix the login bug, don't touch the schema")
    await post('Read', { file_path: '/p/login.ts' })
    await review('periodic', { FAKE_REVIEWER_MODE: 'attention' })
    const r = await exec(BIN('ratchet'), ['custodiet', 'status'], { cwd: dir, env })
    expect(r.stdout).toContain(`Session ${SESSION}`)
    expect(r.stdout).toContain("Constraints: don't touch the schema")
    expect(r.stdout).toMatch(
      /Tool calls: 1 +Reviews: 1 \{"ATTENTION":1\} +Reviewer cost: 1 calls, \d+ in \/ 40 out tokens/,
    )
  })
})

describe('custodiet: reactions, turn ends, holds and cost', () => {
  const pidAlive = (pid: number) => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
  const stop = (extra: Record<string, unknown> = {}, extraEnv: NodeJS.ProcessEnv = {}) =>
    hook({ hook_event_name: 'Stop', stop_hook_active: false, ...extra }, extraEnv)

  it('Type A: the error is not reviewed; the reaction is, with the calls since the error in the window', async () => {
    config({ reviewer: { kind: 'claude' }, reactionCalls: 3 })
    await prompt('try again with outlook?')
    await fail('mcp__outlook__get_emails', {})
    expect(state().reviewing).toBeUndefined()
    await post('Bash', { command: 'ls ~/src' })
    await post('Read', { file_path: path.join(dir, 'notes.md') })
    await post('Bash', { command: 'outlook-cli auth login --tenant x' }, {})
    await until(() => reviewerCalls().length === 1 && !state().reviewing)
    const p = reviewerCalls()[0].prompt
    expect(p).toContain('The calls under review (the error, then the agent')
    expect(p).toMatch(/#1 mcp__outlook__get_emails\s*→ ERROR/)
    expect(p).toContain('#4 Bash outlook-cli auth login --tenant x')
    // A background review gives way to the session it watches: its reviewer runs at the lowest CPU priority.
    expect(reviewerCalls()[0].priority).toBe(19)
  })

  it('Stop: a question answered with an edit is caught without a model, and the turn goes on once to report it', async () => {
    config({ reviewer: { kind: 'none' } })
    await prompt('why does the build fail on node 18?')
    await post('Read', { file_path: path.join(dir, 'package.json') })
    const edit = await post('Edit', { file_path: path.join(dir, 'package.json') })
    expect(context(edit.stdout)).toContain('H19')
    // Given after the turn's last call (the async channel, lost if the turn ends now): given again, once.
    const end = JSON.parse((await stop()).stdout)
    expect(end).toMatchObject({ decision: 'block', reason: expect.stringContaining('H19') })
    expect((await stop({ stop_hook_active: true })).stdout).toBe('')
    // A warning the agent has certainly read (a call came after it) is not repeated.
    await prompt('and why does the lint step fail?')
    await post('Edit', { file_path: path.join(dir, '.eslintrc') })
    await post('Read', { file_path: path.join(dir, 'package.json') })
    expect((await stop()).stdout).toBe('')
  })

  it('Stop with the gate on: a turn no review covered is reviewed before it ends; an ATTENTION in time keeps the turn going with the warning', async () => {
    config({ reviewer: { kind: 'claude' }, stopGate: 'block', stopBudgetMs: 8000 })
    await prompt('fix the login bug')
    await post('Edit', { file_path: path.join(dir, 'src', 'auth.ts') })
    const r = await stop({}, { FAKE_REVIEWER_MODE: 'attention' })
    const out = JSON.parse(r.stdout)
    expect(out.decision).toBe('block')
    expect(out.reason).toContain('The agent is refactoring the auth module')
    expect(out.reason).toContain('tell the user')
    expect(reviewerCalls()[0].prompt).toContain('The calls in this turn')
    // stop_hook_active: never a second block.
    expect((await stop({ stop_hook_active: true })).stdout).toBe('')
    // An on-scope turn ends quietly.
    await prompt('now fix the signup bug')
    await post('Edit', { file_path: path.join(dir, 'src', 'signup.ts') })
    expect((await stop({}, { FAKE_REVIEWER_MODE: 'ok' })).stdout).toBe('')
  })

  const go = () => path.join(dir, 'reviewer-go')
  const waiting = (mode = 'wait-attention') => ({ FAKE_REVIEWER_MODE: mode, FAKE_REVIEWER_GO: go() })
  const heard = () => state().findings.filter((f: { delivered: boolean }) => f.delivered)

  it('Stop (default): the turn ends without waiting for its review; the verdict reaches the agent with the next prompt, once', async () => {
    config({ reviewer: { kind: 'claude' } })
    await prompt('fix the login bug')
    await post('Edit', { file_path: path.join(dir, 'src', 'auth.ts') })
    // The reviewer cannot answer until the test lets it: the Stop hook has returned before any verdict exists.
    const end = await stop({}, waiting())
    expect(end.status).toBe(0)
    expect(end.stdout).toBe('')
    expect(state()).toMatchObject({ reviewing: { trigger: 'stop', from: 1 }, findings: [] })
    fs.writeFileSync(go(), '')
    await until(() => state().findings.length === 1 && !state().reviewing)
    expect(reviewerCalls()[0].prompt).toContain('The calls in this turn')
    expect(heard()).toEqual([])
    const next = await prompt('thanks; now the signup bug')
    expect(context(next.stdout)).toContain('The agent is refactoring the auth module')
    expect(JSON.parse(next.stdout).systemMessage).toMatch(/^custodiet: /)
    expect(context((await prompt('and the footer?')).stdout)).toBe('')
  })

  it('Stop (default): a quiet turn produces nothing, now or with the next prompt', async () => {
    config({ reviewer: { kind: 'claude' } })
    await prompt('fix the login bug')
    await post('Edit', { file_path: path.join(dir, 'src', 'auth.ts') })
    expect((await stop({}, { FAKE_REVIEWER_MODE: 'ok' })).stdout).toBe('')
    await until(() => state().reviews.length === 1 && !state().reviewing)
    expect((await prompt('thanks')).stdout).toBe('')
    // A turn of reads only is not reviewed at all.
    await post('Read', { file_path: path.join(dir, 'src', 'auth.ts') })
    expect((await stop()).stdout).toBe('')
    expect(state().reviewing).toBeUndefined()
    expect(reviewerCalls()).toHaveLength(1)
  })

  it('one review at a time: turns that end while one runs are queued, merged, and reviewed once after it', async () => {
    config({ reviewer: { kind: 'claude' } })
    await prompt('fix the login bug')
    await post('Edit', { file_path: path.join(dir, 'a.ts') })
    expect((await stop({}, waiting('wait-ok'))).stdout).toBe('')
    for (const f of ['b.ts', 'c.ts']) {
      await prompt(`now ${f}`)
      await post('Edit', { file_path: path.join(dir, f) })
      expect((await stop({}, waiting('wait-ok'))).stdout).toBe('')
    }
    expect(state()).toMatchObject({ reviewing: { from: 1 }, queued: { trigger: 'stop', from: 2 }, reviewedUpTo: 3 })
    fs.writeFileSync(go(), '')
    await until(() => reviewerCalls().length === 2 && !state().reviewing && !state().queued)
    // The calls each review was asked about (its window; the envelope may already hold later prompts).
    const [first, second] = reviewerCalls().map(
      (c) => /The calls (?:in this turn|under review):\n([\s\S]*?)\n\n/.exec(c.prompt as string)?.[1],
    )
    expect(first).toMatch(/^#1 Edit .*a\.ts$/)
    expect(second).toMatch(/^#2 Edit .*b\.ts\n#3 Edit .*c\.ts$/)
    expect(state().reviews).toHaveLength(2)
  })

  it('a reviewer killed before it answered does not make its calls reviewed: the next turn end reviews them', async () => {
    config({ reviewer: { kind: 'claude' } })
    await prompt('fix the login bug')
    await post('Edit', { file_path: path.join(dir, 'a.ts') })
    await stop({}, waiting())
    await until(() => state().reviewing?.pid > 0)
    process.kill(state().reviewing.pid, 'SIGKILL')
    await until(() => !pidAlive(state().reviewing.pid))
    await prompt('now b')
    await post('Edit', { file_path: path.join(dir, 'b.ts') })
    fs.writeFileSync(go(), '')
    await stop({}, { FAKE_REVIEWER_MODE: 'attention' })
    await until(() => state().findings.length === 1 && !state().reviewing)
    const last = reviewerCalls().at(-1).prompt as string
    expect(last).toMatch(/#1 Edit .*a\.ts/)
    expect(last).toMatch(/#2 Edit .*b\.ts/)
  })

  it('a verdict its session never heard (the last turn of a headless run) is told to the next session once, and to its own if resumed', async () => {
    config({ reviewer: { kind: 'claude' } })
    await prompt('fix the login bug')
    await post('Edit', { file_path: path.join(dir, 'src', 'auth.ts') })
    await stop({}, { FAKE_REVIEWER_MODE: 'attention' })
    await until(() => state().findings.length === 1 && !state().reviewing)
    const other = (session: string) =>
      hook({ hook_event_name: 'UserPromptSubmit', prompt: 'what next?', session_id: session })
    const b = await other('sess-next')
    expect(context(b.stdout)).toContain(`earlier session in this project (${SESSION})`)
    expect(context(b.stdout)).toContain('The agent is refactoring the auth module')
    expect(JSON.parse(b.stdout).systemMessage).toContain(`earlier session ${SESSION}`)
    expect((await other('sess-later')).stdout).toBe('')
    expect(context((await other('sess-next')).stdout)).toBe('')
    // Its own conversation, resumed, hears it too: that is its drift.
    expect(context((await prompt('go on')).stdout)).toContain('The agent is refactoring the auth module')
    expect(state().findings[0]).toMatchObject({ delivered: true, relayed_to: 'sess-next' })
    const st = await exec(BIN('ratchet'), ['custodiet', 'status', '--session', SESSION], { cwd: dir, env })
    expect(st.stdout).toContain('told to session sess-next')
  })

  it('ratchet custodiet gate: a human turns the wait on and off (each with its cost); the agent cannot', async () => {
    const ratchet = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
      exec(BIN('ratchet'), ['custodiet', 'gate', ...args], { cwd: dir, env: { ...env, ...extra } })
    config({ reviewer: { kind: 'claude' }, every: 3 })
    expect((await ratchet([])).stdout).toContain('End of turn: background (gate off) — the end of a turn does not wait')
    const on = await ratchet(['on'])
    expect(on.status, on.stderr).toBe(0)
    expect(on.stdout).toContain('End of turn: gate on — the end of every turn that changed something waits')
    expect(JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'config.json'), 'utf8')).custodiet).toEqual({
      reviewer: { kind: 'claude' },
      every: 3,
      stopGate: 'block',
    })
    const agent = await ratchet(['off'], { CLAUDECODE: '1' })
    expect(agent.status).not.toBe(0)
    expect(agent.stderr).toContain("is the user's to run")
    expect(JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'config.json'), 'utf8')).custodiet.stopGate).toBe(
      'block',
    )
    expect((await ratchet(['off'])).stdout).toContain('background (gate off)')
    expect(JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'config.json'), 'utf8')).custodiet).toEqual({
      reviewer: { kind: 'claude' },
      every: 3,
    })
    const bad = await ratchet(['maybe'])
    expect(bad.status).toBe(2)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
    config({ stopGate: 'sometimes' })
    expect((await ratchet([])).stdout).toContain('custodiet.stopGate is "sometimes", not "background" or "block"')
  })

  it('a late answer still counts: the gate decides in its budget, the reviewer records cost and finding later', async () => {
    config({ reviewer: { kind: 'claude', timeoutSeconds: 20 }, todoBudgetMs: 500 })
    await prompt('fix the login bug')
    const r = await hook(
      {
        hook_event_name: 'PreToolUse',
        tool_name: 'TodoWrite',
        tool_input: { todos: [{ content: 'Fix the login redirect', status: 'pending' }] },
        tool_use_id: 't',
      },
      { FAKE_REVIEWER_MODE: 'slow-attention', FAKE_REVIEWER_DELAY_MS: '2500' },
    )
    expect(r.stdout).toBe('') // deterministically fine, in time
    await until(() => state().reviews.length === 1)
    expect(state().reviews[0]).toMatchObject({ trigger: 'todo', status: 'ATTENTION', late: true })
    expect(state().cost.calls).toBe(1)
    const st = await exec(BIN('ratchet'), ['custodiet', 'status'], { cwd: dir, env })
    expect(st.stdout).toMatch(/Reviewer today: 1 calls, \d+ in \/ 40 out tokens, \$0\.\d+/)
    // The late finding reaches the agent at its next hook.
    expect(context((await post('Read', { file_path: '/p/a.ts' })).stdout)).toContain('refactoring the auth module')
  })

  it('a reviewer that times out is killed with its whole process group', async () => {
    const pidFile = path.join(dir, 'grandchild.pid')
    config({ reviewer: { kind: 'claude', timeoutSeconds: 1 } })
    await prompt('fix the bug')
    await review('periodic', { FAKE_REVIEWER_MODE: 'hang-child', FAKE_REVIEWER_CHILD_PID: pidFile })
    expect(state().reviews[0]).toMatchObject({ status: 'timeout' })
    const pid = Number(fs.readFileSync(pidFile, 'utf8'))
    await until(() => !pidAlive(pid), 5000)
  })

  it('the daily cap stops reviews (deterministic checks go on) and status says so', async () => {
    config({ reviewer: { kind: 'claude' }, dailyCap: { calls: 1 }, every: 1 })
    await prompt('fix the bug')
    await review('periodic', { FAKE_REVIEWER_MODE: 'ok' })
    await post('Read', { file_path: '/p/a.ts' })
    expect(state().reviewing).toBeUndefined() // not launched: over the cap
    expect(reviewerCalls()).toHaveLength(1)
    const st = await exec(BIN('ratchet'), ['custodiet', 'status'], { cwd: dir, env })
    expect(st.stdout).toContain('REACHED')
  })

  it('holds: status shows them and how to lift them; release lifts them; a later read does not', async () => {
    config({ reviewer: { kind: 'claude' } })
    await prompt('fix the login bug')
    for (let i = 0; i < 2; i++) {
      fs.appendFileSync(
        path.join(dir, 'transcript.jsonl'),
        JSON.stringify({ type: 'user', message: { role: 'user', content: `step ${i}` } }) + '\n',
      )
      await review('periodic', { FAKE_REVIEWER_MODE: 'attention' })
    }
    await post('Read', { file_path: '/p/a.ts' })
    await post('Read', { file_path: '/p/b.ts' })
    const guard = () =>
      runBinAsync('preflight-check', preToolUse(dir, 'Bash', { command: 'ls' }, SESSION), { cwd: dir, env })
    expect(JSON.parse((await guard()).stdout).hookSpecificOutput.permissionDecision).toBe('ask')
    const st = await exec(BIN('ratchet'), ['custodiet', 'status'], { cwd: dir, env })
    expect(st.stdout).toContain('Active holds')
    expect(st.stdout).toContain(`npx ratchet-guard custodiet release --session ${SESSION}`)
    const rel = await exec(BIN('ratchet'), ['custodiet', 'release', '--session', SESSION], { cwd: dir, env })
    expect(rel.stdout).toContain('Released')
    expect((await guard()).stdout).toBe('')
    expect((await exec(BIN('ratchet'), ['custodiet', 'status'], { cwd: dir, env })).stdout).toContain(
      'No active holds.',
    )
  })
})
