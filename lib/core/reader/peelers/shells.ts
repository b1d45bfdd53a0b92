// Shells: `bash -c code`, `sh script.sh args`, `bash <<EOF`, `curl … | sh`, and `script -c code`. The code they run
// is read as shell; a script on disk by its text; code that is not visible (a pipe, a process substitution) is
// unreadable.

import { clusterValue } from '../../detach'
import { catOf, pipedCode, runGenerated, stdinFile } from '../generated'
import { runsFile } from '../scripts'
import type { Cmd, Peeled, ReaderFamily } from '../types'
import { optionValue, SHELLS, short } from '../words'

/** Where a shell's code comes from: `-c` and the code's index, or the script operand (none: stdin). */
function shellOperand(args: string[]): { code?: number; script?: string } {
  // Options come first (`bash -o pipefail -lc 'code'`); `$CODE` as the code is caught when it is read.
  let k = 0
  let cFlag = false
  let stdinFlag = false
  for (let a = args[k]; a !== undefined && /^[-+]/.test(a) && a !== '-' && a !== '--'; a = args[k]) {
    if (/^-[a-zA-Z]+$/.test(a) && a.includes('c')) cFlag = true
    if (/^-[a-zA-Z]+$/.test(a) && a.includes('s')) stdinFlag = true
    k += /^[-+][oO]$|^--(rcfile|init-file)$/.test(a) ? 2 : 1
  }
  if (args[k] === '--') k++
  if (cFlag && args[k] !== undefined) return { code: k }
  // `bash -s -- args`: the code comes on stdin, the rest are its arguments.
  return { script: stdinFlag ? undefined : args.slice(k).find((a) => a !== '-') }
}

function shell(c: Cmd): Peeled {
  const { name, args, argComp, simple, st } = c
  const { code: k, script } = shellOperand(args)
  // shellOperand gives the code's index only where there is a word.
  const code = k === undefined ? undefined : args[k]
  if (k !== undefined && code !== undefined) {
    // `bash -c "$(cat x.sh)"`: the file on disk is the code.
    const cat = argComp[k] ? catOf(code) : undefined
    if (cat && runsFile(c, cat, 'shell', args.slice(k + 2))) c.push()
    else c.code(code, `${name} -c`, simple.pipedFrom)
    return 'read'
  }
  const fromStdin = !script || script === '/dev/stdin'
  const file = fromStdin ? stdinFile(simple) : undefined
  if (script && /^[<>]\(/.test(script)) {
    st.unreadable.add(`${name} runs code from a process substitution (${short(script)})`)
  } else if (script && runGenerated(script, st, (text) => c.code(text, `${name} ${script}`))) {
    // a script written earlier in this line: read above
  } else if (script && runsFile(c, script, 'shell', args.slice(args.indexOf(script) + 1))) {
    // a script on disk: read above
  } else if (fromStdin && simple.stdin !== undefined) {
    // `bash <<EOF … EOF`, `bash <<< "…"`: the here-document is code.
    c.code(simple.stdin, `${name} <<`)
    return 'read'
  } else if (file && runsFile(c, file, 'shell', [])) {
    // `sh < x.sh`, `cat x.sh | sh`: the file on disk is the code.
  } else if (fromStdin && simple.pipedFrom) {
    pipedCode(simple.pipedFrom, name, st, (text) => c.code(text, `${name} <|`))
  }
  c.push()
  return 'read'
}

/** `script -q -c 'cmd' /dev/null`, `script -qc 'cmd'`: a terminal recording around shell code. */
function script(c: Cmd): Peeled {
  const code = optionValue(c.args, ['-c', '--command']) ?? clusterValue(c.args, 'c')
  if (code !== undefined) c.code(code, 'script -c')
  else c.push()
  return 'read'
}

export const family: ReaderFamily = {
  family: 'shells',
  programs: { ...Object.fromEntries([...SHELLS].map((name) => [name, shell])), script },
}
