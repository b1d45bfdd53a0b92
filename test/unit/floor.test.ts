// The floor's pure core (lib/core/floor.ts) and its path helpers: what init merges into settings, what uninstall
// takes out, when the merged settings of every scope no longer hold the floor, and which changes wait for a human.
import { describe, expect, it } from 'vitest'
import {
  SANDBOX_SWITCHES,
  denyRules,
  floorFragment,
  floorProblems,
  guardedPaths,
  splitFragment,
  withFloor,
  withoutFloor,
  type FloorInputs,
  type ScopeSettings,
} from '../../lib/core/floor'
import { floorChanges } from '../../lib/core/floor-changes'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { floorInputs, projectReach, rulePath, urlHost } from '../../lib/io/floor'
import { execFileSync } from 'node:child_process'
import { resolvePaths } from '../../lib/io/paths'
import { ROOT } from '../support/fixtures'

const INPUTS: FloorInputs = {
  state: './.ratchet',
  config: '~/.config/ratchet',
  packages: ['./node_modules/ratchet', '//opt/ratchet'],
  binDirs: ['./node_modules/.bin'],
  bins: ['ratchet', 'preflight-check'],
  spools: ['//dev/shm/ratchet-warm-*'],
  domains: ['github.com', 'registry.npmjs.org'],
  writable: ['/srv/git/app.git'],
}
const SANDBOX = floorFragment(INPUTS, 'sandbox')
const BEST = floorFragment(INPUTS, 'best-effort')
const scope = (scope: ScopeSettings['scope'], settings: Record<string, unknown>): ScopeSettings => ({
  scope,
  file: `/x/${scope}.json`,
  settings,
})
const asInit = (mode = SANDBOX) => scope('project', withFloor({}, mode))

describe('what the floor guards', () => {
  it('the state folder, every settings file, the package and its launchers, and the config folder read-denied', () => {
    const rules = denyRules(INPUTS)
    for (const r of [
      'Edit(./.ratchet/**)',
      'Edit(./.claude/settings.json)',
      'Edit(./.claude/settings.local.json)',
      'Edit(~/.claude/settings.json)',
      'Edit(./.claude/agents/**)',
      'Edit(./.mcp.json)',
      'Edit(./node_modules/ratchet/**)',
      'Edit(./node_modules/.bin/preflight-check)',
      'Edit(./.git/hooks/**)',
      'Edit(~/.bashrc)',
      'Edit(./.npmrc)',
      'Edit(~/.gitconfig)',
      'Edit(~/.config/ratchet/**)',
      'Read(~/.config/ratchet/**)',
      'Read(//dev/shm/ratchet-warm-*/**)',
    ])
      expect(rules, r).toContain(r)
    // The spool is only hidden: hooks write it; and nothing the agent works on is guarded.
    expect(rules).not.toContain('Edit(//dev/shm/ratchet-warm-*/**)')
    for (const r of rules) expect(r, r).not.toMatch(/\((\.\/)?(src|lib|test|README|package\.json)/)
  })

  it('every guarded path says why', () => {
    for (const g of guardedPaths(INPUTS)) expect(g.why.length, g.at).toBeGreaterThan(10)
  })

  it('splits what a team commits from what names this machine', () => {
    const { portable, machine } = splitFragment(SANDBOX, INPUTS)
    expect(machine.deny).toEqual(['Edit(//opt/ratchet/**)'])
    expect(machine.writable).toEqual(['//srv/git/app.git'])
    expect(machine.switches).toBe(false)
    expect(portable.deny).toContain('Read(//dev/shm/ratchet-warm-*/**)')
    expect(portable.deny.some((r) => r.includes('//opt/'))).toBe(false)
    expect(portable.writable).toEqual([])
  })
})

describe('a git remote that is a local folder', () => {
  // The sandbox must let a push write the remote, but git runs the remote's hooks and config with the user's
  // authority when the user pushes there later: a red-team agent planted `hooks/post-receive` in a bare remote and
  // the user's own `git push` ran it, outside the sandbox.
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-floor-remote-')))
  const git = (args: string[], cwd = root) =>
    execFileSync('git', args, { cwd, stdio: 'pipe', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } })
  git(['init', '-q', '--bare', 'remote.git'])
  git(['init', '-q', 'work'])
  git(['init', '-q', 'project'])
  git(['remote', 'add', 'origin', '../remote.git'], path.join(root, 'project'))
  git(['remote', 'add', 'mirror', '../work'], path.join(root, 'project'))
  const reach = projectReach(path.join(root, 'project'))
  const rules = denyRules({ ...INPUTS, writable: reach.writable, remoteGitDirs: reach.remoteGitDirs })

  it('must stop: its hooks and config are write-denied, bare or not', () => {
    for (const d of [`${root}/remote.git`, `${root}/work/.git`]) {
      expect(rules).toContain(`Edit(/${d}/hooks/**)`)
      expect(rules).toContain(`Edit(/${d}/config)`)
    }
  })

  it('must stay quiet: the rest of the remote stays writable (objects, refs: a push), and a project without one adds nothing', () => {
    expect(floorFragment({ ...INPUTS, writable: reach.writable }, 'sandbox').writable).toEqual([
      `/${root}/remote.git`,
      `/${root}/work`,
    ])
    for (const r of rules) expect(r).not.toMatch(/\/(objects|refs)/)
    expect(denyRules({ ...INPUTS, remoteGitDirs: [] })).toEqual(denyRules(INPUTS))
  })
})

