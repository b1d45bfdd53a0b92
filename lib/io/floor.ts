// The floor, as found on this machine: the settings of every scope Claude Code merges, what the sandbox needs
// from the host, the install's fingerprint, and the record of the floor as a human last saw it (lib/core/floor.ts
// decides what each of these means).

import fs from 'node:fs'
import path from 'node:path'
import {
  SCOPES,
  excludedCommands,
  floorFragment,
  floorProblems,
  guardedPaths,
  runsExcluded,
  type FloorFragment,
  type FloorInputs,
  type FloorMode,
  type FloorProblem,
  type Scope,
  type ScopeSettings,
} from '../core/floor'
import { describeChange, floorChanges, type FloorChange, type FloorFacts } from '../core/floor-changes'
import { BIN_NAMES, NATIVE_CLIENT, PACKAGE_NAME, distFiles } from '../core/manifest'
import { REGISTRATIONS, commandExecutable, registeredRatchetHooks } from '../core/settings'
import { decisionOf } from '../core/guardrails'
import { PACKAGE_ROOT, warmSpools } from './package-root'
import { homeDir } from './paths'
import { loadGuardrails } from './guardrails'
import { readConfig } from './config'
import type { Paths } from './registry'
import { readState, removeState, updateState, writeFileAtomic, writeState } from './store'

/** Claude Code's machine-wide policy file: no user or project setting overrides what it sets. */
export function managedSettingsFile(platform = process.platform): string {
  return platform === 'darwin'
    ? '/Library/Application Support/ClaudeCode/managed-settings.json'
    : '/etc/claude-code/managed-settings.json'
}

/** Claude Code's per-user folder ($CLAUDE_CONFIG_DIR, else ~/.claude). */
export function claudeUserDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR || path.join(env.HOME || homeDir(), '.claude')
}

/** Every settings file Claude Code reads for a session started in `projectDir`, highest precedence first. */
export function scopeFiles(projectDir: string, env: NodeJS.ProcessEnv = process.env): { scope: Scope; file: string }[] {
  const managed = managedSettingsFile()
  let dropIns: string[] = []
  try {
    dropIns = fs
      .readdirSync(path.join(path.dirname(managed), 'managed-settings.d'))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => path.join(path.dirname(managed), 'managed-settings.d', f))
  } catch {
    /* no drop-in folder */
  }
  const files: Record<Scope, string[]> = {
    managed: [managed, ...dropIns],
    local: [path.join(projectDir, '.claude', 'settings.local.json')],
    project: [path.join(projectDir, '.claude', 'settings.json')],
    user: [path.join(claudeUserDir(env), 'settings.json')],
  }
  return SCOPES.flatMap((scope) => files[scope].map((file) => ({ scope, file })))
}

/**
 * The settings of every scope that has a file. A file that is not a JSON object is a problem: Claude Code ignores
 * it in headless runs, so whatever floor it held is gone.
 */
export function readScopes(
  projectDir: string,
  env: NodeJS.ProcessEnv = process.env,
): { scopes: ScopeSettings[]; problems: FloorProblem[] } {
  const scopes: ScopeSettings[] = []
  const problems: FloorProblem[] = []
  for (const { scope, file } of scopeFiles(projectDir, env)) {
    let text: string
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch {
      continue
    }
    if (!text.trim()) continue
    try {
      const v = JSON.parse(text)
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('expected a JSON object')
      scopes.push({ scope, file, settings: v })
    } catch (e) {
      problems.push({
        what: `${file} (${scope}) is not valid settings (${(e as Error).message}): Claude Code ignores it in headless runs`,
        block: true,
      })
    }
  }
  return { scopes, problems }
}

/** A path as a permission-rule path: `./x` inside the project, `~/x` under the home folder, else `//x`. */
export function rulePath(abs: string, projectDir: string, home = homeDir()): string {
  const inside = (dir: string) => abs === dir || abs.startsWith(dir + path.sep)
  if (inside(projectDir)) return './' + path.relative(projectDir, abs).split(path.sep).join('/')
  if (home && inside(home)) return '~/' + path.relative(home, abs).split(path.sep).join('/')
  return '/' + abs
}

