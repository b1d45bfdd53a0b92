// Programs that run a command later or away from the caller: terminal multiplexers (`tmux new -d`, `screen -dm`),
// pty wrappers (`script -qc`), daemonisers (`daemonize`, `start-stop-daemon`) and schedulers (`at`, `batch`,
// `crontab`). A command run through one of them leaves the agent's process tree, so the deciding CLI's own
// "am I inside Claude Code?" check can no longer see it: the hook must read what they run, here. What cannot
// be read (a crontab from a file, `crontab -e`, `at -f file`) is unreadable: its worst reading decides.
// Pure: commands.ts calls `detachedRuns` and expands what it returns like any other wrapped command.

/** What a detaching program runs: words (already split), shell text, or a reason it cannot be known. */
export type DetachedRun = { argv: string[] } | { code: string } | { unreadable: string }

const TMUX_GLOBAL_VALUES = 'LSfcT'
/** tmux commands that start a command in a new pane or window (tmux runs it through the shell when it is one word). */
const TMUX_SPAWN = new Set([
  'new',
  'new-session',
  'neww',
  'new-window',
  'splitw',
  'split-window',
  'respawnp',
  'respawn-pane',
  'respawnw',
  'respawn-window',
])
const TMUX_SPAWN_VALUES = 'sntcexyFlf'
const DAEMONIZE_VALUES = 'aceoplE'

/** pm2 and forever options that take a value. */
const SUPERVISOR_VALUES = new Set([
  '--name',
  '-n',
  '--interpreter',
  '--cwd',
  '-i',
  '--instances',
  '-o',
  '--output',
  '-e',
  '--error',
  '-l',
  '--log',
  '--max-memory-restart',
  '--cron',
  '--cron-restart',
  '-c',
  '-p',
  '--uid',
  '--sourceDir',
  '--workingDir',
  '-m',
  '--minUptime',
  '--spinSleepTime',
])

/** `-qc` and friends: the value of a short option given in a cluster, or as its own word. */
export function clusterValue(args: string[], letter: string): string | undefined {
  for (const [i, a] of args.entries()) {
    if (a === '--') return undefined
    if (/^-[a-zA-Z]+$/.test(a) && a.endsWith(letter)) return args[i + 1]
  }
  return undefined
}

/**
 * Skips options up to the first operand. `values` are the short options that take a value: given alone or
 * ending a cluster (`-ds name`, `-dmS name`), they consume the next word.
 */
function operands(args: string[], values: string): string[] {
  let i = 0
  for (let a = args[i]; a?.startsWith('-') && a !== '-'; a = args[i]) {
    if (a === '--') return args.slice(i + 1)
    // A cluster of letters: its last letter says whether the next word is its value.
    i += /^-[a-zA-Z]+$/.test(a) && values.includes(a.slice(-1)) ? 2 : 1
  }
  return args.slice(i)
}

/** A command given as words: one word is shell text (tmux and screen's `sh -c`), several are an argv. */
function asRun(words: string[]): DetachedRun[] {
  const [only, ...more] = words
  if (only === undefined) return []
  return more.length ? [{ argv: words }] : [{ code: only }]
}

/** The command part of crontab lines: after five time fields or an `@reboot`-style nickname; comments and settings skipped. */
export function cronCommands(text: string): string[] {
  const out: string[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#') || /^[A-Za-z_]\w*\s*=/.test(line)) continue
    const m = /^@\w+\s+(.+)$/.exec(line) ?? /^(?:\S+\s+){5}(.+)$/.exec(line)
    // Not a crontab line we can split: the whole line could be the command.
    out.push(m?.[1] ?? line)
  }
  return out
}

/**
 * What `name args…` runs later or elsewhere, or [] when it runs nothing (`tmux ls`, `crontab -l`).
 * `input` is its standard input when the command shows it (a here-string, `echo … |`), `generated` the text of
 * a file written earlier in the same command (null: written, but with text that is not visible).
 */
