// Scripts already on disk, read when they are run (issue 9): which language a script file is in, which
// package.json scripts an npm/yarn/pnpm/bun command runs, and which recipe lines a `make` target runs. Pure:
// the file texts come in as strings (read at the edge, lib/io/script-facts.ts); commands.ts expands what these
// return as if the lines had been typed in the command.

/** What a file holds, by its `#!` line or else its extension: a shell script, interpreter code, or not a script. */
export type ScriptLang = 'shell' | 'python' | 'node' | 'perl' | 'ruby' | 'php'

const SHELL_NAMES = /^(ba|z|da|k|mk|a|y|po)?sh$/

/** The language of a script file: its `#!` line (`/usr/bin/env -S node --x` too), else its extension; `fallback` otherwise. */
export function scriptLang(text: string, file: string, fallback: ScriptLang | undefined): ScriptLang | undefined {
  if (text.startsWith('#!')) {
    const nl = text.indexOf('\n')
    const words = text
      .slice(2, nl < 0 ? Math.min(text.length, 256) : Math.min(nl, 256))
      .trim()
      .split(/[ \t]+/)
    let k = 0
    const base = (w: string | undefined) => (w ?? '').slice((w ?? '').lastIndexOf('/') + 1)
    if (base(words[0]) === 'env') {
      k = 1
      while (words[k]?.startsWith('-') || words[k]?.includes('=')) k++
    }
    const prog = base(words[k]).replace(/[\d.]+$/, '')
    if (SHELL_NAMES.test(prog)) return 'shell'
    if (prog === 'python' || prog === 'pypy') return 'python'
    if (
      prog === 'node' ||
      prog === 'nodejs' ||
      prog === 'tsx' ||
      prog === 'ts-node' ||
      prog === 'bun' ||
      prog === 'deno'
    )
      return 'node'
    if (prog === 'perl') return 'perl'
    if (prog === 'ruby') return 'ruby'
    if (prog === 'php') return 'php'
  }
  const ext = /\.([A-Za-z]+)$/.exec(file)?.[1]?.toLowerCase()
  if (ext === 'py') return 'python'
  if (ext === 'js' || ext === 'mjs' || ext === 'cjs' || ext === 'ts' || ext === 'mts' || ext === 'cts') return 'node'
  if (ext === 'pl' || ext === 'pm') return 'perl'
  if (ext === 'rb') return 'ruby'
  if (ext === 'php') return 'php'
  if (ext === 'sh' || ext === 'bash' || ext === 'zsh') return 'shell'
  return fallback
}

/** 1-based line of character `index` in `text`. */
export function lineAt(text: string, index: number): number {
  let n = 1
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) n++
  return n
}

// ---------------------------------------------------------------------------------------------
// package.json scripts

/** npm's lifecycle scripts for the commands that run them (npm docs, "Life Cycle Operation Order"). */
type Lifecycle = 'install' | 'pack' | 'publish' | 'version' | 'rebuild'
const LIFECYCLE: Record<Lifecycle, string[]> = {
  install: ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'],
  pack: ['prepack', 'prepare', 'postpack'],
  publish: ['prepublishOnly', 'prepack', 'prepare', 'postpack', 'publish', 'postpublish'],
  version: ['preversion', 'version', 'postversion'],
  rebuild: ['preinstall', 'install', 'postinstall', 'prepare'],
}

/** npm's own commands (a word that is one of these is not a script name for yarn/pnpm/bun's `<pm> <script>`). */
const PM_BUILTINS = new Set([
  'install',
  'i',
  'ci',
  'add',
  'remove',
  'rm',
  'uninstall',
  'un',
  'update',
  'up',
  'upgrade',
  'outdated',
  'list',
  'ls',
  'why',
  'info',
  'view',
  'init',
  'create',
  'dlx',
  'exec',
  'x',
  'link',
  'unlink',
  'pack',
  'publish',
  'version',
  'config',
  'set',
  'get',
  'cache',
  'audit',
  'store',
  'prune',
  'dedupe',
  'rebuild',
  'import',
  'patch',
  'patch-commit',
  'bin',
  'root',
  'env',
  'setup',
  'server',
  'self-update',
  'help',
  'login',
  'logout',
  'whoami',
  'owner',
  'tag',
  'workspace',
  'workspaces',
  'plugin',
  'constraints',
  'explain',
  'node',
  'npm',
  'pkg',
  'search',
  'fund',
  'doctor',
  'completion',
  'licenses',
  'fetch',
  'generate-lockfile',
  'global',
  'autoclean',
  'check',
  'policies',
  'unplug',
  'dist-tag',
  'deprecate',
  'access',
  'team',
  'token',
  'profile',
  'hook',
  'org',
  'star',
  'unstar',
  'stars',
  'repo',
  'docs',
  'bugs',
  'edit',
  'explore',
  'query',
  'sbom',
  'shrinkwrap',
  'ping',
  'prefix',
  'isntall',
  'in',
  'build',
  'upgrade-interactive',
  'run',
  'run-script',
  'test',
  't',
  'tst',
  'start',
  'stop',
  'restart',
  'bunx',
  'pm',
  'x',
])

