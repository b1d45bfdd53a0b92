// The fast path's reading of a call, pure: which tools and plain read-only commands it may settle, and what such
// a call reads and names, classified as the full engine would (lib/core/classify.ts). Part of the fast bundle
// (fast.ts): it imports nothing of the full engine.

import path from 'node:path'
import { oneLine } from '../../lib/core/actions/util'

/** Read-only tools the fast path may settle (all in facts.ts READ_ONLY_TOOLS; a test keeps it so). */
export const FAST_TOOLS: ReadonlySet<string> = new Set([
  'Read',
  'NotebookRead',
  'Glob',
  'Grep',
  'LS',
  'TodoWrite',
  'TodoRead',
  'ToolSearch',
  'TaskList',
  'TaskGet',
  'TaskOutput',
])

/** Fields of these tools that name a file or folder. */
const PATH_FIELDS: Record<string, string[]> = {
  Read: ['file_path', 'notebook_path'],
  NotebookRead: ['file_path', 'notebook_path'],
  Glob: ['path'],
  Grep: ['path'],
  LS: ['path'],
}

const ANY = () => true
const RECURSIVE_GREP = (x: string) => /^-[a-zA-Z]*[rR]|^--(recursive|dereference-recursive|directories)/.test(x)
const NAMES_ONLY = (x: string) =>
  (/^-[a-zA-Z]+$/.test(x) && /[lLcq]/.test(x.slice(1))) ||
  /^--(files|files-with-matches|files-without-match|count|quiet)$/.test(x)
/**
 * Programs that only read, each with a test of its arguments. A program is here only if the full engine
 * gives it no finding in ordinary use; options that write a file or run another program are refused.
 */
export const PROGRAMS: Record<string, (args: string[]) => boolean> = {
  ls: ANY,
  cat: ANY,
  head: ANY,
  tail: (a) => !a.some((x) => /^-[a-zA-Z]*[fF]|^--follow/.test(x)),
  nl: ANY,
  wc: ANY,
  grep: ANY,
  egrep: ANY,
  fgrep: ANY,
  rg: (a) => !a.some((x) => x.startsWith('--pre')),
  pwd: ANY,
  stat: ANY,
  du: ANY,
  diff: ANY,
  cmp: ANY,
  which: ANY,
  basename: ANY,
  dirname: ANY,
  realpath: ANY,
  readlink: ANY,
  echo: ANY,
  whoami: ANY,
  uname: ANY,
  git: gitReads,
}

/** The pagers and printers whose operands the full engine records as read (lib/core/actions/fs-read.ts). */
const READERS = new Set(['cat', 'head', 'tail', 'nl'])

const GIT_READS = new Set([
  'status',
  'log',
  'diff',
  'show',
  'blame',
  'ls-files',
  'rev-parse',
  'shortlog',
  'describe',
  'branch',
  'remote',
])
const BRANCH_LIST = new Set(['-a', '-r', '-v', '-vv', '--all', '--remotes', '--list', '--show-current', '--no-color'])

/** `git <sub> …` for a sub-command that only reads; no global option first (-C, -c, --git-dir…). */
function gitReads(a: string[]): boolean {
  const sub = a[0] ?? ''
  if (!GIT_READS.has(sub)) return false
  const rest = a.slice(1)
  if (sub === 'branch') return rest.every((x) => BRANCH_LIST.has(x))
  if (sub === 'remote') return rest.every((x) => x === '-v' || x === '--verbose')
  return !rest.some((x) => /^--(output|ext-diff|textconv|no-index|exec)/.test(x))
}

/** Words anywhere in the input that mean "let the full engine look" (secrets, Ratchet's and Claude's own files). */
const SUSPICIOUS =
  /\.env|ratchet|\.claude|\.ssh|secret|credential|token|passw|private|\.pem|\.key|id_rsa|id_ed25519|id_ecdsa|id_dsa|netrc|npmrc|pypirc|\.aws|kube|gnupg|environ|htpasswd|\.git\/|keychain|__proto__|:\/\//i

/** A run of 16+ letters and digits holding both, twice each (a key or a piece of one; not a long file name). */
function mayHoldKey(text: string): boolean {
  for (const m of text.matchAll(/[A-Za-z0-9]{16,}/g))
    if (/\d\D*\d/.test(m[0]) && /[A-Za-z][^A-Za-z]*[A-Za-z]/.test(m[0])) return true
  return false
}

/** One plain word: letters, digits and `_./,:=+@%-`; `~` only inside a word (HEAD~1), never where the shell expands it. */
const BARE = /^[A-Za-z0-9_./,:=+@%-](?:[A-Za-z0-9_./,:=+@%~-]*)$/
const QUOTED = /^[A-Za-z0-9_./,:=+@% -]+$/

