// From parsed shell to the programs that actually run: strips wrappers (sudo, env, timeout, nohup, xargs, busybox,
// su -c, docker exec/run, kubectl exec, find -exec, parallel, chroot, flock, …, `FOO=1` prefixes, `\rm`, /bin/rm),
// descends into `bash -c`, `eval`, `ssh host cmd`, and lifts interpreter one-liners (`python -c`, `node -e`, …) out
// as code for the code scanners. Each wrapper family is a peeler in ./peelers; `unwrap` is the loop over their table.
//
// What it cannot resolve it reports in `unreadable`, one phrase per reason: a command word computed at run time,
// eval of a computed string, code piped into a shell or interpreter, functions and aliases defined and then run,
// nesting past the limit, an incomplete parse. The caller treats such a command by its worst reading. Variables
// assigned earlier in the same command line (`d=.ratchet; rm -r $d`) are substituted, so a path spelled through
// one is judged as the path it is.

import { parseShell, type SimpleCommand } from '../shell'
import { fillPositional, calledFunctions } from './functions'
import { recordGenerated, runGenerated } from './generated'
import { BY_PATTERN, PEELERS } from './peelers'
import { fromDisk } from './scripts'
import {
  MAX_CODE_DEPTH,
  type Cmd,
  type CommandLine,
  type LineState,
  type Peeled,
  type ScriptReader,
  type TestFinder,
} from './types'
import { variants } from './variables'
import { isAssignment, programName, quote, RESERVED, short } from './words'

/** Longer commands are not read at all (and are unreadable): reading stays bounded on any input. */
const MAX_COMMAND_CHARS = 256 * 1024
/** Wrappers around wrappers (`sudo env nice timeout …`): more than this many are not read. */
const MAX_WRAPPERS = 24

export function readCommandLine(command: string, reader?: ScriptReader, testFiles?: TestFinder): CommandLine {
  const out: CommandLine = { invocations: [], snippets: [], incomplete: false, unreadable: [], scripts: [] }
  const st: LineState = {
    expand,
    out,
    unreadable: new Set(),
    functions: new Set(),
    aliases: new Map(),
    gitAliases: new Map(),
    vars: new Map(),
    exported: new Set(),
    generated: new Map(),
    bodies: new Map(),
    reader,
    testFiles,
    budget: { files: 0, bytes: 0 },
  }
  if (command.length > MAX_COMMAND_CHARS) {
    out.incomplete = true
    out.unreadable = [`too long to read (${command.length} characters)`]
    return out
  }
  expand(command, [], st, 0)
  for (const inv of out.invocations) {
    if (!inv.origin && st.functions.has(inv.name))
      st.unreadable.add(`the shell function ${inv.name} is defined and run in the same command`)
  }
  out.unreadable = [...st.unreadable]
  return out
}

function expand(
  command: string,
  via: string[],
  st: LineState,
  depth: number,
  pipedFrom?: SimpleCommand,
  cwd: string[] = [],
): void {
  if (depth > MAX_CODE_DEPTH) {
    st.out.incomplete = true
    st.unreadable.add(`shell code nested more than ${MAX_CODE_DEPTH} levels deep (bash -c inside bash -c …)`)
    return
  }
  const parsed = parseShell(command)
  if (parsed.incomplete) st.out.incomplete = true
  for (const u of parsed.unreadable)
    st.unreadable.add(
      u === 'a quote is not closed' || u.endsWith('is not closed') || u.includes('end marker')
        ? `the command could not be parsed completely (${u})`
        : u,
    )
  for (const f of parsed.functions) st.functions.add(f)
  for (const [name, body] of parsed.bodies) st.bodies.set(name, st.bodies.has(name) ? '' : body)
  // A function called here is read at each call with its arguments filled in (`f(){ rm -rf "$1"; }; f x` runs
  // `rm -rf x`), so its body is not also read where it is defined, where `$1` would be an unknown target.
  const called = parsed.bodies.size ? calledFunctions(parsed.commands, st) : undefined
  const cwdChanges: string[] = cwd.slice()
  parsed.commands.forEach((simple, i) => {
    if (simple.fn !== undefined && called?.has(simple.fn)) return
    // Code fed from outside into the first command of `bash -c` (`… | bash -c 'sh'`).
    const s = i === 0 && pipedFrom && !simple.pipedFrom ? { ...simple, pipedFrom } : simple
    for (const v of variants(s, st)) unwrap(v, via, st, depth, cwdChanges)
  })
}

/** Why a command word is not known before it runs, or null if it is. */
function computedWord(word: string, computed: boolean): string | null {
  if (!computed) return null
  if (!word.includes('$(') && !word.includes('`') && !/^[<>]\(/.test(word)) {
    // `$VENV/bin/python`: the folder is computed but the program is named.
    const slash = word.lastIndexOf('/')
    if (
      slash >= 0 &&
      !/[$`]/.test(word.slice(slash + 1)) &&
      // `(?!\w)`: a `$NAME` takes its whole name, so a run like `$aaaa$aaaa…$` has one reading, not exponentially many.
      /^(?:[^$`]|\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*(?!\w))*$/.test(word.slice(0, slash))
    )
      return null
  }
  return `the command word is computed at run time (${short(word)})`
}

/** Programs whose first operand is a subcommand that decides everything they do. */
const VERB_PROGRAMS = new Set([
  'git',
  'npm',
  'pnpm',
  'yarn',
  'gh',
  'docker',
  'podman',
  'kubectl',
  'terraform',
  'ratchet',
])

