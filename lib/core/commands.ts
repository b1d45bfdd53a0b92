// From parsed shell to the programs that actually run: strips wrappers (sudo, env, timeout, nohup,
// xargs, `FOO=1` prefixes, `\rm`, /bin/rm), descends into `bash -c`, `eval`, `ssh host cmd`, and
// lifts interpreter one-liners (`python -c`, `node -e`, …) out as code for the code scanners.

import { parseShell, splitWords, type Redirect, type SimpleCommand } from './shell'

export interface Invocation {
  /** Program name without path or leading backslash: `rm`, `git`. */
  name: string
  args: string[]
  redirects: Redirect[]
  stdin?: string
  /** Wrappers that were peeled off, outermost first (`sudo`, `bash -c`, `xargs`). */
  via: string[]
  /** Directory changes earlier in the same command line (`cd .ratchet && rm x`). */
  cwdChanges: string[]
}

export interface CodeSnippet {
  lang: 'python' | 'node' | 'perl' | 'ruby' | 'php' | 'sql'
  code: string
  via: string[]
}

export interface CommandLine {
  invocations: Invocation[]
  snippets: CodeSnippet[]
  incomplete: boolean
}

const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}', 'function', 'case', 'esac', 'in', 'select'])

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'fish', 'ash', 'busybox'])

const INTERPRETERS: Record<string, { lang: CodeSnippet['lang']; flags: string[] }> = {
  python: { lang: 'python', flags: ['-c'] },
  node: { lang: 'node', flags: ['-e', '--eval', '-p', '--print'] },
  nodejs: { lang: 'node', flags: ['-e', '--eval', '-p', '--print'] },
  bun: { lang: 'node', flags: ['-e', '--eval'] },
  deno: { lang: 'node', flags: ['eval'] },
  perl: { lang: 'perl', flags: ['-e', '-E'] },
  ruby: { lang: 'ruby', flags: ['-e'] },
  php: { lang: 'php', flags: ['-r'] },
}

const MAX_DEPTH = 6

export function readCommandLine(command: string): CommandLine {
  const out: CommandLine = { invocations: [], snippets: [], incomplete: false }
  expand(command, [], out, 0)
  return out
}

function expand(command: string, via: string[], out: CommandLine, depth: number): void {
  if (depth > MAX_DEPTH) {
    out.incomplete = true
    return
  }
  const parsed = parseShell(command)
  if (parsed.incomplete) out.incomplete = true
  const cwdChanges: string[] = []
  for (const simple of parsed.commands) {
    unwrap(simple, via, out, depth, cwdChanges)
  }
}

export function programName(word: string): string {
  let w = word.replace(/^\\/, '')
  const slash = w.lastIndexOf('/')
  if (slash >= 0) w = w.slice(slash + 1)
  return w
}

function interpreterOf(name: string): (typeof INTERPRETERS)[string] | undefined {
  const base = name.replace(/(\d+(\.\d+)*)$/, '') // python3.12 → python
  return INTERPRETERS[base] ?? INTERPRETERS[name]
}

const isAssignment = (w: string) => /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(w)

