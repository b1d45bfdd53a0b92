// What an evidence plan names: the things whose contents would leave or be staged (a push, a package, files, a
// body), the names of what leaves besides file contents, the limits gathering keeps to, and the path and text
// helpers every planner uses.

import path from 'node:path'
import type { Invocation } from '../commands'

export interface EvidenceLimits {
  /** Wall-clock budget for gathering everything for one call: what is not read by then is unread, never clean. */
  budgetMs: number
  /** Files whose contents are read (whole, streamed); more are unread. Names are checked for all listed files. */
  maxFiles: number
  /** Text sent as it is (a request body, a URL, a tool's input) scanned at most; the rest is unread. */
  maxBytesPerFile: number
  /** File names listed at most (a push of a huge tree is named in part; the rest is unread). */
  maxNames: number
}

export const DEFAULT_LIMITS: EvidenceLimits = {
  budgetMs: 1500,
  maxFiles: 20_000,
  maxBytesPerFile: 1 << 20,
  maxNames: 20_000,
}

/** Which files `git add`/`git commit -a` would stage, by pathspec (relative to `dir`). */
export interface StageSpec {
  /** Untracked files too (`git add -A`, `git add .`, `git add <path>`); else tracked changes only (`-u`, `commit -a`). */
  untracked: boolean
  /** Pathspecs relative to `dir`; empty means the whole repository. */
  pathspecs: string[]
  /** `-f`: ignored files named by the pathspecs are staged too. */
  force: boolean
  /** The command that stages, for the note (`git add -A`). */
  by: string
}

export interface PushSpec {
  /** Remote name or URL as written; undefined means the branch's configured remote (else origin). */
  remote?: string
  /** Local refs whose commits are sent (`HEAD` when none is named). */
  sources: string[]
  /** `--all`, `--branches` or `--mirror`: every local branch. */
  allBranches: boolean
  tags: boolean
  /** The refspecs as written (`main`, `HEAD:refs/heads/x`, `v1.2`): their names leave too. */
  refspecs?: string[]
  /** Branches the line creates or switches to before the push: not there yet when it is read, named when it runs. */
  lineBranches?: string[]
  /** Of those, the ones the line creates, and where each begins: the push's commits are read from there. */
  lineStarts?: Record<string, string>
  /** Git options on the push itself that change where it goes (`-c remote.origin.pushurl=…`). */
  redirected?: string
  command: string
}

/** A commit or tag message the line itself writes: its text (`-m`), or the file it is read from (`-F f`). */
export interface LineMessage {
  text?: string
  file?: string
  by: string
}

export type EvidenceTarget =
  /** Git work in one repository: staging and committing earlier in the line, then maybe a push. */
  | {
      kind: 'git'
      dir: string
      stages: StageSpec[]
      commits: number
      push?: PushSpec
      command: string
      commands: string[]
      /**
       * Private files (by name) that earlier commands in the same line read or write (`cp .env notes.txt`,
       * `cat .env >> README.md`): what the staging then picks up cannot be seen before it runs.
       */
      touched?: { path: string; by: string }[]
      /** The repository is not where it seems (`--git-dir`, `GIT_DIR=`, a `$VAR` in the path): never "nothing to send". */
      uncertain?: boolean
      /** Commit and tag messages this line writes before the push. */
      messages?: LineMessage[]
      /** An earlier command in the line changes where pushes go (`git remote set-url`, `git config url.…`). */
      redirected?: string
    }
  /** A package about to be published: its file list comes from `npm pack --dry-run`. */
  | { kind: 'package'; dir: string; tool: string; command: string; tarball?: string }
  /**
   * Local files sent somewhere (curl -F f=@x, scp, rsync, gist, s3 cp…); directories are walked. `how` says how
   * they leave when it is not an upload (`read by $(…) into the arguments of dig`); `optional` files that do
   * not exist are left out (a reader's operand that was a value, not a file: `head -c 30 .env`).
   */
  | { kind: 'files'; paths: string[]; command: string; dest?: string; how?: string; optional?: boolean }
  /** A literal body sent (curl -d '…', here-document). */
  | { kind: 'body'; text: string; command: string; dest?: string; name?: string }
  /** Something leaves whose content cannot be known before it runs (`… | curl -d @-`). */
  | { kind: 'unknown'; why: string; command: string }

export interface EvidencePlan {
  targets: EvidenceTarget[]
  /** The command could not be read completely: callers assume the worst. */
  incomplete: boolean
}

/** The name a request body goes by in the evidence (scanned like an env file: `key=value` counts). */
export const BODY = '(request body)'

/**
 * What leaves besides file contents, each scanned like a request body: a push's commit and tag messages, the
 * names of its refs and files and its destination; what a web fetch or search, an MCP tool or a network
 * program's arguments send.
 */
export const LEAVING = {
  commits: '(commit messages)',
  tags: '(tag messages)',
  refs: '(ref names)',
  names: '(file names)',
  destination: '(destination)',
  url: '(URL)',
  query: '(search query)',
  input: '(tool input)',
  args: '(arguments)',
} as const
export const LEAVING_TEXT: ReadonlySet<string> = new Set(Object.values(LEAVING))

/** The worst reading of a push we could not read (an interpreter, an alias): everything stageable, committed and pushed. */
export function worstCasePush(dir: string, command: string): Extract<EvidenceTarget, { kind: 'git' }> {
  return {
    kind: 'git',
    dir,
    stages: [{ untracked: true, pathspecs: [], force: false, by: 'a command Ratchet could not read' }],
    commits: 1,
    push: { sources: ['HEAD'], allBranches: false, tags: false, command },
    command,
    commands: [command],
  }
}

export function cwdOf(inv: Invocation, cwd: string, home: string): string {
  let d = cwd
  for (const c of inv.cwdChanges) d = resolvePath(c, d, home)
  return d
}

export function resolvePath(p: string, base: string, home: string): string {
  let q = p
  if (q === '~' || q.startsWith('~/')) q = home + q.slice(1)
  q = q.replace(/^\$\{?HOME\}?(?=\/|$)/, home)
  return path.posix.resolve(base, q)
}

export function oneLine(s: string, max = 120): string {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > max ? t.slice(0, max - 1) + '…' : t
}
