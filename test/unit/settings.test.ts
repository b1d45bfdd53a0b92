import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  commandExecutable,
  guardedCommand,
  nativeClient,
  registeredRatchetHooks,
  withRatchet,
  withoutRatchet,
  type Settings,
} from '../../lib/core/settings'

const cmd = (h: string) => guardedCommand(h, `"$CLAUDE_PROJECT_DIR"/node_modules/.bin/${h}`)
const theirs: Settings = {
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-linter', timeout: 5 }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
  },
}

describe('hook registration', () => {
  it('adds every hook with a timeout in seconds, keeping other hooks and settings', () => {
    const s = withRatchet(theirs, cmd)
    expect(s.permissions).toEqual(theirs.permissions)
    // Theirs kept, ours (custodiet's end-of-turn review) added after it.
    expect(s.hooks!.Stop![0].hooks[0]).toEqual(theirs.hooks!.Stop![0].hooks[0])
    expect(s.hooks!.Stop!.flatMap((g) => g.hooks)).toHaveLength(2)
    expect(s.hooks!.PreToolUse).toEqual([
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'my-linter', timeout: 5 }] },
      { matcher: '*', hooks: [{ type: 'command', command: cmd('preflight-check'), timeout: 10, onFailure: 'block' }] },
      { matcher: 'TodoWrite', hooks: [{ type: 'command', command: cmd('custodiet'), timeout: 40 }] },
    ])
    expect(
      registeredRatchetHooks(s)
        .map((r) => `${r.event}:${path.basename(commandExecutable(r.command))}`)
        .sort(),
    ).toEqual([
      'PostToolUse:custodiet',
      'PostToolUseFailure:custodiet',
      'PreCompact:preflight-check',
      'PreToolUse:custodiet',
      'PreToolUse:preflight-check',
      'SessionStart:session-start',
      'Stop:custodiet',
      'SubagentStop:custodiet',
      'UserPromptSubmit:custodiet',
      'UserPromptSubmit:preflight-check',
    ])
    // Seconds, not milliseconds (academicOps' mistake), and well above each hook's own budget.
    expect(registeredRatchetHooks(s).every((r) => r.timeout! >= 10 && r.timeout! <= 40)).toBe(true)
    // custodiet's watcher is off the critical path.
    expect(
      registeredRatchetHooks(s)
        .filter((r) => r.async)
        .map((r) => r.event)
        .sort(),
    ).toEqual(['PostToolUse', 'PostToolUseFailure', 'SubagentStop'])
  })
  it('is idempotent', () => {
    const once = withRatchet(theirs, cmd)
    expect(withRatchet(once, cmd)).toEqual(once)
  })
  it('re-registering from a new install path replaces the old command', () => {
    const once = withRatchet(theirs, cmd)
    const moved = withRatchet(once, (h) => `"/opt/ratchet/bin/${h}"`)
    expect(registeredRatchetHooks(moved).every((r) => r.command.startsWith('"/opt/ratchet/bin/'))).toBe(true)
    expect(registeredRatchetHooks(moved)).toHaveLength(10)
  })
  it('uninstall removes only ours, old-style registrations (a bare path into a checkout) included', () => {
    const old = withRatchet(theirs, (h) => `"/work/ratchet/bin/${h}"`)
    expect(withoutRatchet(withRatchet(old, cmd))).toEqual(theirs)
    expect(withoutRatchet(withRatchet(theirs, cmd))).toEqual(theirs)
    expect(withoutRatchet(withRatchet({}, cmd))).toEqual({})
  })
})