/** The mode a human chose: `"floor": "best-effort"` in .ratchet/config.json (`ratchet init --no-sandbox`), else sandbox. */
export function floorMode(paths: Paths): FloorMode {
  return (readConfig(paths).config as { floor?: unknown }).floor === 'best-effort' ? 'best-effort' : 'sandbox'
}

/** What the floor guards and allows for this project, as found on this machine. */
export function floorInputs(
  paths: Paths,
  env: NodeJS.ProcessEnv = process.env,
  facts: { domains?: string[]; writable?: string[]; remoteGitDirs?: string[] } = {},
): FloorInputs {
  const project = paths.projectDir
  const home = env.HOME || homeDir()
  const at = (p: string) => rulePath(p, project, home)
  const packages = new Set<string>()
  const binDirs = new Set<string>()
  // Where Claude Code finds the hooks: the project's node_modules (a link there is guarded as a link, and what it
  // points at as the package), or a global install's own folder and the bin folder on PATH that launches it.
  const local = path.join(project, 'node_modules', packageName())
  if (fs.existsSync(local) || isInside(PACKAGE_ROOT, project)) {
    packages.add(at(local))
    binDirs.add(at(path.join(project, 'node_modules', '.bin')))
  }
  // An installed package is guarded whole; a source checkout only in what the hooks run (bin/, dist/): a checkout of
  // Ratchet is also a project someone works on. (Either way the package cannot be replaced: a folder holding a
  // guarded mount point cannot be renamed or removed.)
  const root = realpath(PACKAGE_ROOT)
  if (root.split(path.sep).includes('node_modules')) packages.add(at(root))
  else for (const d of ['bin', 'dist']) packages.add(at(path.join(root, d)))
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir) || isInside(dir, project)) continue
    if (BIN_NAMES.some((b) => realpath(path.join(dir, b)) === realpath(path.join(PACKAGE_ROOT, 'bin', b))))
      binDirs.add(at(dir))
  }
  return {
    state: at(paths.stateDir),
    config: at(paths.configHome),
    packages: [...packages],
    binDirs: [...binDirs],
    bins: BIN_NAMES,
    // The spool's folder is per user; a `*` in its last part is honoured by the sandbox's read denies.
    spools: [...new Set(warmSpools(env).map((s) => '/' + s.replace(/-\d+$/, '-*')))],
    domains: facts.domains ?? [],
    writable: facts.writable ?? [],
    remoteGitDirs: facts.remoteGitDirs ?? [],
  }
}

// Loaded when used: session-start reads the floor once per session, and loading a child-process or hashing module
// costs every session start whether or not it is needed (test/e2e/hooks.test.ts 'packaging').
function spawnSync(
  cmd: string,
  args: string[],
  opts: { timeout: number; env?: NodeJS.ProcessEnv },
): { status: number | null; stdout: string; stderr: string; error?: Error } {
  return (require('node:child_process') as typeof import('node:child_process')).spawnSync(cmd, args, {
    ...opts,
    encoding: 'utf8',
  })
}

const isInside = (p: string, dir: string) => p === dir || p.startsWith(dir + path.sep)
function realpath(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    return p
  }
}
function packageName(): string {
  try {
    return JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')).name || 'ratchet'
  } catch {
    return 'ratchet'
  }
}

