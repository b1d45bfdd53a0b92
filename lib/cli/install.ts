// `ratchet init` / `ratchet uninstall`: edit Claude Code settings and set up the state folder.

import { custodietConfig, reviewerLine, reviewerStatus, stopGateLine } from '../io/custodiet-config'
import { emit } from './print'
import fs from 'node:fs'
import path from 'node:path'
import { RatchetError } from '../core/errors'
import { CLI, NATIVE_CLIENT, PACKAGE_NAME } from '../core/manifest'
import { lineDiff } from '../core/dependency'
import {
  commandExecutable,
  guardedCommand,
  warmServed,
  withRatchet,
  withoutRatchet,
  registeredRatchetHooks,
  type HookName,
  type Settings,
  type Transport,
} from '../core/settings'
import { servicePort } from '../io/service'
import {
  SANDBOX_SWITCHES,
  floorFragment,
  guardedPaths,
  modeLine,
  splitFragment,
  withFloor,
  withoutFloor,
  type FloorMode,
} from '../core/floor'
import { floorInputs, managedSettingsFile, projectReach, sandboxTools, syncPlaceholderExcludes } from '../io/floor'
import type { FloorRecord } from '../io/registry'
import { STATE } from '../io/registry'
import { PACKAGE_ROOT, warmProcess } from '../io/package-root'
import { homeDir, resolvePaths } from '../io/paths'
import { readConfig, writeJsonFile } from '../io/config'
import type { Paths } from '../io/registry'
import { createStateFrom, ensureStateDir, readState, removeState, updateState, writeState } from '../io/store'

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
    throw new RatchetError(
      'settings_invalid',
      `${file} is not valid JSON (${(e as Error).message}); fix it first, nothing was changed`,
    )
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
export function hookExecutable(
  hook: HookName,
  projectDir: string,
  user: boolean,
  env: NodeJS.ProcessEnv = process.env,
): string {
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
  if (!user && !rel.startsWith('..') && !path.isAbsolute(rel))
    return `"$CLAUDE_PROJECT_DIR"/${rel.split(path.sep).join('/')}`
  return JSON.stringify(ours)
}

/** The command Claude Code runs for a hook on `event`: its executable behind a guard that blocks when it is missing. */
export function hookCommand(hook: HookName, projectDir: string, user: boolean, event?: string): string {
  const exe = hookExecutable(hook, projectDir, user)
  // An absolute launcher (a global install's bin link, or this package's own bin/): the compiled client in this
  // package's dist/, never beside the link.
  const native =
    exe.startsWith('"/') && warmServed(hook)
      ? JSON.stringify(path.join(fs.realpathSync(PACKAGE_ROOT), 'dist', NATIVE_CLIENT.file))
      : undefined
  return guardedCommand(hook, exe, event, undefined, native)
}

type InitOptions = ScopeOptions & {
  dryRun?: boolean
  sandbox?: boolean
  managed?: boolean
  json?: boolean
  projectBins?: boolean
  transport?: Transport
}

/** What init would write: each settings file before and after, the floor fragment and its mode. Changes nothing. */
export function initPlan(o: InitOptions) {
  const projectDir = path.resolve(o.projectDir)
  const mode: FloorMode = o.sandbox === false ? 'best-effort' : 'sandbox'
  // Without the sandbox the agent's commands reach loopback directly: they could answer in the service's place.
  if (o.transport === 'http' && mode !== 'sandbox')
    throw new RatchetError(
      'usage',
      "--transport http needs the sandbox (without it the agent's commands can reach or impersonate the service on 127.0.0.1): use --transport command with --no-sandbox",
    )
  const paths = resolvePaths({ ...process.env, CLAUDE_PROJECT_DIR: projectDir }, projectDir)
  const found = floorInputs(paths, process.env, projectReach(projectDir))
  // `projectBins`: what the project's own copy will guard once installed, not the copy running now (npx's cache).
  const inputs = o.projectBins
    ? { ...found, packages: [`./node_modules/${PACKAGE_NAME}`], binDirs: ['./node_modules/.bin'] }
    : found
  const fragment = floorFragment(inputs, mode)
  const { portable, machine } = splitFragment(fragment, inputs)
  // Under the sandbox Claude Code sends http hooks through the sandbox's proxy, which must then let them reach
  // the service on loopback, and so lets the agent's commands reach it too (docs/threat-model.md, "The transport").
  if (o.transport === 'http' && mode === 'sandbox') portable.domains = [...portable.domains, '127.0.0.1']
  const hooksFile = o.managed ? managedSettingsFile() : settingsFile(o)
  // Machine-specific entries go beside the hooks unless the hooks go in the committed project file.
  const machineFile = o.managed || o.user || o.local ? hooksFile : settingsFile({ ...o, local: true })
  const writes = new Map<string, { before: Settings; after: Settings }>()
  const edit = (file: string, change: (s: Settings) => Settings) => {
    const cur = writes.get(file) ?? { before: readSettings(file), after: readSettings(file) }
    writes.set(file, { before: cur.before, after: change(cur.after) })
  }
  // `projectBins`: the package is (about to be) the project's own dependency, whatever copy runs this.
  const exe = (h: HookName, event: string) =>
    o.projectBins
      ? guardedCommand(h, `"$CLAUDE_PROJECT_DIR"/node_modules/.bin/${h}`, event)
      : hookCommand(h, projectDir, !!(o.user || o.managed), event)
  const transport = { kind: o.transport ?? 'command', port: servicePort() }
  edit(hooksFile, (s) => withFloor(withRatchet(s, exe, undefined, transport), portable))
  if (machine.deny.length || machine.writable.length) edit(machineFile, (s) => withFloor(s, machine))
  return { projectDir, mode, paths, inputs, fragment, hooksFile, writes }
}

