// The shapes every action family shares: what the classifier knows about the world (`ClassifyContext`),
// what it reports (`Classification`), and the small surface a family's detector writes to (`Sink`).
// Kept apart from the families and the dispatcher so neither imports the other's code.

import type { CodeSnippet, Invocation } from '../commands'
import type { ActionClass } from '../patterns'

export interface Finding {
  class: ActionClass
  pattern: string
  /** One line naming what was seen, e.g. `git push origin main`. */
  detail: string
  /** The seed's "any action that would be P1 if wrong": hard by default, whatever the rules say. */
  catastrophic?: boolean
  /** What it destroys, sends or pays that nothing brings back: a human decides unless the user asked for exactly this. */
  lost?: Irrevocable
}

/**
 * What a call would destroy, send or pay that no one can take back (a cloud resource, a namespace, a table, a
 * published version, a mail, a refund). Unasked, it waits for a human; asked for by the user's latest message
 * (its verb and every name in `names`), it is a check that names it, or nothing at all for a local development
 * resource (`local`). preflight-check's note carries `what`: never a bare "irreversible".
 */
export interface Irrevocable {
  kind: 'destroys' | 'sends' | 'pays'
  /** Exactly what goes: `namespace prod and everything in it`, `every object under s3://assets/`, `mail to boss@example.com`. */
  what: string
  /** What the user's words must name for a request to cover it: every group, by one of its words (the program's name when empty). */
  names: string[][]
  /** A local development resource (a database on localhost, the project's SQLite file): asked for, it runs quietly. */
  local?: boolean
  /** Refs deleted on a remote (`git push origin --delete x`): their tips are what an approval binds to (lib/io/destroyed.ts). */
  remoteRefs?: { dir: string; remote: string; refs: string[] }
}

export interface SessionFacts {
  /** Absolute paths read (or created) since the last compaction. */
  reads: Record<string, number>
  /** The user's prompts in this session, oldest first. */
  prompts: string[]
  /** Absolute paths the agent created in this session: deleting or overwriting them loses nothing of the user's. */
  created?: Record<string, number>
  /** Secrets read in this session (paths or stores, e.g. `/p/.env`, `env`): a later send off the machine is checked. */
  secrets?: Record<string, number>
}

/**
 * What can be recovered of a path if it is deleted or overwritten, as git sees it. `tracked-clean`: git restores
 * it; `ignored`: build output (node_modules, dist); `missing`: nothing there; `outside`: not in the project's
 * repository; a folder is `untracked`/`tracked-modified` if anything under it is.
 */
export type FileState = 'tracked-clean' | 'tracked-modified' | 'untracked' | 'ignored' | 'missing' | 'outside'

/**
 * A path a call would delete or overwrite, and what of it goes: `all` (rm, mv over), only uncommitted changes to
 * tracked files (`git checkout -- p`, `restore`, `reset --hard`), or only untracked files (`git clean -f`; with
 * `-x` ignored ones too: `untracked+ignored`).
 */
export interface Deletion {
  path: string
  lose: 'all' | 'changes' | 'untracked' | 'untracked+ignored'
  /** Only files whose name matches one of these globs go (`find dir -name '*.pyc' -delete`). */
  names?: string[]
}

export interface ClassifyContext {
  projectDir: string
  homeDir: string
  stateDir: string
  session: SessionFacts
  fileExists(absPath: string): boolean
  currentBranch(dir: string): string | undefined
  /**
   * Whether the repository containing `dir` has a remote counted as public (config `publicRemotes`).
   * A local `git add`/`commit` is the seed's commit_to_public_repo only there; omitted = every repository.
   */
  publicRemote?(dir: string): boolean
  tmpDirs?: string[]
  /** File-system facts (realpath, listings, file text, scripts a command runs), lazily read. */
  fs?: FsFacts
  /** Ratchet's per-user config folder ($XDG_CONFIG_HOME/ratchet): its token and keys are not the agent's to read (ratchet-keys.ts). */
  configHome?: string
  /** The folders in memory the warm decision process hands requests through (lib/runtime/warm.ts): private like configHome. */
  warmDirs?: string[]
  /** An environment variable of the agent's session (`DATABASE_URL`, `PGHOST`): where a database command connects. */
  env?(name: string): string | undefined
  /** Secret files (secrets.ts secretName) under a folder, bounded; for searches that read every file under it. */
  secretFilesUnder?(dir: string): string[]
  /** Whether a file holds this text (false: certainly not; undefined: could not tell, so assume it does). */
  fileMentions?(file: string, text: string, ignoreCase: boolean): boolean | undefined
  /** Where the running Ratchet package is installed (its bin/, dist/): protected like the state folder. */
  packageDir?: string
  /**
   * This call's commands run inside Claude Code's OS sandbox with the floor's rules (sandbox mode, and the command is
   * not one the settings exclude from it): the kernel keeps them off Ratchet's files, so the reader does not try to.
   */
  sandboxed?: boolean
  /**
   * Fact provider for "irreversible means unrecoverable": asked only when a deletion or overwrite is found. Absent,
   * failed or timed out: the caller gets `undefined` and assumes the worst (unrecoverable).
   */
  fileState?(absPath: string): FileState | undefined
}

