// The floor: what Ratchet asks Claude Code's own sandbox and permission layer to enforce, so that no reading of
// a command has to prove it leaves Ratchet alone. Pure: settings objects in, settings and problems out (which changes
// of the floor wait for a human: floor-changes.ts).
//
// Measured on Claude Code 2.1.330 (docs/threat-model.md has the table):
// - a `permissions.deny` rule `Edit(<path>)` stops the file tools (Write, Edit, NotebookEdit) and is merged into
//   the sandbox's write denies, so Bash and everything it starts get EROFS from the kernel; `./x` is the folder
//   Claude Code starts in (the project: project settings are read only there), `~/x` the home, `//x` absolute;
//   a `**` glob reaches the file tools but not the sandbox, so every path here is literal;
// - `Read(<path>)` hides a path from the Read tool and from sandboxed commands (a glob in its last part works);
// - the sandbox already makes everything outside the project read-only to commands, and protects
//   `.claude/settings*.json`, `.git/hooks` and `.git/config`; the deny rules name them anyway so the file tools,
//   which run outside the sandbox, are held too, and so an interactive user cannot approve such an edit by habit.

import type { Settings } from './settings'

export type FloorMode = 'sandbox' | 'best-effort'

/** The settings files Claude Code merges, highest precedence first (command-line flags aside). */
export const SCOPES = ['managed', 'local', 'project', 'user'] as const
export type Scope = (typeof SCOPES)[number]

export interface ScopeSettings {
  scope: Scope
  file: string
  settings: Settings
}

/** A path that carries authority. `at` is a rule path: `./x` (the project), `~/x` (home) or `//x` (absolute). */
export interface Guarded {
  at: string
  /** A folder: everything under it. */
  tree: boolean
  /** What it is, for the threat model and `ratchet floor status`. */
  why: string
  /** Also hidden from reading (the per-user config folder: the Telegram token, the signing keys). */
  read?: boolean
  /** Only hidden from reading (the warm process's spool: requests carry the environment). */
  readOnly?: boolean
}

export interface FloorInputs {
  /** The state folder as a rule path (`./.ratchet`). */
  state: string
  /** The per-user config folder as a rule path (`~/.config/ratchet`). */
  config: string
  /** The installed package's folders as rule paths (`./node_modules/ratchet`, `//usr/lib/node_modules/ratchet`). */
  packages: string[]
  /** Folders holding launchers of Ratchet's executables (`./node_modules/.bin`). */
  binDirs: string[]
  /** The launchers' names (lib/core/manifest.ts BIN_NAMES). */
  bins: string[]
  /** Folders hooks hand requests through (read-denied; a `*` in the last part is allowed). */
  spools: string[]
  /** Network: the hosts the project's own work needs (its git remotes, its package registries). */
  domains: string[]
  /** Absolute paths outside the project that commands must be able to write (a git remote that is a local folder). */
  writable: string[]
  /**
   * The git folders of those local remotes (absolute): their hooks and config stay unwritable, because git runs them
   * with the user's authority when the user pushes there later, outside the sandbox.
   */
  remoteGitDirs?: string[]
}

/** Files that make a package manager run code of their choosing (a shell, a preload, a plugin). */
const CODE_RUNNING_CONFIG = ['.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', 'bunfig.toml']
/** Shell start-up files: run by every later terminal, outside any sandbox. */
const SHELL_STARTUP = [
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
]
/** Claude Code's folders of instructions and code for later sessions (agents, commands, skills, hooks). */
const CLAUDE_FOLDERS = ['agents', 'commands', 'skills', 'hooks', 'output-styles']

