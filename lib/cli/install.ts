// `ratchet init` / `ratchet uninstall`: edit Claude Code settings and set up the state folder.

import fs from 'node:fs'
import path from 'node:path'
import { RatchetError } from '../core/errors'
import { commandExecutable, guardedCommand, withRatchet, withoutRatchet, registeredRatchetHooks, type HookName, type Settings } from '../core/settings'
import { STATE } from '../io/registry'
import { PACKAGE_ROOT, homeDir, resolvePaths, warmProcess, writeJsonFile, type Paths } from '../io/state'
import { createStateFrom, ensureStateDir, updateState } from '../io/store'

interface ScopeOptions {
  user?: boolean
  local?: boolean
  projectDir: string
}

export function settingsFile(o: ScopeOptions): string {
  if (o.user) return path.join(homeDir(), '.claude', 'settings.json')
  return path.join(path.resolve(o.projectDir), '.claude', o.local ? 'settings.local.json' : 'settings.json')
}

export function readSettings(file: string): Settings {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw new RatchetError('settings_invalid', `cannot read ${file}: ${(e as Error).message}`)
  }
  if (!text.trim()) return {}
  try {
    const v = JSON.parse(text)
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('expected a JSON object')
    return v
  } catch (e) {
    // Claude Code silently ignores an invalid settings file in -p mode: refuse to make it worse.
    throw new RatchetError('settings_invalid', `${file} is not valid JSON (${(e as Error).message}); fix it first, nothing was changed`)
  }
}

/**
 * Where Claude Code should find a hook, as a shell word. Installed as a package, this is the bin link
 * npm made, never a path inside the package or a source checkout, so moving or rebuilding a checkout
 * does not silently leave dangling registrations behind:
 *  - a project install: "$CLAUDE_PROJECT_DIR"/node_modules/.bin/<hook> (the project can move);
 *  - a global install (or npm link): the bin link on PATH, e.g. /usr/local/bin/<hook>;
 *  - run from a source checkout (development): the checkout's bin/<hook>.
 * --user never uses $CLAUDE_PROJECT_DIR: the registration then applies to every project.
 */
export function hookExecutable(hook: HookName, projectDir: string, user: boolean, env: NodeJS.ProcessEnv = process.env): string {
  const ours = path.join(PACKAGE_ROOT, 'bin', hook)
  const same = (p: string) => {
    try {
      return fs.realpathSync(p) === fs.realpathSync(ours)
    } catch {
      return false
    }
  }
  const project = path.resolve(projectDir)
  const local = path.join(project, 'node_modules', '.bin', hook)
  if (!user && same(local)) return `"$CLAUDE_PROJECT_DIR"/node_modules/.bin/${hook}`
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir) || dir.startsWith(project + path.sep)) continue
    const candidate = path.join(dir, hook)
    if (same(candidate)) return JSON.stringify(candidate)
  }
  const rel = path.relative(project, ours)
  if (!user && !rel.startsWith('..') && !path.isAbsolute(rel)) return `"$CLAUDE_PROJECT_DIR"/${rel.split(path.sep).join('/')}`
  return JSON.stringify(ours)
}

/** The command Claude Code runs for a hook on `event`: its executable behind a guard that blocks when it is missing. */
export function hookCommand(hook: HookName, projectDir: string, user: boolean, event?: string): string {
  return guardedCommand(hook, hookExecutable(hook, projectDir, user), event)
}

export function init(o: ScopeOptions & { dryRun?: boolean }): void {
  const file = settingsFile(o)
  const projectDir = path.resolve(o.projectDir)
  if (!fs.existsSync(path.join(PACKAGE_ROOT, 'dist', 'preflight-check.cjs'))) throw new RatchetError('not_installed', `the hooks are not built (${PACKAGE_ROOT}/dist is missing): run npm install (or npm run build) in ${PACKAGE_ROOT}`)
  const before = readSettings(file)
  const after = withRatchet(before, (h, event) => hookCommand(h, projectDir, !!o.user, event))
  if (o.dryRun) {
    process.stdout.write(JSON.stringify(after, null, 2) + '\n')
    return
  }
  const changed = JSON.stringify(before) !== JSON.stringify(after)
  if (changed) {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    writeJsonFile(file, after)
  }
  const paths = resolvePaths({ ...process.env, CLAUDE_PROJECT_DIR: projectDir }, projectDir)
  const created = setUpStateFolder(paths)
  const regs = registeredRatchetHooks(after)
  process.stdout.write(
    [
      `${changed ? 'Registered' : 'Already registered'} in ${file}:`,
      ...regs.map((r) => `  ${r.event}${r.matcher ? ` (${r.matcher})` : ''} → ${commandExecutable(r.command)}  [timeout ${r.timeout}s${r.onFailure ? `, on failure ${r.onFailure}` : ''}]`),
      `State folder: ${paths.stateDir}${created.length ? ` (created ${created.join(', ')})` : ''}`,
      'Next: start `claude` in this project; `ratchet guardrails list` shows what is enforced, `ratchet doctor` checks the install.',
    ].join('\n') + '\n',
  )
}

/**
 * The state folder 0700 (tightened if an older install left it 0755), the project's own copy of the
 * rules, an empty queue, and the .gitignore that keeps machine state out of git (lib/io/registry.ts).
 */
function setUpStateFolder(paths: Paths): string[] {
  const ignore = ensureStateDir(paths)
  const created: string[] = []
  if (createStateFrom(paths, 'guardrails', paths.packagedGuardrails)) created.push(STATE.guardrails.name)
  if (!fs.existsSync(paths.pending)) {
    updateState(paths, 'pending', (list) => ({ next: list, result: undefined }))
    created.push(STATE.pending.name)
  }
  return [...created, ...ignore]
}

export function uninstall(o: ScopeOptions): void {
  const file = settingsFile(o)
  const before = readSettings(file)
  const removed = registeredRatchetHooks(before).length
  if (!removed) {
    process.stdout.write(`No Ratchet hooks in ${file}; nothing to do.\n`)
    return
  }
  writeJsonFile(file, withoutRatchet(before))
  // The project's warm decision process goes with its hooks (it would stop by itself after 10 idle minutes).
  let stopped = false
  try {
    stopped = warmProcess(o.projectDir, 'stop')
  } catch {}
  process.stdout.write(`Removed ${removed} Ratchet hook registration(s) from ${file}${stopped ? ' and stopped its warm process' : ''}. The state folder was kept.\n`)
}
