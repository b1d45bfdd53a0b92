// Scripts already on disk: read when they are run, as if their lines were in the command (a shell or interpreter
// script, package.json scripts, a project's own bin). Each is read in a state of its own and within a budget.

import { packageScripts, pmBareInstall, pmScripts, scriptLang, type ScriptLang } from '../scripts'
import type { Cmd, LineState, ScriptFile, ScriptOrigin, ScriptRun } from './types'
import { optionValue, quote } from './words'

/** At most this many script files, and this many characters of them, are read for one command line. */
const MAX_SCRIPTS = 24
const MAX_SCRIPT_CHARS = 1024 * 1024

/** Programs installed with the system or a package: what they are is what their name says (`/usr/bin/git`). */
const SYSTEM_PATH = /^\/(usr|bin|sbin|opt|nix|snap|lib|lib64|etc|System|Library|Applications)\//
/** Third-party code a package manager installed: what it does at install is judged there, not on every run. */
const INSTALLED = /(^|\/)node_modules\/|(^|\/)(\.venv|venv|site-packages|\.cargo|\.rustup)\//

/**
 * Reads `file` (as written) and runs its text through the reader as `lang` (`auto`: by its `#!` line or extension,
 * else shell), with `args` as its positional parameters. False when there is no reader, nothing at that path, or a
 * compiled program there: the caller goes on as before.
 */
