// Installed the way packages install: `npm pack` → `npm install -D <tarball>` in a fresh project →
// `npx ratchet init` → the real claude CLI runs guarded. Then the package is moved away, and the next
// tool call is blocked (not run) with a clear message; then dist/ alone goes missing, same.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { commandExecutable } from '../../lib/core/settings'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, exec, tempProject } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'
import { distFiles } from '../../lib/core/manifest'

const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')
/** The quick start's second command (README). */
const USER_INIT = ['npx', 'ratchet', 'init'].join(' ')
const npmEnv = (home: string) => ({
  ...process.env,
  HOME: home,
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
})

/** One claude session in `project` that runs `steps`; `before(i)` runs just before the model sends step i. */
async function session(
  project: string,
  home: string,
  steps: Parameters<typeof startMockModel>[0],
  before?: (i: number) => void,
) {
  const done = new Set<number>()
  const model: MockModel = await startMockModel([...steps, { text: 'Done.' }], {
    respond: (req) => {
      const i = req.messages.filter(
        (m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_use'),
      ).length
      if (req.tools?.length && !done.has(i)) {
        done.add(i)
        before?.(i)
      }
      return undefined
    },
  })
  try {
    const r = await exec(
      CLAUDE,
      ['-p', 'do the task', '--output-format', 'json', '--allowedTools', 'Bash', 'Write', 'Edit'],
      { cwd: project, env: claudeEnv(model.url, home) },
    )
    return {
      status: r.status,
      stdout: r.stdout,
      stderr: r.stderr,
      results: model.toolResults(),
      requests: model.mainTurns().length,
    }
  } finally {
    await model.close()
  }
}

describe('installed from the packed tarball', () => {
  let work: string
  let project: string
  let home: string
  let tarball: string
  let files: string[]
  let init: { status: number | null; stdout: string; stderr: string }

  // Async throughout: a long spawnSync (npm install under load) would stall this worker's event loop.
  beforeAll(async () => {
    work = tempProject('ratchet-pack-')
    home = tempProject('ratchet-home-')
    // --ignore-scripts: dist/ is already built by `npm test`'s pretest; rebuilding here would pull it
    // from under the other e2e files running at the same time.
    const pack = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: ROOT,
      env: npmEnv(home),
    })
    expect(pack.status, pack.stderr).toBe(0)
    const info = JSON.parse(pack.stdout)[0]
    tarball = path.join(work, info.filename)
    files = info.files.map((f: { path: string }) => f.path)
    project = path.join(work, 'project')
    fs.mkdirSync(project)
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'someones-app', version: '1.0.0', private: true }),
    )
    const install = await exec('npm', ['install', '-D', '--prefer-offline', tarball], {
      cwd: project,
      env: npmEnv(home),
      timeoutMs: 240_000,
    })
    expect(install.status, install.stderr).toBe(0)
    // What a user types, through a shell as they would type it.
    init = await exec('/bin/sh', ['-c', USER_INIT], { cwd: project, env: npmEnv(home) })
  }, 300_000)

  afterAll(() => {
    fs.rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
  })

  it('the tarball carries the built bundles, so nothing is built at install; no sources or tests', () => {
    for (const f of [
      ...distFiles().map((d) => `dist/${d}`),
      'bin/preflight-check',
      'bin/ratchet',
      'guardrails.json',
      'agents/custodiet.md',
    ])
      expect(files, f).toContain(f)
    // hooks/hooks.json is the plugin's (the package root is the plugin root); the hooks' sources stay out.
    expect(
      files.filter(
        (f) => (/^(lib|hooks|test|scripts|bench)\//.test(f) && f !== 'hooks/hooks.json') || f.endsWith('.ts'),
      ),
    ).toEqual([])
    for (const f of ['.claude-plugin/plugin.json', '.claude-plugin/marketplace.json', 'hooks/hooks.json'])
      expect(files, f).toContain(f)
    // Code caches written on this machine under other V8 options (<name>.<key>.v8cache) are not the build's.
    expect(files.filter((f) => /\.[0-9a-z]+\.v8cache$/.test(f) && !/\.fast\.v8cache$/.test(f))).toEqual([])
  })

  it('npx ratchet init registers the project-local bin links, never a path into a checkout', () => {
    expect(init.status, init.stderr).toBe(0)
    const text = fs.readFileSync(path.join(project, '.claude', 'settings.json'), 'utf8')
    expect(text).not.toContain(ROOT)
    expect(text).not.toContain(work)
    const pre = JSON.parse(text).hooks.PreToolUse[0].hooks[0]
    expect(pre.command).toContain('f="$CLAUDE_PROJECT_DIR"/node_modules/.bin/preflight-check;')
    expect(pre.onFailure).toBe('block')
    expect(fs.lstatSync(path.join(project, 'node_modules', '.bin', 'preflight-check')).isSymbolicLink()).toBe(true)
  })

  it('the real claude session runs guarded: a push is held, an ordinary command runs', async () => {
    // A repository whose remote leads nowhere: the push itself can never run. (An empty .git folder would be a
    // repository git cannot read, which the evidence calls unchecked: a pause, which a headless run defers.)
    execFileSync('git', ['init', '-q'], { cwd: project })
    execFileSync('git', ['remote', 'add', 'origin', path.join(work, 'no-such-remote.git')], { cwd: project })
    const s = await session(project, home, [
      { tool: 'Bash', input: { command: 'git push origin main', description: 'Push' } },
      { tool: 'Bash', input: { command: 'touch made-while-installed.txt', description: 'Create a file' } },
    ])
    expect(s.status, s.stderr).toBe(0)
    expect(s.results[0].is_error).toBe(true)
    expect(s.results[0].content).toContain('[PRE-FLIGHT] Action: git push origin main')
    expect(s.results[1].is_error).toBe(false)
    expect(fs.existsSync(path.join(project, 'made-while-installed.txt'))).toBe(true)
  }, 180_000)

  it('an install, link or shim that would replace the guard fails at the kernel, in every spelling, and the next call is still judged', async () => {
    // A folder holding a package named like Ratchet whose executables do nothing (the red team's `npm install -D ./evil`).
    const evil = path.join(project, 'evil')
    fs.mkdirSync(path.join(evil, 'bin'), { recursive: true })
    fs.writeFileSync(
      path.join(evil, 'package.json'),
      JSON.stringify({
        name: 'ratchet-guard',
        version: '9.9.9',
        bin: { 'preflight-check': 'bin/noop', 'session-start': 'bin/noop', custodiet: 'bin/noop' },
      }),
    )
    fs.writeFileSync(path.join(evil, 'bin', 'noop'), '#!/bin/sh\nexit 0\n', { mode: 0o755 })
    const pkgJson = () => fs.readFileSync(path.join(project, 'node_modules', 'ratchet-guard', 'package.json'), 'utf8')
    const link = () => fs.readlinkSync(path.join(project, 'node_modules', '.bin', 'preflight-check'))
    const before = { pkg: pkgJson(), link: link(), deps: fs.readFileSync(path.join(project, 'package.json'), 'utf8') }
    const s = await session(project, home, [
      {
        tool: 'Bash',
        input: { command: 'npm install -D ./evil --offline --no-audit --no-fund', description: 'Install' },
      },
      {
        tool: 'Bash',
        input: {
          command: 'npm install --offline --no-audit --no-fund ratchet-guard@npm:left-pad',
          description: 'Alias',
        },
      },
      {
        tool: 'Bash',
        input: { command: 'ln -sf ../../evil/bin/noop node_modules/.bin/preflight-check', description: 'Shim' },
      },
      {
        tool: 'Bash',
        input: { command: 'cp evil/bin/noop node_modules/ratchet-guard/bin/preflight-check', description: 'Overwrite' },
      },
      { tool: 'Bash', input: { command: 'rm -rf node_modules/ratchet-guard', description: 'Remove' } },
      { tool: 'Bash', input: { command: 'git push origin main', description: 'Push' } },
    ])
    expect(s.status, s.stderr).toBe(0)
    expect(pkgJson()).toBe(before.pkg)
    expect(link()).toBe(before.link)
    // The push after every attempt still met the real preflight-check.
    expect(s.results[5].content).toContain('[PRE-FLIGHT] Action: git push origin main')
  }, 240_000)

  it('when the package is moved away mid-session, the next tool call is blocked, not run, and says why', async () => {
    const pkg = path.join(project, 'node_modules', 'ratchet-guard')
    const away = path.join(work, 'ratchet-moved')
    try {
      const s = await session(
        project,
        home,
        [
          { tool: 'Bash', input: { command: 'touch before-the-move.txt', description: 'Create a file' } },
          { tool: 'Bash', input: { command: 'touch after-the-move.txt', description: 'Create a file' } },
        ],
        (i) => i === 1 && fs.renameSync(pkg, away),
      )
      expect(s.status, s.stderr).toBe(0)
      expect(s.results[0].is_error).toBe(false)
      expect(fs.existsSync(path.join(project, 'before-the-move.txt'))).toBe(true)
      expect(s.results[1].is_error).toBe(true)
      expect(s.results[1].content).toContain(
        `Ratchet preflight-check is missing at ${project}/node_modules/.bin/preflight-check (moved or uninstalled?), so this is blocked to be safe.`,
      )
      expect(fs.existsSync(path.join(project, 'after-the-move.txt'))).toBe(false)
    } finally {
      if (fs.existsSync(away)) fs.renameSync(away, pkg)
    }
  }, 180_000)

  it('a session started with the package missing never reaches the model: the prompt is blocked with the same line', async () => {
    const pkg = path.join(project, 'node_modules', 'ratchet-guard')
    const away = path.join(work, 'ratchet-moved')
    fs.renameSync(pkg, away)
    try {
      const s = await session(project, home, [
        { tool: 'Bash', input: { command: 'touch made-while-missing.txt', description: 'Create a file' } },
      ])
      expect(s.requests).toBe(0)
      // preflight-check and custodiet both guard UserPromptSubmit and run in parallel: the client reports
      // whichever refused first (under load either), and both mean the same: the install is missing.
      expect(s.stdout + s.stderr).toMatch(/Ratchet (preflight-check|custodiet) is missing at/)
      expect(fs.existsSync(path.join(project, 'made-while-missing.txt'))).toBe(false)
    } finally {
      fs.renameSync(away, pkg)
    }
  }, 180_000)

  it('with dist/ gone from the installed package, the next call is blocked with one line, no stack trace', async () => {
    const dist = path.join(project, 'node_modules', 'ratchet-guard', 'dist')
    try {
      const s = await session(
        project,
        home,
        [
          { tool: 'Bash', input: { command: 'touch with-dist.txt', description: 'Create a file' } },
          { tool: 'Bash', input: { command: 'touch without-dist.txt', description: 'Create a file' } },
        ],
        (i) => i === 1 && fs.renameSync(dist, dist + '.away'),
      )
      expect(s.results[0].is_error).toBe(false)
      expect(s.results[1].is_error).toBe(true)
      expect(s.results[1].content).toContain('ratchet preflight-check: the install is incomplete')
      expect(s.results[1].content).not.toMatch(/\n\s+at /)
      expect(fs.existsSync(path.join(project, 'without-dist.txt'))).toBe(false)
    } finally {
      if (fs.existsSync(dist + '.away')) fs.renameSync(dist + '.away', dist)
    }
  }, 180_000)

  it('with a library chunk gone, a call that needs it is blocked with one line, and doctor names the file', async () => {
    const chunk = path.join(project, 'node_modules', 'ratchet-guard', 'dist', 'zod-mini.cjs')
    // A session file with a key the hand check leaves to the schema: this call needs zod.
    const sessions = path.join(project, '.ratchet', 'sessions')
    fs.mkdirSync(sessions, { recursive: true })
    fs.writeFileSync(
      path.join(sessions, 'chunk-gone.json'),
      JSON.stringify({ reads: {}, prompts: [], checks: {}, future: 1 }),
    )
    const call = JSON.stringify({
      session_id: 'chunk-gone',
      cwd: project,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'touch x.txt' },
    })
    const hook = path.join(project, 'node_modules', '.bin', 'preflight-check')
    fs.renameSync(chunk, chunk + '.away')
    try {
      const r = await exec(hook, [], {
        cwd: project,
        env: { ...process.env, HOME: home, CLAUDE_PROJECT_DIR: project },
        input: call,
      })
      const out = JSON.parse(r.stdout).hookSpecificOutput
      expect(out.permissionDecision).toBe('deny')
      expect(out.permissionDecisionReason).toContain('the install is incomplete')
      expect(out.permissionDecisionReason).toContain('zod-mini.cjs')
      expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /)
      const doctor = await exec(path.join(project, 'node_modules', '.bin', 'ratchet'), ['doctor'], {
        cwd: project,
        env: { ...process.env, HOME: home, CLAUDE_PROJECT_DIR: project },
      })
      // doctor reads state through zod too: it says the same one line, naming the file.
      expect(doctor.stdout + doctor.stderr).toMatch(
        /the install is incomplete \(ENOENT .*zod-mini\.cjs\): reinstall it \(npm install in the project\)/,
      )
      expect(doctor.stdout + doctor.stderr).not.toMatch(/\n\s+at /)
    } finally {
      if (fs.existsSync(chunk + '.away')) fs.renameSync(chunk + '.away', chunk)
    }
    // Back in place: the same call is decided again (an ordinary command, quiet).
    const again = await exec(hook, [], {
      cwd: project,
      env: { ...process.env, HOME: home, CLAUDE_PROJECT_DIR: project },
      input: call,
    })
    expect(again.stdout).toBe('')
  }, 180_000)

  it('installed globally, init --user registers the bin on PATH, and it runs', async () => {
    const prefix = path.join(work, 'global')
    const userHome = tempProject('ratchet-home-')
    const env = {
      ...npmEnv(userHome),
      npm_config_prefix: prefix,
      PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH}`,
    }
    const install = await exec('npm', ['install', '-g', '--prefer-offline', tarball], {
      cwd: work,
      env,
      timeoutMs: 240_000,
    })
    expect(install.status, install.stderr).toBe(0)
    const r = await exec(path.join(prefix, 'bin', 'ratchet'), ['init', '--user'], { cwd: project, env })
    expect(r.status, r.stderr).toBe(0)
    const text = fs.readFileSync(path.join(userHome, '.claude', 'settings.json'), 'utf8')
    expect(text).not.toContain(ROOT)
    const user = JSON.parse(text)
    const pre = user.hooks.PreToolUse[0].hooks[0]
    // The hook runs what is on PATH, wherever the session starts (only the PATH guard reads the project's folder).
    expect(commandExecutable(pre.command)).not.toContain('CLAUDE_PROJECT_DIR')
    // The floor for every project: the sandbox required, and the file tools kept off the state folder wherever it starts.
    expect(user.sandbox).toMatchObject({ enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false })
    expect(user.permissions.deny).toEqual(
      expect.arrayContaining([
        'Edit(./.ratchet/**)',
        'Edit(./.claude/settings.local.json)',
        'Read(~/.config/ratchet/**)',
      ]),
    )
    expect(pre.command).toContain(`f="${path.join(prefix, 'bin', 'preflight-check')}";`)
    // The registered command, run as Claude Code runs it, decides.
    const payload = JSON.stringify({
      session_id: 'g',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'git push origin main' },
      cwd: project,
    })
    const run = await exec('/bin/sh', ['-c', pre.command], {
      cwd: project,
      input: payload,
      env: { PATH: process.env.PATH, HOME: userHome, CLAUDE_PROJECT_DIR: project },
    })
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toContain('[PRE-FLIGHT] Action: git push origin main')
  }, 300_000)
})