export interface Classification {
  tool: string
  summary: string
  findings: Finding[]
  commands: string[]
  paths: string[]
  urls: string[]
  /** Files this call reads or creates: they count as seen for the stale-data check. */
  reads: string[]
  /** Files this call creates (new files, new folders): the session remembers them as the agent's own. */
  created: string[]
  /**
   * What this call would delete or overwrite that the classifier could not call recoverable (not the agent's own,
   * not tracked and clean, not build output): absolute paths with known names, whose loss preflight-check weighs
   * with evidence gathered from disk (lib/io/loss-facts.ts). Unknown targets (`rm $X`, `xargs rm`) are not here.
   */
  deleted: Deletion[]
  /** Secrets this call reads (paths, or stores such as `env`, `keychain`): the session remembers them. */
  secrets: string[]
  /** Set when the command could not be read completely; callers treat it with suspicion. */
  incomplete: boolean
  /**
   * What the call does that the built-ins leave alone because it can be undone (deleting a tracked, clean file
   * git restores): no class, not in `findings`. Only a rule that names the pattern itself (`"pattern":
   * "file_delete"`) sees it, since that is the user asking to hear about every such call.
   */
  restorable?: Finding[]
}

export interface ToolCall {
  tool_name: string
  tool_input: Record<string, unknown>
  cwd?: string
}

/** What a detector may do: record a finding, a path touched, a file read or created, a secret read. */
export interface Sink {
  readonly ctx: ClassifyContext
  readonly paths: Set<string>
  readonly reads: Set<string>
  readonly created: Set<string>
  /** Paths this call would delete or overwrite, not recoverable as far as the classifier knows (see Classification.deleted). */
  readonly deleted: Map<string, Omit<Deletion, 'path'>>
  readonly secrets: Set<string>
  /** What was found so far in this call (read-only: findings are added through `add`). */
  readonly findings: readonly Finding[]
  add(pattern: string, detail: string, catastrophic?: boolean): void
  /** Records a finding that destroys, sends or pays what nothing brings back (see Irrevocable). */
  irrevocable(pattern: string, detail: string, lost: Irrevocable): void
  /** Records an effect that can be undone (see Classification.restorable). */
  restorable(pattern: string, detail: string): void
  /** Classifies a shell command found inside this one (a git alias `!…`, an MCP tool's `command`). */
  shell(command: string): void
}

/** Facts about one invocation, worked out once by the dispatcher. */
export interface InvocationFacts {
  /** The command as one line: `git push origin main`. */
  cmd: string
  /** Resolves a path against the directory the invocation runs in (after `cd`, `~`, `$HOME`). */
  at: (p: string) => string
  /** Arguments that are not options. */
  operands: string[]
  /** The directory the invocation runs in. */
  base: string
  /** The invocation before this one on the same command line, if any (it may feed this one through a pipe). */
  prev?: Invocation
  /** Every invocation before this one on the same command line. */
  earlier?: Invocation[]
}

export type Detector = (c: Sink, inv: Invocation, f: InvocationFacts) => void

/** A scanner of interpreter one-liners (`python -c`, `node -e`, …); `detail` names the snippet. */
export type CodeScanner = (c: Sink, s: CodeSnippet, detail: string) => void

export interface FamilyMeta {
  id: string
  /** The trigger classes this family's patterns belong to. */
  classes: readonly ActionClass[]
  /** The named patterns it reports. */
  patterns: readonly string[]
  description: string
  examples: readonly string[]
}

/** Facts about the file system the I/O shell provides (lazily, bounded; never following a FIFO or device). */
export interface FsFacts {
  /** The canonical path (symlinks resolved) of `abs`; for a path that does not exist, of its nearest existing parent plus the rest. */
  realpath(abs: string): string | undefined
  isDir(abs: string): boolean
  /** Names in a folder (bounded), or undefined. */
  list(dir: string): string[] | undefined
  /** The text of a regular file (bounded), or undefined when it is not one or cannot be read. */
  readText(abs: string): string | undefined
  /**
   * A script file a command runs (`sh x.sh`, `npm test`'s package.json, a Makefile): its text (bounded, regular
   * files only), why it cannot be read, or `binary` for a compiled program; undefined when nothing is there.
   */
  script?(abs: string): { text?: string; problem?: string; binary?: boolean } | undefined
}