function unwrap(simple: SimpleCommand, outerVia: string[], out: CommandLine, depth: number, cwdChanges: string[]): void {
  let argv = simple.argv.slice()
  const via = outerVia.slice()
  const push = () => {
    out.invocations.push({
      name: programName(argv[0]),
      args: argv.slice(1),
      redirects: simple.redirects,
      stdin: simple.stdin,
      via,
      cwdChanges: cwdChanges.slice(),
    })
  }

  for (let guard = 0; guard < 20 && argv.length; guard++) {
    while (argv.length && (RESERVED.has(argv[0]) || isAssignment(argv[0]))) argv.shift()
    if (!argv.length) break
    // `for x in a b; do …` — the list is data, not a command.
    if (argv[0] === 'for') return
    const name = programName(argv[0])
    const args = argv.slice(1)

    if (name === 'cd' || name === 'pushd') {
      if (args[0]) cwdChanges.push(args[0])
      push()
      return
    }
    if (name === 'sudo' || name === 'doas') {
      via.push(name)
      argv = skipOptions(args, new Set(['-u', '-g', '-p', '-C', '-D', '-h', '-r', '-t', '-U', '-T', '--user', '--group', '--chdir']))
      continue
    }
    if (name === 'env') {
      via.push('env')
      const rest: string[] = []
      for (let i = 0; i < args.length; i++) {
        const a = args[i]
        if (a === '-u' || a === '--unset' || a === '-C' || a === '--chdir') { i++; continue }
        if (a === '-S' || a === '--split-string') {
          rest.push(...splitWords(args[i + 1] ?? ''), ...args.slice(i + 2))
          break
        }
        if (a.startsWith('-') && rest.length === 0) continue
        if (isAssignment(a) && rest.length === 0) continue
        rest.push(...args.slice(i))
        break
      }
      argv = rest
      continue
    }
    if (name === 'timeout') {
      via.push('timeout')
      let rest = skipOptions(args, new Set(['-s', '--signal', '-k', '--kill-after']))
      rest = rest.slice(1) // the duration
      argv = rest
      continue
    }
    if (name === 'nice' || name === 'ionice' || name === 'chrt' || name === 'taskset') {
      via.push(name)
      argv = skipOptions(args, new Set(['-n', '--adjustment', '-c', '--class', '-p']))
      if (name === 'taskset' || name === 'chrt') argv = argv.slice(1)
      continue
    }
    if (name === 'nohup' || name === 'setsid' || name === 'time' || name === 'stdbuf' || name === 'unbuffer' || name === 'chronic' || name === 'caffeinate' || name === 'exec') {
      via.push(name)
      argv = skipOptions(args, new Set(['-a']))
      continue
    }
    if (name === 'command' || name === 'builtin') {
      // `command -v rm` only looks a program up; it runs nothing.
      if (args.some((a) => a === '-v' || a === '-V')) {
        push()
        return
      }
      via.push(name)
      argv = args.filter((a, i) => !(i === 0 && a === '-p'))
      continue
    }
    if (name === 'xargs' || name === 'parallel') {
      via.push(name)
      const rest = skipOptions(args, new Set(['-n', '-I', '-i', '-P', '-d', '-L', '-s', '-E', '-a', '--max-args', '--replace', '--max-procs', '--delimiter', '--arg-file', '-j']))
      if (!rest.length) return // xargs alone runs echo
      argv = rest
      continue
    }
    if (name === 'npx' || name === 'bunx' || name === 'pnpx') {
      via.push(name)
      argv = skipOptions(args, new Set(['-p', '--package']))
      continue
    }
    if ((name === 'pnpm' || name === 'yarn') && args[0] === 'dlx') {
      via.push(name + ' dlx')
      argv = args.slice(1)
      continue
    }
    if (name === 'watch') {
      via.push('watch')
      const rest = skipOptions(args, new Set(['-n', '--interval', '-d']))
      expand(rest.join(' '), via, out, depth + 1)
      return
    }
    if (name === 'eval') {
      expand(args.join(' '), [...via, 'eval'], out, depth + 1)
      return
    }
    if (SHELLS.has(name)) {
      const cIndex = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a))
      if (cIndex >= 0 && args[cIndex + 1] !== undefined) {
        expand(args[cIndex + 1], [...via, `${name} -c`], out, depth + 1)
        return
      }
      // `bash <<EOF … EOF` or `echo … | bash`: the here-document is code.
      if (simple.stdin && !args.some((a) => !a.startsWith('-'))) {
        expand(simple.stdin, [...via, `${name} <<`], out, depth + 1)
        return
      }
      push()
      return
    }
    if (name === 'ssh') {
      // `ssh host 'rm -rf /srv'` runs its command remotely: still a use.
      const rest = skipOptions(args, new Set(['-p', '-i', '-l', '-o', '-F', '-J', '-L', '-R', '-D', '-b', '-c', '-E', '-e', '-m', '-O', '-Q', '-S', '-W', '-w']))
      push()
      if (rest.length > 1) expand(rest.slice(1).join(' '), [...via, 'ssh'], out, depth + 1)
      return
    }
    const interp = interpreterOf(name)
    if (interp) {
      const fi = args.findIndex((a) => interp.flags.includes(a))
      if (fi >= 0 && args[fi + 1] !== undefined) {
        out.snippets.push({ lang: interp.lang, code: args[fi + 1], via: [...via, `${name} ${args[fi]}`] })
      } else if (simple.stdin && !args.some((a) => !a.startsWith('-'))) {
        out.snippets.push({ lang: interp.lang, code: simple.stdin, via: [...via, `${name} <<`] })
      } else if (name.startsWith('python') && args[0] === '-m') {
        // `python -m twine upload` behaves as the module's command.
        via.push(`${name} -m`)
        argv = args.slice(1)
        continue
      }
      push()
      return
    }
    push()
    return
  }
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