/** The dry run's lines: per settings file, a line diff of what would change. */
export function planDiff(
  writes: Map<string, { before: Settings; after: Settings }>,
): { file: string; changed: boolean; diff: string[] }[] {
  const text = (s: Settings) => (Object.keys(s).length ? JSON.stringify(s, null, 2) + '\n' : '')
  return [...writes].map(([file, w]) => ({
    file,
    changed: text(w.before) !== text(w.after),
    diff: lineDiff(text(w.before), text(w.after)).filter((l) => !l.startsWith('  ')),
  }))
}

/**
 * Registers the hooks and turns the floor on (lib/core/floor.ts): Claude Code's sandbox for every command, and
 * permission rules that keep the file tools off every path that carries authority. Project scope splits what it
 * writes: what holds on any teammate's machine goes in .claude/settings.json (committed), what names this machine's
 * own folders (a git remote that is a local folder, an install outside the project) in .claude/settings.local.json.
 */
export function init(o: InitOptions): void {
  if (!fs.existsSync(path.join(PACKAGE_ROOT, 'dist', 'preflight-check.cjs')))
    throw new RatchetError(
      'not_installed',
      `the hooks are not built (${PACKAGE_ROOT}/dist is missing): run npm install (or npm run build) in ${PACKAGE_ROOT}`,
    )
  const mode: FloorMode = o.sandbox === false ? 'best-effort' : 'sandbox'
  if (mode === 'sandbox') {
    const tools = sandboxTools()
    if (!tools.ok)
      throw new RatchetError('not_installed', `the OS sandbox cannot run here, so nothing was changed: ${tools.detail}`)
  }
  if (o.managed) assertRootOwnedInstall()
  const { projectDir, paths, inputs, fragment, hooksFile, writes } = initPlan(o)
  if (o.dryRun) {
    const out = planDiff(writes)
    process.stdout.write(
      o.json
        ? JSON.stringify(
            { mode, files: out.map((x, i) => ({ ...x, settings: [...writes.values()][i].after })) },
            null,
            2,
          ) + '\n'
        : out
            .map((x) => (x.changed ? `Would change ${x.file}:\n${x.diff.join('\n')}` : `Unchanged: ${x.file}`))
            .join('\n') + '\n',
    )
    return
  }
  const added: NonNullable<FloorRecord['added']> = {}
  for (const [file, w] of writes) {
    if (JSON.stringify(w.before) === JSON.stringify(w.after)) continue
    fs.mkdirSync(path.dirname(file), { recursive: true })
    writeJsonFile(file, w.after)
    added[file] = additions(w.before, w.after)
  }
  const created = setUpStateFolder(paths)
  setMode(paths, mode)
  syncPlaceholderExcludes(
    projectDir,
    mode === 'sandbox',
    guardedPaths(inputs).map((g) => g.at),
  )
  // A human ran init: the next session's floor is the one to compare later sessions with.
  const rec = readState(paths, 'floor')
  writeState(paths, 'floor', { v: 1, added: mergeAdded(rec.ok ? rec.value.added : undefined, added) }, { indent: 2 })
  removeState(paths, 'floorHold')
  const regs = registeredRatchetHooks(writes.get(hooksFile)!.after)
  const summary = {
    mode,
    hooks: {
      file: hooksFile,
      registrations: regs.map((r) => ({
        event: r.event,
        matcher: r.matcher,
        executable: commandExecutable(r.command),
        timeout: r.timeout,
        onFailure: r.onFailure,
      })),
    },
    files: [...writes.keys()],
    deny_rules: fragment.deny.length,
    domains: fragment.domains,
    writable: fragment.writable,
    state: paths.stateDir,
    created,
    // custodiet's reviewer is a paid model that runs by default: said at install, with what it may cost.
    reviewer: (({ on, reviewer, cap }) => ({ on, reviewer, daily_cap: cap }))(reviewerStatus(paths)),
  }
  if (o.json) {
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n')
    return
  }
  process.stdout.write(
    [
      `${Object.keys(added).length ? 'Registered' : 'Already registered'} in ${hooksFile}:`,
      ...regs.map(
        (r) =>
          `  ${r.event}${r.matcher ? ` (${r.matcher})` : ''} → ${commandExecutable(r.command)}  [timeout ${r.timeout}s${r.onFailure ? `, on failure ${r.onFailure}` : ''}]`,
      ),
      modeLine(mode),
      mode === 'sandbox'
        ? `  ${fragment.deny.length} permission rules; network limited to ${fragment.domains.length ? fragment.domains.join(', ') : 'nothing (no remotes or registries found)'}${fragment.writable.length ? `; writable outside the project: ${fragment.writable.join(', ')}` : ''}. Add a host with \`${CLI} floor allow <domain>\`.`
        : `  ${fragment.deny.length} permission rules hold the file tools; commands are not sandboxed. \`${CLI} init\` turns the sandbox on.`,
      `State folder: ${paths.stateDir}${created.length ? ` (created ${created.join(', ')})` : ''}`,
      `End of turn: ${gateSummary(paths)}`,
      `Reviewer (custodiet): ${reviewerLine(reviewerStatus(paths))}`,
      `Next: start \`claude\` in this project; \`${CLI} doctor\` checks the install and proves the floor, \`${CLI} guardrails list\` shows what is enforced.`,
    ].join('\n') + '\n',
  )
}