/** The hosts and local folders the project's own work reaches: its git remotes (as git will really use them) and registries. */
export function projectReach(
  projectDir: string,
  env: NodeJS.ProcessEnv = process.env,
): { domains: string[]; writable: string[]; remoteGitDirs: string[] } {
  const domains = new Set<string>()
  const writable = new Set<string>()
  const git = (args: string[]) =>
    spawnSync('git', ['-C', projectDir, ...args], { timeout: 5000, env: { ...env, GIT_TERMINAL_PROMPT: '0' } })
  const remotes = (git(['remote']).stdout ?? '').split('\n').filter(Boolean)
  for (const r of remotes)
    for (const push of [false, true])
      for (const url of (git(['remote', 'get-url', '--all', ...(push ? ['--push'] : []), r]).stdout ?? '')
        .split('\n')
        .filter(Boolean)) {
        const host = urlHost(url)
        if (host) domains.add(host)
        else writable.add(path.resolve(projectDir, url.replace(/^file:\/\//, '')))
      }
  const has = (f: string) => fs.existsSync(path.join(projectDir, f))
  if (has('package.json')) {
    for (const r of npmRegistries(projectDir, env)) domains.add(r)
    if (has('yarn.lock')) domains.add('registry.yarnpkg.com')
  }
  if (['requirements.txt', 'pyproject.toml', 'setup.py', 'Pipfile', 'uv.lock', 'poetry.lock'].some(has))
    for (const d of ['pypi.org', 'files.pythonhosted.org']) domains.add(d)
  if (has('Cargo.toml')) for (const d of ['crates.io', 'index.crates.io', 'static.crates.io']) domains.add(d)
  if (has('go.mod')) for (const d of ['proxy.golang.org', 'sum.golang.org']) domains.add(d)
  if (has('Gemfile')) for (const d of ['rubygems.org', 'index.rubygems.org']) domains.add(d)
  // A local remote's own git folder (the folder itself when bare, its .git otherwise): what git runs from there.
  const remoteGitDirs = [...writable].flatMap((w) => {
    const r = spawnSync('git', ['-C', w, 'rev-parse', '--absolute-git-dir'], {
      timeout: 5000,
      env: { ...env, GIT_TERMINAL_PROMPT: '0' },
    })
    return r.status === 0 && r.stdout.trim() ? [realpath(r.stdout.trim())] : []
  })
  return {
    domains: [...domains].sort(),
    writable: [...writable].sort(),
    remoteGitDirs: [...new Set(remoteGitDirs)].sort(),
  }
}

/** The host of a git URL (https://h/…, ssh://u@h/…, u@h:path), or undefined for a local path. */
export function urlHost(url: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^:/]+)/i.exec(url) ?? /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)/.exec(url)
  if (!m || /^file$/i.test(url.split(':')[0])) return undefined
  return m[1].toLowerCase()
}

/** The npm registries a project's installs use: `registry=` and `@scope:registry=` in its .npmrc and the user's. */
function npmRegistries(projectDir: string, env: NodeJS.ProcessEnv): string[] {
  const out = new Set<string>()
  let any = false
  for (const file of [path.join(projectDir, '.npmrc'), path.join(env.HOME || homeDir(), '.npmrc')]) {
    let text = ''
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch {
      continue
    }
    for (const m of text.matchAll(/^\s*(@[^:\s]+:)?registry\s*=\s*(\S+)/gm)) {
      const host = urlHost(m[2])
      if (host) out.add(host)
      if (!m[1]) any = true
    }
  }
  if (!any) out.add('registry.npmjs.org')
  return [...out]
}

/** What the sandbox needs from this host, and if it is missing, exactly what to install. */
export function sandboxTools(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): { ok: boolean; detail: string } {
  if (platform === 'darwin') return { ok: true, detail: 'macOS: Seatbelt (sandbox-exec) is built in' }
  if (platform !== 'linux')
    return {
      ok: false,
      detail: `Claude Code's sandbox does not run on ${platform}: use \`npx ratchet-guard init --no-sandbox\` (best-effort mode)`,
    }
  const missing = ['bwrap', 'socat'].filter((b) => !onPath(b, env))
  if (missing.length)
    return {
      ok: false,
      detail: `${missing.join(' and ')} not found: install them (${installHint()}), or choose best-effort mode with \`npx ratchet-guard init --no-sandbox\``,
    }
  const r = spawnSync(
    'bwrap',
    ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-net', '--unshare-pid', 'true'],
    { timeout: 5000, env },
  )
  if (r.status !== 0)
    return {
      ok: false,
      detail: `bubblewrap is installed but cannot make a sandbox here (${(r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n')[0]}): unprivileged user namespaces may be off (sysctl kernel.unprivileged_userns_clone=1), or choose \`npx ratchet-guard init --no-sandbox\``,
    }
  return { ok: true, detail: 'bubblewrap and socat present, and bubblewrap makes a sandbox' }
}

