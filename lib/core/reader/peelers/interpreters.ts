// Interpreters: `python -c code`, `node -e code`, `perl -e`, a script file they run, code on their stdin; and awk,
// whose system(…) and pipes run shell commands. Interpreter code is lifted out as a snippet for the code scanners.

import type { ScriptLang } from '../../scripts'
import { awkShellCalls } from '../code-calls'
import { catOf, pipedCode, stdinFile } from '../generated'
import { runsFile } from '../scripts'
import { rest, type Cmd, type CodeSnippet, type Peeled, type ReaderFamily } from '../types'
import { interpreterOf, normPath, short } from '../words'

/** Options whose value is not the script (`node --require x script.js`). */
const VALUED =
  /^(-[WXrC]|--require|--import|--loader|--experimental-loader|--conditions|--input-type|--env-file|--test-(?:reporter|reporter-destination|name-pattern|skip-pattern|concurrency|timeout|shard))$/

/** Whether `args[i]` is an operand (a script or file), not an option or an option's value. */
const isOperand = (args: string[], i: number) => !args[i]!.startsWith('-') && !(i > 0 && VALUED.test(args[i - 1]!))

function interpreter(c: Cmd): Peeled {
  const { name, args, argComp, st } = c
  const interp = interpreterOf(name)
  if (!interp) return 'none'
  const lang = interp.lang
  const snippet = (code: string, label: string, cwd: string[] | null = c.cwdChanges.slice()) =>
    st.out.snippets.push({ lang, code, via: [...c.via, label], ...(cwd ? { cwdChanges: cwd } : {}) })
  const fi = args.findIndex(
    (a) => interp.flags.includes(a) || ((lang === 'perl' || lang === 'ruby') && /^-[a-zA-Z]*[eE]$/.test(a)),
  )
  const code = fi >= 0 ? args[fi + 1] : undefined
  if (code !== undefined) {
    // `python3 -c "$(cat x.py)"`: the file on disk is the code.
    const cat = argComp[fi + 1] ? catOf(code) : undefined
    if (cat && runsFile(c, cat, lang as ScriptLang, [])) {
      c.push()
      return 'read'
    }
    if (argComp[fi + 1] && /^\s*[$`]/.test(code))
      st.unreadable.add(`${name} ${args[fi]} of a computed string (${short(code)})`)
    snippet(code, `${name} ${args[fi]}`)
  } else if (name.startsWith('python') && args[0] === '-m') {
    // `python -m twine upload` behaves as the module's command.
    c.via.push(`${name} -m`)
    return rest(c, args.slice(1))
  } else if (lang === 'node' && args.includes('--test')) testRun(c)
  else scriptOrStdin(c, lang, snippet)
  c.push()
  return 'read'
}

/**
 * `node --test [files…]`: every file named runs (not only the first), and with none named, every test file node
 * finds from the folder it runs in (`*.test.js`, `test/**`, …): a test written in one call and run by `npm test` in
 * another is read as a named one is.
 */
function testRun(c: Cmd): void {
  const named = c.args.filter((_a, i) => isOperand(c.args, i))
  for (const file of named.length ? named : (c.st.testFiles?.(c.cwdChanges) ?? [])) runsFile(c, file, 'node', [])
}

/** `python3 x.py`, `node < x.js`, `cat x.py | python3`, `python3 <<EOF`: the code the interpreter reads. */
function scriptOrStdin(
  c: Cmd,
  lang: CodeSnippet['lang'],
  snippet: (code: string, label: string, cwd?: string[] | null) => void,
): void {
  const { name, args, simple, st } = c
  const script = args.find((a, i) => isOperand(args, i) && !(i === 0 && name === 'deno' && a === 'run'))
  const fromStdin = !script || script === '-' || script === '/dev/stdin'
  const file = fromStdin ? stdinFile(simple) : undefined
  if (script && /^[<>]\(/.test(script))
    st.unreadable.add(`${name} runs code from a process substitution (${short(script)})`)
  else if (script && st.generated.has(normPath(script))) {
    const text = st.generated.get(normPath(script))
    if (text == null)
      st.unreadable.add(
        `${name} runs ${short(script)}, written earlier in this command with content that is not visible`,
      )
    else snippet(text, `${name} ${script}`)
  } else if (script && runsFile(c, script, lang as ScriptLang, args.slice(args.indexOf(script) + 1))) {
    // a script on disk: read above
  } else if (fromStdin && simple.stdin !== undefined) snippet(simple.stdin, `${name} <<`)
  else if (file && runsFile(c, file, lang as ScriptLang, [])) {
    // `python3 < x.py`, `cat x.py | python3`: the file on disk is the code.
  } else if (fromStdin && simple.pipedFrom)
    pipedCode(simple.pipedFrom, name, st, (text) => snippet(text, `${name} <|`, null))
}

/** awk runs shell commands through system(…), `print | "cmd"` and `"cmd" | getline`. */
function awk(c: Cmd): Peeled {
  const { name, args, st } = c
  let prog: string | undefined
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!
    if (a === '-f' || a === '--file') break
    if (/^(-F|-v|--field-separator|--assign)$/.test(a)) k++
    else if (a === '--') {
      prog = args[k + 1]
      break
    } else if (!a.startsWith('-')) {
      prog = a
      break
    }
  }
  if (prog)
    for (const call of awkShellCalls(prog)) {
      if (call.computed) st.unreadable.add(`${name} runs a shell command it computes (${short(call.text || prog)})`)
      if (call.text) c.code(call.text, `${name} system`)
    }
  c.push()
  return 'read'
}

export const family: ReaderFamily = {
  family: 'interpreters',
  programs: { awk, gawk: awk, mawk: awk, nawk: awk },
  // python3.12, node, perl, …: versioned names, so by pattern.
  byPattern: interpreter,
}
