// From parsed shell to the programs that actually run: strips wrappers (sudo, env, timeout, nohup,
// xargs, busybox, su -c, docker exec/run, kubectl exec, find -exec, parallel, chroot, flock, …,
// `FOO=1` prefixes, `\rm`, /bin/rm), descends into `bash -c`, `eval`, `ssh host cmd`, and lifts
// interpreter one-liners (`python -c`, `node -e`, …) out as code for the code scanners.
//
// What it cannot resolve it reports in `unreadable`, one phrase per reason: a command word computed at
// run time, eval of a computed string, code piped into a shell or interpreter, functions and aliases
// defined and then run, nesting past the limit, an incomplete parse. The caller treats such a command
// by its worst reading. Variables assigned earlier in the same command line (`d=.ratchet; rm -r $d`)
// are substituted, so a path spelled through one is judged as the path it is.

import { clusterValue, detachedRuns } from './detach'
import { parseShell, splitWords, type Redirect, type SimpleCommand } from './shell'
import { makeRecipes, packageScripts, pmBareInstall, pmScripts, scriptLang, type ScriptLang } from './scripts'

/** Where an invocation or snippet read from a file on disk comes from: the file as named, and its line when known. */
export interface ScriptOrigin {
  file: string
  abs: string
  line?: number
  /** The file's text, to find the line of a finding in (a shell script's commands carry no positions). */
  text?: string
}

/**
 * A file named in a command, read at the edge (lib/io/script-facts.ts) from the directory the command runs in
 * (after its `cd`s): its text, or why it cannot be read (a FIFO, too big, not a regular file), or `binary` for a
 * compiled program (nothing to read). Undefined: there is nothing at that path.
 */
export interface ScriptFile {
  abs: string
  text?: string
  problem?: string
  binary?: boolean
}
export type ScriptReader = (file: string, cwdChanges: string[]) => ScriptFile | undefined

/** A script file this command runs (a shell or interpreter script, package.json scripts, a Makefile's recipes). */
export interface ScriptRun {
  file: string
  abs: string
  /** Set when it exists but cannot be read: the command is then unreadable. */
  problem?: string
  text?: string
  /** What could not be read inside it (computed command words, …): judged by the caller, see classify.ts. */
  unreadable: string[]
}

export interface Invocation {
  /** Program name without path or leading backslash: `rm`, `git`. Empty for a redirect-only command (`> f`). */
  name: string
  args: string[]
  redirects: Redirect[]
  stdin?: string
  /** Wrappers that were peeled off, outermost first (`sudo`, `bash -c`, `xargs`). */
  via: string[]
  /** Directory changes earlier in the same command line (`cd .ratchet && rm x`). */
  cwdChanges: string[]
  /** Set when the invocation comes from a script file on disk that the command runs. */
  origin?: ScriptOrigin
  /**
   * Variables the program is given, as far as the line shows them: `X=1 cmd`, `env X=1 cmd`, and names exported
   * earlier in the line. For settings a program reads from its environment (git's GIT_CONFIG_*, GIT_EXTERNAL_DIFF).
   */
  env?: Record<string, string>
}

export interface CodeSnippet {
  lang: 'python' | 'node' | 'perl' | 'ruby' | 'php' | 'sql'
  code: string
  via: string[]
  /** Directory changes earlier in the same command line (`cd node_modules/x && node -e "require('./y')"`). */
  cwdChanges?: string[]
  /** Set when the code is a script file on disk that the command runs (`python3 x.py`). */
  origin?: ScriptOrigin
}

export interface CommandLine {
  invocations: Invocation[]
  snippets: CodeSnippet[]
  incomplete: boolean
  /** What could not be read, a few words each (empty when everything was): treat by the worst reading. */
  unreadable: string[]
  /** Script files on disk this command runs, read as if their lines were in the command (when a reader is given). */
  scripts: ScriptRun[]
}

/** Longer commands are not read at all (and are unreadable): reading stays bounded on any input. */
export const MAX_COMMAND_CHARS = 256 * 1024

const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}', 'function', 'esac', 'in', 'select', 'coproc'])

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'ash', 'csh', 'tcsh', 'yash', 'posh'])

const INTERPRETERS: Record<string, { lang: CodeSnippet['lang']; flags: string[] }> = {
  python: { lang: 'python', flags: ['-c'] },
  pypy: { lang: 'python', flags: ['-c'] },
  node: { lang: 'node', flags: ['-e', '--eval', '-p', '--print'] },
  nodejs: { lang: 'node', flags: ['-e', '--eval', '-p', '--print'] },
  bun: { lang: 'node', flags: ['-e', '--eval'] },
  deno: { lang: 'node', flags: ['eval'] },
  tsx: { lang: 'node', flags: ['-e', '--eval', '-p', '--print'] },
  perl: { lang: 'perl', flags: ['-e', '-E'] },
  ruby: { lang: 'ruby', flags: ['-e'] },
  php: { lang: 'php', flags: ['-r'] },
}

/** `bash -c` inside `bash -c` inside …: deeper than this is not read. */
export const MAX_CODE_DEPTH = 6
/** A variable with several candidate values (a `for` list) multiplies a command at most this much. */
const MAX_VARIANTS = 8

interface LineState {
  out: CommandLine
  unreadable: Set<string>
  functions: Set<string>
  aliases: Map<string, string>
  /** `git config alias.x …` run earlier in this command line: a later `git x` is that alias. */
  gitAliases: Map<string, string>
  /** Values assigned earlier in this command line; several for a `for` list. */
  vars: Map<string, string[]>
  /** Names exported earlier in this command line (`export X=1; git status` gives git X). */
  exported: Set<string>
  /**
   * Files written earlier in this command line, by their path as written: the text a literal `echo`/`printf`/
   * here-document put there, or null when what was written is not visible (`printf 'rm -rf x' > s.sh && sh s.sh`).
   */
  generated: Map<string, string | null>
  /** Bodies of the shell functions defined in this line ('' when a name is defined twice: not filled in). */
  bodies: Map<string, string>
  /** Reads script files named in the command; absent, scripts on disk are not read. */
  reader?: ScriptReader
  /** The script being read, if any: its invocations carry it. */
  origin?: ScriptOrigin
  /** Script files and bytes read so far in this command line (bounded). */
  budget: { files: number; bytes: number }
}

/** At most this many script files, and this many characters of them, are read for one command line. */
const MAX_SCRIPTS = 24
const MAX_SCRIPT_CHARS = 1024 * 1024

export function readCommandLine(command: string, reader?: ScriptReader): CommandLine {
  const out: CommandLine = { invocations: [], snippets: [], incomplete: false, unreadable: [], scripts: [] }
  const st: LineState = { out, unreadable: new Set(), functions: new Set(), aliases: new Map(), gitAliases: new Map(), vars: new Map(), exported: new Set(), generated: new Map(), bodies: new Map(), reader, budget: { files: 0, bytes: 0 } }
  if (command.length > MAX_COMMAND_CHARS) {
    out.incomplete = true
    out.unreadable = [`too long to read (${command.length} characters)`]
    return out
  }
  expand(command, [], st, 0)
  for (const inv of out.invocations) {
    if (!inv.origin && st.functions.has(inv.name)) st.unreadable.add(`the shell function ${inv.name} is defined and run in the same command`)
  }
  out.unreadable = [...st.unreadable]
  return out
}