function gateSummary(paths: Paths): string {
  const cfg = custodietConfig(paths)
  return stopGateLine(cfg.stopGate, cfg.stopBudgetMs)
}

/** What init added to a settings file, so uninstall removes exactly that. */
function additions(
  before: Settings,
  after: Settings,
): { deny: string[]; domains: string[]; writable: string[]; set: Record<string, boolean | null> } {
  const list = (s: Settings, ...keys: string[]): string[] => {
    let v: unknown = s
    for (const k of keys) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []
  }
  const diff = (...keys: string[]) => list(after, ...keys).filter((x) => !list(before, ...keys).includes(x))
  const sandboxBefore = (before.sandbox ?? {}) as Record<string, unknown>
  const sandboxAfter = (after.sandbox ?? {}) as Record<string, unknown>
  const set: Record<string, boolean | null> = {}
  for (const k of Object.keys(SANDBOX_SWITCHES))
    if (sandboxAfter[k] !== sandboxBefore[k])
      set[k] = typeof sandboxBefore[k] === 'boolean' ? (sandboxBefore[k] as boolean) : null
  return {
    deny: diff('permissions', 'deny'),
    domains: diff('sandbox', 'network', 'allowedDomains'),
    writable: diff('sandbox', 'filesystem', 'allowWrite'),
    set,
  }
}

function mergeAdded(
  old: FloorRecord['added'],
  now: NonNullable<FloorRecord['added']>,
): NonNullable<FloorRecord['added']> {
  const out = { ...(old ?? {}) }
  for (const [file, a] of Object.entries(now)) {
    const o = out[file]
    out[file] = o
      ? {
          deny: [...new Set([...o.deny, ...a.deny])],
          domains: [...new Set([...o.domains, ...a.domains])],
          writable: [...new Set([...o.writable, ...a.writable])],
          set: { ...a.set, ...o.set },
        }
      : a
  }
  return out
}

