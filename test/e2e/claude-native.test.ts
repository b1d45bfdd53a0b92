// The compiled hook client inside the real claude CLI, sandboxed as `ratchet init` sets it up: the hook command init
// writes runs native/hook-client.c for preflight-check and custodiet, the warm process answers them, and the guard still holds (a
// push of .env to a real bare remote stops) while ordinary calls stay quiet.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NATIVE_CLIENT } from '../../lib/core/manifest'
import { BIN, ROOT, exec, tempProject } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'

const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')
const built = fs.existsSync(path.join(ROOT, 'dist', NATIVE_CLIENT.file))

describe.skipIf(!built)('the compiled hook client in a sandboxed claude session', () => {
  let project: string
  let home: string
  let remote: string
  let model: MockModel
  let result: { status: number | null; stdout: string; stderr: string }

  beforeAll(async () => {
    const root = tempProject('ratchet-claude-native-')
    project = path.join(root, 'work')
    remote = path.join(root, 'remote.git')
    home = path.join(root, 'home')
    fs.mkdirSync(project)
    fs.mkdirSync(home)
    const git = (args: string[], cwd = project) =>
      execFileSync('git', args, {
        cwd,
        encoding: 'utf8',
        env: {
          ...process.env,
          HOME: home,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@x',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@x',
        },
      })
    git(['init', '-q', '--bare', '-b', 'main', remote], root)
    git(['init', '-q', '-b', 'main'])
    fs.writeFileSync(path.join(project, 'README.md'), '# demo\n')
    fs.writeFileSync(path.join(project, '.env'), 'API_KEY=sk_live_abcdefghijklmnopqrstu\n')
    git(['add', 'README.md'])
    git(['commit', '-qm', 'init'])
    git(['remote', 'add', 'origin', remote])
    git(['push', '-q', '-u', 'origin', 'main'])
    const init = await exec(BIN('ratchet'), ['init', '--project-dir', project], { env: { ...process.env, HOME: home } })
    expect(init.status, init.stderr).toBe(0)
    const bash = (command: string) => ({ tool: 'Bash', input: { command, description: 'run' } })
    model = await startMockModel([
      bash('ls'),
      { tool: 'Read', input: { file_path: path.join(project, 'README.md') } },
      bash('ls -la'),
      bash('git status --short'),
      bash('sleep 1; ls'),
      bash('git add -f .env && git commit -qm "add env" && git push -q origin main'),
      { text: 'Done.' },
    ])
    result = await exec(
      CLAUDE,
      ['-p', 'Look around, then commit and push.', '--output-format', 'json', '--allowedTools', 'Bash', 'Read'],
      {
        cwd: project,
        // The warm process on (the test setup turns it off for other files), as in a user's session.
        env: claudeEnv(model.url, home, { RATCHET_WARM: '1', RATCHET_WARM_LOG: path.join(home, 'warm.log') }),
        timeoutMs: 300_000,
      },
    )
  }, 360_000)

  afterAll(async () => {
    await model?.close()
    // The warm process the session started, by the pid in its keys.
    const dir = path.join(home, '.config', 'ratchet', 'warm')
    for (const f of fs.existsSync(dir) ? fs.readdirSync(dir).filter((x) => x.endsWith('.json')) : []) {
      try {
        process.kill(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).pid, 'SIGKILL')
      } catch {}
    }
  })

  it("init wrote the client into the sandboxed project's PreToolUse hook", () => {
    const settings = JSON.parse(fs.readFileSync(path.join(project, '.claude', 'settings.json'), 'utf8'))
    expect(settings.sandbox?.enabled).toBe(true)
    const pre = JSON.stringify(settings.hooks.PreToolUse)
    expect(pre).toContain(`dist/${NATIVE_CLIENT.file}`)
    expect(result.status, result.stderr).toBe(0)
  })

  it('the push of .env stops (a headless run is deferred there, to be resumed), and the remote never gets it', () => {
    const results = model.toolResults()
    // The five calls before it ran; the push is the last call the session made: the run stopped on it.
    expect(results).toHaveLength(5)
    expect(JSON.parse(result.stdout).stop_reason).toBe('tool_deferred')
    const log = execFileSync('git', ['--git-dir', remote, 'log', '--format=%s', 'main'], { encoding: 'utf8' })
    expect(log.trim().split('\n')).toEqual(['init'])
    const activity = fs.readFileSync(path.join(project, '.ratchet', 'activity.jsonl'), 'utf8')
    expect(activity).toMatch(/git push -q origin main/)
  })

  it('ordinary calls stay quiet, and the warm process answered calls the client handed it', () => {
    const results = model.toolResults()
    for (const i of [0, 1, 2, 3, 4]) {
      expect(results[i].is_error, results[i].content).toBe(false)
      expect(results[i].content).not.toMatch(/PRE-FLIGHT/)
    }
    const answered = fs.existsSync(path.join(home, 'warm.log'))
      ? fs
          .readFileSync(path.join(home, 'warm.log'), 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('answered ')).length
      : 0
    expect(answered).toBeGreaterThan(0)
  })

  it("custodiet's calls went through the client too: the warm process recorded each call that ran", () => {
    const lines = fs.readFileSync(path.join(home, 'warm.log'), 'utf8').split('\n')
    // The session's calls after the warm process was up (SessionStart starts it): custodiet's among them.
    expect(lines.filter((l) => l === 'answered custodiet').length).toBeGreaterThan(0)
    expect(lines.filter((l) => l === 'answered preflight-check').length).toBeGreaterThan(0)
    const session = JSON.parse(result.stdout).session_id as string
    const record = JSON.parse(fs.readFileSync(path.join(project, '.ratchet', 'custodiet', `${session}.json`), 'utf8'))
    // Its PostToolUse runs in the background: the calls that ran are counted, whichever process took each. The last
    // one's can be cut off when `claude -p` exits right after it (residual-risk.md §17; seen in CI): 4 or 5.
    expect(record.toolCount).toBeGreaterThanOrEqual(4)
    expect(record.toolCount).toBeLessThanOrEqual(5)
  })
})
