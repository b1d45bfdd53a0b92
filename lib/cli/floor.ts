// `ratchet floor status | confirm | allow | probe`: the OS floor of this project, as a human sees and changes it.

import path from 'node:path'
import readline from 'node:readline/promises'
import { RatchetError } from '../core/errors'
import { guardedPaths, modeLine } from '../core/floor'
import { floorHold, floorInputs, floorNow, recordFloor } from '../io/floor'
import { probeFloor, probeLine, type ProbeResult } from '../io/probe'
import { readState, writeState } from '../io/store'
import { resolvePaths } from '../io/paths'
import { writeJsonFile } from '../io/config'
import type { Paths } from '../io/registry'
import { readSettings, settingsFile } from './install'
import { CLI } from '../core/manifest'

const out = (s: string): void => void process.stdout.write(s + '\n')
const pathsOf = (projectDir: string): Paths =>
  resolvePaths({ ...process.env, CLAUDE_PROJECT_DIR: path.resolve(projectDir) }, path.resolve(projectDir))

export function status(o: { projectDir: string; json?: boolean }): void {
  const paths = pathsOf(o.projectDir)
  const now = floorNow(paths)
  const hold = floorHold(paths)
  const rec = readState(paths, 'floor')
  const guarded = guardedPaths(floorInputs(paths))
  if (o.json) {
    out(
      JSON.stringify(
        {
          mode: now.mode,
          problems: now.problems,
          hold: hold ?? null,
          confirmed_at: rec.ok ? (rec.value.at ?? null) : null,
          guarded: guarded.map((g) => ({
            path: g.at,
            tree: g.tree,
            read_denied: !!(g.read || g.readOnly),
            write_denied: !g.readOnly,
            why: g.why,
          })),
          deny_rules: now.fragment.deny,
          settings: now.scopes.map((s) => ({ scope: s.scope, file: s.file })),
        },
        null,
        2,
      ),
    )
    return
  }
  out(modeLine(now.mode))
  if (hold)
    out(
      `\nHELD: every tool call waits until you set the floor up again (\`${CLI} init\`) or accept what changed (\`${CLI} floor confirm\`):\n${hold.map((h) => `  - ${h}`).join('\n')}`,
    )
  const problems = now.problems
  out(
    problems.length
      ? `\nProblems:\n${problems.map((p) => `  ${p.block ? '✗' : '!'} ${p.what}`).join('\n')}`
      : '\nThe floor holds in the settings of every scope.',
  )
  out(
    `\nGuarded (${guarded.length} paths; writes denied to commands and file tools${guarded.some((g) => g.read) ? ', reads of the config folder denied too' : ''}):`,
  )
  for (const g of guarded) out(`  ${g.at}${g.tree ? '/' : ''}  ${g.readOnly ? '(read) ' : ''}${g.why}`)
  out(`\nSettings read: ${now.scopes.map((s) => `${s.file} (${s.scope})`).join(', ') || 'none'}`)
  if (rec.ok && rec.value.at) out(`Last confirmed by a human or recorded at a session's start: ${rec.value.at}`)
}

/**
 * A human looks at what changed and confirms it: the floor as it stands becomes the one later sessions are compared
 * with, and the hold is lifted. Human-only (lib/cli/main.ts). In a terminal it asks; `--yes` confirms outright.
 */
export async function confirm(o: { projectDir: string; yes?: boolean; json?: boolean }): Promise<void> {
  const paths = pathsOf(o.projectDir)
  const hold = floorHold(paths) ?? []
  const now = floorNow(paths)
  const blocking = now.problems.filter((p) => p.block)
  if (!o.json) {
    out(
      hold.length
        ? `What changed since a human last saw the floor:\n${hold.map((h) => `  - ${h}`).join('\n')}`
        : 'Nothing is held.',
    )
    if (blocking.length)
      out(
        `\nThe floor does not hold now (confirming accepts this; \`${CLI} init\` repairs it):\n${blocking.map((p) => `  ✗ ${p.what}`).join('\n')}`,
      )
  }
  if (!o.yes) {
    if (!process.stdin.isTTY)
      throw new RatchetError('usage', `confirm in a terminal, or pass --yes after reading \`${CLI} floor status\``)
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout })
    const answer = await rl.question('\nRecord the floor as it stands now and let sessions run? [y/N] ')
    rl.close()
    if (!/^y(es)?$/i.test(answer.trim())) {
      out('Nothing changed: sessions stay held.')
      return
    }
  }
  recordFloor(paths, now)
  if (o.json) out(JSON.stringify({ confirmed: true, changes: hold, problems: blocking.map((p) => p.what) }, null, 2))
  else out('Confirmed: the floor as it stands is recorded, and the hold is lifted.')
}

