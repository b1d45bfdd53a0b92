// The `ratchet` admin CLI, as a user runs it.
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync, spawnSync } from 'node:child_process'
import { beforeEach, describe, expect, it } from 'vitest'
import { EXIT_CODES } from '../../lib/core/errors'
import { BIN, ROOT, exec, tempProject } from '../support/fixtures'
import { NATIVE_CLIENT } from '../../lib/core/manifest'
import { guardedCommand } from '../../lib/core/settings'

let dir: string
let home: string
const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')
const ratchet = (args: string[], input?: string, extra: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync(BIN('ratchet'), args, {
    cwd: dir,
    encoding: 'utf8',
    input,
    env: { ...process.env, HOME: home, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', ...extra },
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}
const settings = (f = 'settings.json') => JSON.parse(fs.readFileSync(path.join(dir, '.claude', f), 'utf8'))

beforeEach(() => {
  dir = tempProject()
  home = tempProject('ratchet-home-')
})

describe('ratchet init / uninstall', () => {
  it('on a host without what the sandbox needs, init names exactly what to install and changes nothing; --no-sandbox is the explicit way on', () => {
    // A PATH with node and git but neither bubblewrap nor socat.
    const bin = tempProject('ratchet-nobwrap-')
    for (const tool of [process.execPath, execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()])
      fs.symlinkSync(tool, path.join(bin, path.basename(tool)))
    const r = ratchet(['init'], undefined, { PATH: bin })
    expect(r.status).toBe(7)
    expect(r.stderr).toBe(
      'ratchet: the OS sandbox cannot run here, so nothing was changed: bwrap and socat not found: install them (sudo apt-get install bubblewrap socat), or choose best-effort mode with `npx ratchet-guard init --no-sandbox`\n',
    )
    expect(fs.existsSync(path.join(dir, '.claude', 'settings.json'))).toBe(false)
    expect(fs.existsSync(path.join(dir, '.ratchet'))).toBe(false)
    const b = ratchet(['init', '--no-sandbox'], undefined, { PATH: bin })
    expect(b.status, b.stderr).toBe(0)
    expect(b.stdout).toContain('Floor: best-effort')
    expect(settings().sandbox).toBeUndefined()
    expect(settings().permissions.deny).toContain('Edit(./.ratchet/**)')
  })

  it('registers every hook with timeouts in seconds, keeps other settings, and is idempotent', () => {
    fs.mkdirSync(path.join(dir, '.claude'))
    fs.writeFileSync(
      path.join(dir, '.claude', 'settings.json'),
      JSON.stringify({ model: 'opus', hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } }),
    )
    const r = ratchet(['init'])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('Registered in')
    const s = settings()
    expect(s.model).toBe('opus')
    // Theirs kept; custodiet's end-of-turn review added beside it.
    expect(s.hooks.Stop).toEqual([
      {
        hooks: [
          { type: 'command', command: 'say done' },
          {
            type: 'command',
            command: guardedCommand(
              'custodiet',
              JSON.stringify(path.join(ROOT, 'bin', 'custodiet')),
              'Stop',
              undefined,
              JSON.stringify(path.join(fs.realpathSync(ROOT), 'dist', NATIVE_CLIENT.file)),
            ),
            timeout: 40,
          },
        ],
      },
    ])
    expect(s.hooks.PreToolUse).toEqual([
      // Run from a source checkout (not installed as a package), the checkout's bin/ is registered.
      // preflight-check's and custodiet's through the compiled client in the same checkout's dist/.
      {
        matcher: '*',
        hooks: [
          {
            type: 'command',
            command: guardedCommand(
              'preflight-check',
              JSON.stringify(path.join(ROOT, 'bin', 'preflight-check')),
              undefined,
              undefined,
              JSON.stringify(path.join(fs.realpathSync(ROOT), 'dist', NATIVE_CLIENT.file)),
            ),
            timeout: 10,
            onFailure: 'block',
          },
        ],
      },
      {
        matcher: 'TodoWrite',
        hooks: [
          {
            type: 'command',
            command: guardedCommand(
              'custodiet',
              JSON.stringify(path.join(ROOT, 'bin', 'custodiet')),
              undefined,
              undefined,
              JSON.stringify(path.join(fs.realpathSync(ROOT), 'dist', NATIVE_CLIENT.file)),
            ),
            timeout: 40,
          },
        ],
      },
    ])
    expect(Object.keys(s.hooks).sort()).toEqual([
      'PostToolUse',
      'PostToolUseFailure',
      'PreCompact',
      'PreToolUse',
      'SessionStart',
      'Stop',
      'SubagentStop',
      'UserPromptSubmit',
    ])
    expect(fs.existsSync(path.join(dir, '.ratchet', 'guardrails.json'))).toBe(true)
    expect(JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'pending-actions.json'), 'utf8'))).toEqual([])
    const again = ratchet(['init'])
    expect(again.stdout).toContain('Already registered')
    expect(settings()).toEqual(s)
  })

  it('--local and --user write their own files', () => {
    expect(ratchet(['init', '--local']).status).toBe(0)
    expect(settings('settings.local.json').hooks.SessionStart).toHaveLength(1)
    expect(settings('settings.local.json').hooks.PostToolUse[0].hooks[0].command).toContain('custodiet')
    expect(fs.existsSync(path.join(dir, '.claude', 'settings.json'))).toBe(false)
    expect(ratchet(['init', '--user']).status).toBe(0)
    expect(
      JSON.parse(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8')).hooks.PreToolUse,
    ).toHaveLength(2)
  })

  it('refuses to touch an invalid settings file', () => {
    fs.mkdirSync(path.join(dir, '.claude'))
    fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), '{ "hooks": ')
    const r = ratchet(['init'])
    expect(r.status).toBe(EXIT_CODES.settings_invalid)
    expect(r.stderr).toMatch(/^ratchet: .*settings\.json is not valid JSON .*nothing was changed\n$/)
    expect(fs.readFileSync(path.join(dir, '.claude', 'settings.json'), 'utf8')).toBe('{ "hooks": ')
  })

  it('uninstall removes only Ratchet', () => {
    fs.mkdirSync(path.join(dir, '.claude'))
    const theirs = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'lint' }] }] } }
    fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify(theirs))
    ratchet(['init'])
    expect(ratchet(['uninstall']).stdout).toContain('Removed 10')
    expect(settings()).toEqual(theirs)
    expect(ratchet(['uninstall']).stdout).toContain('nothing to do')
  })
})

