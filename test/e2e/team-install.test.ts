// A team shares one guarded project through a real bare git remote. Clone A runs the one install command
// (`npx <packed tarball> install`: npm exec, as from the registry once published), commits and pushes; clone B, a
// fresh clone, runs only `npm install`, and its real `claude -p` session is guarded: a push carrying an untracked
// `.env` is stopped, an ordinary `ls` is quiet. Nothing written into the repository names a path outside it. Then
// `update` from a newer tarball, and `uninstall` in clone B after its node_modules is gone.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, exec, tempProject, type Run } from '../support/fixtures'
import { claudeEnv, startMockModel } from '../support/mock-anthropic'
import { FAKE } from '../support/fake-secrets'

const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')

describe("a team shares the guard through git: one install, a teammate's clone guarded after npm install", () => {
  let work: string
  let remote: string
  let a: string
  let b: string
  let home: string
  let tarball: string
  let env: NodeJS.ProcessEnv
  let install: Run
  let dryRun: Run
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env })
  const npx = (cwd: string, spec: string, ...args: string[]) =>
    exec('npx', ['--yes', `file:${spec}`, ...args], { cwd, env, timeoutMs: 240_000 })

  beforeAll(async () => {
    work = tempProject('ratchet-team-')
    home = path.join(work, 'home')
    fs.mkdirSync(home)
    env = {
      ...claudeEnv('http://127.0.0.1:9', home),
      GIT_AUTHOR_NAME: 'A',
      GIT_AUTHOR_EMAIL: 'a@x',
      GIT_COMMITTER_NAME: 'A',
      GIT_COMMITTER_EMAIL: 'a@x',
      GIT_CONFIG_NOSYSTEM: '1',
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    }
    // --ignore-scripts: dist/ is built already (pretest); rebuilding would pull it from under other e2e files.
    const pack = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: ROOT,
      env,
    })
    expect(pack.status, pack.stderr).toBe(0)
    tarball = path.join(work, JSON.parse(pack.stdout)[0].filename)
    remote = path.join(work, 'remote.git')
    a = path.join(work, 'a')
    b = path.join(work, 'b')
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote])
    execFileSync('git', ['clone', '-q', remote, a], { env })
    fs.writeFileSync(path.join(a, 'README.md'), '# Demo\n\nThis projet says hello.\n')
    fs.writeFileSync(path.join(a, '.gitignore'), 'node_modules/\n')
    git(a, 'add', '-A')
    git(a, 'commit', '-qm', 'init')
    git(a, 'push', '-q', 'origin', 'HEAD:main')
    dryRun = await npx(a, tarball, 'install', '--dry-run')
    install = await npx(a, tarball, 'install')
  }, 300_000)

  afterAll(() => {
    fs.rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
  })

  it.each(['install', 'update', 'uninstall'])(
    "%s is the user's: refused inside a Claude Code session, nothing written",
    async (cmd) => {
      const files = ['package.json', '.claude/settings.json'].map((f) => path.join(a, f))
      const before = files.map((f) => fs.readFileSync(f, 'utf8'))
      const r = await exec('npx', ['--yes', `file:${tarball}`, cmd], {
        cwd: a,
        env: { ...env, CLAUDECODE: '1' },
        timeoutMs: 240_000,
      })
      expect(r.status).toBe(5)
      expect(r.stderr).toBe(
        `ratchet: ratchet-guard ${cmd} is the user's to run, in a terminal outside the agent's session (refused inside Claude Code: CLAUDECODE=1)\n`,
      )
      expect(files.map((f) => fs.readFileSync(f, 'utf8'))).toEqual(before)
    },
    240_000,
  )

  it('--dry-run shows the package.json and settings diff and changes nothing', () => {
    expect(dryRun.status, dryRun.stderr).toBe(0)
    expect(dryRun.stdout).toContain('+     "ratchet-guard": "file:.ratchet/vendor/ratchet-guard-0.1.0.tgz"')
    expect(dryRun.stdout).toContain(`Would change ${path.join(a, '.claude', 'settings.json')}:`)
    expect(dryRun.stdout).not.toContain('_npx')
  })

  it('install vendors the tarball inside the repository and depends on it by a relative file: spec', () => {
    expect(install.status, install.stderr + install.stdout).toBe(0)
    expect(install.stdout).toContain('✓ init ')
    const pkg = JSON.parse(fs.readFileSync(path.join(a, 'package.json'), 'utf8'))
    expect(pkg.devDependencies).toEqual({ 'ratchet-guard': 'file:.ratchet/vendor/ratchet-guard-0.1.0.tgz' })
    // Buffer.equals, not toEqual: toEqual walks 1.8 MB byte by byte and ran past the test's 30 s under load.
    expect(
      fs.readFileSync(path.join(a, '.ratchet', 'vendor', 'ratchet-guard-0.1.0.tgz')).equals(fs.readFileSync(tarball)),
      'vendored copy is the tarball, byte for byte',
    ).toBe(true)
  })

  it('running it again changes nothing (idempotent)', async () => {
    const files = ['package.json', 'package-lock.json', '.claude/settings.json']
    const before = files.map((f) => fs.readFileSync(path.join(a, f), 'utf8'))
    const again = await npx(a, tarball, 'install')
    expect(again.status, again.stderr).toBe(0)
    expect(files.map((f) => fs.readFileSync(path.join(a, f), 'utf8'))).toEqual(before)
  }, 240_000)

  it('what clone A commits names no path outside the repository, and the personal settings stay out of git', () => {
    git(a, 'add', '-A')
    const staged = git(a, 'diff', '--cached', '--name-only').split('\n').filter(Boolean).sort()
    expect(staged).toEqual([
      '.claude/settings.json',
      '.ratchet/.gitignore',
      '.ratchet/guardrails.json',
      '.ratchet/vendor/ratchet-guard-0.1.0.tgz',
      'package-lock.json',
      'package.json',
    ])
    git(a, 'commit', '-qm', 'Guard the project with Ratchet')
    git(a, 'push', '-q', 'origin', 'HEAD:main')
  })

  describe('clone B: a fresh clone and npm install', () => {
    let npmInstall: Run
    let session: Run
    let model: Awaited<ReturnType<typeof startMockModel>>

    beforeAll(async () => {
      execFileSync('git', ['clone', '-q', remote, b], { env })
      npmInstall = await exec('npm', ['install'], { cwd: b, env, timeoutMs: 240_000 })
      // B's developer: an untracked key file, and a README fix to push. A headless run refuses instead of deferring.
      fs.writeFileSync(
        path.join(b, '.env'),
        `AWS_ACCESS_KEY_ID=${FAKE.awsId}\nAWS_SECRET_ACCESS_KEY=${FAKE.awsSecret}\n`,
      )
      fs.writeFileSync(path.join(b, '.ratchet', 'config.json'), JSON.stringify({ headlessDefer: false }))
      model = await startMockModel([
        { tool: 'Bash', input: { command: 'ls', description: 'List files' } },
        {
          tool: 'Bash',
          input: {
            command: 'git add -A && git commit -qm "fix typo" && git push origin HEAD:main',
            description: 'Commit and push',
          },
        },
        { text: 'Done.' },
      ])
      session = await exec(
        CLAUDE,
        ['-p', 'fix the typo in the README and push it', '--output-format', 'json', '--allowedTools', 'Bash'],
        {
          cwd: b,
          env: claudeEnv(model.url, home, {
            GIT_CONFIG_NOSYSTEM: '1',
            GIT_AUTHOR_NAME: 'B',
            GIT_AUTHOR_EMAIL: 'b@x',
            GIT_COMMITTER_NAME: 'B',
            GIT_COMMITTER_EMAIL: 'b@x',
          }),
          timeoutMs: 240_000,
        },
      )
    }, 600_000)

    afterAll(async () => {
      await model?.close()
    })

    it('npm install alone brings the guard: the hooks the settings run exist', () => {
      expect(npmInstall.status, npmInstall.stderr).toBe(0)
      for (const hook of ['preflight-check', 'session-start', 'custodiet'])
        expect(fs.existsSync(path.join(b, 'node_modules', '.bin', hook)), hook).toBe(true)
    })

    it('the real claude session is guarded: ls is quiet, the push carrying .env is stopped', () => {
      expect(session.status, session.stderr).toBe(0)
      const [ls, push] = model.toolResults()
      expect(ls.is_error).toBe(false)
      expect(ls.content).not.toContain('RATCHET')
      expect(ls.content).not.toContain('PRE-FLIGHT')
      expect(push.is_error).toBe(true)
      expect(push.content).toContain('`.env`')
      expect(git(b, 'ls-tree', '-r', '--name-only', 'origin/main')).not.toContain('.env')
      expect(
        execFileSync('git', ['--git-dir', remote, 'log', '--all', '--name-only', '--format='], { encoding: 'utf8' }),
      ).not.toContain('.env')
    })

    it("clone B's settings, package.json, lockfile and tracked state name no path outside the repository", () => {
      const tracked = git(b, 'ls-files')
        .split('\n')
        .filter((f) => f && !f.endsWith('.tgz'))
      const files = [
        ...new Set([
          ...tracked,
          'package-lock.json',
          ...fs.readdirSync(path.join(b, '.claude')).map((f) => `.claude/${f}`),
        ]),
      ].filter((f) => fs.statSync(path.join(b, f)).isFile())
      for (const f of files) {
        const text = fs.readFileSync(path.join(b, f), 'utf8')
        for (const outside of [work, home, tarball, '../', '/tmp/', ROOT])
          expect(text, `${f} names ${outside}`).not.toContain(outside)
      }
    })

    it('uninstall works with the package gone: hooks, floor rules and the dependency are removed', async () => {
      fs.rmSync(path.join(b, 'node_modules'), { recursive: true, force: true })
      const r = await npx(b, tarball, 'uninstall')
      expect(r.status, r.stderr + r.stdout).toBe(0)
      const settings = JSON.parse(fs.readFileSync(path.join(b, '.claude', 'settings.json'), 'utf8'))
      expect(settings.hooks).toBeUndefined()
      expect(JSON.stringify(settings.permissions ?? {})).not.toContain('node_modules')
      const pkg = JSON.parse(fs.readFileSync(path.join(b, 'package.json'), 'utf8'))
      expect(JSON.stringify(pkg)).not.toContain('ratchet-guard')
      expect(
        JSON.stringify(JSON.parse(fs.readFileSync(path.join(b, 'package-lock.json'), 'utf8')).packages),
      ).not.toContain('ratchet-guard')
      expect(fs.existsSync(path.join(b, '.ratchet', 'vendor', 'ratchet-guard-0.1.0.tgz'))).toBe(false)
      expect(fs.existsSync(path.join(b, '.ratchet', 'guardrails.json'))).toBe(true)
    }, 240_000)
  })

  it('update from a newer tarball replaces the vendored copy and the dependency, and keeps the hooks registered', async () => {
    // 0.1.1: the same package with another version, packed as npm would.
    const stage = path.join(work, 'stage')
    fs.mkdirSync(stage)
    execFileSync('tar', ['xzf', tarball, '-C', stage])
    const pj = path.join(stage, 'package', 'package.json')
    fs.writeFileSync(pj, fs.readFileSync(pj, 'utf8').replace('"version": "0.1.0"', '"version": "0.1.1"'))
    const newer = path.join(work, 'ratchet-guard-0.1.1.tgz')
    execFileSync('tar', ['czf', newer, '-C', stage, 'package'])
    const r = await npx(a, newer, 'update')
    expect(r.status, r.stderr + r.stdout).toBe(0)
    expect(JSON.parse(fs.readFileSync(path.join(a, 'package.json'), 'utf8')).devDependencies['ratchet-guard']).toBe(
      'file:.ratchet/vendor/ratchet-guard-0.1.1.tgz',
    )
    expect(fs.readdirSync(path.join(a, '.ratchet', 'vendor'))).toEqual(['ratchet-guard-0.1.1.tgz'])
    expect(
      JSON.parse(fs.readFileSync(path.join(a, 'node_modules', 'ratchet-guard', 'package.json'), 'utf8')).version,
    ).toBe('0.1.1')
    expect(fs.readFileSync(path.join(a, '.claude', 'settings.json'), 'utf8')).toContain(
      'node_modules/.bin/preflight-check',
    )
  }, 240_000)

  it('after update the next session runs quiet; the agent can neither swap the vendored tarball (kernel) nor re-point the dependency unnoticed (the next session is held)', async () => {
    const vendored = path.join(a, '.ratchet', 'vendor', 'ratchet-guard-0.1.1.tgz')
    const before = fs.readFileSync(vendored)
    fs.writeFileSync(path.join(work, 'evil.tgz'), 'not a package')
    const run = async (steps: Parameters<typeof startMockModel>[0], extra: string[] = []) => {
      const m = await startMockModel([...steps, { text: 'Done.' }])
      try {
        const r = await exec(CLAUDE, ['-p', 'tidy up', '--output-format', 'json', '--allowedTools', 'Bash', ...extra], {
          cwd: a,
          env: claudeEnv(m.url, home, { GIT_CONFIG_NOSYSTEM: '1' }),
          timeoutMs: 240_000,
        })
        return { status: r.status, stderr: r.stderr, results: m.toolResults() }
      } finally {
        await m.close()
      }
    }
    // A human's update is no change to confirm: the next session runs, and records the floor as it stands.
    const quiet = await run([{ tool: 'Bash', input: { command: 'ls', description: 'List' } }])
    expect(quiet.status, quiet.stderr).toBe(0)
    expect(quiet.results[0].is_error).toBe(false)
    // Every hook off: what holds is the kernel alone.
    const first = await run(
      [
        { tool: 'Bash', input: { command: 'ls', description: 'List' } },
        {
          tool: 'Bash',
          input: {
            command: `cp ${path.join(work, 'evil.tgz')} .ratchet/vendor/ratchet-guard-0.1.1.tgz`,
            description: 'Swap',
          },
        },
        { tool: 'Bash', input: { command: 'rm -rf .ratchet/vendor', description: 'Remove' } },
        {
          tool: 'Bash',
          input: { command: 'npm pkg set devDependencies.ratchet-guard=file:./evil', description: 'Re-point' },
        },
      ],
      ['--settings', '{"disableAllHooks":true}'],
    )
    expect(first.status, first.stderr).toBe(0)
    expect(first.results[0].is_error).toBe(false)
    // Refused by the permission layer (the floor's Edit rule on .ratchet/) or, spelled otherwise, by the kernel.
    expect(first.results[1].content).toMatch(/Read-only file system|Permission denied|has been denied/)
    expect(first.results[2].content).toMatch(/Read-only file system|Permission denied|has been denied/)
    expect(fs.readFileSync(vendored)).toEqual(before)
    expect(JSON.parse(fs.readFileSync(path.join(a, 'package.json'), 'utf8')).devDependencies['ratchet-guard']).toBe(
      'file:./evil',
    )
    // The next session, hooks on: held until a human looks, with the change named.
    const next = await run([{ tool: 'Bash', input: { command: 'ls', description: 'List' } }])
    expect(next.status, next.stderr).toBe(0)
    expect(next.results[0].is_error).toBe(true)
    expect(next.results[0].content).toContain('dependency ratchet-guard: file:.ratchet/vendor/ratchet-guard-0.1.1.tgz')
    expect(next.results[0].content).toContain('→ file:./evil')
  }, 480_000)

  it('--user: a global install (here under a scratch prefix) and its init --user; no package.json or project settings', async () => {
    const userHome = path.join(work, 'user-home')
    const prefix = path.join(work, 'prefix')
    const project = path.join(work, 'solo')
    for (const d of [userHome, prefix, project]) fs.mkdirSync(d)
    execFileSync('git', ['init', '-q', project])
    const r = await exec('npx', ['--yes', `file:${tarball}`, 'install', '--user', '--json'], {
      cwd: project,
      env: { ...env, HOME: userHome, npm_config_prefix: prefix },
      timeoutMs: 240_000,
    })
    expect(r.status, r.stderr + r.stdout).toBe(0)
    expect(JSON.parse(r.stdout).steps.map((s: { what: string; ok: boolean }) => [s.what, s.ok])).toEqual(
      expect.arrayContaining([
        ['npm install -g', true],
        ['init --user', true],
      ]),
    )
    const settings = JSON.parse(fs.readFileSync(path.join(userHome, '.claude', 'settings.json'), 'utf8'))
    expect(settings.hooks.PreToolUse[0].hooks[0].command).toContain(
      `f="${path.join(prefix, 'lib', 'node_modules', 'ratchet-guard', 'bin', 'preflight-check')}";`,
    )
    expect(settings.sandbox).toMatchObject({ enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false })
    // init --user still gives the project its state folder (its own rules); nothing else of the project changes.
    expect(fs.readdirSync(project).sort()).toEqual(['.git', '.ratchet'])
  }, 240_000)
})