/** The mode is the user's choice, kept in their config.json (tracked, so a team shares it). */
function setMode(paths: Paths, mode: FloorMode): void {
  const current = (readConfig(paths).config as { floor?: unknown }).floor
  if ((current === 'best-effort') === (mode === 'best-effort')) return
  updateState(
    paths,
    'config',
    (c) => {
      const next: Record<string, unknown> = { ...c }
      if (mode === 'best-effort') next.floor = 'best-effort'
      else delete next.floor
      return { next: next as typeof c, result: undefined }
    },
    { indent: 2 },
  )
}

/**
 * Managed hooks are as strong as the files they run: a managed registration that runs a package the user's account
 * can change is switched off by changing the package. So --managed needs an install only root can change.
 */
function assertRootOwnedInstall(): void {
  const weak: string[] = []
  for (let dir = fs.realpathSync(PACKAGE_ROOT); ; dir = path.dirname(dir)) {
    const st = fs.statSync(dir)
    if (st.uid !== 0 || st.mode & 0o022)
      weak.push(`${dir} (owner uid ${st.uid}, mode ${(st.mode & 0o777).toString(8)})`)
    if (dir === path.dirname(dir)) break
  }
  if (weak.length)
    throw new RatchetError(
      'not_installed',
      `managed settings must run an install only root can change, and ${weak[0]} is not: install Ratchet globally as root (sudo npm install -g …) and run \`sudo ${CLI} init --managed\``,
    )
  try {
    fs.accessSync(path.dirname(managedSettingsFile()), fs.constants.W_OK)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new RatchetError(
        'conflict',
        `${managedSettingsFile()} is not writable by this user: run \`sudo ${CLI} init --managed\``,
      )
  }
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

export function uninstall(o: ScopeOptions & { managed?: boolean; json?: boolean }): void {
  const projectDir = path.resolve(o.projectDir)
  const paths = resolvePaths({ ...process.env, CLAUDE_PROJECT_DIR: projectDir }, projectDir)
  const file = o.managed ? managedSettingsFile() : settingsFile(o)
  const before = readSettings(file)
  const removed = registeredRatchetHooks(before).length
  const rec = readState(paths, 'floor')
  const added = rec.ok ? (rec.value.added ?? {}) : {}
  // The floor init added, file by file (the machine file beside the project's too); without a record, the deny
  // rules this install would write, and the sandbox switches are left to the user.
  // No record (a teammate's clone: the record is machine state): the rules this install would write, as if the
  // package were the project's own (it may be gone already, and this copy be npx's).
  const inputs = floorInputs(paths)
  const fallbackDeny = floorFragment(
    {
      ...inputs,
      packages: [...new Set([...inputs.packages, `./node_modules/${PACKAGE_NAME}`])],
      binDirs: [...new Set([...inputs.binDirs, './node_modules/.bin'])],
    },
    'sandbox',
  ).deny
  const files = new Set(
    [file, ...(o.user || o.local || o.managed ? [] : [settingsFile({ ...o, local: true })])].filter(
      (f) => f === file || added[f],
    ),
  )
  let floorRemoved = 0
  for (const f of files) {
    const was = f === file ? before : readSettings(f)
    const cur = f === file ? withoutRatchet(before) : was
    const a = added[f] ?? { deny: fallbackDeny, domains: [], writable: [], set: {} }
    const next = withoutFloor(cur, a, a.set)
    const rules = (s: Settings) =>
      ((s.permissions as { deny?: unknown } | undefined)?.deny as string[] | undefined) ?? []
    floorRemoved += rules(was).filter((r) => !rules(next).includes(r)).length
    if (JSON.stringify(next) !== JSON.stringify(was)) writeJsonFile(f, next)
  }
  if (rec.ok && rec.value.added) writeState(paths, 'floor', { v: 1 }, { indent: 2 })
  removeState(paths, 'floorHold')
  if (!removed && !floorRemoved) {
    return emit(
      o,
      { file, removed: 0, floor_rules_removed: 0, changed: false },
      `No Ratchet hooks in ${file}; nothing to do.`,
    )
  }
  // The project's warm decision process goes with its hooks (it would stop by itself after 10 idle minutes).
  let stopped = false
  try {
    stopped = warmProcess(o.projectDir, 'stop')
  } catch {}
  emit(
    o,
    {
      files: [...files],
      removed,
      floor_rules_removed: floorRemoved,
      warm_process_stopped: stopped,
      changed: true,
      state_folder: paths.stateDir,
    },
    `Removed ${removed} Ratchet hook registration(s) and the floor's permission rules and sandbox settings from ${[...files].join(' and ')}${stopped ? ', and stopped its warm process' : ''}. The state folder was kept.`,
  )
}