describe('the registered command (run by /bin/sh, as Claude Code runs it)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-guard-'))
  const run = (command: string) =>
    spawnSync('/bin/sh', ['-c', command], {
      input: '{"hook_event_name":"PreToolUse"}',
      encoding: 'utf8',
      env: { PATH: process.env.PATH, CLAUDE_PROJECT_DIR: dir },
    })

  it('runs the executable with stdin, exit code and output passed through', () => {
    fs.mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true })
    const exe = path.join(dir, 'node_modules', '.bin', 'preflight-check')
    fs.writeFileSync(exe, '#!/bin/sh\ncat; echo " seen" >&2; exit 3\n', { mode: 0o755 })
    const r = run(cmd('preflight-check'))
    expect([r.status, r.stdout, r.stderr]).toEqual([3, '{"hook_event_name":"PreToolUse"}', ' seen\n'])
    fs.rmSync(exe)
  })

  it('blocks (exit 2) with one clear line when the executable is missing', () => {
    const r = run(cmd('preflight-check'))
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(
      `Ratchet preflight-check is missing at ${dir}/node_modules/.bin/preflight-check (moved or uninstalled?), so this is blocked to be safe. Restore it with npm install in the project, or remove the hooks with npx -y ratchet-guard uninstall (installed from a tarball: npx -y ./.ratchet/vendor/ratchet-guard-*.tgz uninstall).\n`,
    )
  })

  it('on Stop a missing custodiet is reported, not turned into "keep going" (exit 2 there would loop the agent)', () => {
    const stop = run(guardedCommand('custodiet', `"$CLAUDE_PROJECT_DIR"/node_modules/.bin/custodiet`, 'Stop'))
    expect(stop.status).toBe(1)
    expect(stop.stderr).toContain('Ratchet custodiet is missing at')
    expect(stop.stderr).toContain('not watching this session')
    // The same hook on an event that guards an action still blocks.
    expect(
      run(guardedCommand('custodiet', `"$CLAUDE_PROJECT_DIR"/node_modules/.bin/custodiet`, 'PreToolUse')).status,
    ).toBe(2)
  })

  it('blocks when the path exists but cannot be run', () => {
    fs.mkdirSync(path.join(dir, 'node_modules', '.bin', 'preflight-check'), { recursive: true })
    expect(run(cmd('preflight-check')).status).toBe(2)
  })
})

describe('the http transport (init --transport http)', () => {
  const http = withRatchet(theirs, cmd, undefined, { kind: 'http', port: 41234 })
  const handlers = (event: string) => http.hooks![event].flatMap((g) => g.hooks)

  it("serves PreToolUse, PreCompact and custodiet's PostToolUse over http, blocking on failure where the command did", () => {
    expect(handlers('PreToolUse')).toContainEqual({
      type: 'http',
      url: 'http://127.0.0.1:41234/hook/preflight-check?if-down=run-ratchet-service-start',
      timeout: 10,
      onFailure: 'block',
    })
    expect(handlers('PreCompact')).toContainEqual(
      expect.objectContaining({ type: 'http', url: expect.stringContaining('/hook/preflight-check') }),
    )
    expect(handlers('PostToolUse')).toContainEqual(
      expect.objectContaining({ type: 'http', url: expect.stringContaining('/hook/custodiet') }),
    )
    // Never async over http: the answer is milliseconds away.
    expect(handlers('PostToolUse').find((h) => h.type === 'http')).not.toHaveProperty('async')
  })

  it("keeps the user's prompt, SessionStart and custodiet's gates as commands", () => {
    for (const event of ['UserPromptSubmit', 'SessionStart', 'Stop'])
      expect(
        handlers(event).filter((h) => h.type === 'http'),
        event,
      ).toEqual([])
    expect(handlers('PreToolUse')).toContainEqual(
      expect.objectContaining({ type: 'command', command: cmd('custodiet') }),
    )
  })

  it('counts served hooks as ours: registered by the name in their URL, removed by uninstall, replaced by a command install', () => {
    expect(
      registeredRatchetHooks(http)
        .map((r) => `${r.event}:${path.basename(commandExecutable(r.command))}`)
        .sort(),
    ).toEqual(
      registeredRatchetHooks(withRatchet(theirs, cmd))
        .map((r) => `${r.event}:${path.basename(commandExecutable(r.command))}`)
        .sort(),
    )
    expect(withoutRatchet(http)).toEqual(theirs)
    expect(withRatchet(http, cmd)).toEqual(withRatchet(theirs, cmd))
  })

  it.each([
    ['another host', 'http://example.com:41234/hook/preflight-check'],
    ['a path that is not ours', 'http://127.0.0.1:41234/hook/my-linter'],
    ['https to a tunnel', 'https://127.0.0.1:41234/hook/preflight-check'],
  ])('leaves an http hook alone that only looks like ours: %s', (_what, url) => {
    const s: Settings = { hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'http', url }] }] } }
    expect(withoutRatchet(s)).toEqual(s)
  })
})

