// make runs the recipes of the targets it is given: each recipe line is read as shell code, from the Makefile on
// disk, in the folder make works in (`-C dir`), or from the one this line wrote (`printf … > Makefile && make`).

import { makeRecipes } from '../../makefile'
import { inScript, openScript } from '../scripts'
import type { Cmd, LineState, Peeled, ReaderFamily, ScriptFile, ScriptOrigin } from '../types'
import { normPath, optionValue } from '../words'

const MAKE_VALUES = new Set([
  '-f',
  '--file',
  '--makefile',
  '-C',
  '--directory',
  '-I',
  '--include-dir',
  '-o',
  '--old-file',
  '--assume-old',
  '-W',
  '--what-if',
  '--new-file',
  '--assume-new',
  '-l',
  '--load-average',
  '--eval',
  '-O',
  '--output-sync',
  '--jobserver-style',
])

/** `make [targets] [VAR=value]`: the recipe lines it runs (prerequisites first), each read as shell code. */
function makeRun(args: string[], st: LineState, via: string[], depth: number, cwdChanges: string[]): void {
  // A dry run, a question, a listing: nothing runs (`-n` prints the recipes).
  if (
    args.some(
      (a) =>
        /^--(dry-run|just-print|recon|question|print-data-base|help|version)$/.test(a) ||
        (/^-[a-zA-Z]+$/.test(a) && /[nqpv]/.test(a) && !MAKE_VALUES.has(a)),
    )
  )
    return
  const targets: string[] = []
  const overrides: Record<string, string> = Object.create(null)
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
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
  const candidates = named ? [named] : ['GNUmakefile', 'makefile', 'Makefile']
  // A Makefile written earlier in this line is what make reads, not what the disk holds now.
  for (const file of candidates) {
    const key = normPath(dir && !file.startsWith('/') ? `${dir}/${file}` : file)
    if (!st.generated.has(key)) continue
    const text = st.generated.get(key)
    if (text == null)
      st.unreadable.add(`${file} is written earlier in this command and then run by make; what it holds is not visible`)
    else
      for (const l of makeRecipes(text, targets, overrides).lines)
        st.expand(l.command, [...via, `make ${l.target}`], st, depth + 1, undefined, cwd)
    return
  }
  if (!st.reader) return
  let found: { file: string; f: ScriptFile } | undefined
  for (const file of candidates) {
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
    inScript(st, origin, run, () => st.expand(l.command, [...via, `make ${l.target}`], st, depth + 1, undefined, cwd))
  }
}

function make(c: Cmd): Peeled {
  makeRun(c.args, c.st, c.via, c.depth, c.cwdChanges)
  c.push()
  return 'read'
}

export const family: ReaderFamily = {
  family: 'make',
  programs: { make, gmake: make },
}
