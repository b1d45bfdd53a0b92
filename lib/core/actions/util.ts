// Small readers shared by several families.

import type { Invocation } from '../commands'
import type { ClassifyContext, Sink } from './types'

/** The single-letter flags of an argument list run together: `-fd -x` → `fdx`. */
export const shortFlags = (args: string[]): string => args.filter((a) => /^-[a-zA-Z]+$/.test(a)).join('')

export const hasFlag = (args: string[], short: string, ...long: string[]): boolean =>
  shortFlags(args).includes(short) || args.some((a) => long.includes(a))

export function isLocalUrl(url: string): boolean {
  return /^(https?:\/\/)?(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)(:|\/|$)/.test(url)
}

/** Outside the project and the temporary folders (devices count as inside: `> /dev/null`). */
export function outsideProject(ctx: ClassifyContext, abs: string): boolean {
  const { projectDir } = ctx
  if (abs === projectDir || abs.startsWith(projectDir + '/')) return false
  if (abs.startsWith('/dev/') || abs === '/dev/null') return false
  const tmps = ctx.tmpDirs ?? ['/tmp', '/var/tmp']
  return !tmps.some((t) => abs === t || abs.startsWith(t + '/'))
}

/** `s` without its trailing slashes. A loop, not `/\/+$/`: that regex is quadratic on a long run of slashes followed by anything else. */
/**
 * The paths an MCP tool's input names: string values under keys that `pathKey` takes, anywhere in the input
 * (bounded: 50 values, 50 entries a level, 3 levels, 4 KB a value), a `file://` scheme dropped.
 */
export function mcpInputPaths(input: Record<string, unknown>, pathKey: RegExp): string[] {
  const found: string[] = []
  const walk = (v: unknown, key: string, depth: number) => {
    if (found.length > 50 || depth > 3) return
    if (typeof v === 'string') {
      if (pathKey.test(key) && v.length < 4096) found.push(v.replace(/^file:\/\//, ''))
    } else if (Array.isArray(v)) for (const x of v.slice(0, 50)) walk(x, key, depth + 1)
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v).slice(0, 50)) walk(x, k, depth + 1)
  }
  walk(input, '', 0)
  return found
}

export function trimTrailingSlashes(s: string): string {
  let end = s.length
  while (end > 0 && s.charCodeAt(end - 1) === 47) end--
  return s.slice(0, end)
}

export function oneLine(s: string, max = 160): string {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > max ? t.slice(0, max - 1) + '…' : t
}

/**
 * A dry run: the program reports what it would do and does nothing. `--dry-run=none` (kubectl) and
 * `--dry-run=false` are real runs.
 */
export function dryRun(args: string[]): boolean {
  // The last word on the matter wins (`--dry-run --dry-run=false` publishes).
  const last = args.filter((a) => /^--(no-)?dry-?run(=|$)/.test(a)).pop()
  return last !== undefined && !last.startsWith('--no-') && !/=(none|false|0|no)$/i.test(last)
}

/** Programs that cannot move or create the file a later deletion on the same line removes. */
const HARMLESS_BEFORE = new Set([
  'cd',
  'pushd',
  'popd',
  'echo',
  'printf',
  'true',
  'false',
  'ls',
  'pwd',
  'test',
  '[',
  'sleep',
])

/** Build output and caches: deleting them loses nothing a build or install cannot bring back. */
const BUILD_OUTPUT =
  /(^|\/)(node_modules|dist|build|out|target|coverage|\.next|\.nuxt|\.svelte-kit|\.turbo|\.parcel-cache|\.cache|\.gradle|__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache|\.tox|\.venv|venv|\.eggs|[^/]+\.egg-info|bin\/Debug|bin\/Release|obj|_build|deps|\.dart_tool|\.angular|storybook-static|\.vite|\.eslintcache|tsconfig\.tsbuildinfo)(\/|$)|\.(pyc|pyo|o|obj|class|tsbuildinfo)$/

export const isBuildOutput = (rel: string): boolean => BUILD_OUTPUT.test(rel)

/** Whether the agent created this path (or a folder holding it) in this session or earlier in this call. */
export function createdByAgent(c: Sink, abs: string): boolean {
  const created = c.ctx.session.created ?? {}
  for (let p = abs; p && p !== '/'; p = p.slice(0, p.lastIndexOf('/')) || '/')
    if (p in created || c.created.has(p)) return true
  return false
}

/**
 * Whether deleting `abs` loses nothing that cannot be brought back: the agent's own file, content git restores
 * (tracked and clean), ignored build output, or nothing at all. Unknown (no provider, timeout, a `$VAR` in the
 * path) is the worst reading: not recoverable.
 */