describe('withFloor / withoutFloor', () => {
  /** The parts of the merged settings these tests read back. */
  type Merged = {
    model: string
    permissions: { allow: string[]; deny: string[] }
    sandbox: { network: { allowedDomains: string[] }; filesystem: { allowWrite: string[] } }
  }
  const mine = {
    model: 'opus',
    permissions: { deny: ['Read(./secrets/**)'], allow: ['Bash(npm test)'] },
    sandbox: { network: { allowedDomains: ['api.example.com'] }, excludedCommands: [] },
  }

  it('merges the floor and keeps every key and entry of the user', () => {
    const s = withFloor(mine, SANDBOX) as Merged
    expect(s.model).toBe('opus')
    expect(s.permissions.allow).toEqual(['Bash(npm test)'])
    expect(s.permissions.deny[0]).toBe('Read(./secrets/**)')
    expect(s.permissions.deny).toEqual(expect.arrayContaining(SANDBOX.deny))
    expect(s.sandbox).toMatchObject({ ...SANDBOX_SWITCHES, excludedCommands: [] })
    expect(s.sandbox.network.allowedDomains).toEqual(['api.example.com', 'github.com', 'registry.npmjs.org'])
    expect(s.sandbox.filesystem.allowWrite).toEqual(['//srv/git/app.git'])
  })

  it('is idempotent', () => {
    const once = withFloor(mine, SANDBOX)
    expect(withFloor(once, SANDBOX)).toEqual(once)
  })

  it('best-effort mode writes the deny rules only: no sandbox switches', () => {
    const s = withFloor({}, BEST) as Merged
    expect(s.sandbox).toBeUndefined()
    expect(s.permissions.deny).toEqual(BEST.deny)
  })

  it('turns the sandbox on over a file that had it off', () => {
    expect(
      (withFloor({ sandbox: { enabled: false, allowUnsandboxedCommands: true } }, SANDBOX) as Merged).sandbox,
    ).toMatchObject(SANDBOX_SWITCHES)
  })

  it('uninstall takes out what it added and restores the switches as they were', () => {
    const before = { sandbox: { enabled: false }, permissions: { deny: ['Read(./secrets/**)'] } }
    const after = withFloor(before, SANDBOX)
    expect(
      withoutFloor(after, SANDBOX, { enabled: false, failIfUnavailable: null, allowUnsandboxedCommands: null }),
    ).toEqual(before)
    expect(
      withoutFloor(withFloor({}, SANDBOX), SANDBOX, {
        enabled: null,
        failIfUnavailable: null,
        allowUnsandboxedCommands: null,
      }),
    ).toEqual({})
  })
})

