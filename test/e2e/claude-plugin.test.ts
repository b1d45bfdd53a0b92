// The plugin route: Ratchet's Claude Code plugin (the package root is the plugin root: .claude-plugin/plugin.json,
// hooks/hooks.json with ${CLAUDE_PLUGIN_ROOT}, the built bundles), installed through the real CLI's own commands
// (`claude plugin marketplace add`, `claude plugin install`) from a local marketplace folder holding the package as
// npm ships it, offline, in an isolated HOME. Then a real `claude -p` session in a project nobody ran init in: the
// plugin's hooks guard it (a push carrying an untracked .env is stopped; `ls` is quiet), and the session is told the
// floor is best-effort, since a plugin cannot turn on the sandbox.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, ROOT, exec, tempProject, type Run } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'
import { FAKE } from '../support/fake-secrets'

const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')

describe('the plugin, through the real CLI from a local marketplace', () => {
  let work: string
  let home: string
  let project: string
  let remote: string
  let env: NodeJS.ProcessEnv
  let added: Run
  let installed: Run
  let model: MockModel
  let session: Run
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env })

  beforeAll(async () => {
    work = tempProject('ratchet-plugin-')
    home = path.join(work, 'home')
    fs.mkdirSync(home)
    env = {
      ...claudeEnv('http://127.0.0.1:9', home),
      GIT_AUTHOR_NAME: 'U',
      GIT_AUTHOR_EMAIL: 'u@x',
      GIT_COMMITTER_NAME: 'U',
      GIT_COMMITTER_EMAIL: 'u@x',
      GIT_CONFIG_NOSYSTEM: '1',
    }
    // The package as npm ships it (--ignore-scripts: dist/ is built already), unpacked into a marketplace folder.
    const pack = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: ROOT,
      env,
    })
    expect(pack.status, pack.stderr).toBe(0)
    const market = path.join(work, 'market')
    const plugin = path.join(market, 'plugins', 'ratchet-guard')
    fs.mkdirSync(plugin, { recursive: true })
    fs.mkdirSync(path.join(market, '.claude-plugin'))
    execFileSync('tar', [
      'xzf',
      path.join(work, JSON.parse(pack.stdout)[0].filename),
      '-C',
      plugin,
      '--strip-components',
      '1',
    ])
    // The repository's own marketplace lists the npm package; offline, the same plugin comes from a folder.
    const ours = JSON.parse(fs.readFileSync(path.join(ROOT, '.claude-plugin', 'marketplace.json'), 'utf8'))
    fs.writeFileSync(
      path.join(market, '.claude-plugin', 'marketplace.json'),
      JSON.stringify({
        ...ours,
        name: 'ratchet-local',
        plugins: ours.plugins.map((p: object) => ({ ...p, source: './plugins/ratchet-guard' })),
      }),
    )
    added = await exec(CLAUDE, ['plugin', 'marketplace', 'add', market], { cwd: work, env })
    installed = await exec(CLAUDE, ['plugin', 'install', 'ratchet-guard@ratchet-local'], { cwd: work, env })

    // A project nobody ran init in: a README to fix, an untracked key file, a remote to push to.
    remote = path.join(work, 'remote.git')
    project = path.join(work, 'project')
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote])
    execFileSync('git', ['init', '-q', '-b', 'main', project])
    fs.writeFileSync(path.join(project, 'README.md'), '# Demo\n\nThis projet says hello.\n')
    git(project, 'add', '-A')
    git(project, 'commit', '-qm', 'init')
    git(project, 'remote', 'add', 'origin', remote)
    git(project, 'push', '-q', '-u', 'origin', 'main')
    fs.writeFileSync(
      path.join(project, '.env'),
      `AWS_ACCESS_KEY_ID=${FAKE.awsId}\nAWS_SECRET_ACCESS_KEY=${FAKE.awsSecret}\n`,
    )
    fs.mkdirSync(path.join(project, '.ratchet'))
    fs.writeFileSync(path.join(project, '.ratchet', 'config.json'), JSON.stringify({ headlessDefer: false }))
    model = await startMockModel([
      { tool: 'Bash', input: { command: 'ls', description: 'List files' } },
      {
        tool: 'Bash',
        input: { command: 'git add -A && git commit -qm "fix typo" && git push', description: 'Commit and push' },
      },
      { text: 'Done.' },
    ])
    session = await exec(CLAUDE, ['-p', 'fix the typo and push', '--output-format', 'json', '--allowedTools', 'Bash'], {
      cwd: project,
      env: claudeEnv(model.url, home, {
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 'U',
        GIT_AUTHOR_EMAIL: 'u@x',
        GIT_COMMITTER_NAME: 'U',
        GIT_COMMITTER_EMAIL: 'u@x',
      }),
      timeoutMs: 240_000,
    })
  }, 600_000)

  afterAll(async () => {
    await model?.close()
    fs.rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
  })

  it('the CLI adds the marketplace and installs the plugin from it, with its hooks and no agents', async () => {
    expect(added.status, added.stderr + added.stdout).toBe(0)
    expect(installed.status, installed.stderr + installed.stdout).toBe(0)
    const details = await exec(CLAUDE, ['plugin', 'details', 'ratchet-guard@ratchet-local'], { cwd: work, env })
    expect(details.stdout).toMatch(/Hooks \(8\)\s+UserPromptSubmit, PreToolUse/)
    expect(details.stdout).toContain('Agents (0)')
  })

  it('nothing of the project was set up: no hooks or sandbox in its settings', () => {
    expect(fs.existsSync(path.join(project, '.claude', 'settings.json'))).toBe(false)
  })

  it("the plugin's hooks guard the session: ls is quiet, the push carrying .env is stopped", () => {
    expect(session.status, session.stderr).toBe(0)
    const [ls, push] = model.toolResults()
    expect(ls.is_error).toBe(false)
    expect(ls.content).not.toContain('PRE-FLIGHT')
    expect(push.is_error).toBe(true)
    expect(push.content).toContain('`.env`')
    expect(
      execFileSync('git', ['--git-dir', remote, 'log', '--all', '--name-only', '--format='], { encoding: 'utf8' }),
    ).not.toContain('.env')
  })

  it('the session is told the floor is best-effort (a plugin cannot turn on the sandbox), and nothing holds it', () => {
    const context = JSON.stringify(model.requests.filter((r) => r.tools?.length)[0]?.messages ?? [])
    expect(context).toContain(
      "Ratchet's hooks come from its Claude Code plugin, which cannot turn on Claude Code's sandbox",
    )
    expect(context).not.toContain('HELD')
  })

  it('doctor reports the plugin route: enabled, its hooks count as registered, and that the floor needs install', async () => {
    const r = await exec(BIN('ratchet'), ['doctor', '--no-probe', '--json', '--project-dir', project], {
      cwd: project,
      env,
    })
    const checks: { name: string; ok: boolean; detail: string }[] = JSON.parse(r.stdout).checks
    const plugin = checks.find((c) => c.name === 'plugin')
    expect(plugin?.detail).toMatch(
      /^ratchet-guard@ratchet-local 0\.1\.0 \(user scope, .*\) is enabled: its hooks guard sessions here; it cannot turn on the sandbox: `npx ratchet-guard install` in the project adds the floor$/,
    )
    expect(checks.filter((c) => c.name.startsWith('hook ')).every((c) => c.ok)).toBe(true)
    expect(checks.some((c) => / is not registered for /.test(c.detail))).toBe(false)
  })

  it('install in a project where the plugin is enabled warns that both would register the hooks', async () => {
    const r = await exec(BIN('ratchet'), ['install', '--dry-run', '--project-dir', project], { cwd: project, env })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain(
      '! plugin         ratchet-guard@ratchet-local is enabled here too: its hooks and these would both run; `claude plugin disable ratchet-guard@ratchet-local`',
    )
  })
})