export function detachedRuns(
  name: string,
  args: string[],
  input: string | undefined,
  generated: (file: string) => string | null | undefined,
): DetachedRun[] {
  // `--help`, `-V`: they print and exit.
  if (args.some((a) => a === '--help' || a === '--version' || a === '-V')) return []
  switch (name) {
    case 'tmux':
      return tmuxRuns(args)
    case 'screen': {
      const stuff = args.indexOf('stuff')
      if (args.includes('-X'))
        return stuff >= 0 ? [{ code: (args[stuff + 1] ?? '').replace(/\\n|\\r|\^M/g, '\n') }] : []
      // `-dmS name`: a cluster whose last letter takes a value consumes the next word.
      return asRun(operands(args, 'SctehpTs'))
    }
    case 'daemonize': {
      const words = operands(args, DAEMONIZE_VALUES)
      return words.length ? [{ argv: words }] : []
    }
    case 'entr': {
      // `entr [-acdnprsz] cmd …`: runs cmd whenever a file changes; with -s, cmd is shell text.
      const words = operands(args, '')
      return args.some((a) => /^-[a-z]*s/.test(a))
        ? words.slice(0, 1).map((code) => ({ code }))
        : words.length
          ? [{ argv: words }]
          : []
    }
    case 'pm2':
    case 'forever':
      return supervisedRuns(name, args)
    case 'expect':
      return expectRuns(args)
    case 'start-stop-daemon':
      return startStopDaemonRuns(args)
    case 'at':
    case 'batch':
      return atRuns(name, args, input, generated)
    case 'crontab':
      return crontabRuns(args, input, generated)
  }
  return []
}

/** `tmux` commands, chained with `\;` or `;` words: each is read; the ones that start a shell or type into one run code. */
function tmuxRuns(args: string[]): DetachedRun[] {
  const rest = operands(args, TMUX_GLOBAL_VALUES)
  const out: DetachedRun[] = []
  let cur: string[] = []
  const flush = () => {
    const [sub, ...a] = cur
    cur = []
    if (sub) out.push(...tmuxCommandRuns(sub, a))
  }
  for (const w of rest) {
    if (w === ';' || w === '\\;') flush()
    else if (w.length > 1 && w.endsWith(';')) {
      cur.push(w.replace(/\\?;$/, ''))
      flush()
    } else cur.push(w)
  }
  flush()
  return out
}

/** What one tmux command `sub a…` runs. */
function tmuxCommandRuns(sub: string, a: string[]): DetachedRun[] {
  if (TMUX_SPAWN.has(sub)) return asRun(operands(a, TMUX_SPAWN_VALUES))
  if (sub === 'run-shell' || sub === 'run') return asRun(operands(a, 't').slice(0, 1))
  if (sub === 'send-keys' || sub === 'send') {
    // Keys typed into a pane's shell: the literal text, with the named keys (Enter, C-m) as line ends.
    const keys = operands(a, 'tN')
    return [{ code: keys.map((k) => (/^(Enter|C-m|KPEnter|C-j)$/.test(k) ? '\n' : k)).join(' ') }]
  }
  if (
    sub === 'source-file' ||
    sub === 'source' ||
    sub === 'pipe-pane' ||
    sub === 'pipep' ||
    sub === 'if-shell' ||
    sub === 'if'
  )
    return [{ unreadable: `tmux ${sub} runs commands that are not in this command` }]
  return []
}