function onPath(bin: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(path.delimiter).some((d) => {
    try {
      fs.accessSync(path.join(d, bin), fs.constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

function installHint(): string {
  let os = ''
  try {
    os = fs.readFileSync('/etc/os-release', 'utf8')
  } catch {}
  if (/^(ID|ID_LIKE)=.*(fedora|rhel|centos)/m.test(os)) return 'sudo dnf install bubblewrap socat'
  if (/^(ID|ID_LIKE)=.*arch/m.test(os)) return 'sudo pacman -S bubblewrap socat'
  return 'sudo apt-get install bubblewrap socat'
}

/** The installed package's version and a hash of everything Claude Code runs of it (launchers and bundles). */
export function installFingerprint(root = PACKAGE_ROOT): string {
  const h = (require('node:crypto') as typeof import('node:crypto')).createHash('sha256')
  let version = '?'
  try {
    version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version
  } catch {}
  for (const f of [
    ...BIN_NAMES.map((b) => path.join('bin', b)),
    ...distFiles().map((d) => path.join('dist', d)),
    path.join('dist', NATIVE_CLIENT.file),
  ]) {
    h.update(f + '\0')
    try {
      h.update(fs.readFileSync(path.join(root, f)))
    } catch {
      h.update('(missing)')
    }
  }
  return `${version} ${h.digest('hex').slice(0, 12)}`
}

export interface FloorState {
  mode: FloorMode
  fragment: FloorFragment
  scopes: ScopeSettings[]
  problems: FloorProblem[]
  facts: FloorFacts
  /** The hooks come from Ratchet's Claude Code plugin (lib/io/floor.ts pluginRoute). */
  plugin?: boolean
}

/** The floor as it stands now for this project. */
export function floorNow(paths: Paths, env: NodeJS.ProcessEnv = process.env): FloorState {
  const { scopes, problems: unreadable } = readScopes(paths.projectDir, env)
  // The plugin registers the hooks itself and cannot turn on the sandbox: until `init` puts the floor in settings,
  // the hooks are all there is (best-effort, said so), and no hold waits for a floor nobody set up.
  const plugin = pluginRoute(env)
  const bare =
    plugin &&
    !scopes.some(
      (x) =>
        registeredRatchetHooks(x.settings).length ||
        (x.settings.sandbox as { enabled?: unknown } | undefined)?.enabled === true,
    )
  const mode = bare ? 'best-effort' : floorMode(paths)
  const fragment = floorFragment(floorInputs(paths, env), mode)
  const problems = [
    ...unreadable,
    ...(bare ? [] : floorProblems(scopes, fragment)),
    ...(plugin ? [] : hookProblems(scopes)),
  ]
  return { mode, fragment, scopes, problems, facts: floorFacts(paths, mode, scopes), plugin }
}

/**
 * Ratchet's Claude Code plugin as Claude Code recorded its install (plugins/installed_plugins.json), and whether a
 * settings scope of this project enables it (the last scope that says so wins: user, project, local).
 */
export function ratchetPlugin(
  projectDir: string,
  env: NodeJS.ProcessEnv = process.env,
): { id: string; version?: string; scope?: string; installPath?: string; enabled: boolean } | undefined {
  const dir = claudeUserDir(env)
  const json = (file: string): Record<string, unknown> | undefined => {
    try {
      const v = JSON.parse(fs.readFileSync(file, 'utf8'))
      return v && typeof v === 'object' ? v : undefined
    } catch {
      return undefined
    }
  }
  const installed = (json(path.join(dir, 'plugins', 'installed_plugins.json'))?.plugins ?? {}) as Record<
    string,
    { scope?: string; installPath?: string; version?: string }[]
  >
  const id = Object.keys(installed).find((k) => k.split('@')[0] === PACKAGE_NAME)
  if (!id) return undefined
  let enabled = false
  for (const file of [
    path.join(dir, 'settings.json'),
    path.join(projectDir, '.claude', 'settings.json'),
    path.join(projectDir, '.claude', 'settings.local.json'),
  ]) {
    const v = (json(file)?.enabledPlugins as Record<string, unknown> | undefined)?.[id]
    if (typeof v === 'boolean') enabled = v
  }
  return { id, ...(installed[id][0] ?? {}), enabled }
}

/**
 * Whether this process is a hook of Ratchet's Claude Code plugin: Claude Code runs a plugin's hooks with
 * CLAUDE_PLUGIN_ROOT set to the plugin's folder, which is then this package.
 */
export function pluginRoute(env: NodeJS.ProcessEnv = process.env): boolean {
  return !!env.CLAUDE_PLUGIN_ROOT && realpath(env.CLAUDE_PLUGIN_ROOT) === realpath(PACKAGE_ROOT)
}

/** Ratchet's own registrations: every one present somewhere, preflight-check's with "onFailure": "block". */
function hookProblems(scopes: ScopeSettings[]): FloorProblem[] {
  const found = scopes.flatMap((x) => registeredRatchetHooks(x.settings))
  const out: FloorProblem[] = []
  for (const reg of REGISTRATIONS) {
    const hits = found.filter(
      (f) =>
        f.event === reg.event &&
        (f.matcher ?? '') === (reg.matcher ?? '') &&
        path.basename(commandExecutable(f.command)) === reg.hook,
    )
    if (!hits.length)
      out.push({ what: `${reg.hook} is not registered for ${reg.event}: run \`npx ratchet-guard init\``, block: true })
    else if (reg.onFailure === 'block' && !hits.some((h) => h.onFailure === 'block'))
      out.push({
        what: `${reg.hook} is registered for ${reg.event} without "onFailure": "block": a crash or hang lets the call run`,
        block: true,
      })
  }
  return out
}

function floorFacts(paths: Paths, mode: FloorMode, scopes: ScopeSettings[]): FloorFacts {
  const facts: FloorFacts = { mode, 'sandbox excludedCommands': excludedCommands(scopes).join(', ') || 'none' }
  for (const x of scopes)
    for (const r of registeredRatchetHooks(x.settings)) {
      const key = `hook ${r.event}${r.matcher ? `(${r.matcher})` : ''} ${path.basename(commandExecutable(r.command))}`
      const value = `${commandExecutable(r.command)}${r.onFailure ? ` onFailure=${r.onFailure}` : ''}${r.async ? ' async' : ''} [${x.scope}]`
      facts[key] = facts[key] ? `${facts[key]}, ${value}` : value
    }
  facts.install = installFingerprint()
  facts[`dependency ${PACKAGE_NAME}`] = dependencyFact(paths.projectDir)
  const g = loadGuardrails(paths, { full: true, fold: false })
  for (const r of g.rules) facts[`rule ${r.id}`] = r.enabled === false ? 'off' : decisionOf(r)
  return facts
}

/**
 * What the project's next `npm install` would put in node_modules/ratchet-guard: the spec in package.json and what the
 * lockfile resolves it to. Commands may edit both (the sandbox guards the install, not these files), and a human's
 * install then replaces the hooks: so a change holds the next session, as a change of the install does.
 */
function dependencyFact(projectDir: string): string {
  const read = (f: string): Record<string, unknown> | undefined => {
    try {
      return JSON.parse(fs.readFileSync(path.join(projectDir, f), 'utf8'))
    } catch {
      return undefined
    }
  }
  const pkg = read('package.json')
  if (!pkg) return 'none'
  const spec = ['dependencies', 'devDependencies', 'optionalDependencies']
    .map((k) => (pkg[k] as Record<string, unknown> | undefined)?.[PACKAGE_NAME])
    .find((v) => typeof v === 'string')
  const over = (pkg.overrides as Record<string, unknown> | undefined)?.[PACKAGE_NAME]
  const locked = (
    read('package-lock.json')?.packages as Record<string, { resolved?: string; integrity?: string }> | undefined
  )?.[`node_modules/${PACKAGE_NAME}`]
  return [
    spec ?? 'none',
    ...(over !== undefined ? [`override ${JSON.stringify(over)}`] : []),
    ...(locked ? [`${locked.resolved ?? '?'} ${locked.integrity ?? ''}`.trim()] : []),
  ].join(' | ')
}

export interface SessionFloor {
  state: FloorState
  /** Changes since the floor a human last saw. */
  changes: FloorChange[]
  /** The session waits for a human (a hold was raised now, or one stands from before). */
  held: string[] | undefined
  /** No record yet: this session's floor was recorded as the one a human set up. */
  first: boolean
}

/**
 * At the start of a session: the floor now against the one a human last saw. A change that weakens it, or a problem
 * that means it does not hold, raises a hold that every tool call honours until a human runs `ratchet floor confirm`.
 * No record yet (a fresh install or clone) is recorded as it stands; rules added since are recorded silently.
 */
export function checkSessionFloor(paths: Paths, env: NodeJS.ProcessEnv = process.env, now = new Date()): SessionFloor {
  const state = floorNow(paths, env)
  try {
    syncPlaceholderExcludes(
      paths.projectDir,
      state.mode === 'sandbox',
      guardedPaths(floorInputs(paths, env)).map((g) => g.at),
    )
  } catch {
    /* a repository git cannot read, or an unwritable .git: the floor does not depend on it */
  }
  const rec = readState(paths, 'floor')
  const blocking = state.problems.filter((p) => p.block).map((p) => p.what)
  let changes: FloorChange[] = []
  let first = false
  if (!rec.ok) blocking.unshift(`${rec.error.message}: the floor a human last saw cannot be read`)
  else if (!rec.value.facts) first = true
  else changes = floorChanges(rec.value.facts, state.facts)
  const reasons = [...changes.map(describeChange), ...blocking]
  if (reasons.length) {
    writeState(paths, 'floorHold', { at: now.toISOString(), changes: reasons }, { indent: 2 })
  } else if (rec.ok && JSON.stringify(rec.value.facts) !== JSON.stringify(state.facts)) {
    // Nothing weakened (rules may have been added): this is the floor as it now stands.
    updateState(paths, 'floor', (r) => ({
      next: { ...r, facts: state.facts, at: now.toISOString() },
      result: undefined,
    }))
  }
  const hold = readState(paths, 'floorHold')
  return { state, changes, first, held: hold.ok && hold.value.changes.length ? hold.value.changes : undefined }
}

/** The hold a session waits on, if any (absent: none). */
export function floorHold(paths: Paths): string[] | undefined {
  if (!fs.existsSync(paths.floorHold)) return undefined
  const r = readState(paths, 'floorHold')
  // A hold file that cannot be read still holds: it was written because something changed.
  return r.ok
    ? r.value.changes.length
      ? r.value.changes
      : undefined
    : [`${paths.floorHold} cannot be read (${r.error.message})`]
}

/** A human's confirmation: the floor as it stands is the one to compare later sessions with, and the hold is lifted. */
export function recordFloor(paths: Paths, state: FloorState, now = new Date()): void {
  // A record that cannot be read is replaced: a human is looking at the floor as it stands.
  const before = readState(paths, 'floor')
  writeState(
    paths,
    'floor',
    { ...(before.ok ? before.value : {}), v: 1, facts: state.facts, at: now.toISOString() },
    { indent: 2 },
  )
  removeState(paths, 'floorHold')
}

/**
 * Claude Code 2.1.330's sandbox keeps these names at the top of the folder it starts in read-only, and so every path
 * the floor's own rules guard; where one does not exist it mounts a device there for the session, and `git add -A`
 * then fails on every sandboxed call ("can only add regular files"). So, in sandbox mode, those that do not exist are
 * listed in the repository's own .git/info/exclude (never committed), and taken out again once a real one appears.
 */
export const SANDBOX_PLACEHOLDERS = [
  ...[
    '.bash_profile',
    '.bashrc',
    '.gitconfig',
    '.gitmodules',
    '.idea',
    '.mcp.json',
    '.profile',
    '.ripgreprc',
    '.vscode',
    '.zprofile',
    '.zshrc',
  ],
  ...[
    'agents',
    'commands',
    'hooks',
    'launch.json',
    'loop.md',
    'output-styles',
    'routines',
    'scheduled_tasks.json',
    'settings.json',
    'settings.local.json',
    'skills',
    'workflows',
  ].map((n) => `.claude/${n}`),
]
const EXCLUDE_BEGIN =
  "# ratchet: placeholders Claude Code's sandbox mounts where these do not exist (git add -A fails on them); kept in step by Ratchet"
const EXCLUDE_END = '# end ratchet'

/** Brings the block in .git/info/exclude in step with the project (`on`: sandbox mode). Returns the names excluded. */
export function syncPlaceholderExcludes(projectDir: string, on: boolean, guarded: string[] = []): string[] {
  const where = excludeFile(projectDir)
  if (!where) return []
  const { file, prefix } = where
  // The floor's own paths in the project, bar what git never sees (.git) and what is already its own folder.
  const ours = guarded.filter((g) => g.startsWith('./') && !g.startsWith('./.git/')).map((g) => g.slice(2))
  const names = on
    ? [...new Set([...SANDBOX_PLACEHOLDERS, ...ours])].filter(
        (n) => !lexists(path.join(projectDir, n)) && !ancestorMissing(projectDir, n),
      )
    : []
  let text = ''
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {}
  const start = text.indexOf(EXCLUDE_BEGIN)
  const end = start >= 0 ? text.indexOf(EXCLUDE_END, start) : -1
  const outside =
    start >= 0 && end >= 0 ? text.slice(0, start) + text.slice(end + EXCLUDE_END.length).replace(/^\n/, '') : text
  const block = names.length ? [EXCLUDE_BEGIN, ...names.map((n) => `/${prefix}${n}`), EXCLUDE_END, ''].join('\n') : ''
  const next = block ? `${outside}${outside && !outside.endsWith('\n') ? '\n' : ''}${block}` : outside
  if (next !== text) writeFileAtomic(file, next)
  return names
}

/**
 * The repository's info/exclude and the project's place in its work tree: found on disk for a plain repository at
 * or above the project (no git process at session start); git is asked only for a worktree or submodule (`.git` file).
 */
function excludeFile(projectDir: string): { file: string; prefix: string } | undefined {
  for (let dir = projectDir, depth = 0; depth < 64; depth++) {
    const dotgit = path.join(dir, '.git')
    let st: fs.Stats | undefined
    try {
      st = fs.statSync(dotgit)
    } catch {}
    const prefix = path
      .relative(dir, projectDir)
      .split(path.sep)
      .filter(Boolean)
      .map((p) => p + '/')
      .join('')
    if (st?.isDirectory()) return { file: path.join(dotgit, 'info', 'exclude'), prefix }
    if (st?.isFile()) {
      const r = spawnSync('git', ['-C', projectDir, 'rev-parse', '--git-path', 'info/exclude'], { timeout: 5000 })
      return r.status === 0 ? { file: path.resolve(projectDir, String(r.stdout).trim()), prefix } : undefined
    }
    const up = path.dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
  return undefined
}

/** A path under a folder that does not exist (node_modules/.bin/x without node_modules): its folder is the placeholder's. */
function ancestorMissing(projectDir: string, rel: string): boolean {
  const parts = rel.split('/')
  return parts.length > 1 && !lexists(path.join(projectDir, parts[0]))
}

function lexists(p: string): boolean {
  try {
    fs.lstatSync(p)
    return true
  } catch {
    return false
  }
}

/**
 * Whether a call's commands run inside the sandbox with the floor's rules: a Bash call in sandbox mode whose program
 * words are none the settings exclude (as the last session start recorded them: a change there holds the session).
 */
export function sandboxedCall(paths: Paths, mode: FloorMode, tool: string, command: string): boolean {
  if (tool !== 'Bash' || mode !== 'sandbox') return false
  const rec = readState(paths, 'floor')
  // The session started without a sandbox (the plugin route before `init`): recorded as best-effort.
  if (rec.ok && rec.value.facts?.mode === 'best-effort') return false
  const excluded = rec.ok ? (rec.value.facts?.['sandbox excludedCommands'] ?? 'none') : 'none'
  return excluded === 'none' || !runsExcluded(command, excluded.split(', '))
}
