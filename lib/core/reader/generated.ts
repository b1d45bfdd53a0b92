// What a command's input and output hold when the line shows it: files written earlier in the line (`printf 'rm -rf
// x' > s.sh && sh s.sh`), here-documents, literal text piped in, and `$(cat f)` standing for a file's text.

import type { SimpleCommand } from '../shell'
import type { LineState } from './types'
import { normPath, programName, short } from './words'

/** printf's format as the text it prints, for the escapes that shape code (`\\n`, `\\t`): a Makefile needs its tabs. */
const printfText = (format: string): string => format.replace(/\\n/g, '\n').replace(/\\t/g, '\t')

/** Programs that copy a file to a path: what lands there is not visible in the line. */
const COPIERS = new Set(['cp', 'mv', 'install', 'ln', 'rsync', 'ditto'])

/** The file in `$(cat f)`, `$(< f)`, `` `cat f` `` or `<(cat f)`: code that is that file's text. */
export function catOf(word: string): string | undefined {
  const m = /^(?:\$\(|<\(|`)[ \t]*(?:cat[ \t]+|<[ \t]*)([\w./~+-]+)[ \t]*[)`]$/.exec(word)
  return m?.[1]
}

/** The file a command's standard input comes from: `< file`, or `cat file |` (one literal file). */
export function stdinFile(simple: SimpleCommand): string | undefined {
  const r = simple.redirects.find((x) => x.op === '<' && x.target && !/[$`]/.test(x.target))
  if (r) return r.target
  const from = simple.pipedFrom
  if (!from || programName(from.argv[0] ?? '') !== 'cat' || from.computed.some(Boolean)) return undefined
  const files = from.argv.slice(1).filter((a) => !a.startsWith('-'))
  return files.length === 1 && from.redirects.length === 0 ? files[0] : undefined
}

/** What a command's stdin holds when it is visible: a here-document or here-string, or a literal echo/printf piped in. */
export function inputText(simple: SimpleCommand): string | undefined {
  if (simple.stdin !== undefined) return simple.stdin
  const from = simple.pipedFrom
  if (!from || from.computed.slice(1).some(Boolean)) return undefined
  const src = programName(from.argv[0] ?? '')
  if (src === 'echo')
    return from.argv
      .slice(1)
      .filter((w, i) => !(i === 0 && /^-[neE]+$/.test(w)))
      .join(' ')
  if (src === 'printf') return printfText(from.argv[1] ?? '')
  if ((src === 'cat' || src === '') && from.stdin !== undefined) return from.stdin
  return undefined
}

/**
 * Records what a command writes through its redirects (and `tee`): a literal echo/printf or here-document's text,
 * else null (written, but not visibly). `printf 'rm -rf x' > s.sh && sh s.sh` then runs what we can read.
 */
export function recordGenerated(simple: SimpleCommand, st: LineState): void {
  const targets = simple.redirects.filter(
    (r) => /^(>|>>|>\||&>|&>>)$/.test(r.op) && r.target && !/^&?\d*-?$/.test(r.target) && !r.target.startsWith('/dev/'),
  )
  const name = programName(simple.argv[0] ?? '')
  const teeTargets = name === 'tee' ? simple.argv.slice(1).filter((a) => !a.startsWith('-')) : []
  if (COPIERS.has(name)) recordCopies(simple.argv.slice(1), st)
  if (!targets.length && !teeTargets.length) return
  let text: string | null = null
  const literal = !simple.computed.slice(1).some(Boolean)
  if (name === 'echo' && literal)
    text = simple.argv
      .slice(1)
      .filter((w, i) => !(i === 0 && /^-[neE]+$/.test(w)))
      .join(' ')
  else if (name === 'printf' && literal && !(simple.argv[1] ?? '').includes('%'))
    text = printfText(simple.argv[1] ?? '')
  else if (
    (name === 'cat' || name === 'tee' || name === '') &&
    simple.stdin !== undefined &&
    !simple.argv.slice(1).some((a) => !a.startsWith('-') && name === 'cat')
  )
    text = simple.stdin
  else if (name === 'tee') text = inputText(simple) ?? null
  for (const r of targets) {
    const key = normPath(r.target)
    const before = st.generated.get(key)
    st.generated.set(
      key,
      r.op.includes('>>') && before !== undefined
        ? before === null || text === null
          ? null
          : `${before}\n${text}`
        : text,
    )
  }
  for (const t of teeTargets) st.generated.set(normPath(t), text)
}

/**
 * `cp tpl/mk Makefile`, `mv x.sh run.sh`, `cp a b dir/`: the destination is written, with text the line does not
 * show. Recorded as written-but-not-visible, so running it (`&& make`, `&& sh run.sh`) is unreadable rather than
 * read from what the disk holds before the copy.
 */
function recordCopies(args: string[], st: LineState): void {
  const ops: string[] = []
  let into: string | undefined
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '-t' || a === '--target-directory') into = args[++i]
    else if (a.startsWith('--target-directory=')) into = a.slice(a.indexOf('=') + 1)
    else if (
      a === '-S' ||
      a === '--suffix' ||
      a === '-m' ||
      a === '--mode' ||
      a === '-o' ||
      a === '--owner' ||
      a === '-g' ||
      a === '--group'
    )
      i++
    else if (!a.startsWith('-') || a === '-') ops.push(a)
  }
  const dest = into ?? ops.pop()
  if (!dest || !ops.length) return
  const base = (p: string) => p.replace(/\/+$/, '').split('/').pop() ?? p
  if (!into && ops.length === 1) st.generated.set(normPath(dest), null)
  for (const src of ops) st.generated.set(normPath(`${dest}/${base(src)}`), null)
}

/** A script written earlier in this line is run: reads its text as code, or reports it unreadable. True if it was one. */
export function runGenerated(script: string, st: LineState, read: (text: string) => void): boolean {
  const key = normPath(script)
  if (!st.generated.has(key)) return false
  const text = st.generated.get(key)
  if (text == null)
    st.unreadable.add(`${short(script)} is written earlier in this command and then run; what it holds is not visible`)
  else read(text)
  return true
}

/**
 * Code piped into a shell or interpreter: its text is not in the command, so the command is
 * unreadable. When the source is a literal `echo`/`printf`, its text is read as well (the worst
 * reading is both: what we can see, and that more may run).
 */
export function pipedCode(from: SimpleCommand, into: string, st: LineState, read: (text: string) => void): void {
  const src = programName(from.argv[0] ?? '')
  st.unreadable.add(
    `code is piped into ${into}${src ? ` from ${src}` : ''}: what it runs is not visible in the command`,
  )
  if ((src === 'echo' || src === 'printf') && !from.computed.slice(1).some(Boolean)) {
    const words = from.argv.slice(1).filter((w, i) => !(i === 0 && /^-[neE]+$/.test(w)))
    read(src === 'printf' ? printfText(words[0] ?? '') : words.join(' '))
  } else if (from.stdin !== undefined && (src === 'cat' || src === '')) read(from.stdin)
}
