// The adversarial half of redos.test.ts, run in a child process so that a regression (a regex that
// backtracks catastrophically) is killed by the test's hang bound and reported, instead of hanging the test
// run: synchronous regex work cannot be interrupted inside the process that runs it.
//
//   node --enable-experimental-regexp-engine --import tsx test/unit/redos-fuzz.ts regexes|commands|tools
//   (regexes <file>: just that file)
//
// prints one JSON line per case: {"case": …} before it starts, then what the case answered. No clock is read:
// how fast is `npm run bench`'s business; here the answers are checked, and a hang is the test's timeout.

import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { classify, type ClassifyContext } from '../../lib/core/classify'
import { readCommandLine } from '../../lib/core/commands'
import { parseShell } from '../../lib/core/shell'
import { maskSecrets } from '../../lib/core/secrets'

const ROOT = path.join(__dirname, '../../lib/core')

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) return sourceFiles(p)
    return e.name.endsWith('.ts') ? [p] : []
  })
}

export interface Found {
  where: string
  /** The literal as written, flags included: what a structural analysis parses. */
  literal: string
  re: RegExp
}

/**
 * Files not fuzzed yet (none: custodiet's prompt and verdict parsers were taken off this list once their
 * regexes were linear — anchored single-class strips, bounded repeats, trims by hand). A file added
 * here needs an issue saying why.
 */
const NOT_YET = new Set<string>([])

/** `only`: fuzz just the files whose path contains it (NOT_YET included), to check one file while fixing it. */
export function regexLiterals(only?: string): Found[] {
  const out: Found[] = []
  for (const file of sourceFiles(ROOT).filter((f) =>
    only ? path.relative(ROOT, f).includes(only) : !NOT_YET.has(path.relative(ROOT, f)),
  )) {
    const text = fs.readFileSync(file, 'utf8')
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true)
    const visit = (n: ts.Node) => {
      if (n.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const lit = (n as ts.RegularExpressionLiteral).text
        const end = lit.lastIndexOf('/')
        const line = sf.getLineAndCharacterOfPosition(n.getStart()).line + 1
        out.push({
          where: `${path.relative(ROOT, file)}:${line} ${lit.length > 70 ? lit.slice(0, 69) + '…' : lit}`,
          literal: lit,
          re: new RegExp(
            lit.slice(1, end),
            lit
              .slice(end + 1)
              .replace('g', '')
              .replace('y', ''),
          ),
        })
      }
      ts.forEachChild(n, visit)
    }
    visit(sf)
  }
  return out
}

const CANDIDATES = [
  'a',
  ' ',
  '1',
  '/',
  '.',
  '-',
  '"',
  "'",
  '\\',
  '\n',
  '$',
  '(',
  ')',
  '=',
  ':',
  '_',
  'A',
  '@',
  '`',
  '{',
  '}',
  '|',
  ';',
  '<',
  '>',
  '#',
  '*',
  '\t',
  'é',
]

/** One or two characters that match a character class or escape, found by trying candidates. */
function representatives(piece: string, flags: string): string[] {
  let re: RegExp
  try {
    re = new RegExp(`^${piece}$`, flags.replace('g', ''))
  } catch {
    return []
  }
  return CANDIDATES.filter((c) => re.test(c)).slice(0, 2)
}

/** The regex source as a list of atoms, each a few characters it can match. */
function atoms(source: string, flags: string): string[][] {
  const out: string[][] = []
  let i = 0
  while (i < source.length) {
    const c = source[i]
    if (c === '\\') {
      const e = source[i + 1]
      if (/[1-9]/.test(e) || e === 'b' || e === 'B') {
        i += 2
        continue
      }
      const len = e === 'u' ? 6 : e === 'x' ? 4 : 2
      const reps = representatives(source.slice(i, i + len), flags)
      if (reps.length) out.push(reps)
      i += len
      continue
    }
    if (c === '[') {
      let j = i + 1
      if (source[j] === '^') j++
      if (source[j] === ']') j++
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1
      const reps = representatives(source.slice(i, j + 1), flags)
      if (reps.length) out.push(reps)
      i = j + 1
      continue
    }
    if (c === '(') {
      i +=
        source[i + 1] === '?'
          ? source[i + 2] === '<' && source[i + 3] !== '=' && source[i + 3] !== '!'
            ? source.indexOf('>', i) + 1
            : source[i + 2] === '<'
              ? 4
              : 3
          : 1
      continue
    }
    if (c === '{' && /^\{\d+(,\d*)?\}/.test(source.slice(i))) {
      i = source.indexOf('}', i) + 1
      continue
    }
    if (')|?*+^$'.includes(c)) {
      i++
      continue
    }
    out.push(c === '.' ? ['a', ' '] : [c])
    i++
  }
  return out
}

