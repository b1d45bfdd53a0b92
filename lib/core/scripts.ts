// Scripts already on disk, read when they are run (issue 9): which language a script file is in, and which
// package.json scripts an npm/yarn/pnpm/bun command runs (a `make` target's recipe lines: makefile.ts). Pure:
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

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [LIFECYCLE, VERB_LIFECYCLE]) Object.setPrototypeOf(table, null)
