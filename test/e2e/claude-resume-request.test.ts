// A resumed headless session keeps the user's request. After a deferred call is approved, `claude -p --resume`
// submits Claude Code's own "Continue from where you left off." as the prompt (measured with 2.1.330); it must not
// replace what the user asked for. Real client, real hooks, real git with a bare remote, the mock model.
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, ROOT, exec, tempProject } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'

const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

/** Cut a release (paused for a human, so the headless run stops), approve it, resume; then the model pushes. */
async function scenario(prompt: string): Promise<{
  project: string
  remote: string
  resumed: { status: number | null; stdout: string; stderr: string }
  pushes: { decision: string }[]
  prompts: string[]
}> {
  const project = tempProject('ratchet-resume-')
  const home = tempProject('ratchet-home-')
  const remote = tempProject('ratchet-remote-')
  git(remote, 'init', '-q', '--bare')
  git(project, 'init', '-q', '-b', 'main')
  git(project, 'config', 'user.email', 't@example.com')
  git(project, 'config', 'user.name', 't')
  git(project, 'remote', 'add', 'origin', remote)
  fs.writeFileSync(path.join(project, 'a.txt'), 'a\n')
  git(project, 'add', 'a.txt')
  git(project, 'commit', '-qm', 'a')
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
  // Pushing is not new to this project: the first-use pause is not what this is about.
  fs.writeFileSync(path.join(project, '.ratchet', 'config.json'), JSON.stringify({ firstUsePause: false }))
  const model: MockModel = await startMockModel([
    { tool: 'Bash', input: { command: 'touch release-2.0.txt', description: 'Cut the release' } },
    { tool: 'Bash', input: { command: 'git push origin main', description: 'Push the branch' } },
    { text: 'Done.' },
  ])
  try {
    const first = await exec(CLAUDE, ['-p', prompt, '--output-format', 'json', '--allowedTools', 'Bash'], {
      cwd: project,
      env: claudeEnv(model.url, home),
    })
    expect(JSON.parse(first.stdout).stop_reason).toBe('tool_deferred')
    const queue = JSON.parse(fs.readFileSync(path.join(project, '.ratchet', 'pending-actions.json'), 'utf8'))
    expect(
      (
        await exec(BIN('ratchet'), ['pending', 'approve', queue[0].id], {
          cwd: project,
          env: { ...process.env, HOME: home },
        })
      ).status,
    ).toBe(0)
    const session = JSON.parse(first.stdout).session_id
    const resumed = await exec(
      CLAUDE,
      ['-p', '--resume', session, '--output-format', 'json', '--allowedTools', 'Bash'],
      { cwd: project, env: claudeEnv(model.url, home) },
    )
    const log = fs
      .readFileSync(path.join(project, '.ratchet', 'activity.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
    const prompts = JSON.parse(
      fs.readFileSync(path.join(project, '.ratchet', 'sessions', `${session}.json`), 'utf8'),
    ).prompts
    return {
      project,
      remote,
      resumed,
      pushes: log.filter((l) => l.event === 'PreToolUse' && l.action === 'git push origin main'),
      prompts,
    }
  } finally {
    await model.close()
  }
}

describe('claude -p --resume keeps the request', () => {
  let asked: Awaited<ReturnType<typeof scenario>>
  let unasked: Awaited<ReturnType<typeof scenario>>
  beforeAll(async () => {
    asked = await scenario('cut the 2.0 release and push the branch to origin')
    unasked = await scenario('cut the 2.0 release')
  }, 240_000)
  afterAll(() => {})

  it('the push the user asked for runs after the resume, without the generic check', () => {
    expect(asked.resumed.status, asked.resumed.stderr).toBe(0)
    expect(asked.prompts).toEqual(['cut the 2.0 release and push the branch to origin'])
    expect(asked.pushes.map((p) => p.decision)).toEqual(['allow'])
    expect(git(asked.remote, 'rev-parse', 'main').trim()).toBe(git(asked.project, 'rev-parse', 'main').trim())
  })

  it('must stop: a push the user did not ask for is still checked after the resume', () => {
    expect(unasked.prompts).toEqual(['cut the 2.0 release'])
    expect(unasked.pushes.map((p) => p.decision)).toEqual(['check'])
    expect(() => git(unasked.remote, 'rev-parse', '--verify', 'main')).toThrow()
  })
})