/** Every path the floor guards, with why: one table, from which the rules, the docs and the checks derive. */
export function guardedPaths(i: FloorInputs): Guarded[] {
  const file = (at: string, why: string): Guarded => ({ at, tree: false, why })
  const tree = (at: string, why: string): Guarded => ({ at, tree: true, why })
  const out: Guarded[] = [
    tree(i.state, "Ratchet's state: rules, approval queue, activity log, session records"),
    file('./.claude/settings.json', "Claude Code's project settings: Ratchet's hooks and this floor"),
    file(
      './.claude/settings.local.json',
      "Claude Code's personal project settings (disableAllHooks would switch every hook off)",
    ),
    ...CLAUDE_FOLDERS.map((d) =>
      tree(`./.claude/${d}`, `Claude Code's project ${d}: instructions or code a later session runs`),
    ),
    file('./.mcp.json', 'MCP servers Claude Code starts, outside the sandbox'),
    ...i.packages.map((p) => tree(p, "Ratchet's installed package: the hooks' code")),
    // (A `node` planted beside them never runs a hook: the registered command drops folders inside the project from
    // PATH first, lib/core/settings.ts. Run by the user's own scripts later, it is residual risk 3.)
    ...i.binDirs.flatMap((d) =>
      i.bins.map((b) => file(`${d}/${b}`, `the launcher Claude Code runs for Ratchet's ${b}`)),
    ),
    tree('./.git/hooks', 'git hooks: code git runs later, outside the sandbox'),
    file('./.git/config', 'git config: pagers, filters, fsmonitor and aliases run code later'),
    ...(i.remoteGitDirs ?? []).flatMap((d) => [
      tree(`/${d}/hooks`, "a local git remote's hooks: they run when the user pushes there, outside the sandbox"),
      file(`/${d}/config`, "a local git remote's config: receive hooks path, fsmonitor and aliases run code later"),
    ]),
    ...CODE_RUNNING_CONFIG.flatMap((f) => [
      file(`./${f}`, 'package-manager config that can run code (a shell, a preload, a plugin)'),
      file(`~/${f}`, 'package-manager config that can run code (a shell, a preload, a plugin)'),
    ]),
    ...SHELL_STARTUP.map((f) => file(`~/${f}`, 'shell start-up: runs in every later terminal')),
    tree('~/.config/fish', 'shell start-up: runs in every later terminal'),
    file('~/.gitconfig', 'git config: pagers, filters, fsmonitor and aliases run code later'),
    tree('~/.config/git', 'git config: pagers, filters, fsmonitor and aliases run code later'),
    file('~/.claude/settings.json', "Claude Code's user settings: hooks and sandbox for every project"),
    file('~/.claude/settings.local.json', "Claude Code's user settings"),
    ...CLAUDE_FOLDERS.map((d) =>
      tree(`~/.claude/${d}`, `Claude Code's user ${d}: instructions or code every later session runs`),
    ),
    file('~/.claude.json', "Claude Code's user state: MCP servers for every project"),
    {
      ...tree(i.config, "Ratchet's per-user config: the Telegram token, the button key, the courtroom's signing keys"),
      read: true,
    },
    ...i.spools.map((s) => ({
      ...tree(s, "the warm decision process's requests (they carry the hook's environment)"),
      readOnly: true,
    })),
  ]
  const seen = new Set<string>()
  return out.filter((g) => !seen.has(g.at) && !!seen.add(g.at))
}

/** The permission rules for the guarded paths: `Edit(…)` for writes (file tools and sandbox), `Read(…)` for reads. */
export function denyRules(i: FloorInputs): string[] {
  const out: string[] = []
  for (const g of guardedPaths(i)) {
    const p = g.tree ? `${g.at}/**` : g.at
    if (!g.readOnly) out.push(`Edit(${p})`)
    if (g.read || g.readOnly) out.push(`Read(${p})`)
  }
  return out
}

/** The part of Claude Code's settings the floor owns, in one mode. */
export interface FloorFragment {
  mode: FloorMode
  deny: string[]
  domains: string[]
  /** Absolute paths (as sandbox paths: `//x`) commands may write outside the project. */
  writable: string[]
  /** Whether this fragment sets the sandbox switches (the one beside the hooks does; a machine's own part does not). */
  switches?: boolean
}

export function floorFragment(i: FloorInputs, mode: FloorMode): FloorFragment {
  return {
    mode,
    deny: denyRules(i),
    domains: mode === 'sandbox' ? [...new Set(i.domains)].sort() : [],
    writable: mode === 'sandbox' ? [...new Set(i.writable)].map((w) => '/' + w).sort() : [],
    switches: mode === 'sandbox',
  }
}

/**
 * The fragment apart into what holds on any machine (relative to the project or the home folder, and the spools,
 * whose absolute path is the same everywhere) and what names this machine's own folders (an install or state folder
 * outside the project, a git remote that is a local folder): a team commits the first, each person keeps the second.
 */