describe('ratchet guardrails', () => {
  it('list shows hard rules first; --json is machine-readable', () => {
    ratchet(['init'])
    const text = ratchet(['guardrails', 'list']).stdout
    expect(text.indexOf('RG-CATASTROPHIC')).toBeLessThan(text.indexOf('RG-PUBLIC'))
    const json = JSON.parse(ratchet(['guardrails', 'list', '--json']).stdout)
    expect(json.origin).toBe('project')
    expect(json.guardrails[0]).toMatchObject({
      id: 'RG-CATASTROPHIC',
      effective_decision: 'deny',
      matched_by: 'pattern',
    })
  })

  it('add appends a rule that preflight-check then enforces', () => {
    ratchet(['init'])
    const r = ratchet([
      'guardrails',
      'add',
      '--command',
      'terraform apply*',
      '--rule',
      'Plan first and show the user the diff.',
      '--source',
      'INC-009',
      '--severity',
      'hard',
    ])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('Added GR-001 (hard → deny)')
    const explain = JSON.parse(
      ratchet(['guardrails', 'explain', '--command', 'cd infra && terraform apply -auto-approve', '--json']).stdout,
    )
    expect(explain.guardrails.map((g: { id: string }) => g.id)).toContain('GR-001')
    expect(explain.verdict).toBe('deny')
    expect(explain.decision.reason).toContain('prior incident INC-009')
  })

  it('add rejects bad input with one clear line', () => {
    ratchet(['init'])
    expect(ratchet(['guardrails', 'add', '--rule', 'x']).stderr).toBe(
      'ratchet: give --pattern (see `npx ratchet-guard guardrails patterns`) or at least one of --tools/--command/--paths/--urls\n',
    )
    const bad = ratchet(['guardrails', 'add', '--rule', 'x', '--pattern', 'git_push', '--severity', 'medium'])
    expect(bad.status).not.toBe(0)
    expect(bad.stderr).toContain("argument 'medium' is invalid")
  })

  it('explain says which classes and rules fire and why, for a command or a payload', () => {
    const t = ratchet(['guardrails', 'explain', '--command', 'echo "git push" && git push origin main'])
    expect(t.stdout).toContain('Classes:  public surface')
    expect(t.stdout).toContain('- git_push: git push origin main')
    expect(t.stdout).toContain('- RG-PUBLIC → check: pattern public_surface: git push origin main')
    expect(t.stdout).toContain('Decision: check')
    const payload = JSON.stringify({
      session_id: 's',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      cwd: dir,
    })
    expect(ratchet(['guardrails', 'explain', '-'], payload).stdout).toContain('Decision: allow')
    expect(ratchet(['guardrails', 'explain', '-'], '{oops').stderr).toContain(
      'ratchet: stdin: stdin is not a JSON hook payload',
    )
  })
})

