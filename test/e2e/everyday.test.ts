// The everyday session benchmark (issue 10 target) as a test: ~45 ordinary calls after a prompt that asked
// for the work, through the built hook, at most 1 interruption. Counts, not timing.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { PROMPT, everydayCalls, everydayProject, everydaySession } from '../../bench/everyday'
import { BIN, ROOT, exec, removeScratch } from '../support/fixtures'
import { claudeEnv, startMockModel } from '../support/mock-anthropic'

describe('everyday session', () => {
  it('60 ordinary calls the prompt asked for: no interruption, and the branch reaches the bare remote', () => {
    const r = everydaySession()
    expect(r.calls).toBeGreaterThanOrEqual(60)
    expect(r.interruptions, JSON.stringify(r.interruptions, null, 2)).toEqual([])
    expect(r.pushed).toBe(true)
  }, 240_000)

  it('the same 60 calls in the real claude CLI: no call refused, no custodiet finding, the branch pushed', async () => {
    const { base, dir } = everydayProject()
    const home = path.join(base, 'home')
    fs.mkdirSync(home)
    expect(
      (await exec(BIN('ratchet'), ['init', '--project-dir', dir], { env: { ...process.env, HOME: home } })).status,
    ).toBe(0)
    const calls = everydayCalls(dir)
    const model = await startMockModel([
      ...calls.map((c) => ({ tool: c.tool, input: c.tool === 'Bash' ? { ...c.input, description: 'step' } : c.input })),
      { text: 'Done: greet() added, tested, documented, committed and pushed.' },
    ])
    try {
      const env = claudeEnv(model.url, home, {
        GIT_AUTHOR_NAME: 'a',
        GIT_AUTHOR_EMAIL: 'a@b',
        GIT_COMMITTER_NAME: 'a',
        GIT_COMMITTER_EMAIL: 'a@b',
      })
      const run = await exec(
        path.join(ROOT, 'node_modules', '.bin', 'claude'),
        ['-p', PROMPT, '--output-format', 'json', '--allowedTools', 'Bash,Read,Edit,Write,Glob,Grep'],
        { cwd: dir, env, timeoutMs: 600_000 },
      )
      expect(run.status, run.stderr).toBe(0)
      const results = model.toolResults()
      expect(results.length).toBe(calls.length)
      const refused = results.filter((r) => /\[PRE-FLIGHT\]|\[RATCHET\]|\[CUSTODIET\]/.test(r.content))
      expect(refused, JSON.stringify(refused, null, 1)).toEqual([])
      // Nothing for custodiet to say: its deterministic checks stayed quiet over the whole session.
      const custodiet = path.join(dir, '.ratchet', 'custodiet')
      const records = fs
        .readdirSync(custodiet)
        .filter((f) => /^[\w-]+\.json$/.test(f) && f !== 'review-cache.json' && f !== 'cost-daily.json')
        .map(
          (f) =>
            JSON.parse(fs.readFileSync(path.join(custodiet, f), 'utf8')) as { toolCount: number; findings: unknown[] },
        )
      // (PostToolUse runs async: the last call or two may be recorded after the run has ended.)
      expect(Math.max(...records.map((r) => r.toolCount))).toBeGreaterThanOrEqual(calls.length - 2)
      const findings = records.flatMap((r) => r.findings)
      expect(findings, JSON.stringify(findings, null, 1)).toEqual([])
      const remote = spawnSync(
        'git',
        ['--git-dir', path.join(base, 'remote.git'), 'log', '--oneline', 'feature/greeting'],
        { encoding: 'utf8' },
      ).stdout
      expect(remote).toContain('Document greet()')
    } finally {
      await model.close()
      removeScratch(base)
    }
  }, 660_000)

  it('the same hook is live: what the prompt did not ask for still stops', () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-everyday-live-')))
    spawnSync('git', ['init', '-q'], { cwd: dir })
    const env = { ...process.env, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', NODE_ENV: undefined }
    const hook = (p: Record<string, unknown>) =>
      spawnSync(BIN('preflight-check'), [], {
        input: JSON.stringify({ session_id: 'live', transcript_path: '', cwd: dir, ...p }),
        cwd: dir,
        env,
        encoding: 'utf8',
      })
    hook({ hook_event_name: 'UserPromptSubmit', prompt: 'add a greet() function and commit it; do not push' })
    const decision = (command: string) =>
      JSON.parse(
        hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: 't' }).stdout ||
          '{}',
      ).hookSpecificOutput?.permissionDecision
    expect(decision('git push origin feature')).toBe('deny')
    expect(decision('git push --force origin main')).toBe('deny')
    expect(decision('git commit -m x')).toBeUndefined()
  })
})
