// Words and options: the small readings every peeler shares (a program's name, an option's value, quoting).

import type { CodeSnippet } from './types'

export const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  '!',
  '{',
  '}',
  'function',
  'esac',
  'in',
  'select',
  'coproc',
])

export const SHELLS = new Set([
  'bash',
  'sh',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'fish',
  'ash',
  'csh',
  'tcsh',
  'yash',
  'posh',
])

const INTERPRETERS: Record<string, { lang: CodeSnippet['lang']; flags: string[] }> = {
  python: { lang: 'python', flags: ['-c'] },
  pypy: { lang: 'python', flags: ['-c'] },
  node: { lang: 'node', flags: ['-e', '--eval', '-p', '--print'] },
  nodejs: { lang: 'node', flags: ['-e', '--eval', '-p', '--print'] },
  bun: { lang: 'node', flags: ['-e', '--eval'] },
  deno: { lang: 'node', flags: ['eval'] },
  tsx: { lang: 'node', flags: ['-e', '--eval', '-p', '--print'] },
  perl: { lang: 'perl', flags: ['-e', '-E'] },
  ruby: { lang: 'ruby', flags: ['-e'] },
  php: { lang: 'php', flags: ['-r'] },
}

export function programName(word: string): string {
  const slash = word.lastIndexOf('/')
  if (slash >= 0) return word.slice(slash + 1)
  return word.charCodeAt(0) === 92 /* \\ */ ? word.slice(1) : word
}

export function interpreterOf(name: string): (typeof INTERPRETERS)[string] | undefined {
  // python3.12 → python (a loop, not /[\d.]+$/, which is quadratic on a long run of digits)
  let end = name.length
  for (let ch = name.charAt(end - 1); (ch >= '0' && ch <= '9') || ch === '.'; ch = name.charAt(end - 1)) end--
  return INTERPRETERS[name.slice(0, end)] ?? INTERPRETERS[name]
}

export const isAssignment = (w: string) => /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(w)

export const short = (s: string) => (s.length > 60 ? s.slice(0, 59) + '…' : s).replace(/\s+/g, ' ')

/** Quotes a word so that re-reading it as shell gives the same word back. */
export function quote(w: string): string {
  return /^[\w@%+=:,./{}-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`
}

/** Drops leading options (and the values of those listed as taking one) up to the command word. */
export function skipOptions(args: string[], withValue: Set<string>): string[] {
  let i = 0
  while (i < args.length) {
    const a = args[i]!
    if (a === '--') return args.slice(i + 1)
    if (!a.startsWith('-') || a === '-') break
    if (withValue.has(a)) i += 2
    else i += 1
  }
  return args.slice(i)
}

/** The value of `-c x`, `-cx` (single-letter only), `--command x` or `--command=x`. */
export function optionValue(args: string[], names: string[]): string | undefined {
  for (const [i, a] of args.entries()) {
    if (a === '--') return undefined
    if (names.includes(a)) return args[i + 1]
    for (const n of names) {
      if (n.startsWith('--') && a.startsWith(n + '=')) return a.slice(n.length + 1)
    }
  }
  return undefined
}

/** A path without its trailing slashes (`dir/` → `dir`; `/` stays). */
export function trimSlashes(p: string): string {
  let end = p.length
  while (end > 1 && p[end - 1] === '/') end--
  return p.slice(0, end)
}

/** A path as written, normalised for matching a file written earlier in the line (`./x.sh` = `x.sh`). */
export function normPath(p: string): string {
  const parts: string[] = []
  for (const seg of p.split('/')) {
    if (seg === '.' || (seg === '' && parts.length)) continue
    parts.push(seg)
  }
  return parts.join('/') || p
}

/** The folders a `find` searches: its words before the first test, option or `(`/`!` (none: `.`, as find does). */
export function findRoots(args: string[]): string[] {
  const roots: string[] = []
  for (const a of args) {
    if (a.startsWith('-') || a === '(' || a === '!') break
    roots.push(a)
  }
  return roots
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
Object.setPrototypeOf(INTERPRETERS, null)