function expand(command: string, via: string[], st: LineState, depth: number, pipedFrom?: SimpleCommand, cwd: string[] = []): void {
  if (depth > MAX_CODE_DEPTH) {
    st.out.incomplete = true
    st.unreadable.add(`shell code nested more than ${MAX_CODE_DEPTH} levels deep (bash -c inside bash -c …)`)
    return
  }
  const parsed = parseShell(command)
  if (parsed.incomplete) st.out.incomplete = true
  for (const u of parsed.unreadable) st.unreadable.add(u === 'a quote is not closed' || u.endsWith('is not closed') || u.includes('end marker') ? `the command could not be parsed completely (${u})` : u)
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

export function programName(word: string): string {
  const slash = word.lastIndexOf('/')
  if (slash >= 0) return word.slice(slash + 1)
  return word.charCodeAt(0) === 92 /* \\ */ ? word.slice(1) : word
}

function interpreterOf(name: string): (typeof INTERPRETERS)[string] | undefined {
  // python3.12 → python (a loop, not /[\d.]+$/, which is quadratic on a long run of digits)
  let end = name.length
  while (end > 0 && ((name[end - 1] >= '0' && name[end - 1] <= '9') || name[end - 1] === '.')) end--
  return INTERPRETERS[name.slice(0, end)] ?? INTERPRETERS[name]
}

const isAssignment = (w: string) => /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(w)

const short = (s: string) => (s.length > 60 ? s.slice(0, 59) + '…' : s).replace(/\s+/g, ' ')

// ---------------------------------------------------------------------------------------------
// Variables assigned earlier in the same command line.

// (Positional parameters too: a script read from disk is run with its arguments as $1, $@, ….)
const VAR_REF = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*|[0-9@*#])\}|([A-Za-z_][A-Za-z0-9_]*|[0-9@*#]))/g

/** The candidate texts of a word once the variables known in this line are put in. */
function substitute(word: string, computed: boolean, st: LineState): string[] {
  if (!computed || !word.includes('$') || !st.vars.size) return [word]
  let results = ['']
  let last = 0
  for (const m of word.matchAll(VAR_REF)) {
    const values = st.vars.get(m[1] ?? m[2])
    if (!values) continue
    const lit = word.slice(last, m.index)
    const next: string[] = []
    for (const r of results) for (const v of values) if (next.length < MAX_VARIANTS) next.push(r + lit + v)
    results = next
    last = m.index + m[0].length
  }
  return results.map((r) => r + word.slice(last))
}

/** One command per combination of candidate values (a `for` list), at most MAX_VARIANTS. */
function variants(simple: SimpleCommand, st: LineState): SimpleCommand[] {
  recordAssignments(simple, st)
  if (!st.vars.size || !simple.computed.some(Boolean) && !simple.redirects.some((r) => r.target.includes('$'))) return [simple]
  let combos: { argv: string[]; computed: boolean[] }[] = [{ argv: [], computed: [] }]
  // An unquoted expansion is split into words at run time (on IFS, when the line sets it): `cmd="rm -rf x";
  // $cmd` and `IFS=_; c=rm_-rf_x; $c` run rm. The reader does not keep quoting, so the worst reading splits.
  const ifs = ' \t\n' + (st.vars.get('IFS')?.[0] ?? '')
  simple.argv.forEach((w, i) => {
    const vs = substitute(w, simple.computed[i], st)
    const next: typeof combos = []
    for (const c of combos)
      for (const v of vs) {
        if (next.length >= MAX_VARIANTS) break
        const parts = v !== w ? splitOn(v, ifs) : [v]
        next.push({ argv: [...c.argv, ...parts], computed: [...c.computed, ...parts.map((p) => simple.computed[i] && /[$`]|^[<>]\(/.test(p))] })
      }
    combos = next
  })
  const redirects = simple.redirects.map((r) => ({ ...r, target: substitute(r.target, true, st)[0] }))
  const extra = simple.redirects.flatMap((r) => substitute(r.target, true, st).slice(1).map((t) => ({ ...r, target: t })))
  return combos.map((c) => ({ ...simple, argv: c.argv, computed: c.computed, redirects: [...redirects, ...extra] }))
}

/** Splits a value on any of the separator characters, dropping empty fields (bounded). */
function splitOn(v: string, seps: string): string[] {
  const out: string[] = []
  let cur = ''
  for (let i = 0; i < v.length && out.length < 256; i++) {
    if (seps.includes(v[i])) {
      if (cur) out.push(cur)
      cur = ''
    } else cur += v[i]
  }
  if (cur) out.push(cur)
  return out.length ? out : [v]
}

function recordAssignments(simple: SimpleCommand, st: LineState): void {
  const a = simple.argv
  if (!a.length) return
  const set = (word: string, computed: boolean) => {
    const eq = word.indexOf('=')
    const name = word.slice(0, eq).replace(/\+$/, '')
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return
    const value = word.slice(eq + 1)
    const vs = substitute(value, computed, st)
    if (value.startsWith('(') || vs.some((v) => /[$`]/.test(v) && computed)) st.vars.delete(name)
    else st.vars.set(name, vs)
  }
  if (a.every(isAssignment)) {
    a.forEach((w, i) => set(w, simple.computed[i]))
    return
  }
  if (/^(export|local|declare|typeset|readonly)$/.test(a[0])) {
    // `declare -n r=x`: r is a reference to x, whatever x holds when r is used: not a value we know.
    // (Letters only, then an n among them: two tests, because `[a-zA-Z]*n[a-zA-Z]*` is quadratic — redos test.)
    const nameref = a.slice(1).some((w) => /^-[a-zA-Z]*$/.test(w) && w.includes('n'))
    const exporting = a[0] === 'export' || a.slice(1).some((w) => /^-[a-zA-Z]*x/.test(w))
    a.slice(1).forEach((w, i) => {
      if (exporting) st.exported.add(w.split('=')[0].replace(/\+$/, ''))
      if (!isAssignment(w)) return
      if (nameref) st.vars.delete(w.slice(0, w.indexOf('=')).replace(/\+$/, ''))
      else set(w, simple.computed[i + 1])
    })
    return
  }
  // `for f in a b c; do …`: f takes each value in turn.
  if (a[0] === 'for' && a[2] === 'in' && /^[A-Za-z_]\w*$/.test(a[1] ?? '')) {
    const values = a.slice(3).flatMap((w, i) => substitute(w, simple.computed[i + 3], st)).slice(0, MAX_VARIANTS)
    if (values.length && values.every((v) => !v.includes('$') && !v.includes('`'))) st.vars.set(a[1], values)
    else st.vars.delete(a[1])
    return
  }
  if (a[0] === 'read' || a[0] === 'mapfile' || a[0] === 'readarray') for (const w of a.slice(1)) st.vars.delete(w)
}

// ---------------------------------------------------------------------------------------------

/** Why a command word is not known before it runs, or null if it is. */
function computedWord(word: string, computed: boolean): string | null {
  if (!computed) return null
  if (!word.includes('$(') && !word.includes('`') && !/^[<>]\(/.test(word)) {
    // `$VENV/bin/python`: the folder is computed but the program is named.
    const slash = word.lastIndexOf('/')
    if (slash >= 0 && !/[$`]/.test(word.slice(slash + 1)) && /^(?:[^$`]|\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*)*$/.test(word.slice(0, slash))) return null
  }
  return `the command word is computed at run time (${short(word)})`
}

/** `eval "$(ssh-agent -s)"` and friends: well-known programs whose output is environment setup. */
const EVAL_IDIOM = /^\$\(\s*(?:[\w./-]*\/)?(ssh-agent|direnv|pyenv|rbenv|nodenv|goenv|jenv|plenv|brew|conda|fnm|mise|rtx|zoxide|starship|opam|luarocks|dircolors|keychain|gpg-agent|thefuck|rustup|asdf)(?: [\w.=:-]+)*\s*\)$/

function unwrap(simple: SimpleCommand, outerVia: string[], st: LineState, depth: number, cwdChanges: string[]): void {
  const out = st.out
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
  for (const name of st.exported) if (st.vars.get(name)?.length === 1) env[name] = st.vars.get(name)![0]
  const given = (w: string) => {
    const eq = w.indexOf('=')
    env[w.slice(0, eq).replace(/\+$/, '')] = w.slice(eq + 1)
  }
  const push = () => {
    out.invocations.push({
      name: argv.length ? programName(argv[0]) : '',
      args: argv.slice(1),
      redirects: simple.redirects,
      stdin: simple.stdin,
      via: via.slice(),
      cwdChanges: cwdChanges.slice(),
      ...(st.origin ? { origin: st.origin } : {}),
      ...(Object.keys(env).length ? { env: { ...env } } : {}),
    })
  }
  const code = (text: string, label: string, pipedFrom?: SimpleCommand) => expand(text, [...via, label], st, depth + 1, pipedFrom)
  /** A command inside another's arguments (`find -exec cmd {} ;`, `parallel cmd ::: x`). */
  const inner = (words: string[], computed: boolean[], label: string) => {
    if (words.length) unwrap({ argv: words, computed, redirects: [] }, [...via, label], st, depth + 1, cwdChanges.slice())
  }

  recordGenerated(simple, st)
  for (let guard = 0; guard < 24; guard++) {
    let lead = 0
    while (lead < argv.length && (RESERVED.has(argv[lead]) || isAssignment(argv[lead]))) {
      if (isAssignment(argv[lead])) given(argv[lead])
      lead++
    }
    if (lead) to(argv.slice(lead))
    if (!argv.length) {
      // A redirect alone (`> f`, `{ …; } > f`, `exec 3> f`) still opens its file.
      if (simple.redirects.length) push()
      return
    }
    // `for x in a b; do …` — the list is data, not a command (its values are kept for `$x`).
    if (argv[0] === 'for' || argv[0] === 'case') return
    const problem = computedWord(argv[0], comp[0])
    if (problem) {
      // `$(echo rm) -rf x`: the generator (echo) was read where it stands; what it produces is not known.
      st.unreadable.add(problem)
      push()
      return
    }
    const name = programName(argv[0])
    const args = argv.slice(1)
    const argComp = comp.slice(1)
    // `./gen.sh` written earlier in this line: what runs is what was written there.
    if (argv[0].includes('/') && runGenerated(argv[0], st, (text) => code(`${text} ${args.map(quote).join(' ')}`, `script ${argv[0]}`))) {
      push()
      return
    }
    // `./deploy.sh`, `scripts/x.py`: a script already on disk is read as if its lines were here (by its `#!` line).
    if (argv[0].includes('/') && fromDisk(argv[0], 'auto', args, st, via, depth, cwdChanges)) {
      push()
      return
    }
    // `git $(echo push)`: the subcommand, and so the whole effect, is not known before it runs.
    if (VERB_PROGRAMS.has(name)) {
      const k = verbIndex(args)
      if (k >= 0 && argComp[k] && /[$`]/.test(args[k])) st.unreadable.add(`the ${name} subcommand is computed at run time (${short(args[k])})`)
    }

    // A function defined in this line, called: its body runs with these arguments (not again inside itself).
    const body = st.functions.has(name) && !via.includes(`function ${name}`) ? fillPositional(st.bodies.get(name), args, argComp) : undefined
    if (body !== undefined) {
      // It runs in this shell: in the folder the line has reached (`cd sub && f notes.txt`).
      expand(body, [...via, `function ${name}`], st, depth + 1, undefined, cwdChanges)
      return
    }
    if (st.aliases.has(name) && !via.includes(`alias ${name}`)) {
      st.unreadable.add(`the alias ${name} is defined and used in the same command`)
      code(`${st.aliases.get(name)} ${args.map(quote).join(' ')}`, `alias ${name}`)
      return
    }
    switch (name) {
      case 'cd':
      case 'pushd':
        if (args[0]) cwdChanges.push(args[0])
        push()
        return
      case 'alias':
        for (const a of args) {
          const eq = a.indexOf('=')
          if (eq > 0) st.aliases.set(a.slice(0, eq), a.slice(eq + 1))
        }
        push()
        return
      case 'trap':
        // `trap 'rm -rf x' EXIT`: the handler is code that runs later in this shell.
        if (args[0] && !args[0].startsWith('-')) code(args[0], 'trap')
        push()
        return
      case 'sudo':
      case 'doas':
      case 'pkexec':
        via.push(name)
        {
          const rest = skipOptions(args, SUDO_VALUES)
          const own = args.slice(0, args.length - rest.length)
          if (own.some((a) => (/^-[a-zA-Z]+$/.test(a) && /[si]/.test(a)) || a === '--shell' || a === '--login')) {
            // `sudo -s cmd` runs cmd through the target user's shell.
            if (rest.length) code(rest.join(' '), `${name} -s`, simple.pipedFrom)
            else push()
            return
          }
          to(rest)
        }
        continue
      case 'su':
      case 'runuser':
      case 'sg': {
        // `su -c 'cmd'`, `su user -c cmd`, `su - user --command=cmd`, `runuser -u user -- cmd`.
        const c = optionValue(args, ['-c', '--command'])
        if (c !== undefined) {
          code(c, `${name} -c`)
          return
        }
        via.push(name)
        const dd = args.indexOf('--')
        if (name === 'runuser' && dd >= 0 && args.includes('-u')) {
          to(args.slice(dd + 1))
          continue
        }
        if (name === 'sg' && args.length >= 2 && !args[1].startsWith('-')) {
          code(args.slice(1).join(' '), 'sg')
          return
        }
        push()
        return
      }
      case 'env': {
        // `env [-i] [-u X] [A=1] cmd …`, `env -S 'cmd args'`
        via.push('env')
        let next: string[] = []
        let nextComp: boolean[] = []
        for (let i = 0; i < args.length; i++) {
          const a = args[i]
          if (a === '-u' || a === '--unset' || a === '-C' || a === '--chdir' || a === '-P') {
            i++
            continue
          }
          const split = a === '-S' || a === '--split-string' ? args[++i] ?? '' : a.startsWith('--split-string=') ? a.slice(15) : /^-S./.test(a) ? a.slice(2) : undefined
          if (split !== undefined) {
            const words = splitWords(split)
            next = [...words, ...args.slice(i + 1)]
            nextComp = [...words.map(() => argComp[i] ?? false), ...argComp.slice(i + 1)]
            break
          }
          if (a === '--') {
            next = args.slice(i + 1)
            nextComp = argComp.slice(i + 1)
            break
          }
          if (isAssignment(a)) given(a)
          if (a.startsWith('-') || isAssignment(a)) continue
          next = args.slice(i)
          nextComp = argComp.slice(i)
          break
        }
        argv = next
        comp = nextComp
        continue
      }
      case 'timeout': {
        via.push('timeout')
        to(skipOptions(args, new Set(['-s', '--signal', '-k', '--kill-after'])).slice(1)) // the duration
        continue
      }
      case 'nice':
      case 'ionice':
      case 'chrt':
      case 'taskset':
        via.push(name)
        if (name === 'ionice' && (args.includes('-p') || args.includes('-P') || args.includes('-u'))) {
          push() // changes a running process; runs nothing
          return
        }
        to(skipOptions(args, new Set(['-n', '--adjustment', '-c', '--class', '--classdata', '-p', '--pid', '-t', '--cpu-list'])))
        if (name === 'taskset' || name === 'chrt') to(argv.slice(1))
        continue
      case 'stdbuf':
        via.push(name)
        to(skipOptions(args, new Set(['-i', '-o', '-e', '--input', '--output', '--error'])))
        continue
      case 'chroot':
        // `chroot [--userspec=…] dir [cmd …]`: without a command it runs a shell.
        via.push(name)
        to(skipOptions(args, new Set(['--userspec', '--groups'])).slice(1))
        if (!argv.length) return
        continue
      case 'flock': {
        const rest = skipOptions(args, new Set(['-w', '--wait', '--timeout', '-E', '--conflict-exit-code']))
        const c = optionValue(rest.slice(1), ['-c', '--command'])
        if (c !== undefined) {
          code(c, 'flock -c')
          return
        }
        via.push(name)
        to(rest.slice(1)) // the lock file
        if (!argv.length) return
        continue
      }
      case 'tmux':
      case 'screen':
      case 'daemonize':
      case 'start-stop-daemon':
      case 'at':
      case 'batch':
      case 'crontab':
      case 'entr':
      case 'pm2':
      case 'forever':
      case 'expect':
        // Detaching and scheduling programs (lib/core/detach.ts): what they run later is read as if run now.
        push()
        for (const r of detachedRuns(name, args, inputText(simple), (f) => st.generated.get(normPath(f)))) {
          if ('unreadable' in r) st.unreadable.add(r.unreadable)
          else if ('code' in r) code(r.code, name)
          else inner(r.argv, r.argv.map(() => false), name)
        }
        return
      case 'script': {
        // `script -q -c 'cmd' /dev/null`, `script -qc 'cmd'`
        const c = optionValue(args, ['-c', '--command']) ?? clusterValue(args, 'c')
        if (c !== undefined) code(c, 'script -c')
        else push()
        return
      }
      case 'busybox':
      case 'toybox':
        via.push(name)
        if (!args.length || args[0].startsWith('-')) {
          push()
          return
        }
        to(args)
        continue
      case 'nohup':
      case 'setsid':
      case 'time':
      case 'unbuffer':
      case 'chronic':
      case 'caffeinate':
      case 'exec':
      case 'fakeroot':
      case 'torsocks':
      case 'proxychains':
      case 'proxychains4':
      case 'firejail':
      case 'unshare':
      case 'nsenter':
      case 'catchsegv':
      case 'xvfb-run':
      case 'dbus-launch':
      case 'ltrace':
        via.push(name)
        to(skipOptions(args, new Set(PREFIX_VALUES[name] ?? [])))
        continue
      case 'strace':
        via.push(name)
        to(skipOptions(args, new Set(['-o', '-e', '-p', '-s', '-u', '-E', '-a', '-b', '-I', '-O', '-P', '-S', '-X'])))
        continue
      case 'systemd-run':
        via.push(name)
        to(skipOptions(args, new Set(['-u', '--unit', '-p', '--property', '-E', '--setenv', '-M', '--machine', '--uid', '--gid', '--nice', '--working-directory', '-d', '--slice', '--description', '--on-calendar', '--on-active', '--on-boot', '--on-startup', '--on-unit-active', '--on-unit-inactive', '--timer-property', '-H', '--host'])))
        continue
      case 'command':
      case 'builtin':
        // `command -v rm` only looks a program up; it runs nothing.
        if (args.some((a) => a === '-v' || a === '-V')) {
          push()
          return
        }
        via.push(name)
        to(args[0] === '-p' ? args.slice(1) : args)
        continue
      case 'xargs': {
        via.push(name)
        const rest = skipOptions(args, new Set(['-n', '-I', '-P', '-d', '-L', '-l', '-s', '-E', '-a', '--max-args', '--max-procs', '--delimiter', '--arg-file', '--max-lines', '--max-chars', '--eof', '--process-slot-var']))
        if (!rest.length) return // xargs alone runs echo
        // The words it adds come from its input: `-I{}` puts them where `{}` stands, otherwise at the end.
        const own = args.slice(0, args.length - rest.length)
        const k = own.findIndex((a) => a === '-I' || a === '-i' || a.startsWith('--replace') || /^-I./.test(a) || /^-i./.test(a))
        const mark = k < 0 ? undefined : own[k] === '-I' ? own[k + 1] : own[k].startsWith('--replace=') ? own[k].slice(10) : /^-[Ii]./.test(own[k]) ? own[k].slice(2) : '{}'
        const input = inputText(simple)
        const runsInput = (words: string[]) => {
          // Input as code: in the command word, in a shell's `-c` code, or as the `-c` code itself (`xargs sh -c`).
          const n = programName(words[0] ?? '')
          if (mark && words[0]?.includes(mark)) return true
          if (SHELLS.has(n) || interpreterOf(n)) {
            const c = words.findIndex((w) => /^-[a-zA-Z]*[ce]$/.test(w) || w === '--eval')
            // `sh -c '{}'` runs the input; `sh -c 'cat {}'` runs cat on it (read with `{}` standing for the file).
            if (c >= 0) return words[c + 1] === undefined || (!!mark && words[c + 1].trim().startsWith(mark))
          }
          return false
        }
        if (runsInput(rest)) {
          st.unreadable.add('xargs builds the command it runs from its input')
          // What we can see of the input is read as the command it becomes (`xargs -I{} sh -c '{}' <<< 'rm -rf x'`).
          for (const line of (input ?? '').split('\n').filter(Boolean).slice(0, MAX_VARIANTS)) {
            code(mark ? rest.map((w) => quote(w.split(mark).join(line))).join(' ') : line, 'xargs')
          }
          return
        }
        to(rest)
        continue
      }
      case 'sshpass':
        // `sshpass -p pw ssh host cmd`: the password is an option; the rest is the command it runs.
        via.push(name)
        to(skipOptions(args, new Set(['-p', '-f', '-d', '-P'])))
        continue
      case 'parallel': {
        // `parallel cmd ::: a b`: cmd runs once per argument, through a shell; `{}` is the argument.
        const rest = skipOptions(args, new Set(['-j', '--jobs', '-P', '--max-procs', '-n', '--max-args', '-N', '-I', '--joblog', '--results', '-S', '--sshlogin', '--delay', '--timeout', '--retries', '--tagstring', '-d', '--delimiter', '-a', '--arg-file', '--colsep', '-C', '--workdir', '--wd', '--halt']))
        const sep = rest.findIndex((a) => /^:::+\+?$/.test(a))
        const cmd = sep >= 0 ? rest.slice(0, sep) : rest
        const values = sep >= 0 ? rest.slice(sep + 1).filter((a) => !/^:::+\+?$/.test(a)) : []
        if (!cmd.length) return
        const text = cmd.join(' ')
        if (text.includes('{}') && values.length) for (const v of values.slice(0, MAX_VARIANTS)) code(text.split('{}').join(quote(v)), 'parallel')
        else code([text, ...values.map(quote)].join(' '), 'parallel')
        return
      }
      case 'find': {
        // `find root … -exec cmd {} ;` runs cmd on each file found (-execdir, -ok, -okdir alike).
        const root = findRoots(args)[0] ?? '.'
        for (let i = 0; i < args.length; i++) {
          if (!/^-(exec|execdir|ok|okdir)$/.test(args[i])) continue
          let j = i + 1
          while (j < args.length && args[j] !== ';' && args[j] !== '+') j++
          const words = args.slice(i + 1, j).map((w) => w.split('{}').join(trimSlashes(root) + '/{}'))
          // `-exec {} ;` runs each file found as the program: which programs is not known until it runs.
          if (words[0]?.includes('{}')) st.unreadable.add(`find ${args[i]} runs the files it finds as programs (${short(args.slice(i, j).join(' '))})`)
          inner(words, argComp.slice(i + 1, j), `find ${args[i]}`)
          i = j
        }
        push()
        return
      }
      case 'npx':
      case 'bunx':
      case 'pnpx':
        via.push(name)
        to(skipOptions(args, new Set(['-p', '--package', '-c', '--call'])))
        // `npx mytool`: the project's own bin (package.json "bin") is a script on disk.
        if (argv[0] && !argv[0].includes('/') && !args.includes('-c') && !args.includes('--call') && localBin(argv[0], argv.slice(1), st, via, depth, cwdChanges)) {
          push()
          return
        }
        if (args.includes('-c') || args.includes('--call')) {
          const c = optionValue(args, ['-c', '--call'])
          if (c !== undefined) {
            code(c, `${name} -c`)
            return
          }
        }
        continue
      case 'pnpm':
      case 'yarn':
        if (args[0] === 'dlx' || args[0] === 'exec') {
          via.push(`${name} ${args[0]}`)
          to(skipOptions(args.slice(1), new Set(['-p', '--package'])))
          continue
        }
        // `yarn ratchet …` runs the project's bin of that name.
        if (args[0] === 'ratchet' || args[0] === 'ratchet-guard') {
          via.push(name)
          to(args)
          continue
        }
        packageRun(name, args, st, via, depth, cwdChanges)
        break
      case 'bun':
        // `bun run build`, `bun install`: package.json scripts; `bun x.ts` is read as an interpreter below.
        if (packageRun(name, args, st, via, depth, cwdChanges)) {
          push()
          return
        }
        break
      case 'make':
      case 'gmake':
        makeRun(args, st, via, depth, cwdChanges)
        push()
        return
      case 'npm':
        // `npm pkg set scripts.postinstall='rm -rf .claude'`, `npm set-script x '…'`: shell code that npm runs
        // later (install, test, …), read as if it ran now.
        if ((args[0] === 'pkg' && args[1] === 'set') || args[0] === 'set-script') {
          const scripts = args[0] === 'set-script' ? (args[2] !== undefined ? [args[2]] : []) : args.slice(2).flatMap((a) => (/^scripts(\.|\[)/.test(a) && a.includes('=') ? [a.slice(a.indexOf('=') + 1)] : []))
          push()
          for (const text of scripts.slice(0, MAX_VARIANTS)) code(text, 'npm script')
          return
        }
        if (args[0] === 'exec' || args[0] === 'x') {
          via.push('npm exec')
          const c = optionValue(args, ['-c', '--call'])
          if (c !== undefined) {
            code(c, 'npm exec -c')
            return
          }
          to(skipOptions(args.slice(1), new Set(['-p', '--package', '-w', '--workspace'])))
          if (argv[0] && !argv[0].includes('/') && localBin(argv[0], argv.slice(1), st, via, depth, cwdChanges)) {
            push()
            return
          }
          continue
        }
        packageRun(name, args, st, via, depth, cwdChanges)
        break
      case 'poetry':
      case 'pipenv':
      case 'uv':
      case 'pdm':
      case 'hatch':
      case 'rye':
        if (args[0] === 'run') {
          via.push(`${name} run`)
          to(skipOptions(args.slice(1), new Set(['--with', '--python', '-p', '--env', '-e', '--directory', '--project', '--package', '--extra', '--group'])))
          continue
        }
        break
      case 'conda':
      case 'micromamba':
      case 'mamba':
        if (args[0] === 'run') {
          via.push(`${name} run`)
          to(skipOptions(args.slice(1), new Set(['-n', '--name', '-p', '--prefix', '--cwd'])))
          continue
        }
        break
      case 'direnv':
        if (args[0] === 'exec') {
          via.push('direnv exec')
          to(args.slice(2))
          continue
        }
        break
      case 'nix-shell': {
        const c = optionValue(args, ['--run', '--command'])
        if (c !== undefined) {
          code(c, 'nix-shell --run')
          return
        }
        break
      }
      case 'nix':
        if (args[0] === 'develop' || args[0] === 'shell') {
          const c = args.findIndex((a) => a === '-c' || a === '--command')
          if (c >= 0 && args[c + 1]) {
            via.push(`nix ${args[0]}`)
            to(args.slice(c + 1))
            continue
          }
        }
        break
      case 'docker':
      case 'podman':
      case 'nerdctl': {
        const inside = containerCommand(args)
        if (inside) {
          push() // the container tool's own detectors still see `docker run …`
          if (inside.words.length) {
            via.push(`${name} ${inside.how}`)
            to(inside.words)
            continue
          }
          return
        }
        break
      }
      case 'kubectl':
      case 'oc': {
        // `kubectl exec pod -- cmd`, `kubectl run x --image=i -- cmd`, `kubectl debug … -- cmd`
        const sub = args.find((a) => !a.startsWith('-'))
        const dd = args.indexOf('--')
        if ((sub === 'exec' || sub === 'run' || sub === 'debug') && dd >= 0 && dd < args.length - 1) {
          push()
          via.push(`${name} ${sub}`)
          to(args.slice(dd + 1))
          continue
        }
        break
      }
      case 'git': {
        // `git -c alias.x='push --force' x`: a one-shot alias is the command it names; so is one set by
        // `git config alias.x …` earlier in the line (red team: `git config alias.ship "!git add -A && git
        // commit && git push"; git ship` pushed a key).
        const defined = gitConfigAlias(args)
        if (defined) st.gitAliases.set(defined.name, defined.value)
        const alias = gitAlias(args, st.gitAliases)
        if (alias) {
          push()
          if (alias.shell) code(alias.shell, 'git alias')
          else code(`git ${alias.words}`, 'git alias')
          return
        }
        break
      }
      case 'awk':
      case 'gawk':
      case 'mawk':
      case 'nawk': {
        // awk runs shell commands through system(…), `print | "cmd"` and `"cmd" | getline`.
        let prog: string | undefined
        for (let k = 0; k < args.length; k++) {
          if (args[k] === '-f' || args[k] === '--file') break
          if (/^(-F|-v|--field-separator|--assign)$/.test(args[k])) k++
          else if (args[k] === '--') {
            prog = args[k + 1]
            break
          } else if (!args[k].startsWith('-')) {
            prog = args[k]
            break
          }
        }
        if (prog) for (const call of awkShellCalls(prog)) {
          if (call.computed) st.unreadable.add(`${name} runs a shell command it computes (${short(call.text || prog)})`)
          if (call.text) code(call.text, `${name} system`)
        }
        push()
        return
      }
      case 'watch': {
        via.push('watch')
        const rest = skipOptions(args, new Set(['-n', '--interval', '-d']))
        code(rest.join(' '), 'watch')
        return
      }
      case 'eval': {
        const text = args.join(' ')
        if (args.length === 1 && argComp[0] && EVAL_IDIOM.test(args[0])) {
          // Its generator was read where it stands; its output is environment set-up.
          push()
          return
        }
        // `eval "$(cat x.sh)"`: the file's text is the code.
        if (args.length === 1 && argComp[0] && catOf(args[0]) && fromDisk(catOf(args[0])!, 'shell', [], st, via, depth, cwdChanges)) {
          push()
          return
        }
        if (argComp.some(Boolean)) st.unreadable.add(`eval of a computed string (${short(text)})`)
        code(text, 'eval')
        return
      }
      case 'source':
      case '.':
        if (args[0] && catOf(args[0]) && fromDisk(catOf(args[0])!, 'shell', [], st, via, depth, cwdChanges)) {
          // `source <(cat x.sh)`: the file on disk is the code.
        } else if (args[0] && (/^[<>]\(/.test(args[0]) || args[0] === '/dev/stdin' || (args[0] === '-' && simple.pipedFrom))) st.unreadable.add(`${name} runs code that is not visible (${short(args[0])})`)
        else if (args[0] && !runGenerated(args[0], st, (text) => code(text, `${name} ${args[0]}`))) fromDisk(args[0], 'shell', args.slice(1), st, via, depth, cwdChanges)
        push()
        return
    }

    if (SHELLS.has(name)) {
      // Options come first (`bash -o pipefail -lc 'code'`); `$CODE` as the code is caught when it is read.
      let k = 0
      let cIndex = -1
      let stdinFlag = false
      while (k < args.length && /^[-+]/.test(args[k]) && args[k] !== '-' && args[k] !== '--') {
        if (/^-[a-zA-Z]+$/.test(args[k]) && args[k].includes('c')) cIndex = k
        if (/^-[a-zA-Z]+$/.test(args[k]) && args[k].includes('s')) stdinFlag = true
        k += /^[-+][oO]$|^--(rcfile|init-file)$/.test(args[k]) ? 2 : 1
      }
      if (args[k] === '--') k++
      if (cIndex >= 0 && args[k] !== undefined) {
        // `bash -c "$(cat x.sh)"`: the file on disk is the code.
        if (argComp[k] && catOf(args[k]) && fromDisk(catOf(args[k])!, 'shell', args.slice(k + 2), st, via, depth, cwdChanges)) {
          push()
          return
        }
        code(args[k], `${name} -c`, simple.pipedFrom)
        return
      }
      // `bash -s -- args`: the code comes on stdin, the rest are its arguments.
      const script = stdinFlag ? undefined : args.slice(k).find((a) => a !== '-')
      const fromStdin = !script || script === '/dev/stdin'
      if (script && /^[<>]\(/.test(script)) {
        st.unreadable.add(`${name} runs code from a process substitution (${short(script)})`)
      } else if (script && runGenerated(script, st, (text) => code(text, `${name} ${script}`))) {
        // a script written earlier in this line: read above
      } else if (script && fromDisk(script, 'shell', args.slice(args.indexOf(script) + 1), st, via, depth, cwdChanges)) {
        // a script on disk: read above
      } else if (fromStdin && simple.stdin !== undefined) {
        // `bash <<EOF … EOF`, `bash <<< "…"`: the here-document is code.
        code(simple.stdin, `${name} <<`)
        return
      } else if (fromStdin && stdinFile(simple) && fromDisk(stdinFile(simple)!, 'shell', [], st, via, depth, cwdChanges)) {
        // `sh < x.sh`, `cat x.sh | sh`: the file on disk is the code.
      } else if (fromStdin && simple.pipedFrom) {
        pipedCode(simple.pipedFrom, name, st, (text) => code(text, `${name} <|`))
      }
      push()
      return
    }

    if (name === 'ssh') {
      // `ssh host 'rm -rf /srv'` runs its command remotely: still a use.
      const rest = skipOptions(args, new Set(['-p', '-i', '-l', '-o', '-F', '-J', '-L', '-R', '-D', '-b', '-c', '-E', '-e', '-m', '-O', '-Q', '-S', '-W', '-w', '-B']))
      push()
      if (rest.length > 1) code(rest.slice(1).join(' '), 'ssh')
      else if (rest.length === 1 && simple.pipedFrom) pipedCode(simple.pipedFrom, 'ssh', st, (text) => code(text, 'ssh <|'))
      return
    }

    const interp = interpreterOf(name)
    if (interp) {
      const fi = args.findIndex((a) => interp.flags.includes(a) || ((interp.lang === 'perl' || interp.lang === 'ruby') && /^-[a-zA-Z]*[eE]$/.test(a)))
      if (fi >= 0 && args[fi + 1] !== undefined) {
        const snippet = args[fi + 1]
        // `python3 -c "$(cat x.py)"`: the file on disk is the code.
        if (argComp[fi + 1] && catOf(snippet) && fromDisk(catOf(snippet)!, interp.lang as ScriptLang, [], st, via, depth, cwdChanges)) {
          push()
          return
        }
        if (argComp[fi + 1] && /^\s*[$`]/.test(snippet)) st.unreadable.add(`${name} ${args[fi]} of a computed string (${short(snippet)})`)
        out.snippets.push({ lang: interp.lang, code: snippet, via: [...via, `${name} ${args[fi]}`], cwdChanges: cwdChanges.slice() })
      } else if (name.startsWith('python') && args[0] === '-m') {
        // `python -m twine upload` behaves as the module's command.
        via.push(`${name} -m`)
        to(args.slice(1))
        continue
      } else {
        const script = args.find((a, i) => !a.startsWith('-') && !(i > 0 && /^(-[WXrC]|--require|--import|--loader|--experimental-loader|--conditions|--input-type|--env-file)$/.test(args[i - 1])) && !(i === 0 && name === 'deno' && a === 'run'))
        const fromStdin = !script || script === '-' || script === '/dev/stdin'
        if (script && /^[<>]\(/.test(script)) st.unreadable.add(`${name} runs code from a process substitution (${short(script)})`)
        else if (script && st.generated.has(normPath(script))) {
          const text = st.generated.get(normPath(script))
          if (text == null) st.unreadable.add(`${name} runs ${short(script)}, written earlier in this command with content that is not visible`)
          else out.snippets.push({ lang: interp.lang, code: text, via: [...via, `${name} ${script}`], cwdChanges: cwdChanges.slice() })
        } else if (script && fromDisk(script, interp.lang as ScriptLang, args.slice(args.indexOf(script) + 1), st, via, depth, cwdChanges)) {
          // a script on disk: read above
        } else if (fromStdin && simple.stdin !== undefined) out.snippets.push({ lang: interp.lang, code: simple.stdin, via: [...via, `${name} <<`], cwdChanges: cwdChanges.slice() })
        else if (fromStdin && stdinFile(simple) && fromDisk(stdinFile(simple)!, interp.lang as ScriptLang, [], st, via, depth, cwdChanges)) {
          // `python3 < x.py`, `cat x.py | python3`: the file on disk is the code.
        }
        else if (fromStdin && simple.pipedFrom) pipedCode(simple.pipedFrom, name, st, (text) => out.snippets.push({ lang: interp.lang, code: text, via: [...via, `${name} <|`] }))
      }
      push()
      return
    }
    push()
    return
  }
  st.unreadable.add('wrappers nested too deeply to read')
}

// ---------------------------------------------------------------------------------------------
// Scripts already on disk (issue 9): read when they are run, as if their lines were in the command.

/** Programs installed with the system or a package: what they are is what their name says (`/usr/bin/git`). */
const SYSTEM_PATH = /^\/(usr|bin|sbin|opt|nix|snap|lib|lib64|etc|System|Library|Applications)\//
/** Third-party code a package manager installed: what it does at install is judged there, not on every run. */
const INSTALLED = /(^|\/)node_modules\/|(^|\/)(\.venv|venv|site-packages|\.cargo|\.rustup)\//

/**
 * Reads `file` (as written) and runs its text through the reader as `lang` (`auto`: by its `#!` line or extension,
 * else shell), with `args` as its positional parameters. False when there is no reader, nothing at that path, or a
 * compiled program there: the caller goes on as before.
 */
function fromDisk(file: string, as: ScriptLang | 'auto', args: string[], st: LineState, via: string[], depth: number, cwdChanges: string[]): boolean {
  if (!st.reader || !file || /[$`]/.test(file) || SYSTEM_PATH.test(file) || INSTALLED.test(file) || /^[<>]\(/.test(file) || file.startsWith('/dev/') || file.startsWith('/proc/')) return false
  const f = st.reader(file, cwdChanges)
  if (!f || f.binary) return false
  const run = openScript(file, f, st)
  if (run.text === undefined) return true
  const lang = as === 'auto' ? scriptLang(run.text, file, 'shell') ?? 'shell' : as
  const origin: ScriptOrigin = { file, abs: f.abs, text: run.text }
  inScript(st, origin, run, () => {
    if (lang === 'shell') {
      // `$1`, `$@` are the script's arguments (bounded like any variable).
      // `$1`, `$@` are the script's arguments when given (an unset one stays computed: the worst reading).
      args.slice(0, 9).forEach((a, k) => st.vars.set(String(k + 1), [a]))
      if (args.length) st.vars.set('@', [args.map(quote).join(' ')])
      if (args.length) st.vars.set('*', [args.join(' ')])
      st.vars.set('#', [String(args.length)])
      expand(run.text!, [...via, `script ${file}`], st, depth + 1, undefined, cwdChanges)
    } else st.out.snippets.push({ lang, code: run.text!, via: [...via, `${lang} ${file}`], cwdChanges: cwdChanges.slice(), origin })
  })
  return true
}

/** The file in `$(cat f)`, `$(< f)`, `` `cat f` `` or `<(cat f)`: code that is that file's text. */
function catOf(word: string): string | undefined {
  const m = /^(?:\$\(|<\(|`)[ \t]*(?:cat[ \t]+|<[ \t]*)([\w./~+-]+)[ \t]*[)`]$/.exec(word)
  return m?.[1]
}

/** The file a command's standard input comes from: `< file`, or `cat file |` (one literal file). */
function stdinFile(simple: SimpleCommand): string | undefined {
  const r = simple.redirects.find((x) => x.op === '<' && x.target && !/[$`]/.test(x.target))
  if (r) return r.target
  const from = simple.pipedFrom
  if (!from || programName(from.argv[0] ?? '') !== 'cat' || from.computed.some(Boolean)) return undefined
  const files = from.argv.slice(1).filter((a) => !a.startsWith('-'))
  return files.length === 1 && from.redirects.length === 0 ? files[0] : undefined
}

/** Records a script file this command runs, within the budget; `text` is unset when it cannot be read. */
function openScript(file: string, f: ScriptFile, st: LineState): ScriptRun {
  const run: ScriptRun = { file, abs: f.abs, unreadable: [] }
  st.out.scripts.push(run)
  if (f.problem !== undefined || f.text === undefined) run.problem = f.problem ?? 'it cannot be read'
  else if (++st.budget.files > MAX_SCRIPTS || (st.budget.bytes += f.text.length) > MAX_SCRIPT_CHARS) run.problem = `more scripts than can be read for one command (${MAX_SCRIPTS} files, ${MAX_SCRIPT_CHARS / 1024} KB)`
  else run.text = f.text
  return run
}

/**
 * Reads a script's commands in a state of their own: the script's functions, aliases and variables stay in the
 * script, and what cannot be read in it is kept with the script (classify.ts judges it: a committed script's
 * computed words are not the agent's doing; a script the agent wrote or changed is held to the command's rule).
 */
function inScript(st: LineState, origin: ScriptOrigin, run: ScriptRun, read: () => void): void {
  const saved = { unreadable: st.unreadable, functions: st.functions, aliases: st.aliases, gitAliases: st.gitAliases, vars: st.vars, generated: st.generated, origin: st.origin, incomplete: st.out.incomplete }
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
    for (const inv of st.out.invocations.slice(from)) if (inv.origin === origin && st.functions.has(inv.name)) st.unreadable.add(`the shell function ${inv.name} is defined and run`)
    run.unreadable.push(...st.unreadable)
  } finally {
    Object.assign(st, { unreadable: saved.unreadable, functions: saved.functions, aliases: saved.aliases, gitAliases: saved.gitAliases, vars: saved.vars, generated: saved.generated, origin: saved.origin })
    st.out.incomplete = saved.incomplete
  }
}

/** package.json in the folder a package manager works in (`--prefix`, `-C`, `--cwd`, `--dir`), parsed; undefined when absent or not JSON. */
function packageJson(args: string[], st: LineState, cwdChanges: string[]): { run?: ScriptRun; pkg?: ReturnType<typeof packageScripts>; cwd: string[] } {
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
function packageRun(pm: string, args: string[], st: LineState, via: string[], depth: number, cwdChanges: string[]): boolean {
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
    inScript(st, origin, run, () => expand(full, [...via, `${pm} script ${name}`], st, depth + 1, undefined, cwd))
  }
  return any
}

/** `npx tool` where tool is the project's own bin (package.json "bin"): that file is a script on disk. */
function localBin(bin: string, args: string[], st: LineState, via: string[], depth: number, cwdChanges: string[]): boolean {
  if (!st.reader) return false
  const f = st.reader('package.json', cwdChanges)
  if (!f?.text) return false
  const target = packageScripts(f.text)?.bin[bin]
  return !!target && fromDisk(target.startsWith('.') || target.startsWith('/') ? target : `./${target}`, 'auto', args, st, via, depth, cwdChanges)
}

const MAKE_VALUES = new Set(['-f', '--file', '--makefile', '-C', '--directory', '-I', '--include-dir', '-o', '--old-file', '--assume-old', '-W', '--what-if', '--new-file', '--assume-new', '-l', '--load-average', '--eval', '-O', '--output-sync', '--jobserver-style'])

/** `make [targets] [VAR=value]`: the recipe lines it runs (prerequisites first), each read as shell code. */
function makeRun(args: string[], st: LineState, via: string[], depth: number, cwdChanges: string[]): void {
  if (!st.reader) return
  // A dry run, a question, a listing: nothing runs (`-n` prints the recipes).
  if (args.some((a) => /^--(dry-run|just-print|recon|question|print-data-base|help|version)$/.test(a) || (/^-[a-zA-Z]+$/.test(a) && /[nqpv]/.test(a) && !MAKE_VALUES.has(a)))) return
  const targets: string[] = []
  const overrides: Record<string, string> = Object.create(null)
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (MAKE_VALUES.has(a)) i++
    else if (a === '-j' || a === '--jobs') {
      if (/^\d+$/.test(args[i + 1] ?? '')) i++
    } else if (a.startsWith('-')) continue
    else if (/^[A-Za-z_][\w.-]*=/.test(a)) overrides[a.slice(0, a.indexOf('='))] = a.slice(a.indexOf('=') + 1)
    else targets.push(a)
  }
  const dir = optionValue(args, ['-C', '--directory'])
  const cwd = dir ? [...cwdChanges, dir] : cwdChanges
  const named = optionValue(args, ['-f', '--file', '--makefile'])
  let found: { file: string; f: ScriptFile } | undefined
  for (const file of named ? [named] : ['GNUmakefile', 'makefile', 'Makefile']) {
    const f = st.reader(file, cwd)
    if (f && !f.binary) {
      found = { file, f }
      break
    }
  }
  if (!found) return
  const run = openScript(found.file, found.f, st)
  if (run.text === undefined) return
  const { lines } = makeRecipes(run.text, targets, overrides)
  for (const l of lines) {
    const origin: ScriptOrigin = { file: found.file, abs: run.abs, line: l.line, text: l.command }
    inScript(st, origin, run, () => expand(l.command, [...via, `make ${l.target}`], st, depth + 1, undefined, cwd))
  }
}

/** Programs whose first operand is a subcommand that decides everything they do. */
const VERB_PROGRAMS = new Set(['git', 'npm', 'pnpm', 'yarn', 'gh', 'docker', 'podman', 'kubectl', 'terraform', 'ratchet'])

/** Index of the subcommand among a verb program's arguments (after its global options), or -1. */
function verbIndex(args: string[]): number {
  let i = 0
  while (i < args.length && args[i].startsWith('-')) i += /^(-C|-c|--git-dir|--work-tree|--namespace|--prefix|-n|--namespace|--context|-H|--host|--dir)$/.test(args[i]) ? 2 : 1
  return i < args.length ? i : -1
}

/** A path as written, normalised for matching a file written earlier in the line (`./x.sh` = `x.sh`). */
function normPath(p: string): string {
  const parts: string[] = []
  for (const seg of p.split('/')) {
    if (seg === '.' || (seg === '' && parts.length)) continue
    parts.push(seg)
  }
  return parts.join('/') || p
}

/** What a command's stdin holds when it is visible: a here-document or here-string, or a literal echo/printf piped in. */
function inputText(simple: SimpleCommand): string | undefined {
  if (simple.stdin !== undefined) return simple.stdin
  const from = simple.pipedFrom
  if (!from || from.computed.slice(1).some(Boolean)) return undefined
  const src = from.argv.length ? programName(from.argv[0]) : ''
  if (src === 'echo') return from.argv.slice(1).filter((w, i) => !(i === 0 && /^-[neE]+$/.test(w))).join(' ')
  if (src === 'printf') return (from.argv[1] ?? '').replace(/\\n/g, '\n')
  if ((src === 'cat' || src === '') && from.stdin !== undefined) return from.stdin
  return undefined
}

/**
 * Records what a command writes through its redirects (and `tee`): a literal echo/printf or here-document's text,
 * else null (written, but not visibly). `printf 'rm -rf x' > s.sh && sh s.sh` then runs what we can read.
 */
function recordGenerated(simple: SimpleCommand, st: LineState): void {
  const targets = simple.redirects.filter((r) => /^(>|>>|>\||&>|&>>)$/.test(r.op) && r.target && !/^&?\d*-?$/.test(r.target) && !r.target.startsWith('/dev/'))
  const name = simple.argv.length ? programName(simple.argv[0]) : ''
  const teeTargets = name === 'tee' ? simple.argv.slice(1).filter((a) => !a.startsWith('-')) : []
  if (!targets.length && !teeTargets.length) return
  let text: string | null = null
  const literal = !simple.computed.slice(1).some(Boolean)
  if (name === 'echo' && literal) text = simple.argv.slice(1).filter((w, i) => !(i === 0 && /^-[neE]+$/.test(w))).join(' ')
  else if (name === 'printf' && literal && !(simple.argv[1] ?? '').includes('%')) text = (simple.argv[1] ?? '').replace(/\\n/g, '\n')
  else if ((name === 'cat' || name === 'tee' || name === '') && simple.stdin !== undefined && !simple.argv.slice(1).some((a) => !a.startsWith('-') && name === 'cat')) text = simple.stdin
  for (const r of targets) {
    const key = normPath(r.target)
    const before = st.generated.get(key)
    st.generated.set(key, r.op.includes('>>') && before !== undefined ? (before === null || text === null ? null : `${before}\n${text}`) : text)
  }
  for (const t of teeTargets) st.generated.set(normPath(t), text)
}

/** A script written earlier in this line is run: reads its text as code, or reports it unreadable. True if it was one. */
function runGenerated(script: string, st: LineState, read: (text: string) => void): boolean {
  const key = normPath(script)
  if (!st.generated.has(key)) return false
  const text = st.generated.get(key)
  if (text == null) st.unreadable.add(`${short(script)} is written earlier in this command and then run; what it holds is not visible`)
  else read(text)
  return true
}

/**
 * Code piped into a shell or interpreter: its text is not in the command, so the command is
 * unreadable. When the source is a literal `echo`/`printf`, its text is read as well (the worst
 * reading is both: what we can see, and that more may run).
 */
function pipedCode(from: SimpleCommand, into: string, st: LineState, read: (text: string) => void): void {
  const src = from.argv.length ? programName(from.argv[0]) : ''
  st.unreadable.add(`code is piped into ${into}${src ? ` from ${src}` : ''}: what it runs is not visible in the command`)
  if ((src === 'echo' || src === 'printf') && !from.computed.slice(1).some(Boolean)) {
    const words = from.argv.slice(1).filter((w, i) => !(i === 0 && /^-[neE]+$/.test(w)))
    read(src === 'printf' ? words[0]?.replace(/\\n/g, '\n') ?? '' : words.join(' '))
  } else if (from.stdin !== undefined && (src === 'cat' || src === '')) read(from.stdin)
}

/** Options that take a value, for the simple prefix wrappers (`time -o f cmd`, `exec -a name cmd`). */
const PREFIX_VALUES: Record<string, string[]> = {
  time: ['-f', '--format', '-o', '--output'],
  exec: ['-a'],
  caffeinate: ['-w', '-t'],
  proxychains: ['-f'],
  proxychains4: ['-f'],
  nsenter: ['-t', '--target', '-S', '--setuid', '-G', '--setgid', '-r', '-w'],
  unshare: ['-S', '--setuid', '-G', '--setgid', '-R', '--root', '-w', '--wd'],
  'xvfb-run': ['-n', '--server-num', '-s', '--server-args', '-e', '--error-file', '-f', '--auth-file', '-p', '--xauth-protocol'],
  ltrace: ['-o', '-e', '-p', '-s', '-u', '-a', '-n'],
}

const SUDO_VALUES = new Set(['-u', '-g', '-p', '-C', '-D', '-h', '-r', '-t', '-U', '-T', '--user', '--group', '--chdir', '--prompt', '--host', '--role', '--type', '--other-user', '--close-from', '--command-timeout'])

/** The value of `-c x`, `-cx` (single-letter only), `--command x` or `--command=x`. */
function optionValue(args: string[], names: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a === '--') return undefined
    if (names.includes(a)) return args[i + 1]
    for (const n of names) {
      if (n.startsWith('--') && a.startsWith(n + '=')) return a.slice(n.length + 1)
    }
  }
  return undefined
}

const DOCKER_VALUES = new Set([
  '-e', '--env', '--env-file', '-u', '--user', '-w', '--workdir', '--detach-keys', '-v', '--volume', '-p', '--publish', '--name', '--entrypoint',
  '--network', '--net', '--mount', '-l', '--label', '--label-file', '--platform', '--cpus', '-m', '--memory', '--restart', '-h', '--hostname', '--add-host',
  '--device', '--cap-add', '--cap-drop', '--security-opt', '--ulimit', '--log-driver', '--log-opt', '--pid', '--ipc', '--shm-size', '--tmpfs', '--gpus',
  '--runtime', '--dns', '--expose', '--group-add', '--health-cmd', '--link', '--pull', '--stop-signal', '--stop-timeout', '--userns', '--uts',
  '--volumes-from', '--cidfile', '--cgroupns', '--memory-swap', '--cpu-shares', '-c', '--cpuset-cpus', '--storage-opt', '--sysctl', '--index',
  '--attach', '-a', '--annotation', '--hooks-dir', '--pod', '--secret', '--arch', '--os', '--variant',
])

/** `docker exec [opts] ctr cmd…`, `docker run [opts] image [cmd…]`, `docker compose exec|run svc cmd…`. */
function containerCommand(args: string[]): { how: string; words: string[] } | null {
  let a = skipOptions(args, new Set(['-H', '--host', '-c', '--context', '--config', '-l', '--log-level', '--url', '--connection']))
  if (a[0] === 'container' && (a[1] === 'exec' || a[1] === 'run')) a = a.slice(1)
  if (a[0] === 'compose' || a[0] === 'docker-compose') {
    a = skipOptions(a.slice(1), new Set(['-f', '--file', '-p', '--project-name', '--project-directory', '--profile', '--env-file']))
    if (a[0] !== 'exec' && a[0] !== 'run') return null
    const rest = skipOptions(a.slice(1), DOCKER_VALUES)
    return { how: `compose ${a[0]}`, words: rest.slice(1) }
  }
  if (a[0] !== 'exec' && a[0] !== 'run') return null
  const rest = skipOptions(a.slice(1), DOCKER_VALUES)
  return { how: a[0], words: rest.slice(1) }
}

/** `git [opts] config [--global|--local|…] alias.x VALUE` → the alias it defines. */
function gitConfigAlias(args: string[]): { name: string; value: string } | null {
  let i = 0
  while (i < args.length && args[i].startsWith('-')) i += ['-c', '-C', '--git-dir', '--work-tree', '--namespace'].includes(args[i]) ? 2 : 1
  if (args[i] !== 'config') return null
  i++
  while (i < args.length && args[i].startsWith('-')) i += ['-f', '--file', '--blob', '--type'].includes(args[i]) ? 2 : 1
  const m = /^alias\.(.+)$/i.exec(args[i] ?? '')
  return m && args[i + 1] !== undefined ? { name: m[1].toLowerCase(), value: args[i + 1] } : null
}

/** `git -c alias.x='push --force' x …` → the alias's words; `!cmd` aliases are shell code. */
function gitAlias(args: string[], defined: Map<string, string> = new Map()): { words?: string; shell?: string } | null {
  const aliases = new Map(defined)
  let i = 0
  while (i < args.length && args[i].startsWith('-')) {
    if (args[i] === '-c' && args[i + 1]) {
      const m = /^alias\.([^=]+)=([\s\S]*)$/i.exec(args[i + 1])
      if (m) aliases.set(m[1].toLowerCase(), m[2])
    }
    i += args[i] === '-c' || args[i] === '-C' || args[i] === '--git-dir' || args[i] === '--work-tree' || args[i] === '--namespace' ? 2 : 1
  }
  const value = aliases.get((args[i] ?? '').toLowerCase())
  if (value === undefined) return null
  const rest = args.slice(i + 1).map(quote).join(' ')
  return value.startsWith('!') ? { shell: `${value.slice(1)} ${rest}` } : { words: `${value} ${rest}` }
}

function trimSlashes(p: string): string {
  let end = p.length
  while (end > 1 && p[end - 1] === '/') end--
  return p.slice(0, end)
}

const SHELL_CALL = /\b(?:os\.system|os\.popen|os\.exec[lv]p?e?|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|execFileSync|execFile|execSync|exec|spawnSync|spawn|system|qx|popen|shell_exec|passthru|proc_open|Open3\.\w+|IO\.popen|Kernel\.system)\b|`/g

/**
 * Shell commands run from interpreter code: os.system("…"), subprocess.run(["git", "push"]),
 * execSync('…'), system "…", qx{…}, and backticks in perl, ruby and php. A scanner, not one big
 * regex: each string is read once, so the time is linear in the code (a regex for this once
 * backtracked catastrophically on 85 characters). An unclosed string runs to the end of the code.
 *
 * A command built at run time (`os.system(''.join(['r','m',' -rf x']))`, `system("r"."m -rf x")`, a variable)
 * is reported to `computed`, and the text of its string literals, put together, is still read as a command:
 * the worst reading is both what the pieces spell and that more may run.
 */
export function shellCallsIn(code: string, lang: CodeSnippet['lang'], computed?: (call: string) => void): string[] {
  const out: string[] = []
  const re = new RegExp(pythonAliases(code, lang) + SHELL_CALL.source, 'g')
  let m: RegExpExecArray | null
  while ((m = re.exec(code))) {
    let i = m.index + m[0].length
    const interpolates = (t: string) => (lang === 'python' ? false : lang === 'node' ? false : /[$@]\w|\$\{|#\{/.test(t))
    if (m[0] === '`') {
      if (lang !== 'perl' && lang !== 'ruby' && lang !== 'php') continue // a template literal in JS
      const end = code.indexOf('`', i)
      const text = code.slice(i, end < 0 ? code.length : end)
      out.push(text)
      if (interpolates(text)) computed?.(text)
      re.lastIndex = end < 0 ? code.length : end + 1
      continue
    }
    // Whether this call is a shell call whose argument we judge (`re.exec(s)` in JS, python's exec(): not shell).
    const before = code.slice(Math.max(0, m.index - 40), m.index)
    const method = before.endsWith('.') && !/^(os|subprocess|IO|Kernel|Open3)\./.test(m[0])
    const judged = !(lang === 'python' && m[0] === 'exec') && (!method || /(child_process|childProcess|\bcp|\bproc|['"](?:node:)?child_process['"]\s*\))\.$/.test(before))
    while (i < code.length && (code[i] === ' ' || code[i] === '\t')) i++
    const paren = code[i] === '('
    if (paren) i++
    while (i < code.length && (code[i] === ' ' || code[i] === '\t' || code[i] === '\n')) i++
    if (m[0] === 'qx' && /[{(\[|/!]/.test(code[i] ?? '')) {
      const close = ({ '{': '}', '(': ')', '[': ']' } as Record<string, string>)[code[i]] ?? code[i]
      const end = code.indexOf(close, i + 1)
      const text = code.slice(i + 1, end < 0 ? code.length : end)
      out.push(text)
      if (interpolates(text)) computed?.(text)
      re.lastIndex = end < 0 ? code.length : end + 1
      continue
    }
    const arg = readArgument(code, i, paren, lang)
    re.lastIndex = Math.max(re.lastIndex, Math.min(arg.end, code.length))
    // `spawnSync('sh', ['-c', 'rm -rf x'])`, `execFile('rm', ['-rf', d])`: the program, then its argument list.
    if (!arg.list && /^(spawn|spawnSync|execFile|execFileSync)$/.test(m[0]) && code[arg.end] === ',') {
      let j = arg.end + 1
      while (j < code.length && /\s/.test(code[j])) j++
      if (code[j] === '[') {
        const list = readArgument(code, j, true, lang)
        re.lastIndex = Math.max(re.lastIndex, Math.min(list.end, code.length))
        const words = [...arg.literals, ...list.literals]
        if (words.length) out.push(words.map(quote).join(' '))
        if (judged && (arg.other || list.other || arg.literals.length !== 1)) computed?.(words.join(' ') || m[0])
        continue
      }
    }
    if (arg.list) {
      // An argument list: the strings in it; a name among them is filled in at run time.
      if (arg.literals.length) out.push(arg.literals.map(quote).join(' '))
      if (judged && arg.other) computed?.(arg.literals.join(' ') || code.slice(m.index, arg.end))
      continue
    }
    const text = arg.literals.join('')
    if (text) out.push(text)
    if (judged && (arg.other || arg.literals.length > 1 || arg.literals.some(interpolates) || arg.interpolated) && (arg.literals.length || arg.other)) computed?.(text || code.slice(m.index, Math.min(arg.end, m.index + 80)))
  }
  return out
}

/**
 * Python's other names for its shell calls: `import subprocess as sp` (then `sp.run(…)`), `from subprocess import
 * call`, `from os import system as sh`. An alternation to put before SHELL_CALL, or '' when there are none.
 */
function pythonAliases(code: string, lang: CodeSnippet['lang']): string {
  if (lang !== 'python' || !/\b(subprocess|os)\b/.test(code)) return ''
  const names: string[] = []
  for (const m of code.slice(0, 65_536).matchAll(/\bimport[ \t]+(subprocess|os)[ \t]+as[ \t]+(\w+)/g)) names.push(`${m[2]}\\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput|system|popen)`)
  for (const m of code.slice(0, 65_536).matchAll(/\bfrom[ \t]+(subprocess|os)[ \t]+import[ \t]+([\w \t,]{1,400})/g))
    for (const part of m[2].split(',')) {
      const w = part.trim().split(/[ \t]+/)
      const name = w[2] && w[1] === 'as' ? w[2] : w[0]
      if (/^(run|call|check_call|check_output|Popen|getoutput|getstatusoutput|system|popen)$/.test(w[0] ?? '') && /^\w+$/.test(name ?? '')) names.push(name)
    }
  return names.length ? `\\b(?:${names.slice(0, 16).join('|')})\\b|` : ''
}

/**
 * The first argument of a call, from just after its `(` (or the call's name, for `system "…"` in perl/ruby):
 * its string literals in order, whether anything else is in it (a name, a call), whether it is a `[…]` list.
 * Linear: every character is looked at once; bounded to 4 KB.
 */
function readArgument(code: string, start: number, paren: boolean, lang: CodeSnippet['lang']): { literals: string[]; other: boolean; list: boolean; interpolated: boolean; end: number } {
  const literals: string[] = []
  let other = false
  let interpolated = false
  let depth = 0
  let i = start
  const list = code[i] === '['
  const limit = Math.min(code.length, start + 4096)
  while (i < limit) {
    const ch = code[i]
    // String prefixes: python r'' b'' f'' (an f-string fills in names), ruby %q? not read.
    const pre = /[rbfuRBFU]/.test(ch) && (code[i + 1] === '"' || code[i + 1] === "'" || (/[rbfuRBFU]/.test(code[i + 1] ?? '') && (code[i + 2] === '"' || code[i + 2] === "'"))) && !/\w/.test(code[i - 1] ?? '')
    if (pre) {
      const q = code[i + 1] === '"' || code[i + 1] === "'" ? i + 1 : i + 2
      const [text, next] = readQuoted(code, q)
      if (/f/i.test(code.slice(i, q)) && text.includes('{')) interpolated = true
      literals.push(text)
      i = next
      continue
    }
    if (ch === '"' || ch === "'" || (ch === '`' && lang === 'node')) {
      const [text, next] = readQuoted(code, i)
      if (ch === '`' && text.includes('${')) interpolated = true
      if (ch === '"' && lang !== 'python' && lang !== 'node' && /[$@]\w|\$\{|#\{/.test(text)) interpolated = true
      literals.push(text)
      i = next
      continue
    }
    if (ch === '(' || ch === '[' || ch === '{') {
      depth++
      if (!(list && depth === 1 && ch === '[')) other = other || ch === '('
    } else if (ch === ')' || ch === ']' || ch === '}') {
      if (depth === 0) break
      depth--
      if (list && depth === 0) {
        i++
        break
      }
    } else if (depth === 0 && (ch === ',' || (!paren && (ch === ';' || ch === '\n')))) break
    else if (!/[\s+.,]/.test(ch)) other = true
    i++
  }
  return { literals, other, list, interpolated, end: i }
}

/** `system("…")`, `print … | "cmd"`, `"cmd" | getline` in an awk program: the shell commands it runs. */
function awkShellCalls(prog: string): { text: string; computed: boolean }[] {
  const out: { text: string; computed: boolean }[] = []
  const p = prog.slice(0, 65_536)
  for (let i = 0; i < p.length && out.length < 32; i++) {
    const ch = p[i]
    if (ch === '"') {
      const [, next] = readQuoted(p, i)
      i = next - 1
      continue
    }
    if (p.startsWith('system', i) && !/\w/.test(p[i - 1] ?? '')) {
      let j = i + 6
      while (p[j] === ' ') j++
      if (p[j] !== '(') continue
      const arg = readArgument(p, j + 1, true, 'perl')
      out.push({ text: arg.literals.join(''), computed: arg.other || arg.literals.length !== 1 })
      i = arg.end
      continue
    }
    if (ch === '|' && p[i + 1] !== '|' && p[i - 1] !== '|') {
      // `cmd | getline` runs cmd; `print | cmd` runs cmd with the output as its input.
      let j = i + 1
      while (p[j] === ' ') j++
      if (p.startsWith('getline', j)) {
        let k = i - 1
        while (k >= 0 && p[k] === ' ') k--
        if (p[k] === '"') {
          const open = p.lastIndexOf('"', k - 1)
          out.push({ text: p.slice(open + 1, k), computed: false })
        } else out.push({ text: '', computed: true })
      } else if (p[j] === '"') {
        const [text] = readQuoted(p, j)
        // `print … | "sh"`: what is printed becomes the shell's code.
        out.push({ text, computed: SHELLS.has(programName(text.trim().split(/\s+/)[0] ?? '')) })
      } else out.push({ text: '', computed: true })
    }
  }
  return out
}

/** A quoted string from its opening quote: its text (escapes resolved) and the index after it. */
function readQuoted(code: string, start: number): [string, number] {
  const q = code[start]
  let text = ''
  let i = start + 1
  while (i < code.length && code[i] !== q) {
    if (code[i] === '\\' && i + 1 < code.length) {
      const e = code[i + 1]
      text += e === 'n' ? '\n' : e === 't' ? '\t' : e
      i += 2
    } else text += code[i++]
  }
  return [text, i + 1]
}

/**
 * The functions of `bodies` that commands of this parse call by name (the first word after assignments), every such
 * call with arguments that can be filled in. A function called in a way that cannot be filled is read where it is
 * defined as well (its `$1` an unknown target), and the call stays unreadable.
 */
function calledFunctions(commands: SimpleCommand[], st: LineState): Set<string> {
  const out = new Set<string>()
  const unfilled = new Set<string>()
  for (const c of commands) {
    const k = c.argv.findIndex((w) => !isAssignment(w) && !RESERVED.has(w))
    const first = c.argv[k]
    if (first === undefined || !st.bodies.get(first)) continue
    if (fillPositional(st.bodies.get(first), c.argv.slice(k + 1), c.computed.slice(k + 1)) === undefined) unfilled.add(first)
    else out.add(first)
  }
  for (const f of unfilled) out.delete(f)
  return out
}

/** A call's argument that reads the same wherever `$1` stands in the body (in quotes or not): plain words only. */
const PLAIN_ARG = /^[\w@%+=:,./~-]+$/

/**
 * A function's body with a call's arguments in place of `$1`…, `${N}`, `$@`, `$*`, or undefined when that cannot be
 * done faithfully: a body that shifts or resets them, counts them or takes defaults (`shift`, `set --`, `getopts`,
 * `$#`, `${1:-x}`), or an argument that is computed or holds quotes, spaces or expansions. Undefined leaves the
 * call unreadable (judged by its worst reading).
 */
function fillPositional(body: string | undefined, args: string[], argComp: boolean[]): string | undefined {
  if (!body || body.length > 64 * 1024) return undefined
  if (/\bshift\b|\bset\s+(--|-\w)|\bgetopts\b|\$#|\$\{#|\$\{[0-9@*]+[^0-9}]|\$0|\$\{0\}/.test(body)) return undefined
  if (args.some((a, i) => argComp[i] || !PLAIN_ARG.test(a))) return undefined
  const all = args.join(' ')
  return body
    .replace(/"\$(?:\{[@*]\}|[@*])"|\$(?:\{[@*]\}|[@*])/g, all)
    .replace(/\$\{([1-9][0-9]*)\}|\$([1-9])/g, (_m, braced: string | undefined, digit: string | undefined) => args[Number(braced ?? digit) - 1] ?? '')
}

/** Quotes a word so that re-reading it as shell gives the same word back. */
function quote(w: string): string {
  return /^[\w@%+=:,./{}-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`
}

/** Drops leading options (and the values of those listed as taking one) up to the command word. */
function skipOptions(args: string[], withValue: Set<string>): string[] {
  let i = 0
  while (i < args.length) {
    const a = args[i]
    if (a === '--') return args.slice(i + 1)
    if (!a.startsWith('-') || a === '-') break
    if (withValue.has(a)) i += 2
    else i += 1
  }
  return args.slice(i)
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [INTERPRETERS, PREFIX_VALUES]) Object.setPrototypeOf(table, null)

/** The folders a `find` searches: its words before the first test, option or `(`/`!` (none: `.`, as find does). */
export function findRoots(args: string[]): string[] {
  const roots: string[] = []
  for (const a of args) {
    if (a.startsWith('-') || a === '(' || a === '!') break
    roots.push(a)
  }
  return roots
}
