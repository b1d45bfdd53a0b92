// Shell commands run from interpreter and awk code (os.system, subprocess.run, execSync, system(…), `…`): the
// scanners read each string once, so the time is linear in the code.

import type { CodeSnippet } from './types'
import { programName, quote, SHELLS } from './words'

const SHELL_CALL =
  /\b(?:os\.system|os\.popen|os\.exec[lv]p?e?|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|execFileSync|execFile|execSync|exec|spawnSync|spawn|system|qx|popen|shell_exec|passthru|proc_open|Open3\.\w+|IO\.popen|Kernel\.system)\b|`/g

/**
 * Shell commands run from interpreter code: os.system("…"), subprocess.run(["git", "push"]),
 * execSync('…'), system "…", qx{…}, and backticks in perl, ruby and php. A scanner, not one big
 * regex: each string is read once, so the time is linear in the code (a single regex for this
 * backtracks catastrophically, on as little as 85 characters). An unclosed string runs to the end of the code.
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
    const interpolates = (t: string) =>
      lang === 'python' ? false : lang === 'node' ? false : /[$@]\w|\$\{|#\{/.test(t)
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
    const judged =
      !(lang === 'python' && m[0] === 'exec') &&
      (!method || /(child_process|childProcess|\bcp|\bproc|['"](?:node:)?child_process['"]\s*\))\.$/.test(before))
    while (i < code.length && (code[i] === ' ' || code[i] === '\t')) i++
    const paren = code[i] === '('
    if (paren) i++
    while (i < code.length && (code[i] === ' ' || code[i] === '\t' || code[i] === '\n')) i++
    if (m[0] === 'qx' && /[{([|/!]/.test(code[i] ?? '')) {
      const open = code.charAt(i)
      const close = ({ '{': '}', '(': ')', '[': ']' } as Record<string, string>)[open] ?? open
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
      while (j < code.length && /\s/.test(code.charAt(j))) j++
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
    if (
      judged &&
      (arg.other || arg.literals.length > 1 || arg.literals.some(interpolates) || arg.interpolated) &&
      (arg.literals.length || arg.other)
    )
      computed?.(text || code.slice(m.index, Math.min(arg.end, m.index + 80)))
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
  for (const m of code.slice(0, 65_536).matchAll(/\bimport[ \t]+(subprocess|os)[ \t]+as[ \t]+(\w+)/g))
    names.push(`${m[2]}\\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput|system|popen)`)
  for (const m of code.slice(0, 65_536).matchAll(/\bfrom[ \t]+(subprocess|os)[ \t]+import[ \t]+([\w \t,]{1,400})/g))
    for (const part of m[2]!.split(',')) {
      const w = part.trim().split(/[ \t]+/)
      const name = (w[2] && w[1] === 'as' ? w[2] : w[0]) ?? ''
      if (
        /^(run|call|check_call|check_output|Popen|getoutput|getstatusoutput|system|popen)$/.test(w[0] ?? '') &&
        /^\w+$/.test(name)
      )
        names.push(name)
    }
  return names.length ? `\\b(?:${names.slice(0, 16).join('|')})\\b|` : ''
}

/**
 * The first argument of a call, from just after its `(` (or the call's name, for `system "…"` in perl/ruby):
 * its string literals in order, whether anything else is in it (a name, a call), whether it is a `[…]` list.
 * Linear: every character is looked at once; bounded to 4 KB.
 */
function readArgument(
  code: string,
  start: number,
  paren: boolean,
  lang: CodeSnippet['lang'],
): { literals: string[]; other: boolean; list: boolean; interpolated: boolean; end: number } {
  const literals: string[] = []
  let other = false
  let interpolated = false
  let depth = 0
  let i = start
  const list = code[i] === '['
  const limit = Math.min(code.length, start + 4096)
  while (i < limit) {
    const ch = code.charAt(i)
    // String prefixes: python r'' b'' f'' (an f-string fills in names), ruby %q? not read.
    const pre =
      /[rbfuRBFU]/.test(ch) &&
      (code[i + 1] === '"' ||
        code[i + 1] === "'" ||
        (/[rbfuRBFU]/.test(code[i + 1] ?? '') && (code[i + 2] === '"' || code[i + 2] === "'"))) &&
      !/\w/.test(code[i - 1] ?? '')
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
export function awkShellCalls(prog: string): { text: string; computed: boolean }[] {
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