describe('the compiled hook client in the guard', () => {
  // Only in the same package's dist/ (guarded by the floor), only for the hooks the warm process serves.
  const table: [string, string, string | undefined][] = [
    [
      'preflight-check',
      '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/preflight-check',
      '"$CLAUDE_PROJECT_DIR"/node_modules/ratchet-guard/dist/hook-client-linux-x64',
    ],
    [
      'preflight-check',
      '"$CLAUDE_PROJECT_DIR"/bin/preflight-check',
      '"$CLAUDE_PROJECT_DIR"/dist/hook-client-linux-x64',
    ],
    [
      'preflight-check',
      '"$CLAUDE_PROJECT_DIR"/vendor/ratchet/bin/preflight-check',
      '"$CLAUDE_PROJECT_DIR"/vendor/ratchet/dist/hook-client-linux-x64',
    ],
    [
      'preflight-check',
      '"${CLAUDE_PLUGIN_ROOT}"/bin/preflight-check',
      '"${CLAUDE_PLUGIN_ROOT}"/dist/hook-client-linux-x64',
    ],
    // A bin link's neighbour may be anyone's folder: the installer names the client itself, or none.
    ['preflight-check', '"/usr/local/bin/preflight-check"', undefined],
    ['preflight-check', '"/home/u/.npm-global/bin/preflight-check"', undefined],
    [
      'custodiet',
      '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/custodiet',
      '"$CLAUDE_PROJECT_DIR"/node_modules/ratchet-guard/dist/hook-client-linux-x64',
    ],
    // A hook the warm process does not decide.
    ['session-start', '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/session-start', undefined],
    // Anything unusual.
    ['preflight-check', '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/custodiet', undefined],
    ['preflight-check', '"$CLAUDE_PROJECT_DIR"/a;b/bin/preflight-check', undefined],
    ['preflight-check', '"$CLAUDE_PROJECT_DIR"/$(x)/bin/preflight-check', undefined],
    ['preflight-check', '"$CLAUDE_PROJECT_DIR"/guard', undefined],
  ]
  it.each(table)('%s at %s: %s', (hook, exe, want) => {
    expect(nativeClient(hook, exe)).toBe(want)
  })

  it('runs the client when it is there and runs here, else the launcher; a missing launcher still blocks', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-guard-native-'))
    fs.mkdirSync(path.join(dir, 'bin'))
    fs.mkdirSync(path.join(dir, 'dist'))
    const launcher = path.join(dir, 'bin', 'preflight-check')
    fs.writeFileSync(launcher, '#!/bin/sh\necho launcher "$@"\n', { mode: 0o755 })
    const run = () =>
      spawnSync('/bin/sh', ['-c', guardedCommand('preflight-check', '"$CLAUDE_PROJECT_DIR"/bin/preflight-check')], {
        env: { PATH: process.env.PATH, CLAUDE_PROJECT_DIR: dir },
        encoding: 'utf8',
        input: '{}',
      })
    expect(run().stdout).toBe('launcher\n')
    const client = path.join(dir, 'dist', 'hook-client-linux-x64')
    fs.writeFileSync(client, '#!/bin/sh\necho client "$@"\n', { mode: 0o644 })
    expect(run().stdout).toBe('launcher\n') // not executable: not run
    fs.chmodSync(client, 0o755)
    const runsHere = fs.existsSync('/lib64/ld-linux-x86-64.so.2')
    expect(run().stdout).toBe(runsHere ? `client preflight-check ${launcher}\n` : 'launcher\n')
    if (runsHere) {
      // Killed by a signal: blocked, never the non-blocking error an allow would be.
      fs.writeFileSync(client, '#!/bin/sh\nkill -9 $$\n', { mode: 0o755 })
      expect([run().status, run().stdout]).toEqual([2, ''])
      // A binary the kernel refuses after all (another architecture: exit 126 with stdin unread): the launcher runs.
      const elf = Buffer.alloc(64)
      elf.write('\x7fELF', 0, 'latin1')
      elf.writeUInt8(2, 4),
        elf.writeUInt8(1, 5),
        elf.writeUInt8(1, 6),
        elf.writeUInt16LE(2, 16),
        elf.writeUInt16LE(0xb7, 18)
      fs.writeFileSync(client, elf, { mode: 0o755 })
      expect(run().stdout).toBe('launcher\n')
    }
    fs.rmSync(launcher)
    expect([run().status, run().stdout]).toEqual([2, ''])
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