export function recoverableDeletion(c: Sink, raw: string, abs: string, earlier: Invocation[] = []): boolean {
  if (/[$`]/.test(raw)) return false
  const state = c.ctx.fileState?.(abs)
  // A provider that cannot answer (timeout, a symbolic link leading elsewhere) outweighs "the agent made it".
  if (c.ctx.fileState && state === undefined) return false
  if (createdByAgent(c, abs)) return true
  if (state === 'tracked-clean') return true
  // Nothing there now, and nothing earlier on the line can have put something there (`mv notes.txt x && rm x`).
  if (state === 'missing') return earlier.every((e) => HARMLESS_BEFORE.has(e.name))
  if (state === 'ignored')
    return BUILD_OUTPUT.test(abs.startsWith(c.ctx.projectDir + '/') ? abs.slice(c.ctx.projectDir.length + 1) : abs)
  return false
}

/** Whether discarding changes to `abs` (checkout/restore of a path, reset --hard) loses no uncommitted work. */
export function nothingToDiscard(c: Sink, abs: string): boolean {
  const state = c.ctx.fileState?.(abs)
  return state === 'tracked-clean' || state === 'untracked' || state === 'ignored' || state === 'missing'
}

/**
 * The operands of a command: what is left when options are taken away. One reader for every family (issue 8
 * found two that disagreed):
 * - `--` ends the options; everything after it is an operand;
 * - `-` alone is an operand (standard input or output, as for `tar -f -`, `cat -`);
 * - an option in `withValue` takes the next word as its value (`kubectl -n prod delete`, `cp -t dir`); written
 *   `--opt=value` it is one word and takes nothing more; any other `-x`/`--long` stands alone;
 * - `+word` is an operand, except a leading one when `leadingPlus` says it is a toolchain (`cargo +nightly publish`).
 */
export function operandsAfter(
  args: string[],
  withValue: readonly string[],
  opts: { leadingPlus?: boolean } = {},
): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a === '--') {
      out.push(...args.slice(i + 1))
      break
    }
    if (a.startsWith('-') && a !== '-') {
      if (withValue.includes(a)) i++
      continue
    }
    if (opts.leadingPlus && out.length === 0 && a.startsWith('+')) continue
    out.push(a)
  }
  return out
}

/**
 * chmod's words: its mode can look like an option (`chmod -x f`, `chmod -R -w dir`), so only `-R`, `-v`, `-c`,
 * `-f` and long options are options; the first other word is the mode, the rest are files. chown/chgrp alike
 * (their owner is the first operand).
 */
export function chmodWords(args: string[]): { mode?: string; files: string[]; recursive: boolean } {
  let mode: string | undefined
  const files: string[] = []
  let recursive = false
  let reference = false
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a === '--') {
      for (const r of args.slice(i + 1)) mode === undefined && !reference ? (mode = r) : files.push(r)
      break
    }
    if (/^-[RvcfHLP]+$/.test(a) || a.startsWith('--')) {
      if (a === '--recursive' || /^-[a-zA-Z]*R/.test(a)) recursive = true
      if (a.startsWith('--reference')) reference = true
      if (a === '--reference') i++
      continue
    }
    if (mode === undefined && !reference) mode = a
    else files.push(a)
  }
  return { mode, files, recursive }
}

/** A mode that takes the owner's read access away (`000`, `0`, `a-r`, `u=`, `-rwx`): a tree chmod'ed so is as good as lost. */
export function removesAccess(mode: string): boolean {
  if (/^[0-7]{1,4}$/.test(mode)) {
    const digits = mode.padStart(3, '0')
    return Number(digits[digits.length - 3]) < 4
  }
  return mode.split(',').some((part) => {
    const m = /^([ugoa]*)([-=])([rwxXst]*)$/.exec(part)
    if (!m) return false
    const who = m[1] || 'a'
    if (!/[ua]/.test(who)) return false
    return m[2] === '-' ? m[3].includes('r') : !m[3].includes('r')
  })
}

/** `'.rat' + 'chet'`, `".rat" "chet"`, `'.rat'.concat('chet')`, `['.rat','chet'].join('')` read as one string. */
export function joinLiterals(code: string): string {
  return code
    .slice(0, 65_536)
    .replace(/(['"`])\s*\+\s*(['"`])/g, '')
    .replace(/(['"])[ \t]+(['"])/g, '')
    .replace(/(['"])\s*(?:\)\s*)?\.concat\(\s*(['"])/g, '')
    .replace(/(['"])\s*,\s*(['"])(?=[^\]]{0,200}\]\s*\.join\(\s*(['"])\3\s*\))/g, '')
}

/**
 * A find/shell glob (`*`, `?`, `[…]`) against a file name, case-insensitively (`-iname` too), in linear-times-pattern
 * time (two pointers, no regex: an agent's glob of many stars cannot backtrack). A class `[…]` matches any one
 * character: a superset, so nothing that would be deleted is missed.
 */
export function globMatch(glob: string, name: string): boolean {
  const g: string[] = []
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]
    if (c === '[') {
      const end = glob.indexOf(']', i + 2)
      if (end > 0) {
        g.push('?')
        i = end
        continue
      }
    }
    if (c === '\\' && i + 1 < glob.length) {
      g.push(glob[++i].toLowerCase())
      continue
    }
    g.push(c === '*' || c === '?' ? c : c.toLowerCase())
  }
  const s = name.toLowerCase()
  let gi = 0
  let si = 0
  let star = -1
  let mark = 0
  while (si < s.length) {
    if (gi < g.length && (g[gi] === '?' || g[gi] === s[si])) {
      gi++
      si++
    } else if (gi < g.length && g[gi] === '*') {
      star = gi++
      mark = si
    } else if (star >= 0) {
      gi = star + 1
      si = ++mark
    } else return false
  }
  while (gi < g.length && g[gi] === '*') gi++
  return gi === g.length
}

/** What a command writes through its redirect, when visible: echo/printf words, a here-document, a file `cat` copies. */
export function writtenText(inv: Invocation, ctx: ClassifyContext, at: (p: string) => string): string | undefined {
  if (inv.name === 'echo')
    return inv.args
      .filter((w, i) => !(i === 0 && /^-[neE]+$/.test(w)))
      .join(' ')
      .replace(/\\n/g, '\n')
      .replace(/\\t/g, '\t')
  if (inv.name === 'printf') return (inv.args[0] ?? '').replace(/\\n/g, '\n').replace(/\\t/g, '\t')
  if ((inv.name === 'cat' || inv.name === '') && inv.stdin !== undefined) return inv.stdin
  if (inv.name === 'cat' && inv.args.length === 1 && !inv.args[0].startsWith('-'))
    return ctx.fs?.readText(at(inv.args[0]))
  return undefined
}