describe('ratchet doctor', () => {
  it('fails before init and passes after, proving the floor through claude and reporting start-up against bare node', () => {
    const before = ratchet(['doctor', '--no-probe'])
    expect(before.status).toBe(1)
    expect(before.stdout).toContain('✗ hook PreToolUse')
    ratchet(['init'])
    const after = ratchet(['doctor', '--json'], undefined, { RATCHET_CLAUDE_BIN: CLAUDE })
    const report = JSON.parse(after.stdout)
    expect(report.ok, after.stdout).toBe(true)
    const checks = report.checks as { name: string; ok: boolean; detail: string }[]
    expect(checks.find((c) => c.name === 'floor')!.detail).toContain('Floor: sandboxed')
    // The probe ran the real client in the sandbox: each write and read was refused by the OS.
    const probe = checks.filter((c) => c.name === 'floor probe')
    expect(probe.map((c) => c.detail)).toEqual([
      expect.stringContaining('write .ratchet/.gitignore: refused by the OS'),
      expect.stringContaining('write .claude/settings.json: refused by the OS'),
      expect.stringMatching(/read .*floor-probe: refused by the OS/),
    ])
    expect(checks.find((c) => c.name === 'hook start-up')!.detail).toMatch(/preflight-check \d+ ms vs bare node \d+ ms/)
  }, 180_000) // doctor times 14 node starts, asks claude --version and runs claude once: slow on a loaded machine

  it('best-effort mode is named, and the probe shows the floor is open', () => {
    ratchet(['init', '--no-sandbox'])
    const d = ratchet(['doctor'], undefined, { RATCHET_CLAUDE_BIN: CLAUDE })
    expect(d.stdout).toMatch(/! floor\s+Floor: best-effort/)
    const p = ratchet(['floor', 'probe', '--json'], undefined, { RATCHET_CLAUDE_BIN: CLAUDE })
    expect(p.status).toBe(1)
    expect(JSON.parse(p.stdout).checks.map((c: { outcome: string }) => c.outcome)).toEqual(['open', 'open', 'open'])
  }, 180_000)

  it('says whether the claude client honours onFailure, and what an older one loses', async () => {
    const check = async (bin: string) => {
      const r = await exec(BIN('ratchet'), ['doctor', '--json'], {
        cwd: dir,
        env: { ...process.env, HOME: home, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', RATCHET_CLAUDE_BIN: bin },
      })
      return JSON.parse(r.stdout).checks.find((c: { name: string }) => c.name === 'claude client')
    }
    const old = path.join(dir, 'old-claude')
    fs.writeFileSync(old, '#!/bin/sh\necho "2.0.14 (Claude Code)"\n', { mode: 0o755 })
    const [current, older, none] = await Promise.all([
      check(path.join(ROOT, 'node_modules', '.bin', 'claude')),
      check(old),
      check(path.join(dir, 'no-such-claude')),
    ])
    expect(current).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^2\.1\.\d+: honours "onFailure": "block"/),
    })
    expect(older).toMatchObject({
      ok: true,
      warn: true,
      detail: expect.stringContaining('a preflight-check that crashes or outlives its timeout lets the call run'),
    })
    // No client is a problem, not a note: nothing would run the hooks.
    expect(none).toMatchObject({
      ok: false,
      detail: expect.stringContaining('did not answer (ENOENT): install Claude Code'),
    })
    expect(none.warn).toBeUndefined()
  }, 120_000)

  it('names a registration whose executable is gone', () => {
    ratchet(['init'])
    const s = settings()
    s.hooks.PreToolUse[0].hooks[0].command = s.hooks.PreToolUse[0].hooks[0].command.replace(
      /f="[^"]+"/,
      `f="${dir}/gone/bin/preflight-check"`,
    )
    fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify(s))
    const r = ratchet(['doctor'])
    expect(r.status).toBe(1)
    expect(r.stdout).toContain(`${dir}/gone/bin/preflight-check does not exist (moved or uninstalled?)`)
  })

  it('names a broken guardrails.json', () => {
    ratchet(['init'])
    fs.writeFileSync(
      path.join(dir, '.ratchet', 'guardrails.json'),
      '[{"id":"A","pattern":"git_push","rule":"r","severity":"sometimes"}]',
    )
    const r = ratchet(['doctor'])
    expect(r.status).toBe(1)
    expect(r.stdout).toContain('guardrails.json: [0].severity')
  })
})