/** Index of the subcommand among a verb program's arguments (after its global options), or -1. */
function verbIndex(args: string[]): number {
  let i = 0
  for (let a = args[i]; a?.startsWith('-'); a = args[i])
    i += /^(-C|-c|--git-dir|--work-tree|--namespace|--prefix|-n|--namespace|--context|-H|--host|--dir)$/.test(a) ? 2 : 1
  return i < args.length ? i : -1
}

/**
 * Reads one simple command: drops leading assignments and reserved words, then hands the command to its family's
 * peeler, again and again while a peeler returns the words of the program it wraps.
 */
function unwrap(simple: SimpleCommand, outerVia: string[], st: LineState, depth: number, cwdChanges: string[]): void {
  let argv = simple.argv.slice()
  let comp = simple.computed.slice()
  const via = outerVia.slice()
  /** Moves on to a suffix of the current words (keeps `comp` aligned). */
  const to = (rest: string[]) => {
    comp = comp.slice(comp.length - rest.length)
    argv = rest
  }
  /** Variables given to the program: exported earlier in the line, then `X=1 cmd` and `env X=1 cmd` on the way in. */
  const env: Record<string, string> = {}
  for (const name of st.exported) {
    const values = st.vars.get(name)
    if (values?.length === 1) env[name] = values[0]!
  }
  const given = (w: string) => {
    const eq = w.indexOf('=')
    env[w.slice(0, eq).replace(/\+$/, '')] = w.slice(eq + 1)
  }
  const push = (words: string[] = argv) => {
    st.out.invocations.push({
      name: programName(words[0] ?? ''),
      args: words.slice(1),
      redirects: simple.redirects,
      stdin: simple.stdin,
      via: via.slice(),
      cwdChanges: cwdChanges.slice(),
      ...(st.origin ? { origin: st.origin } : {}),
      ...(Object.keys(env).length ? { env: { ...env } } : {}),
    })
  }
  const code = (text: string, label: string, pipedFrom?: SimpleCommand) =>
    expand(text, [...via, label], st, depth + 1, pipedFrom)
  const inner = (words: string[], computed: boolean[], label: string) => {
    if (words.length)
      unwrap({ argv: words, computed, redirects: [] }, [...via, label], st, depth + 1, cwdChanges.slice())
  }

  recordGenerated(simple, st)
  for (let guard = 0; guard < MAX_WRAPPERS; guard++) {
    let lead = 0
    for (const w of argv) {
      if (!RESERVED.has(w) && !isAssignment(w)) break
      if (isAssignment(w)) given(w)
      lead++
    }
    if (lead) to(argv.slice(lead))
    const word = argv[0]
    if (word === undefined) {
      // A redirect alone (`> f`, `{ …; } > f`, `exec 3> f`) still opens its file.
      if (simple.redirects.length) push()
      return
    }
    // `for x in a b; do …` — the list is data, not a command (its values are kept for `$x`).
    if (word === 'for' || word === 'case') return
    const c: Cmd = {
      simple,
      name: programName(word),
      args: argv.slice(1),
      argComp: comp.slice(1),
      via,
      st,
      depth,
      cwdChanges,
      push,
      code,
      inner,
      given,
    }
    // `comp` is kept aligned with `argv` (see `to`), so its first flag is there; a missing one reads as not computed.
    const step = peel(c, word, comp[0] ?? false)
    if (step === 'none') push()
    if (typeof step !== 'object') return
    argv = step.argv
    comp = step.comp
  }
  st.unreadable.add('wrappers nested too deeply to read')
}

/** One step of `unwrap`: what the line itself says the command is, else what its family's peeler makes of it. */
function peel(c: Cmd, word: string, computed: boolean): Peeled {
  const { name, args, argComp, st, via } = c
  const problem = computedWord(word, computed)
  if (problem) {
    // `$(echo rm) -rf x`: the generator (echo) was read where it stands; what it produces is not known.
    st.unreadable.add(problem)
    c.push()
    return 'read'
  }
  // `./gen.sh` written earlier in this line: what runs is what was written there.
  // `./deploy.sh`, `scripts/x.py`: a script already on disk is read as if its lines were here (by its `#!` line).
  const script =
    word.includes('/') &&
    (runGenerated(word, st, (text) => c.code(`${text} ${args.map(quote).join(' ')}`, `script ${word}`)) ||
      fromDisk(word, 'auto', args, st, via, c.depth, c.cwdChanges))
  if (script) {
    c.push()
    return 'read'
  }
  // `git $(echo push)`: the subcommand, and so the whole effect, is not known before it runs.
  if (VERB_PROGRAMS.has(name)) {
    const k = verbIndex(args)
    const verb = args[k]
    if (verb !== undefined && argComp[k] && /[$`]/.test(verb))
      st.unreadable.add(`the ${name} subcommand is computed at run time (${short(verb)})`)
  }
  // A function defined in this line, called: its body runs with these arguments (not again inside itself).
  const body =
    st.functions.has(name) && !via.includes(`function ${name}`)
      ? fillPositional(st.bodies.get(name), args, argComp)
      : undefined
  if (body !== undefined) {
    // It runs in this shell: in the folder the line has reached (`cd sub && f notes.txt`).
    expand(body, [...via, `function ${name}`], st, c.depth + 1, undefined, c.cwdChanges)
    return 'read'
  }
  if (st.aliases.has(name) && !via.includes(`alias ${name}`)) {
    st.unreadable.add(`the alias ${name} is defined and used in the same command`)
    c.code(`${st.aliases.get(name)} ${args.map(quote).join(' ')}`, `alias ${name}`)
    return 'read'
  }
  let step = PEELERS[name]?.(c) ?? 'none'
  for (const byPattern of BY_PATTERN) if (step === 'none') step = byPattern(c)
  return step
}