/** Adversarial inputs for one regex: each window of its atoms, repeated, then a failing character. */
function adversarial(re: RegExp): { name: string; make: (n: number) => string }[] {
  const list = atoms(re.source, re.flags)
  const seen = new Set<string>()
  const out: { name: string; make: (n: number) => string }[] = []
  const add = (name: string, make: (n: number) => string) => {
    if (seen.has(name)) return
    seen.add(name)
    out.push({ name, make })
  }
  for (let start = 0; start < list.length; start++) {
    const prefix = list
      .slice(0, start)
      .map((a) => a[0])
      .join('')
    for (let len = 1; len <= 2 && start + len <= list.length; len++) {
      const window = list.slice(start, start + len)
      // Each representative choice for the first atom (two for a single atom); the rest take their first.
      for (const first of len === 1 ? window[0] : window[0].slice(0, 1)) {
        const frag =
          first +
          window
            .slice(1)
            .map((a) => a[0])
            .join('')
        for (const tail of ['\u0001', '\n'])
          add(
            `${JSON.stringify(prefix.slice(-12))}+(${JSON.stringify(frag)})×n+${JSON.stringify(tail)}`,
            (n) => prefix + frag.repeat(n) + tail,
          )
      }
    }
  }
  for (const filler of [' ', 'a', '\\', '"', "'", '$(', '\n', '-', '/', '\t '])
    add(`(${JSON.stringify(filler)})×n`, (n) => filler.repeat(n) + '\u0001')
  return out
}

// Exponential blow-ups show within a few dozen repetitions; quadratic ones need length. Gentle steps
// keep a bad regex from hanging the run: each step is at most ~4× the previous one's work.
const STEPS = [4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 40, 64, 256, 5000]

/**
 * The same regex in V8's linear-time engine (the `l` flag, on with --enable-experimental-regexp-engine), or null
 * where that engine cannot run it (backreferences, lookarounds, the `i` and `u` flags).
 */
function linearTwin(re: RegExp): RegExp | null {
  try {
    return new RegExp(re.source, re.flags + 'l')
  } catch {
    return null
  }
}

/** What a match answered, in a form two engines can be compared on. */
function answer(re: RegExp, s: string): string {
  re.lastIndex = 0
  const m = re.exec(s)
  return m ? JSON.stringify([m.index, ...m]) : 'no match'
}

const PROJECT = '/home/dev/project'
const ctx: ClassifyContext = {
  projectDir: PROJECT,
  homeDir: '/home/dev',
  stateDir: `${PROJECT}/.ratchet`,
  session: { reads: {}, prompts: ['fix the bug and push it'] },
  fileExists: () => true,
  currentBranch: () => 'main',
}

const KB100 = 100 * 1024
const fill = (frag: string, size = KB100) => frag.repeat(Math.ceil(size / frag.length)).slice(0, size)

const COMMANDS: [string, string][] = [
  ['the 85-character snippet that once hung the hook', `python3 -c "import os; os.system('` + '\\'.repeat(60) + `x`],
  ['a command word of many $NAMEs before a slash', '$aaaa'.repeat(40) + '$/bin/x'],
  ['node snippet with a run of backslashes', `node -e "require('child_process').execSync('` + '\\'.repeat(5000)],
  ['python snippet with a run of escaped quotes', `python -c "os.system('` + "\\'".repeat(5000)],
  ['snippet with many unclosed calls', `python -c "` + 'subprocess.run(['.repeat(5000)],
  ['snippet with many open quotes', `perl -e "` + "system('".repeat(5000)],
  ['100 KB of spaces', `echo${fill(' ')}x`],
  ['100 KB of newlines', fill('\n')],
  ['100 KB of tabs and spaces', fill('\t ')],
  ['100 KB of one word', fill('a')],
  ['nested quotes', fill(`"'`)],
  ['escaped quotes', fill(`\\"`)],
  ['backslashes', fill('\\')],
  ['unclosed $( ×', fill('$(')],
  ['closed $( ) nesting', '$('.repeat(2000) + 'rm x' + ')'.repeat(2000)],
  ['${ nesting', '${X:-'.repeat(5000)],
  ['$(( nesting', '$(('.repeat(5000)],
  ['array nesting', 'a=('.repeat(5000)],
  ['process substitution nesting', '<('.repeat(5000)],
  ['backticks', fill('`')],
  ['pipes', fill('a | ')],
  ['operators', fill('&&||;;|&')],
  ['redirections', fill('> f ')],
  ['heredoc markers', fill('cat <<E ')],
  ['heredocs without end', fill('cat <<E\nx\n')],
  ['bash -c nesting', 'bash -c "'.repeat(3000)],
  ['eval nesting', 'eval '.repeat(10_000) + 'rm x'],
  ['sudo chains', 'sudo '.repeat(10_000) + 'rm x'],
  ['env -S chains', 'env -S "'.repeat(3000)],
  ['find -exec chains', 'find . ' + '-exec rm {} ; '.repeat(5000)],
  ['xargs chains', 'xargs '.repeat(10_000)],
  ['variables', 'a=b; '.repeat(5000) + '$a'.repeat(5000)],
  ['for loops', 'for a in x y z; do '.repeat(5000)],
  ['function definitions', 'f() { g; }; '.repeat(5000)],
  ['aliases', "alias a='a a'; a ".repeat(3000)],
  ['git aliases', 'git -c alias.x=x '.repeat(5000) + 'x'],
  ['curl data flags', 'curl ' + '-d x '.repeat(10_000) + 'https://x.io'],
  ['URLs', fill('https://a.b/')],
  ['SQL fragments', 'psql -c "' + fill('drop ', 50_000)],
  ['secret-looking text', fill('password= ')],
  ['token shapes', fill('sk-')],
  ['bearer', fill('Bearer ')],
  ['PEM openers', fill('-----BEGIN RSA PRIVATE KEY-----')],
  ['URL credentials', fill('https://u:')],
  ['over the size limit', fill('rm x; ', 300 * 1024)],
]

