// Programs that run a command per item: `find … -exec cmd {} ;`, `xargs cmd`, `parallel cmd ::: a b`. The command
// is read with `{}` standing for the item; one whose program comes from the items is unreadable.

import { inputText } from '../generated'
import { MAX_VARIANTS, rest, type Cmd, type Peeled, type ReaderFamily } from '../types'
import { findRoots, interpreterOf, programName, quote, SHELLS, short, skipOptions, trimSlashes } from '../words'

/** `find root … -exec cmd {} ;` runs cmd on each file found (-execdir, -ok, -okdir alike). */
function find(c: Cmd): Peeled {
  const { args, argComp } = c
  const root = findRoots(args)[0] ?? '.'
  for (let i = 0; i < args.length; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(args[i]!)) continue
    let j = i + 1
    while (j < args.length && args[j] !== ';' && args[j] !== '+') j++
    const words = args.slice(i + 1, j).map((w) => w.split('{}').join(trimSlashes(root) + '/{}'))
    // `-exec {} ;` runs each file found as the program: which programs is not known until it runs.
    if (words[0]?.includes('{}'))
      c.st.unreadable.add(`find ${args[i]} runs the files it finds as programs (${short(args.slice(i, j).join(' '))})`)
    c.inner(words, argComp.slice(i + 1, j), `find ${args[i]}`)
    i = j
  }
  c.push()
  return 'read'
}

const XARGS_VALUES = new Set([
  '-n',
  '-I',
  '-P',
  '-d',
  '-L',
  '-l',
  '-s',
  '-E',
  '-a',
  '--max-args',
  '--max-procs',
  '--delimiter',
  '--arg-file',
  '--max-lines',
  '--max-chars',
  '--eof',
  '--process-slot-var',
])

/** The mark xargs replaces with each input item (`-I{}`, `-i`, `--replace=X`), if it has one. */
function replaceMark(own: string[]): string | undefined {
  const k = own.findIndex(
    (a) => a === '-I' || a === '-i' || a.startsWith('--replace') || /^-I./.test(a) || /^-i./.test(a),
  )
  const a = own[k]
  return a === undefined
    ? undefined
    : a === '-I'
      ? own[k + 1]
      : a.startsWith('--replace=')
        ? a.slice(10)
        : /^-[Ii]./.test(a)
          ? a.slice(2)
          : '{}'
}

/** Whether the input becomes code: in the command word, in a shell's `-c` code, or as the `-c` code itself (`xargs sh -c`). */
function runsInput(words: string[], mark: string | undefined): boolean {
  const n = programName(words[0] ?? '')
  if (mark && words[0]?.includes(mark)) return true
  if (SHELLS.has(n) || interpreterOf(n)) {
    const c = words.findIndex((w) => /^-[a-zA-Z]*[ce]$/.test(w) || w === '--eval')
    // `sh -c '{}'` runs the input; `sh -c 'cat {}'` runs cat on it (read with `{}` standing for the file).
    const code = words[c + 1]
    if (c >= 0) return code === undefined || (!!mark && code.trim().startsWith(mark))
  }
  return false
}

/** `xargs cmd`: the words it adds come from its input, where `-I{}` puts them, otherwise at the end. */
function xargs(c: Cmd): Peeled {
  c.via.push(c.name)
  const words = skipOptions(c.args, XARGS_VALUES)
  if (!words.length) return 'read' // xargs alone runs echo
  const mark = replaceMark(c.args.slice(0, c.args.length - words.length))
  if (!runsInput(words, mark)) return rest(c, words)
  c.st.unreadable.add('xargs builds the command it runs from its input')
  // What we can see of the input is read as the command it becomes (`xargs -I{} sh -c '{}' <<< 'rm -rf x'`).
  for (const line of (inputText(c.simple) ?? '').split('\n').filter(Boolean).slice(0, MAX_VARIANTS)) {
    c.code(mark ? words.map((w) => quote(w.split(mark).join(line))).join(' ') : line, 'xargs')
  }
  return 'read'
}

const PARALLEL_VALUES = new Set([
  '-j',
  '--jobs',
  '-P',
  '--max-procs',
  '-n',
  '--max-args',
  '-N',
  '-I',
  '--joblog',
  '--results',
  '-S',
  '--sshlogin',
  '--delay',
  '--timeout',
  '--retries',
  '--tagstring',
  '-d',
  '--delimiter',
  '-a',
  '--arg-file',
  '--colsep',
  '-C',
  '--workdir',
  '--wd',
  '--halt',
])

/** `parallel cmd ::: a b`: cmd runs once per argument, through a shell; `{}` is the argument. */
function parallel(c: Cmd): Peeled {
  const words = skipOptions(c.args, PARALLEL_VALUES)
  const sep = words.findIndex((a) => /^:::+\+?$/.test(a))
  const cmd = sep >= 0 ? words.slice(0, sep) : words
  const values = sep >= 0 ? words.slice(sep + 1).filter((a) => !/^:::+\+?$/.test(a)) : []
  if (!cmd.length) return 'read'
  const text = cmd.join(' ')
  if (text.includes('{}') && values.length)
    for (const v of values.slice(0, MAX_VARIANTS)) c.code(text.split('{}').join(quote(v)), 'parallel')
  else c.code([text, ...values.map(quote)].join(' '), 'parallel')
  return 'read'
}

export const family: ReaderFamily = {
  family: 'find-xargs',
  programs: { find, xargs, parallel },
}