/** Lifecycle names of these verbs, by package manager verb. */
const VERB_LIFECYCLE: Record<string, Lifecycle> = {
  install: 'install',
  i: 'install',
  ci: 'install',
  add: 'install',
  isntall: 'install',
  in: 'install',
  rebuild: 'install',
  pack: 'pack',
  publish: 'publish',
  version: 'version',
}

/**
 * The package.json script names a package-manager command runs, in order (with pre/post), and the extra words
 * appended to the named script (`npm run x -- --y`), or null when it runs none. `args` follows the program name.
 */
export function pmScripts(pm: string, args: string[]): { names: string[]; extra: string[]; main?: string } | null {
  if (args.includes('--ignore-scripts')) return null
  // Global options before the verb (`npm --prefix x run y`, `pnpm -C dir test`, `yarn --cwd dir build`).
  let i = 0
  for (let a = args[i]; a?.startsWith('-'); a = args[i])
    i += /^(--prefix|-C|--dir|--cwd|-w|--workspace|--filter|-F)$/.test(a) ? 2 : 1
  const verb = args[i]
  const rest = args.slice(i + 1)
  const dd = rest.indexOf('--')
  const operands = (dd >= 0 ? rest.slice(0, dd) : rest).filter((a) => !a.startsWith('-'))
  const extra = dd >= 0 ? rest.slice(dd + 1) : pm === 'npm' ? [] : rest.filter((a, k) => k > 0 || a.startsWith('-'))
  const run = (name: string | undefined) =>
    name ? { names: [`pre${name}`, name, `post${name}`], extra, main: name } : null
  if (verb === undefined) return pm === 'yarn' || pm === 'bun' ? null : null
  if (verb === 'run' || verb === 'run-script' || verb === 'rum' || verb === 'urn') return run(operands[0])
  if (verb === 'test' || verb === 't' || verb === 'tst') return run('test')
  if (verb === 'start' || verb === 'stop') return run(verb)
  if (verb === 'restart')
    return {
      names: ['prerestart', 'restart', 'postrestart', 'prestop', 'stop', 'poststop', 'prestart', 'start', 'poststart'],
      extra: [],
    }
  const life = VERB_LIFECYCLE[verb]
  if (life) {
    // `npm install <pkg>` reifies the tree and runs the project's own install scripts as well (npm 7+).
    return { names: LIFECYCLE[life], extra: [] }
  }
  // `yarn build`, `pnpm lint`, `bun dev`: a word that is not the manager's own command names a script.
  if (pm !== 'npm' && !PM_BUILTINS.has(verb) && !verb.includes('/') && !verb.includes('@')) return run(verb)
  return null
}

/** `yarn` or `pnpm`/`bun` alone installs. */
export function pmBareInstall(pm: string, args: string[]): boolean {
  return (
    (pm === 'yarn' || pm === 'pnpm' || pm === 'bun') &&
    args.every((a) => a.startsWith('-')) &&
    !args.includes('--ignore-scripts') &&
    !args.includes('--help') &&
    !args.includes('--version')
  )
}

