// Headless `claude -p`: a paused call is deferred (the run stops), the human approves at the terminal,
// and `claude -p --resume` runs exactly that call.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, ROOT, exec, tempProject } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'

describe('defer in headless runs', () => {
  let model: MockModel
  let project: string
  let home: string
  let first: { status: number | null; stdout: string; stderr: string }
  let resumed: { status: number | null; stdout: string; stderr: string }
  let approve: { status: number | null; stdout: string; stderr: string }
  let ranBeforeApproval = true

  beforeAll(async () => {
    project = tempProject('ratchet-claude-defer-')
    home = tempProject('ratchet-home-')
    expect(
      (await exec(BIN('ratchet'), ['init', '--project-dir', project], { env: { ...process.env, HOME: home } })).status,
    ).toBe(0)
    fs.writeFileSync(
      path.join(project, '.ratchet', 'guardrails.json'),
      JSON.stringify([
        {
          id: 'GR-REL',
          pattern: 'custom',
          match: { command: ['touch release-*'] },
          rule: 'Releases need a human yes.',
          severity: 'hard',
          decision: 'pause',
        },
      ]),
    )
    model = await startMockModel([
      { tool: 'Bash', input: { command: 'touch release-2.0.txt', description: 'Cut the release' } },
      { text: 'Released.' },
    ])
    const claude = path.join(ROOT, 'node_modules', '.bin', 'claude')
    first = await exec(claude, ['-p', 'cut the 2.0 release', '--output-format', 'json', '--allowedTools', 'Bash'], {
      cwd: project,
      env: claudeEnv(model.url, home),
    })
    ranBeforeApproval = fs.existsSync(path.join(project, 'release-2.0.txt'))
    const queue = JSON.parse(fs.readFileSync(path.join(project, '.ratchet', 'pending-actions.json'), 'utf8'))
    approve = await exec(BIN('ratchet'), ['pending', 'approve', queue[0].id], {
      cwd: project,
      env: { ...process.env, CLAUDE_PROJECT_DIR: project },
    })
    const session = JSON.parse(first.stdout).session_id
    resumed = await exec(claude, ['-p', '--resume', session, '--output-format', 'json', '--allowedTools', 'Bash'], {
      cwd: project,
      env: claudeEnv(model.url, home),
    })
  }, 180_000)

  afterAll(async () => {
    await model?.close()
  })

  it('the headless run stops at the paused call instead of failing it', () => {
    const out = JSON.parse(first.stdout)
    expect(out.stop_reason).toBe('tool_deferred')
    expect(ranBeforeApproval).toBe(false)
  })

  it('after approval, --resume runs exactly that call', () => {
    expect(approve.status).toBe(0)
    expect(resumed.status, resumed.stderr).toBe(0)
    expect(fs.existsSync(path.join(project, 'release-2.0.txt'))).toBe(true)
    const q = JSON.parse(fs.readFileSync(path.join(project, '.ratchet', 'pending-actions.json'), 'utf8'))
    expect(q[0].status).toBe('consumed')
  })
})

// `claude -p` shows neither a hook's systemMessage nor its stderr, so the pending id goes to the client's own
// stderr: the terminal of the person who started the run (here a real pseudo-terminal from `script`), or the
// file or pipe a script sent it to.
describe("a headless pause is visible on the run's stderr", () => {
  let model: MockModel
  let project: string
  let run: { status: number | null; stdout: string; stderr: string }
  let logged: { status: number | null; stdout: string; stderr: string }

  beforeAll(async () => {
    project = tempProject('ratchet-claude-visible-')
    const home = tempProject('ratchet-home-')
    expect(
      (await exec(BIN('ratchet'), ['init', '--project-dir', project], { env: { ...process.env, HOME: home } })).status,
    ).toBe(0)
    fs.writeFileSync(
      path.join(project, '.ratchet', 'guardrails.json'),
      JSON.stringify([
        {
          id: 'GR-REL',
          pattern: 'custom',
          match: { command: ['touch release-*'] },
          rule: 'Releases need a human yes.',
          severity: 'hard',
          decision: 'pause',
        },
      ]),
    )
    model = await startMockModel([
      { tool: 'Bash', input: { command: 'touch release-3.0.txt', description: 'Cut the release' } },
      { text: 'Released.' },
    ])
    const claude = path.join(ROOT, 'node_modules', '.bin', 'claude')
    const line = `${JSON.stringify(claude)} -p 'cut the 3.0 release' --output-format json --allowedTools Bash < /dev/null`
    run = await exec('script', ['-qec', line, '/dev/null'], { cwd: project, env: claudeEnv(model.url, home) })
    // And a script that keeps the run's errors in a file.
    logged = await exec('bash', ['-c', `${line} 2> run-errors.log`], { cwd: project, env: claudeEnv(model.url, home) })
  }, 180_000)

  afterAll(async () => {
    await model?.close()
  })

  it('at the terminal: names the pending id, what it is, how to decide and how to resume', () => {
    const queue = JSON.parse(fs.readFileSync(path.join(project, '.ratchet', 'pending-actions.json'), 'utf8'))
    // Each run is its own session, and an approval covers the session that asked: one entry per run.
    expect(queue).toHaveLength(2)
    expect(new Set(queue.map((e: { session_id: string }) => e.session_id)).size).toBe(2)
    const id = queue[0].id as string
    expect(run.stdout).toContain(`[ratchet] Ratchet paused ${id}`)
    expect(run.stdout).toContain('touch release-3.0.txt')
    expect(run.stdout).toContain(`npx ratchet-guard pending approve ${id}`)
    expect(run.stdout).toMatch(/claude -p --resume [0-9a-f-]{36}/)
    expect(run.stdout).toContain('"stop_reason":"tool_deferred"')
    expect(fs.existsSync(path.join(project, 'release-3.0.txt'))).toBe(false)
  })

  it("in a script: the line is appended to the run's error log, and stdout stays clean JSON", () => {
    const out = JSON.parse(logged.stdout)
    expect(out.stop_reason).toBe('tool_deferred')
    const log = fs.readFileSync(path.join(project, 'run-errors.log'), 'utf8')
    expect(log).toContain('[ratchet] Ratchet paused pa-')
    expect(log).toContain(`claude -p --resume ${out.session_id}`)
  })
})