const TOOLS: [string, Record<string, unknown>][] = [
  ['Write', { file_path: `${PROJECT}/.github/workflows/x.yml`, content: fill('cron: schedule: ') }],
  ['Write', { file_path: fill('a/', 50_000), content: 'x' }],
  ['Edit', { file_path: `${PROJECT}/a.ts`, old_string: fill('\\'), new_string: fill('"') }],
  ['WebFetch', { url: fill('https://a/'), prompt: 'x' }],
  ['mcp__fs__write_file', { path: fill('../'), content: fill('x') }],
  ['mcp__shell__run', { command: fill('$(') }],
]

// Synchronous writes: a child killed on timeout has still told us which case it was on.
const emit = (o: object) => {
  const line = Buffer.from(JSON.stringify(o) + '\n')
  // stdout may be a non-blocking pipe: retry on EAGAIN until the whole line is written.
  for (let off = 0; off < line.length; ) {
    try {
      off += fs.writeSync(1, line, off)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e
    }
  }
}

function runRegexes(only?: string): void {
  const found = regexLiterals(only)
  const linear = found.filter((f) => linearTwin(f.re)).length
  emit({ count: found.length, linear })
  for (const { where, re } of found) {
    const twin = linearTwin(re)
    for (const input of adversarial(re)) {
      const name = `${where}  on ${input.name}`
      emit({ case: name })
      for (const n of STEPS) {
        const s = input.make(n)
        if (s.length > 20_000) break
        const got = answer(re, s)
        // The backtracking engine must agree with the linear one on every input the linear one can run.
        if (twin && answer(twin, s) !== got) emit({ case: `${name} (n=${n})`, wrong: got, expected: answer(twin, s) })
      }
    }
  }
  emit({ done: true })
}

/** A classification cut to what the tests check: the patterns found, and whether the command was read whole. */
function verdict(command: string): { patterns: string[]; incomplete: boolean } {
  const c = classify({ tool_name: 'Bash', tool_input: { command }, cwd: PROJECT }, ctx)
  return { patterns: [...new Set(c.findings.map((f) => f.pattern))].sort(), incomplete: c.incomplete }
}

function runCommands(): void {
  for (const [name, command] of COMMANDS) {
    emit({ case: `Bash: ${name}` })
    emit({ case: `Bash: ${name}`, ...verdict(command) })
    emit({ case: `maskSecrets: ${name}` })
    emit({ case: `maskSecrets: ${name}`, masked: maskSecrets(command) !== command })
    emit({ case: `parseShell: ${name}` })
    emit({ case: `parseShell: ${name}`, incomplete: parseShell(command).incomplete })
    emit({ case: `readCommandLine: ${name}` })
    emit({ case: `readCommandLine: ${name}`, unreadable: readCommandLine(command).unreadable.length > 0 })
  }
  emit({ done: true })
}

function runTools(): void {
  for (const [tool, input] of TOOLS) {
    const name = `${tool} ${Object.keys(input).join(',')}`
    emit({ case: name })
    const c = classify({ tool_name: tool, tool_input: input, cwd: PROJECT }, ctx)
    emit({ case: name, patterns: [...new Set(c.findings.map((f) => f.pattern))].sort(), incomplete: c.incomplete })
  }
  emit({ done: true })
}

// Run as a script only (redos.test.ts imports the regex finder from here, and spawns this file to do the work).
if (require.main === module) {
  const suite = process.argv[2]
  if (suite === 'regexes') runRegexes(process.argv[3])
  else if (suite === 'commands') runCommands()
  else if (suite === 'tools') runTools()
}