/**
 * Lets commands reach one more host (`sandbox.network.allowedDomains`, in the settings file where init registered
 * the hooks), or write one more folder outside the project (`sandbox.filesystem.allowWrite`, in the personal
 * settings: a folder names this machine). Human-only.
 */
export function allow(
  targets: string[],
  o: { projectDir: string; user?: boolean; local?: boolean; json?: boolean },
): void {
  const paths = pathsOf(o.projectDir)
  const domains = targets.filter((t) => !/[/~]/.test(t))
  const folders = targets
    .filter((t) => /[/~]/.test(t))
    .map((t) => path.resolve(t.replace(/^~(?=\/|$)/, process.env.HOME ?? '~')))
  for (const d of domains)
    if (!/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/i.test(d))
      throw new RatchetError(
        'usage',
        `${JSON.stringify(d)} is not a host name (e.g. registry.example.com or *.example.com)`,
      )
  const changed: string[] = []
  const edit = (file: string, key: ['network', 'allowedDomains'] | ['filesystem', 'allowWrite'], values: string[]) => {
    if (!values.length) return
    const s = readSettings(file)
    const sandbox = { ...((s.sandbox as Record<string, unknown>) ?? {}) }
    const sub = { ...((sandbox[key[0]] as Record<string, unknown>) ?? {}) }
    const list = Array.isArray(sub[key[1]]) ? (sub[key[1]] as string[]) : []
    const add = values.filter((v) => !list.includes(v))
    if (!add.length) return
    sub[key[1]] = [...list, ...add]
    sandbox[key[0]] = sub
    writeJsonFile(file, { ...s, sandbox })
    changed.push(`${file}: ${key.join('.')} + ${add.join(', ')}`)
    // So uninstall takes these away with the rest of the floor.
    const rec = readState(paths, 'floor')
    if (rec.ok) {
      const added = { ...(rec.value.added ?? {}) }
      const a = added[file] ?? { deny: [], domains: [], writable: [], set: {} }
      added[file] =
        key[0] === 'network'
          ? { ...a, domains: [...new Set([...a.domains, ...add])] }
          : { ...a, writable: [...new Set([...a.writable, ...add])] }
      writeState(paths, 'floor', { ...rec.value, added }, { indent: 2 })
    }
  }
  edit(settingsFile({ ...o, projectDir: o.projectDir }), ['network', 'allowedDomains'], domains)
  edit(
    settingsFile({ ...o, local: !o.user, projectDir: o.projectDir }),
    ['filesystem', 'allowWrite'],
    folders.map((f) => '/' + f),
  )
  if (o.json) out(JSON.stringify({ changed }, null, 2))
  else
    out(
      changed.length
        ? `${changed.join('\n')}\nNew sessions use it (a running session keeps what it started with).`
        : 'Already allowed; nothing changed.',
    )
}

export async function probe(o: { projectDir: string; json?: boolean }): Promise<void> {
  const paths = pathsOf(o.projectDir)
  const r = await probeFloor(paths)
  if (o.json) out(JSON.stringify(r, null, 2))
  else out(describeProbe(r).join('\n'))
  if (r.error || r.checks.some((c) => c.outcome !== 'held')) process.exitCode = 1
}

export function describeProbe(r: ProbeResult): string[] {
  if (r.error) return [`✗ the floor could not be probed: ${r.error}`]
  return r.checks.map((c) => `${c.outcome === 'held' ? '✓' : '✗'} ${probeLine(c)}`)
}
