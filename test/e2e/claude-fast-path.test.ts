// The fast path inside the real claude CLI: the same scripted session (reads, plain commands, an edit, and calls
// that only look like reads) run with preflight-check's fast path on and off gives the same tool results and
// the same activity log, decision for decision. Two projects, each set up by `ratchet init`, one mock model each.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { settle } from '../../hooks/preflight-check/fast'
import { BIN, ROOT, exec, tempProject } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'

const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')

interface Run {
  project: string
  model: MockModel
  result: { status: number | null; stdout: string; stderr: string }
}

async function session(fast: boolean): Promise<Run> {
  const project = tempProject('ratchet-claude-fast-')
  const home = tempProject('ratchet-home-')
  const init = spawnSync(BIN('ratchet'), ['init', '--project-dir', project], {
    encoding: 'utf8',
    env: { ...process.env, HOME: home },
  })
  expect(init.status, init.stderr).toBe(0)
  fs.mkdirSync(path.join(project, 'src'))
  fs.writeFileSync(path.join(project, 'README.md'), '# demo\n')
  fs.writeFileSync(path.join(project, 'src', 'app.ts'), 'export const a = 1\n')
  fs.writeFileSync(path.join(project, '.env'), 'API_KEY=sk_live_abcdefghijklmnopqrstu\n')
  fs.mkdirSync(path.join(project, 'build'))
  fs.symlinkSync(path.join(project, '.ratchet', 'guardrails.json'), path.join(project, 'notes.txt'))
  const at = (f: string) => path.join(project, f)
  const model = await startMockModel([
    { text: 'Looking around.', tool: 'Read', input: { file_path: at('README.md') } },
    { tool: 'Bash', input: { command: 'ls -la', description: 'List files' } },
    { tool: 'Glob', input: { pattern: '**/*.ts' } },
    { tool: 'Grep', input: { pattern: 'const', path: at('src') } },
    { tool: 'Bash', input: { command: 'cat src/app.ts', description: 'Show the app' } },
    { tool: 'Edit', input: { file_path: at('src/app.ts'), old_string: '1', new_string: '2' } },
    { tool: 'Read', input: { file_path: at('notes.txt') } },
    { tool: 'Read', input: { file_path: at('.env') } },
    { tool: 'Bash', input: { command: 'git log; rm -rf build', description: 'Log and clean' } },
    { tool: 'Bash', input: { command: 'ls $(rm -rf build)', description: 'List' } },
    { tool: 'Bash', input: { command: 'head -n 1 README.md', description: 'First line' } },
    { text: 'Done.' },
  ])
  const result = await exec(
    CLAUDE,
    [
      '-p',
      'have a look at the project and bump the constant in src/app.ts',
      '--output-format',
      'json',
      '--allowedTools',
      'Bash',
      'Read',
      'Edit',
      'Glob',
      'Grep',
    ],
    {
      cwd: project,
      env: claudeEnv(model.url, home, fast ? {} : { RATCHET_FAST_PATH: '0' }),
    },
  )
  return { project, model, result }
}

const activity = (r: Run) =>
  fs
    .readFileSync(path.join(r.project, '.ratchet', 'activity.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((l) => l.event === 'PreToolUse')
    .map(({ time: _t, latency_ms: _l, fingerprint: _f, session: _s, ...rest }) =>
      JSON.parse(JSON.stringify(rest).split(r.project).join('<P>')),
    )

describe('the fast path inside the real claude CLI', () => {
  let on: Run
  let off: Run

  beforeAll(async () => {
    on = await session(true)
    off = await session(false)
  }, 240_000)

  afterAll(async () => {
    await on?.model.close()
    await off?.model.close()
  })

  it('both sessions run to the end', () => {
    for (const r of [on, off]) {
      expect(r.result.status, r.result.stderr).toBe(0)
      expect(JSON.parse(r.result.stdout)).toMatchObject({ type: 'result', result: 'Done.' })
    }
  })

  it('the same decisions, in the same order, logged the same way', () => {
    expect(activity(on)).toEqual(activity(off))
    expect(activity(on).map((l) => [l.tool, l.decision])).toEqual([
      ['Read', 'allow'],
      ['Bash', 'allow'],
      ['Glob', 'allow'],
      ['Grep', 'allow'],
      ['Bash', 'allow'],
      ['Edit', 'allow'],
      ['Read', 'allow'],
      ['Read', 'allow'],
      ['Bash', 'check'],
      ['Bash', 'check'],
      ['Bash', 'allow'],
    ])
  })

  it('the same tool results reach the model, and what was checked did not run', () => {
    const results = (r: Run) =>
      r.model.toolResults().map((t) => ({
        is_error: t.is_error,
        content: t.content
          .split(r.project)
          .join('<P>')
          .replace(/\d{2}:\d{2}|\w{3} +\d+ +\d{1,2}:\d{2}|total \d+|\b\d{3,}\b/g, '#'),
      }))
    expect(results(on).map((x) => x.is_error)).toEqual(results(off).map((x) => x.is_error))
    const checks = results(on).filter((x) => x.content.includes('[PRE-FLIGHT]'))
    expect(checks.length).toBe(2)
    expect(fs.existsSync(path.join(on.project, 'build'))).toBe(true)
    expect(fs.readFileSync(path.join(on.project, 'src', 'app.ts'), 'utf8')).toBe('export const a = 2\n')
  })

  it('the comparison is not vacuous: after the session the fast path settles the ordinary calls and not the symlink', () => {
    const call = (tool_name: string, tool_input: Record<string, unknown>) =>
      JSON.stringify({ session_id: 'probe', hook_event_name: 'PreToolUse', tool_name, tool_input, cwd: on.project })
    const fast = (text: string) =>
      settle(
        text,
        { CLAUDE_PROJECT_DIR: on.project, HOME: path.dirname(on.project) + '/nohome' },
        on.project,
        Date.now(),
        process.hrtime.bigint(),
      )
    expect(fast(call('Bash', { command: 'ls -la' }))).toBe(true)
    expect(fast(call('Read', { file_path: path.join(on.project, 'README.md') }))).toBe(true)
    expect(fast(call('Read', { file_path: path.join(on.project, 'notes.txt') }))).toBe(false)
  })

  it('the reads are in the session either way (the edit of a file read is not stale)', () => {
    const reads = (r: Run) => {
      const dir = path.join(r.project, '.ratchet', 'sessions')
      const file = fs.readdirSync(dir).find((f) => f.endsWith('.json'))!
      return Object.keys(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')).reads)
        .map((k) => k.split(r.project).join('<P>'))
        .sort()
    }
    expect(reads(on)).toEqual(reads(off))
    expect(reads(on)).toEqual(expect.arrayContaining(['<P>/README.md', '<P>/src/app.ts', '<P>/.env']))
  })
})