describe('floorProblems: when the merged settings no longer hold the floor', () => {
  const stop: [string, ScopeSettings[], RegExp][] = [
    [
      'disableAllHooks in the personal project settings',
      [asInit(), scope('local', { disableAllHooks: true })],
      /disableAllHooks is true in \/x\/local\.json/,
    ],
    [
      'the sandbox off in the personal settings, over the project',
      [asInit(), scope('local', { sandbox: { enabled: false } })],
      /sandbox\.enabled is false in \/x\/local\.json/,
    ],
    ['no scope turns the sandbox on', [scope('project', withFloor({}, BEST))], /sandbox\.enabled is not set/],
    [
      'commands allowed out of the sandbox in the user settings',
      [asInit(), scope('user', { sandbox: { allowUnsandboxedCommands: true } })],
      /allowUnsandboxedCommands is true in \/x\/user\.json/,
    ],
    [
      'the sandbox not required (it would run without it)',
      [scope('project', { ...withFloor({}, SANDBOX), sandbox: { enabled: true } })],
      /failIfUnavailable is not true/,
    ],
    [
      'a deny rule gone',
      [scope('project', { ...withFloor({}, SANDBOX), permissions: { deny: SANDBOX.deny.slice(1) } })],
      /1 of Ratchet's permission deny rules are missing \(Edit\(\.\/\.ratchet\/\*\*\)\)/,
    ],
  ]
  it.each(stop)('must stop: %s', (_, scopes, msg) => {
    const blocking = floorProblems(scopes, SANDBOX).filter((p) => p.block)
    expect(blocking.map((p) => p.what).join('\n')).toMatch(msg)
  })

  const quiet: [string, ScopeSettings[], 'sandbox' | 'best-effort'][] = [
    ['the floor as init writes it', [asInit()], 'sandbox'],
    [
      'deny rules split between the project and the personal file (they merge)',
      [
        scope('project', withFloor({}, splitFragment(SANDBOX, INPUTS).portable)),
        scope('local', withFloor({}, splitFragment(SANDBOX, INPUTS).machine)),
      ],
      'sandbox',
    ],
    [
      "the user's own rules, hosts and a sandbox flag turned down in another scope that a false there holds",
      [
        asInit(),
        scope('user', {
          permissions: { deny: ['Read(./x)'] },
          sandbox: { network: { allowedDomains: ['a.b'] }, allowUnsandboxedCommands: false },
        }),
      ],
      'sandbox',
    ],
    ['best-effort mode without any sandbox key', [asInit(BEST)], 'best-effort'],
    ['disableAllHooks: false', [asInit(), scope('local', { disableAllHooks: false })], 'sandbox'],
  ]
  it.each(quiet)('must stay quiet: %s', (_, scopes, mode) => {
    expect(floorProblems(scopes, mode === 'sandbox' ? SANDBOX : BEST)).toEqual([])
  })

  it('commands excluded from the sandbox are named, without holding the session', () => {
    const p = floorProblems([asInit(), scope('user', { sandbox: { excludedCommands: ['docker'] } })], SANDBOX)
    expect(p).toEqual([{ what: expect.stringContaining('docker (user)'), block: false }])
  })
})

describe('floorChanges: what waits for a human', () => {
  const base = {
    mode: 'sandbox',
    install: '0.1.0 aaaa',
    'hook PreToolUse(*) preflight-check': 'x onFailure=block [project]',
    'rule GR-001': 'deny',
    'rule GR-002': 'check',
  }
  const changed: [string, Record<string, string>][] = [
    ['a rule removed', { ...base, 'rule GR-001': undefined as unknown as string }],
    ['a rule made weaker', { ...base, 'rule GR-001': 'check' }],
    ['a rule turned off', { ...base, 'rule GR-002': 'off' }],
    ['the install changed', { ...base, install: '0.1.0 bbbb' }],
    ['the hook lost onFailure', { ...base, 'hook PreToolUse(*) preflight-check': 'x [project]' }],
    ['the mode changed', { ...base, mode: 'best-effort' }],
  ]
  it.each(changed)('held: %s', (_, after) => {
    expect(floorChanges(base, JSON.parse(JSON.stringify(after)))).toHaveLength(1)
  })
  const same: [string, Record<string, string>][] = [
    ['nothing changed', base],
    ['a rule added', { ...base, 'rule GR-003': 'check' }],
    ['a rule made stricter', { ...base, 'rule GR-002': 'pause' }],
  ]
  it.each(same)('not held: %s', (_, after) => {
    expect(floorChanges(base, after)).toEqual([])
  })
})

describe('paths as the floor writes them', () => {
  it.each([
    ['https://github.com/acme/app.git', 'github.com'],
    ['git@gitlab.example.com:acme/app.git', 'gitlab.example.com'],
    ['ssh://git@host.example:2222/acme/app', 'host.example'],
    ['file:///srv/git/app.git', undefined],
    ['/srv/git/app.git', undefined],
    ['../app.git', undefined],
  ])('the host of %s', (url, host) => {
    expect(urlHost(url)).toBe(host)
  })

  it.each([
    ['/p/.ratchet', './.ratchet'],
    ['/home/u/.config/ratchet', '~/.config/ratchet'],
    ['/opt/ratchet', '//opt/ratchet'],
    ['/p', './'],
  ])('%s as a rule path', (abs, rule) => {
    expect(rulePath(abs, '/p', '/home/u')).toBe(rule)
  })
})

describe('the install as the floor guards it', () => {
  it('a source checkout of Ratchet is guarded in what the hooks run (bin/, dist/), not whole: it is also a project', () => {
    const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-floor-inputs-')))
    const inputs = floorInputs(resolvePaths({ CLAUDE_PROJECT_DIR: project, HOME: '/home/u' }, project), {
      HOME: '/home/u',
      PATH: '',
    })
    expect(inputs.packages).toEqual([
      rulePath(path.join(ROOT, 'bin'), project, '/home/u'),
      rulePath(path.join(ROOT, 'dist'), project, '/home/u'),
    ])
    expect(inputs.binDirs).toEqual([])
    fs.rmSync(project, { recursive: true, force: true })
  })
})
