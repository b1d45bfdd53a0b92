// Programs that run the rest of their words as a command, changing how it runs: env, timeout, nice, stdbuf, chroot,
// flock, busybox, time, strace, watch, …. Their own options come first; some take a value (`time -o f cmd`).

import { splitWords } from '../../shell'
import { rest, type Cmd, type Peeled, type Peeler, type ReaderFamily } from '../types'
import { isAssignment, optionValue, skipOptions } from '../words'

/** A prefix whose options are skipped (those in `values` with their value) up to the command it runs. */
export function prefix(values: string[], operands = 0): Peeler {
  const withValue = new Set(values)
  return (c) => {
    c.via.push(c.name)
    return rest(c, skipOptions(c.args, withValue).slice(operands))
  }
}

/** Options that take a value, for each simple prefix (`time -o f cmd`, `exec -a name cmd`). */
const PREFIXES: Record<string, string[]> = {
  time: ['-f', '--format', '-o', '--output'],
  exec: ['-a'],
  caffeinate: ['-w', '-t'],
  proxychains: ['-f'],
  proxychains4: ['-f'],
  nsenter: ['-t', '--target', '-S', '--setuid', '-G', '--setgid', '-r', '-w'],
  unshare: ['-S', '--setuid', '-G', '--setgid', '-R', '--root', '-w', '--wd'],
  'xvfb-run': [
    '-n',
    '--server-num',
    '-s',
    '--server-args',
    '-e',
    '--error-file',
    '-f',
    '--auth-file',
    '-p',
    '--xauth-protocol',
  ],
  ltrace: ['-o', '-e', '-p', '-s', '-u', '-a', '-n'],
  strace: ['-o', '-e', '-p', '-s', '-u', '-E', '-a', '-b', '-I', '-O', '-P', '-S', '-X'],
  stdbuf: ['-i', '-o', '-e', '--input', '--output', '--error'],
  unbuffer: [],
  chronic: [],
  fakeroot: [],
  torsocks: [],
  firejail: [],
  catchsegv: [],
  'dbus-launch': [],
}

/** `env [-i] [-u X] [A=1] cmd …`, `env -S 'cmd args'`: the variables it sets are the program's. */
function env(c: Cmd): Peeled {
  const { args, argComp } = c
  c.via.push('env')
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '-u' || a === '--unset' || a === '-C' || a === '--chdir' || a === '-P') {
      i++
      continue
    }
    const split =
      a === '-S' || a === '--split-string'
        ? (args[++i] ?? '')
        : a.startsWith('--split-string=')
          ? a.slice(15)
          : /^-S./.test(a)
            ? a.slice(2)
            : undefined
    if (split !== undefined) {
      const words = splitWords(split)
      return {
        argv: [...words, ...args.slice(i + 1)],
        comp: [...words.map(() => argComp[i] ?? false), ...argComp.slice(i + 1)],
      }
    }
    if (a === '--') return { argv: args.slice(i + 1), comp: argComp.slice(i + 1) }
    if (isAssignment(a)) c.given(a)
    if (a.startsWith('-') || isAssignment(a)) continue
    return { argv: args.slice(i), comp: argComp.slice(i) }
  }
  return { argv: [], comp: [] }
}

const NICE_VALUES = ['-n', '--adjustment', '-c', '--class', '--classdata', '-p', '--pid', '-t', '--cpu-list']

function nice(c: Cmd): Peeled {
  if (c.name === 'ionice' && (c.args.includes('-p') || c.args.includes('-P') || c.args.includes('-u'))) {
    c.via.push(c.name)
    c.push() // changes a running process; runs nothing
    return 'read'
  }
  // taskset and chrt take a CPU list or priority before the command.
  return prefix(NICE_VALUES, c.name === 'taskset' || c.name === 'chrt' ? 1 : 0)(c)
}

/** `chroot [--userspec=…] dir [cmd …]`: without a command it runs a shell. */
function chroot(c: Cmd): Peeled {
  const next = prefix(['--userspec', '--groups'], 1)(c)
  return typeof next === 'object' && !next.argv.length ? 'read' : next
}

/** `flock [-w n] lockfile cmd …`, `flock lockfile -c 'cmd'`. */
function flock(c: Cmd): Peeled {
  const words = skipOptions(c.args, new Set(['-w', '--wait', '--timeout', '-E', '--conflict-exit-code']))
  const code = optionValue(words.slice(1), ['-c', '--command'])
  if (code !== undefined) {
    c.code(code, 'flock -c')
    return 'read'
  }
  c.via.push(c.name)
  return words.length > 1 ? rest(c, words.slice(1)) : 'read' // the lock file
}

/** `busybox rm -rf x`: the applet named is the program; `busybox --list` runs none. */
function busybox(c: Cmd): Peeled {
  c.via.push(c.name)
  const applet = c.args[0]
  if (applet === undefined || applet.startsWith('-')) {
    c.push()
    return 'read'
  }
  return rest(c, c.args)
}

/** `watch -n 5 'cmd'`: its words are shell code, run again and again. */
function watch(c: Cmd): Peeled {
  c.via.push('watch')
  c.code(skipOptions(c.args, new Set(['-n', '--interval', '-d'])).join(' '), 'watch')
  return 'read'
}

export const family: ReaderFamily = {
  family: 'prefix',
  programs: {
    ...Object.fromEntries(Object.entries(PREFIXES).map(([name, values]) => [name, prefix(values)])),
    env,
    timeout: prefix(['-s', '--signal', '-k', '--kill-after'], 1), // the duration
    nice,
    ionice: nice,
    chrt: nice,
    taskset: nice,
    chroot,
    flock,
    busybox,
    toybox: busybox,
    watch,
  },
}