/** The scripts object of a package.json text, with the line each script is on; undefined when it is not JSON. */
export function packageScripts(
  text: string,
):
  | { scripts: Record<string, string>; bin: Record<string, string>; lineOf: (name: string) => number | undefined }
  | undefined {
  let pkg: unknown
  try {
    pkg = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!pkg || typeof pkg !== 'object') return undefined
  const p = pkg as { scripts?: unknown; bin?: unknown; name?: unknown }
  const scripts: Record<string, string> = Object.create(null)
  if (p.scripts && typeof p.scripts === 'object')
    for (const [k, v] of Object.entries(p.scripts)) if (typeof v === 'string') scripts[k] = v
  const bin: Record<string, string> = Object.create(null)
  if (typeof p.bin === 'string' && typeof p.name === 'string') bin[p.name.replace(/^@[^/]+\//, '')] = p.bin
  else if (p.bin && typeof p.bin === 'object')
    for (const [k, v] of Object.entries(p.bin)) if (typeof v === 'string') bin[k] = v
  const scriptsAt = text.indexOf('"scripts"')
  return {
    scripts,
    bin,
    lineOf: (name) => {
      const k = text.indexOf(JSON.stringify(name), Math.max(scriptsAt, 0))
      return k < 0 ? undefined : lineAt(text, k)
    },
  }
}

// ---------------------------------------------------------------------------------------------
// Makefiles

export interface RecipeLine {
  /** The command as the shell gets it (make variables put in, `@`/`-`/`+` prefixes taken off). */
  command: string
  line: number
  target: string
}

interface Rule {
  prereqs: string[]
  recipe: { text: string; line: number }[]
}

const MAX_TARGETS = 64
const MAX_RECIPE_LINES = 400

/**
 * The recipe lines `make [targets]` runs, prerequisites first (each target once), with simple variables put in
 * (`X = …`, `X := …`, `X ?= …`, `X += …`, and `X=v` on the command line). What make computes itself (`$(shell …)`,
 * `$(wildcard …)`) stays as written, so a command word built that way reads as computed (the worst reading).
 * `unknown`: a requested target with no rule (make would fail, or use a pattern rule this does not read).
 */
export function makeRecipes(
  text: string,
  targets: string[],
  overrides: Record<string, string> = {},
): { lines: RecipeLine[]; unknown: string[] } {
  const vars = new Map<string, string>(
    Object.entries({ MAKE: 'make', CC: 'cc', CXX: 'c++', RM: 'rm -f', SHELL: '/bin/sh', ...overrides }),
  )
  const rules = new Map<string, Rule>()
  let first: string | undefined
  let current: Rule[] = []
  const raw = text.slice(0, 512 * 1024).split('\n')
  for (let n = 0; n < raw.length; n++) {
    let line = raw[n]!
    const at = n + 1
    // A recipe line: a tab first, after a rule.
    if (line.startsWith('\t') && current.length) {
      let body = line.slice(1)
      while (body.endsWith('\\') && n + 1 < raw.length) body = body.slice(0, -1) + ' ' + raw[++n]!.replace(/^\t/, '')
      for (const r of current) if (r.recipe.length < MAX_RECIPE_LINES) r.recipe.push({ text: body, line: at })
      continue
    }
    while (line.endsWith('\\') && n + 1 < raw.length) line = line.slice(0, -1) + ' ' + raw[++n]!
    const trimmed = line.replace(/^\s+/, '')
    if (!trimmed || trimmed.startsWith('#')) continue
    if (/^(ifeq|ifneq|ifdef|ifndef|else|endif|include|-include|sinclude|define|endef|vpath|unexport)\b/.test(trimmed)) {
      if (!trimmed.startsWith('else') && !trimmed.startsWith('endif')) current = []
      continue
    }
    const assign =
      /^(?:export[ \t]+|override[ \t]+)*([A-Za-z_][\w.-]*)[ \t]*(:::=|::=|:=|\?=|\+=|!=|=)[ \t]*(.*)$/.exec(trimmed)
    if (assign) {
      // Every group of the pattern takes part in a match; the defaults only satisfy the type.
      const [, name = '', op = '', value = ''] = assign
      current = []
      if (name in overrides) continue
      if (op === '?=' && vars.has(name)) continue
      if (op === '+=') vars.set(name, `${vars.get(name) ?? ''} ${value}`.trim())
      else if (op === '!=') vars.set(name, `$(shell ${value})`)
      else vars.set(name, op === '=' || op === '?=' ? value : expandMake(value, vars, {}))
      continue
    }
    const colon = ruleColon(trimmed)
    if (colon < 0) {
      current = []
      continue
    }
    const names = expandMake(trimmed.slice(0, colon), vars, {}).split(/\s+/).filter(Boolean)
    let after = trimmed.slice(colon + 1).replace(/^:/, '')
    let inline: string | undefined
    const semi = after.indexOf(';')
    if (semi >= 0) {
      inline = after.slice(semi + 1)
      after = after.slice(0, semi)
    }
    // `target: VAR = value` (a target-specific variable): not a rule with a recipe.
    if (/^[ \t]*[A-Za-z_][\w.-]*[ \t]*[:?+]?=/.test(after)) {
      current = []
      continue
    }
    const prereqs = expandMake(after.replace(/\|/g, ' '), vars, {}).split(/\s+/).filter(Boolean)
    current = []
    for (const t of names) {
      if (!rules.has(t)) rules.set(t, { prereqs: [], recipe: [] })
      const r = rules.get(t)!
      r.prereqs.push(...prereqs)
      if (inline !== undefined) r.recipe.push({ text: inline, line: at })
      current.push(r)
      if (first === undefined && !t.startsWith('.') && !t.includes('%')) first = t
    }
  }
  const wanted = targets.length ? targets : first ? [first] : []
  const lines: RecipeLine[] = []
  const unknown: string[] = []
  const seen = new Set<string>()
  const visit = (t: string, depth: number) => {
    if (seen.has(t) || seen.size >= MAX_TARGETS || depth > 16) return
    seen.add(t)
    const r = rules.get(t)
    if (!r) return
    for (const p of r.prereqs) visit(p, depth + 1)
    for (const { text: body, line } of r.recipe) {
      if (lines.length >= MAX_RECIPE_LINES) return
      const auto = {
        '@': t,
        '<': r.prereqs[0] ?? '',
        '^': [...new Set(r.prereqs)].join(' '),
        '+': r.prereqs.join(' '),
        '?': r.prereqs.join(' '),
        '*': t.replace(/\.[^./]*$/, ''),
      }
      const command = expandMake(body, vars, auto).replace(/^[ \t]*[@+-]+[ \t]*/, '')
      if (command.trim()) lines.push({ command, line, target: t })
    }
  }
  for (const t of wanted) {
    if (!rules.has(t)) unknown.push(t)
    visit(t, 0)
  }
  return { lines, unknown }
}

/** Where a rule's `:` is (not `:=`, not inside `$(…)`), or -1. */
function ruleColon(line: string): number {
  let depth = 0
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]
    if (ch === '$' && (line[i + 1] === '(' || line[i + 1] === '{')) {
      depth++
      i++
    } else if ((ch === ')' || ch === '}') && depth) depth--
    else if (ch === ':' && !depth) return line[i + 1] === '=' ? -1 : i
    else if (ch === '=' && !depth) return -1
  }
  return -1
}