describe('help', () => {
  it('ratchet --help lists the commands', () => {
    const r = ratchet(['--help'])
    for (const c of ['init', 'uninstall', 'guardrails', 'doctor', 'log']) expect(r.stdout).toContain(c)
  })
})

// The agent's shell marks every command with CLAUDECODE=1. preflight-check denies these commands to the
// agent; this is the second wall for spellings it cannot read (red team: the bundle's loader from node -e).
describe('decisions and registrations are refused inside a Claude Code session', () => {
  const asAgent = (args: string[]) => {
    const r = spawnSync(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(path.join(ROOT, 'dist', 'loader.cjs'))}).run('ratchet', ['node', 'ratchet', ...${JSON.stringify(args)}])`,
      ],
      {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, HOME: home, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', CLAUDECODE: '1' },
      },
    )
    return { status: r.status, stderr: r.stderr }
  }

  it('an agent cannot approve its own pause, uninstall, or add rules through the loader', async () => {
    expect(ratchet(['init']).status).toBe(0)
    const asked = JSON.parse(
      (
        await exec(BIN('pause-and-ask'), ['--action', 'push the release', '--severity', 'destructive'], {
          cwd: dir,
          env: { ...process.env, HOME: home, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' },
        })
      ).stdout,
    )
    for (const args of [
      ['pending', 'approve', asked.id],
      ['pending', 'deny', asked.id],
      ['uninstall'],
      ['guardrails', 'add', '--rule', 'x', '--pattern', 'git_push'],
      ['proposals', 'approve', 'PD-001'],
      ['custodiet', 'release', '--all'],
    ]) {
      const r = asAgent(args)
      expect(r.status, args.join(' ')).toBe(EXIT_CODES.conflict)
      expect(r.stderr).toMatch(/is the user's to run, in a terminal outside the agent's session/)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    }
    const queue = JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'pending-actions.json'), 'utf8'))
    expect(queue[0]).toMatchObject({ id: asked.id, status: 'pending' })
    expect(JSON.stringify(settings())).toContain('preflight-check')
    // Reading stays open to the agent.
    expect(asAgent(['pending', 'list']).status).toBe(0)
    // And the user, outside the session, decides as before.
    expect(ratchet(['pending', 'approve', asked.id]).status).toBe(0)
  })
})
