// The manifest is the one list of executables: these checks keep the build, the bin/ launchers, the
// registrations and the runtime specs from drifting apart again.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN_NAMES, EXECUTABLES, hookSpec, type Executable } from '../../lib/core/manifest'
import { launcherSource } from '../../lib/runtime/launcher'
import { REGISTRATIONS, commandExecutable, guardedCommand, isRatchetHandler } from '../../lib/core/settings'

const ROOT = path.resolve(__dirname, '..', '..')
const all: readonly Executable[] = EXECUTABLES
const hooks = all.filter((e) => e.kind === 'hook')

describe('the manifest of executables', () => {
  it('bin/ holds exactly one launcher per executable with a bin, as the manifest writes it', () => {
    expect(fs.readdirSync(path.join(ROOT, 'bin')).sort()).toEqual([...BIN_NAMES].sort())
    for (const e of all.filter((x) => x.bin)) {
      const file = path.join(ROOT, 'bin', e.name)
      expect(fs.readFileSync(file, 'utf8'), `bin/${e.name} differs from the manifest: run npm run build`).toBe(
        launcherSource(e),
      )
      expect(fs.statSync(file).mode & 0o111, `bin/${e.name} is not executable`).not.toBe(0)
    }
  })

  it('every entry point exists, and a worker is reachable through its bin', () => {
    for (const e of all) expect(fs.existsSync(path.join(ROOT, e.entry)), e.entry).toBe(true)
    for (const w of all.filter((e) => e.kind === 'worker')) {
      expect(w.via && BIN_NAMES.includes(w.via.bin)).toBe(true)
      expect(launcherSource(all.find((e) => e.name === w.via!.bin)!)).toContain(`"${w.via!.arg}" ? "${w.name}"`)
    }
  })

  it('only hooks are registered, and every hook is', () => {
    for (const e of all) expect(e.registrations.length > 0, e.name).toBe(e.kind === 'hook')
  })

  it("each hook's in-process budget sits well inside every timeout it is registered with", () => {
    for (const e of hooks) {
      for (const r of e.registrations) {
        // At least 3 s of slack, and the budget at most 60 % of the timeout: start-up, a slow disk and
        // writing the decision all happen outside the budget but inside the timeout.
        expect(e.budgetMs!, `${e.name} on ${r.event}`).toBeLessThanOrEqual(
          Math.min(r.timeout * 1000 - 3000, r.timeout * 600),
        )
        expect(Number.isInteger(r.timeout) && r.timeout >= 1 && r.timeout <= 60, 'timeouts are whole seconds').toBe(
          true,
        )
      }
    }
  })

  it('a fail-closed hook blocks on malformed input, and its PreToolUse registration blocks on failure', () => {
    for (const e of hooks.filter((h) => h.failure === 'closed')) {
      expect(e.onMalformed).toBe('block')
      const pre = e.registrations.filter((r) => r.event === 'PreToolUse')
      expect(pre.length).toBeGreaterThan(0)
      for (const r of pre) expect(r.onFailure, `${e.name} PreToolUse`).toBe('block')
    }
    // Claude Code ignores onFailure on async hooks and where nothing can be blocked; on UserPromptSubmit a
    // blocking failure erases the user's prompt. A manifest entry that asks for it there is a mistake.
    for (const e of hooks)
      for (const r of e.registrations)
        if (r.onFailure)
          expect(!r.async && ['PreToolUse', 'PermissionRequest'].includes(r.event), `${e.name} ${r.event}`).toBe(true)
  })

  it('the registrations ratchet init writes are exactly the manifest', () => {
    expect(REGISTRATIONS).toEqual(hooks.flatMap((e) => e.registrations.map((r) => ({ ...r, hook: e.name }))))
  })

  it('each hook shell takes its name, events, budget and malformed-input policy from the manifest', () => {
    for (const e of hooks) {
      const src = fs.readFileSync(path.join(ROOT, e.entry), 'utf8')
      expect(src, e.entry).toContain(`...hookSpec('${e.name}')`)
      expect(src, `${e.entry} sets its own budget`).not.toMatch(/budgetMs:\s*\d/)
      expect(hookSpec(e.name as 'preflight-check').events.sort()).toEqual(
        [...new Set(e.registrations.map((r) => r.event))].sort(),
      )
    }
  })

  it('the build derives its entries from the manifest', () => {
    const build = fs.readFileSync(path.join(ROOT, 'scripts', 'build.mjs'), 'utf8')
    for (const e of all) expect(build, `scripts/build.mjs names ${e.entry} itself`).not.toContain(e.entry)
  })

  it('a registered command is recognised as ours, and names its executable', () => {
    for (const exe of [
      '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/preflight-check',
      '"/usr/local/bin/custodiet"',
      '"/home/u/src/ratchet/bin/session-start"',
    ]) {
      const command = guardedCommand(path.basename(exe.replace(/"/g, '')), exe)
      expect(isRatchetHandler({ type: 'command', command })).toBe(true)
      expect(commandExecutable(command)).toBe(exe.replace(/"/g, ''))
    }
    // Older installs registered the bare path.
    expect(isRatchetHandler({ type: 'command', command: '"/opt/ratchet/bin/preflight-check"' })).toBe(true)
    expect(commandExecutable('"/opt/ratchet/bin/preflight-check"')).toBe('/opt/ratchet/bin/preflight-check')
    // Not ours.
    for (const command of [
      'my-linter',
      '/usr/bin/preflight-checker',
      'echo bin/ratchetx',
      'node ./scripts/session-start.js',
    ])
      expect(isRatchetHandler({ type: 'command', command }), command).toBe(false)
  })
})