/** Puts make variables into a text: `$(X)`, `${X}`, `$X`, `$@`…; `$$` is a literal `$`. Linear, depth-bounded. */
function expandMake(text: string, vars: Map<string, string>, auto: Record<string, string>, depth = 0): string {
  if (!text.includes('$') || depth > 8) return text
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (ch !== '$') {
      out += ch
      continue
    }
    const nx = text[i + 1]
    if (nx === '$') {
      out += '$'
      i++
    } else if (nx === '(' || nx === '{') {
      const close = nx === '(' ? ')' : '}'
      // The matching close, counting nested opens.
      let d = 0
      let j = i + 1
      for (; j < text.length; j++) {
        if (text[j] === nx) d++
        else if (text[j] === close && --d === 0) break
      }
      const inner = text.slice(i + 2, j)
      if (/^[\w.-]+$/.test(inner)) out += vars.has(inner) ? expandMake(vars.get(inner)!, vars, auto, depth + 1) : ''
      else if (/^[@<^+?*][DF]?$/.test(inner)) out += auto[inner.charAt(0)] ?? ''
      // A make function (`$(shell …)`, `$(wildcard …)`): computed by make; kept as a substitution the shell reader sees.
      else out += `$(${expandMake(inner, vars, auto, depth + 1)})`
      i = j
    } else if (nx !== undefined && '@<^+?*'.includes(nx)) {
      out += auto[nx] ?? ''
      i++
    } else if (nx !== undefined && /\w/.test(nx)) {
      out += vars.has(nx) ? expandMake(vars.get(nx)!, vars, auto, depth + 1) : ''
      i++
    } else out += ch
  }
  return out
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [LIFECYCLE, VERB_LIFECYCLE]) Object.setPrototypeOf(table, null)