/** `pm2 start 'cmd'` / `pm2 start prog -- args`, `forever start [-c cmd] script args`: a supervised process. */
function supervisedRuns(name: string, args: string[]): DetachedRun[] {
  const k = args.findIndex((a) => a === 'start' || a === 'restart')
  if (k < 0) return []
  const rest = args.slice(k + 1)
  const dd = rest.indexOf('--')
  const own = dd >= 0 ? rest.slice(0, dd) : rest
  const ops: string[] = []
  let runner: string | undefined
  for (let i = 0; i < own.length; i++) {
    const word = own[i]!
    if (SUPERVISOR_VALUES.has(word)) {
      if (word === '-c' && name === 'forever') runner = own[i + 1]
      i++
    } else if (!word.startsWith('-')) ops.push(word)
  }
  const [first, ...more] = ops
  if (first === undefined) return []
  const tail = dd >= 0 ? rest.slice(dd + 1) : more
  if (first.includes(' ')) return [{ code: [first, ...tail].join(' ') }]
  return [{ argv: [...(runner ? runner.split(' ').filter(Boolean) : []), first, ...tail] }]
}

/** `expect -c 'spawn cmd args; …'`: each spawn runs a program (a script file is not read here). */
function expectRuns(args: string[]): DetachedRun[] {
  const c = clusterValue(args, 'c')
  if (c === undefined)
    return args.some((a) => !a.startsWith('-'))
      ? [{ unreadable: 'expect runs a script file whose spawned commands are not in this command' }]
      : []
  const out: DetachedRun[] = []
  for (const m of c.split(/[;\n]/)) {
    const t = m.trim()
    if (t.startsWith('spawn ')) out.push({ code: t.slice(6).replace(/^-\w+\s+/, '') })
    else if (t.startsWith('exec ')) out.push({ code: t.slice(5) })
  }
  return out
}

/** `start-stop-daemon -S -x prog -- args`: the program it starts. */
function startStopDaemonRuns(args: string[]): DetachedRun[] {
  if (!args.some((a) => a === '-S' || a === '--start' || (/^-[a-zA-Z]+$/.test(a) && a.includes('S')))) return []
  const val = (short: string, long: string) => {
    for (const [i, a] of args.entries()) {
      if (a === '--') break
      if (a === short || a === long) return args[i + 1]
      if (a.startsWith(long + '=')) return a.slice(long.length + 1)
    }
    return undefined
  }
  const prog = val('-a', '--startas') ?? val('-x', '--exec')
  if (!prog) return [{ unreadable: 'start-stop-daemon starts a program that is not named in the command' }]
  const dd = args.indexOf('--')
  return [{ argv: [prog, ...(dd >= 0 ? args.slice(dd + 1) : [])] }]
}

/** `at`/`batch`: the commands in `-f file` or on standard input, run later. */
function atRuns(
  name: string,
  args: string[],
  input: string | undefined,
  generated: (file: string) => string | null | undefined,
): DetachedRun[] {
  // `at -l`/`atq`, `-r`/`-d` (remove), `-c` (print a job) run nothing.
  if (args.some((a) => /^-[a-zA-Z]*[lrdc]$/.test(a))) return []
  const f = clusterValue(args, 'f')
  if (f !== undefined) {
    const text = generated(f)
    return text != null
      ? [{ code: text }]
      : [{ unreadable: `${name} -f ${f} runs the commands in that file later; they are not in this command` }]
  }
  if (input !== undefined) return [{ code: input }]
  return [{ unreadable: `${name} runs the commands on its standard input later; they are not in this command` }]
}

/** Any change of the crontab is code that runs later: read it when it is in the command, else it is unreadable. */
function crontabRuns(
  args: string[],
  input: string | undefined,
  generated: (file: string) => string | null | undefined,
): DetachedRun[] {
  if (args.some((a) => a === '-l' || a === '-r' || a === '-ir')) return []
  if (args.some((a) => a === '-e'))
    return [{ unreadable: 'crontab -e installs commands typed in an editor; they are not in this command' }]
  const file = operands(args, 'ucT').find((a) => a !== '-')
  const text = file === undefined ? input : (generated(file) ?? undefined)
  if (text === undefined || text === null)
    return [
      {
        unreadable: `crontab installs ${file ? `the commands in ${file}` : 'commands from its standard input'}, run later; they are not in this command`,
      },
    ]
  return cronCommands(text).map((code) => ({ code }))
}