export function splitFragment(f: FloorFragment, i: FloorInputs): { portable: FloorFragment; machine: FloorFragment } {
  const spools = new Set(i.spools.map((s) => `Read(${s}/**)`))
  const local = (rule: string) => /^(Edit|Read)\(\/\//.test(rule) && !spools.has(rule)
  return {
    portable: { ...f, deny: f.deny.filter((r) => !local(r)), writable: [] },
    machine: { mode: f.mode, deny: f.deny.filter(local), domains: [], writable: f.writable, switches: false },
  }
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v)
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [])
const union = (mine: unknown, ours: string[]): string[] => [
  ...strings(mine),
  ...ours.filter((x) => !strings(mine).includes(x)),
]

/** The sandbox switches the floor sets, with the values it sets them to. */
export const SANDBOX_SWITCHES = { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false } as const

/**
 * Settings with the floor merged in: the user's own keys and list entries kept as they were, ours added once.
 * Idempotent. Best-effort mode writes only the deny rules (they hold the file tools with or without a sandbox).
 */
export function withFloor(settings: Settings, f: FloorFragment): Settings {
  const next: Settings = { ...settings }
  const permissions: Obj = isObj(settings.permissions) ? { ...settings.permissions } : {}
  permissions.deny = union(permissions.deny, f.deny)
  next.permissions = permissions
  if (f.mode !== 'sandbox') return next
  const sandbox: Obj = isObj(settings.sandbox) ? { ...settings.sandbox } : {}
  if (f.switches !== false) Object.assign(sandbox, SANDBOX_SWITCHES)
  if (f.domains.length) {
    const network: Obj = isObj(sandbox.network) ? { ...sandbox.network } : {}
    network.allowedDomains = union(network.allowedDomains, f.domains)
    sandbox.network = network
  }
  if (f.writable.length) {
    const fs: Obj = isObj(sandbox.filesystem) ? { ...sandbox.filesystem } : {}
    fs.allowWrite = union(fs.allowWrite, f.writable)
    sandbox.filesystem = fs
  }
  if (Object.keys(sandbox).length) next.sandbox = sandbox
  return next
}

/**
 * Settings without what the floor added: the deny rules, domains and writable paths it lists, and the sandbox
 * switches it set (`set`: the switches as they were before, `undefined` for absent). Entries the user also wrote are
 * the user's too, and a list the floor emptied is removed.
 */
export function withoutFloor(
  settings: Settings,
  f: Pick<FloorFragment, 'deny' | 'domains' | 'writable'>,
  set: Partial<Record<keyof typeof SANDBOX_SWITCHES, boolean | null>> = {},
): Settings {
  const next: Settings = { ...settings }
  const drop = (o: Obj, key: string, ours: string[]) => {
    const kept = strings(o[key]).filter((x) => !ours.includes(x))
    if (kept.length) o[key] = kept
    else delete o[key]
  }
  if (isObj(settings.permissions)) {
    const p: Obj = { ...settings.permissions }
    drop(p, 'deny', f.deny)
    if (Object.keys(p).length) next.permissions = p
    else delete next.permissions
  }
  if (isObj(settings.sandbox)) {
    const s: Obj = { ...settings.sandbox }
    for (const [k, before] of Object.entries(set)) {
      if (before === null || before === undefined) delete s[k]
      else s[k] = before
    }
    for (const [sub, key, ours] of [
      ['network', 'allowedDomains', f.domains],
      ['filesystem', 'allowWrite', f.writable],
    ] as const) {
      if (!isObj(s[sub])) continue
      const o: Obj = { ...(s[sub] as Obj) }
      drop(o, key, ours)
      if (Object.keys(o).length) s[sub] = o
      else delete s[sub]
    }
    if (Object.keys(s).length) next.sandbox = s
    else delete next.sandbox
  }
  return next
}

/** A way the floor does not hold now, in one line a human can act on. `block`: a session waits for a human. */
export interface FloorProblem {
  what: string
  block: boolean
}

const sandboxOf = (s: Settings): Obj => (isObj(s.sandbox) ? s.sandbox : {})
const label = (x: ScopeSettings) => `${x.file} (${x.scope})`

/** The value Claude Code uses for a sandbox switch: the highest-precedence scope that sets it. */
function effective(scopes: ScopeSettings[], key: string): { value: unknown; from?: ScopeSettings } {
  for (const scope of SCOPES) {
    const x = scopes.find((s) => s.scope === scope)
    if (x && key in sandboxOf(x.settings)) return { value: sandboxOf(x.settings)[key], from: x }
  }
  return { value: undefined }
}