/** The words of a command made only of plain and simply quoted words, or null for anything else. */
export function plainWords(command: string): string[] | null {
  if (command.length > 1000) return null
  const out: string[] = []
  let i = 0
  while (i < command.length) {
    const c = command[i]
    if (c === ' ' || c === '\t') {
      i++
      continue
    }
    if (c === '"' || c === "'") {
      const end = command.indexOf(c, i + 1)
      if (end < 0) return null
      const w = command.slice(i + 1, end)
      if (!QUOTED.test(w)) return null
      i = end + 1
      if (i < command.length && command[i] !== ' ' && command[i] !== '\t') return null
      out.push(w)
      continue
    }
    let j = i
    while (j < command.length && command[j] !== ' ' && command[j] !== '\t') j++
    const w = command.slice(i, j)
    if (!BARE.test(w) || /[=:]~/.test(w)) return null
    out.push(w)
    i = j
  }
  return out
}

export interface FastCall {
  /** As the full engine's classification says it (the activity line's `action`). */
  summary: string
  /** Files the call reads, as the full engine records them in the session. */
  reads: string[]
  /** The classification's command strings (what command globs match against). */
  commands: string[]
  /** Every path the call names, to be checked on disk before it is settled. */
  paths: string[]
  /**
   * Folders a search prints matching lines from: settled only when no secret file lies under them (the full
   * engine would record one as read: lib/core/actions/secrets.ts searchReads).
   */
  searched?: string[]
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/**
 * A call the fast path may settle, classified as the full engine would (lib/core/classify.ts), or null.
 * Pure: `cwd` is where relative paths resolve (the call's cwd, else the project). The words that send a call
 * on are looked for below the project folder (whose own name may be anything, `ratchet-demo` included).
 */
export function readOnlyCall(
  tool: string,
  input: Record<string, unknown>,
  cwd: string,
  projectDir = cwd,
): FastCall | null {
  if (
    SUSPICIOUS.test(
      JSON.stringify(input)
        .split(projectDir + '/')
        .join('/'),
    )
  )
    return null
  // A word that could be a key (letters and digits mixed, 16 or more): the full engine logs the call with the
  // secrets this session has seen redacted (redact.ts); this path would log it as typed.
  if (tool === 'Bash' && mayHoldKey(JSON.stringify(input))) return null
  const at = (p: string) => (p.startsWith('~') || p.includes('$') ? null : path.posix.resolve(cwd, p))
  if (tool === 'Bash') {
    if (Object.keys(input).some((k) => k !== 'command' && k !== 'description' && k !== 'timeout')) return null
    const command = input.command
    if (typeof command !== 'string') return null
    const words = plainWords(command)
    if (!words?.length) return null
    const [name, ...args] = words
    if (!Object.hasOwn(PROGRAMS, name) || !PROGRAMS[name](args)) return null
    // `--help` makes the full engine skip the program's detector (and its reads): not worth mirroring.
    if (args.some((a) => a === '--help' || a === '--version')) return null
    const paths: string[] = []
    for (const a of args) {
      // The operand, and the file part the full engine's secret check reads out of `x=file`, `@file`, `--opt=file`.
      const value = a.startsWith('-') ? (a.includes('=') ? a.slice(a.indexOf('=') + 1) : '') : a
      const file = /^(?:[\w.-]*=)?[@<]?([^=@<]+)$/.exec(value)?.[1]
      for (const p of [value, file]) {
        if (!p) continue
        const abs = at(p)
        if (!abs) return null
        paths.push(abs)
      }
    }
    const reads = READERS.has(name) ? args.filter((a) => !a.startsWith('-')).map((a) => at(a)!) : []
    // Every operand (the pattern too: a path that is not there holds nothing), or the folder rg searches by default.
    const search = (name === 'rg' || (/^[ef]?grep$/.test(name) && args.some(RECURSIVE_GREP))) && !args.some(NAMES_ONLY)
    const searched = search ? (name === 'rg' ? [cwd, ...paths] : paths) : undefined
    return {
      summary: oneLine(command),
      reads,
      commands: [[name, ...args].join(' ')],
      paths,
      ...(searched ? { searched } : {}),
    }
  }
  if (!FAST_TOOLS.has(tool)) return null
  const paths: string[] = []
  for (const k of PATH_FIELDS[tool] ?? []) {
    if (input[k] === undefined) continue
    if (typeof input[k] !== 'string') return null
    const abs = at(input[k] as string)
    if (!abs) return null
    paths.push(abs)
  }
  if (tool === 'Read' || tool === 'NotebookRead') {
    const file = str(input.file_path) || str(input.notebook_path)
    if (!file) return null
    return { summary: `${tool} ${file}`, reads: [at(file)!], commands: [], paths }
  }
  const searched = tool === 'Grep' && input.output_mode === 'content' ? (paths.length ? paths : [cwd]) : undefined
  return {
    summary: `${tool} ${oneLine(JSON.stringify(input))}`,
    reads: [],
    commands: [],
    paths,
    ...(searched ? { searched } : {}),
  }
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [PATH_FIELDS]) Object.setPrototypeOf(table, null)