export function fromDisk(
  file: string,
  as: ScriptLang | 'auto',
  args: string[],
  st: LineState,
  via: string[],
  depth: number,
  cwdChanges: string[],
): boolean {
  if (
    !st.reader ||
    !file ||
    /[$`]/.test(file) ||
    SYSTEM_PATH.test(file) ||
    INSTALLED.test(file) ||
    /^[<>]\(/.test(file) ||
    file.startsWith('/dev/') ||
    file.startsWith('/proc/')
  )
    return false
  const f = st.reader(file, cwdChanges)
  if (!f || f.binary) return false
  const run = openScript(file, f, st)
  if (run.text === undefined) return true
  const lang = as === 'auto' ? (scriptLang(run.text, file, 'shell') ?? 'shell') : as
  const origin: ScriptOrigin = { file, abs: f.abs, text: run.text }
  inScript(st, origin, run, () => {
    if (lang === 'shell') {
      // `$1`, `$@` are the script's arguments when given (an unset one stays computed: the worst reading).
      for (const [k, a] of args.slice(0, 9).entries()) st.vars.set(String(k + 1), [a])
      if (args.length) st.vars.set('@', [args.map(quote).join(' ')])
      if (args.length) st.vars.set('*', [args.join(' ')])
      st.vars.set('#', [String(args.length)])
      st.expand(run.text!, [...via, `script ${file}`], st, depth + 1, undefined, cwdChanges)
    } else
      st.out.snippets.push({
        lang,
        code: run.text!,
        via: [...via, `${lang} ${file}`],
        cwdChanges: cwdChanges.slice(),
        origin,
      })
  })
  return true
}

/** Records a script file this command runs, within the budget; `text` is unset when it cannot be read. */
export function openScript(file: string, f: ScriptFile, st: LineState): ScriptRun {
  const run: ScriptRun = { file, abs: f.abs, unreadable: [] }
  st.out.scripts.push(run)
  if (f.problem !== undefined || f.text === undefined) run.problem = f.problem ?? 'it cannot be read'
  else if (++st.budget.files > MAX_SCRIPTS || (st.budget.bytes += f.text.length) > MAX_SCRIPT_CHARS)
    run.problem = `more scripts than can be read for one command (${MAX_SCRIPTS} files, ${MAX_SCRIPT_CHARS / 1024} KB)`
  else run.text = f.text
  return run
}

/**
 * Reads a script's commands in a state of their own: the script's functions, aliases and variables stay in the
 * script, and what cannot be read in it is kept with the script (classify.ts judges it: a committed script's
 * computed words are not the agent's doing; a script the agent wrote or changed is held to the command's rule).
 */
export function inScript(st: LineState, origin: ScriptOrigin, run: ScriptRun, read: () => void): void {
  const saved = {
    unreadable: st.unreadable,
    functions: st.functions,
    aliases: st.aliases,
    gitAliases: st.gitAliases,
    vars: st.vars,
    generated: st.generated,
    origin: st.origin,
    incomplete: st.out.incomplete,
  }
  st.unreadable = new Set()
  st.functions = new Set()
  st.aliases = new Map()
  st.gitAliases = new Map()
  st.vars = new Map()
  st.generated = new Map()
  st.origin = origin
  const from = st.out.invocations.length
  try {
    read()
    for (const inv of st.out.invocations.slice(from))
      if (inv.origin === origin && st.functions.has(inv.name))
        st.unreadable.add(`the shell function ${inv.name} is defined and run`)
    run.unreadable.push(...st.unreadable)
  } finally {
    Object.assign(st, {
      unreadable: saved.unreadable,
      functions: saved.functions,
      aliases: saved.aliases,
      gitAliases: saved.gitAliases,
      vars: saved.vars,
      generated: saved.generated,
      origin: saved.origin,
    })
    st.out.incomplete = saved.incomplete
  }
}

/** package.json in the folder a package manager works in (`--prefix`, `-C`, `--cwd`, `--dir`), parsed; undefined when absent or not JSON. */
function packageJson(
  args: string[],
  st: LineState,
  cwdChanges: string[],
): { run?: ScriptRun; pkg?: ReturnType<typeof packageScripts>; cwd: string[] } {
  const dir = optionValue(args, ['--prefix', '-C', '--cwd', '--dir'])
  const cwd = dir ? [...cwdChanges, dir] : cwdChanges
  const f = st.reader?.('package.json', cwd)
  if (!f || f.binary) return { cwd }
  const run = openScript('package.json', f, st)
  return { run, pkg: run.text === undefined ? undefined : packageScripts(run.text), cwd }
}

/**
 * `npm test`, `npm run build -- --x`, `yarn lint`, `pnpm install`: the package.json scripts it runs (with their
 * pre/post scripts and the install lifecycle), each read as shell code in the package's folder. True if any ran.
 */
export function packageRun(
  pm: string,
  args: string[],
  st: LineState,
  via: string[],
  depth: number,
  cwdChanges: string[],
): boolean {
  if (!st.reader || args.includes('--help') || args.includes('-h')) return false
  const plan = pmScripts(pm, args) ?? (pmBareInstall(pm, args) ? pmScripts('npm', ['install']) : null)
  if (!plan) return false
  const { run, pkg, cwd } = packageJson(args, st, cwdChanges)
  if (!run || run.text === undefined || !pkg) return !!run
  let any = false
  for (const name of plan.names) {
    const text = pkg.scripts[name]
    if (text === undefined) continue
    any = true
    const origin: ScriptOrigin = { file: `package.json scripts.${name}`, abs: run.abs, line: pkg.lineOf(name), text }
    const full = name === plan.main && plan.extra.length ? `${text} ${plan.extra.map(quote).join(' ')}` : text
    inScript(st, origin, run, () => st.expand(full, [...via, `${pm} script ${name}`], st, depth + 1, undefined, cwd))
  }
  return any
}

/** `npx tool` where tool is the project's own bin (package.json "bin"): that file is a script on disk. */
export function localBin(
  bin: string,
  args: string[],
  st: LineState,
  via: string[],
  depth: number,
  cwdChanges: string[],
): boolean {
  if (!st.reader) return false
  const f = st.reader('package.json', cwdChanges)
  if (!f?.text) return false
  const target = packageScripts(f.text)?.bin[bin]
  return (
    !!target &&
    fromDisk(
      target.startsWith('.') || target.startsWith('/') ? target : `./${target}`,
      'auto',
      args,
      st,
      via,
      depth,
      cwdChanges,
    )
  )
}

/** fromDisk for the command a peeler holds: the script runs where the command runs, under its wrappers. */
export function runsFile(c: Cmd, file: string, as: ScriptLang | 'auto', args: string[]): boolean {
  return fromDisk(file, as, args, c.st, c.via, c.depth, c.cwdChanges)
}