/**
 * Whether the floor holds in the merged settings of every scope: the sandbox on and required in sandbox mode, no
 * scope allowing commands out of it, no scope switching hooks off, every deny rule present somewhere (they merge).
 */
export function floorProblems(scopes: ScopeSettings[], f: FloorFragment): FloorProblem[] {
  const out: FloorProblem[] = []
  for (const x of scopes)
    if (x.settings.disableAllHooks === true)
      out.push({
        what: `disableAllHooks is true in ${label(x)}: Claude Code runs no hooks from settings below managed`,
        block: true,
      })
  if (f.mode === 'sandbox') {
    const on = effective(scopes, 'enabled')
    if (on.value !== true)
      out.push({
        what: on.from
          ? `sandbox.enabled is ${JSON.stringify(on.value)} in ${label(on.from)}: commands run without the OS sandbox`
          : 'sandbox.enabled is not set in any scope: commands run without the OS sandbox',
        block: true,
      })
    const must = effective(scopes, 'failIfUnavailable')
    if (must.value !== true)
      out.push({
        what: `sandbox.failIfUnavailable is not true${must.from ? ` (${label(must.from)})` : ''}: if the sandbox cannot start, commands run without it`,
        block: true,
      })
    for (const x of scopes)
      if (sandboxOf(x.settings).allowUnsandboxedCommands === true)
        out.push({
          what: `sandbox.allowUnsandboxedCommands is true in ${label(x)}: a command may ask to run outside the sandbox`,
          block: true,
        })
    const excluded = scopes.flatMap((x) =>
      strings(sandboxOf(x.settings).excludedCommands).map((c) => `${c} (${x.scope})`),
    )
    if (excluded.length)
      out.push({
        what: `sandbox.excludedCommands run outside the sandbox: ${excluded.join(', ')}; Ratchet reads those by their text only`,
        block: false,
      })
  }
  const present = new Set(
    scopes.flatMap((x) => (isObj(x.settings.permissions) ? strings(x.settings.permissions.deny) : [])),
  )
  const missing = f.deny.filter((r) => !present.has(r))
  if (missing.length)
    out.push({
      what: `${missing.length} of Ratchet's permission deny rules are missing (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}): run \`npx ratchet-guard init\``,
      block: true,
    })
  return out
}

/** Commands the settings exclude from the sandbox (they run outside it): as written, from every scope. */
export function excludedCommands(scopes: ScopeSettings[]): string[] {
  return [...new Set(scopes.flatMap((x) => strings(sandboxOf(x.settings).excludedCommands)))].sort()
}

/**
 * Whether a Bash command may run outside the sandbox because the settings exclude it: any program word of the line
 * that is an excluded command's first word (the worst reading of how Claude Code matches them).
 */
export function runsExcluded(command: string, excluded: string[]): boolean {
  if (!excluded.length) return false
  const programs = new Set(
    command
      .split(/[;&|()\n`$]+/)
      .map(
        (part) =>
          part
            .trim()
            .split(/\s+/)
            .find((w) => !/^[A-Za-z_]\w*=/.test(w)) ?? '',
      )
      .map((w) => w.split('/').pop()!),
  )
  return excluded.some((e) => programs.has(e.trim().split(/[\s:*]+/)[0]))
}

/** The one line session-start and doctor show for a mode. */
export function modeLine(mode: FloorMode, plugin = false): string {
  if (plugin && mode === 'best-effort')
    return "Floor: best-effort. Ratchet's hooks come from its Claude Code plugin, which cannot turn on Claude Code's sandbox: commands are judged by their text, which a determined agent can get past. `npx ratchet-guard install` in the project adds the floor (docs/threat-model.md)."
  return mode === 'sandbox'
    ? "Floor: sandboxed. Commands run in Claude Code's OS sandbox: Ratchet's state, Claude Code's settings and Ratchet's install are read-only to them, and the network is limited to the project's hosts."
    : 'Floor: best-effort (no OS sandbox, chosen with `npx ratchet-guard init --no-sandbox`). Only the file tools are held by permission rules; commands are judged by their text, which a determined agent can get past (docs/threat-model.md).'
}
