// What preflight-check's pure decision reads: every fact gather.ts collects, once, into a `PreflightFacts`
// (see compose.ts), and the classifier's view of them.

import type { ClassifyContext, FileState } from '../../lib/core/classify'
import type { Deletion, Finding, FsFacts } from '../../lib/core/actions/types'
import type { LossFacts } from '../../lib/core/loss'
import type { EvidenceFacts } from '../../lib/core/evidence/gathered'
import type { RuleIndex } from '../../lib/core/rule-match'
import type { DestroyedState, PendingEntry } from '../../lib/core/pending'
import type { Blocked } from '../../lib/core/route-around'
import type { Finding as HoldFinding } from '../custodiet/decide'
import type { Probation } from '../../lib/core/courtroom/probation'

/** Tools that only read: never held by custodiet, never denied when the hook itself fails. */
export const READ_ONLY_TOOLS = new Set([
  'Read',
  'Glob',
  'Grep',
  'LS',
  'NotebookRead',
  'TodoWrite',
  'TodoRead',
  'ToolSearch',
  'TaskList',
  'TaskGet',
  'TaskOutput',
])

/** The session facts the decision reads (a subset of the session file). */
export interface SessionFacts {
  reads: Record<string, number>
  prompts: string[]
  checks: Record<string, number>
  blocked?: Blocked[]
  created?: Record<string, number>
  secrets?: Record<string, number>
}

/** What the approval queue says about this call and this session (read once, without the lock). */
export interface QueueFacts {
  /** An approved, unused entry for exactly this call (fingerprint). */
  approved?: PendingEntry
  /** Every approved, unused entry for exactly this call: the one that covers the call as it is now is used (boundQueue). */
  approvals?: PendingEntry[]
  /** A pending entry for exactly this call: a retry does not queue a duplicate. */
  open?: PendingEntry
  /** Every pending entry for exactly this call (of any session, with any evidence). */
  opens?: PendingEntry[]
  /** The human's latest denial of exactly this call in this session. */
  denied?: PendingEntry
  /** Decided entries of this session the agent has not heard about yet. */
  undelivered: PendingEntry[]
}

export interface PreflightFacts {
  now: number
  fingerprint: string
  projectDir: string
  homeDir: string
  stateDir: string
  rules: RuleIndex
  /** One line per problem with the rules or config file; shown to the user on every call until fixed. */
  problems: string[]
  /** The project's rules could not be used and the packaged ones stand in. */
  /** guardrails.json is broken: the last rules that validated are in force, or (none) the built-ins alone. */
  fallback: false | 'last-good' | 'packaged'
  session: SessionFacts
  queue: QueueFacts
  /** custodiet's standing hold on this session (level 3–4 finding), if any. */
  hold: HoldFinding | null
  /** The floor changed since a human last saw it (session-start): what changed. Every tool call waits for a human. */
  floorHold?: string[]
  /** This call's commands run inside the OS sandbox with the floor's rules (ClassifyContext.sandboxed). */
  sandboxed?: boolean
  config: {
    checkWindowMs: number
    /** Headless run (`claude -p`) with deferral on: a pause stops the run instead of failing the call. */
    defer: boolean
    /** Telegram is configured: pauses are sent there. */
    telegram: boolean
    /** RG-FIRST-USE's decision (default pause). */
    firstUse?: 'ask' | 'pause'
  }
  /** The world as classification needs it; functions so only the calls that need them pay. */
  fileExists(absPath: string): boolean
  currentBranch(dir: string): string | undefined
  /** Whether a local commit in `dir`'s repository can become public (see gather.ts isPublicRemote). */
  publicRemote?(dir: string): boolean
  /** What git can restore of a path (catalogue's fact provider, lib/io/git.ts); asked only for deletions and discards. */
  fileState?(absPath: string): FileState | undefined
  /** File-system facts for self-protection (realpath, hard links, archives, patches, git status), lazily read. */
  fs?: FsFacts
  /** The installed Ratchet package's folder, protected like the state folder. */
  packageDir?: string
  /** Ratchet's per-user config folder (token and keys: not the agent's to read), and the facts searches need. */
  configHome?: string
  warmDirs?: string[]
  secretFilesUnder?: ClassifyContext['secretFilesUnder']
  /** The agent's environment (where a database command connects: PGHOST, DATABASE_URL). */
  env?: ClassifyContext['env']
  fileMentions?: ClassifyContext['fileMentions']
  /** The level custodiet would give a route-around finding now (3 by default, escalating with earlier findings). */
  routeAroundLevel?: () => number
  /** Undefined when first-use pauses are off. */
  isNewCapability?: (pattern: string) => boolean
  // ---- slots for facts other helpers add ---------------------------------------------------
  /** What the call would send off the machine or stage (files, commits, secrets found): lib/io/evidence.ts. */
  evidence?: EvidenceFacts
  /**
   * What deleting or overwriting these paths would lose for good (lib/io/loss-facts.ts), the agent's own files
   * (`created`) left out; asked only when a call deletes something the classifier could not call recoverable.
   */
  loss?(deleted: Deletion[], created: Record<string, number>): LossFacts | undefined
  /**
   * The key a check on this call is issued and answered under: the fingerprint, and for a call that destroys
   * something, what it would destroy as read now (compose.ts bindToWorld), so an identical retry after the world
   * changed (a teammate pushed to the branch it deletes) is checked again instead of running.
   */
  checkKey?: string
  /** What a destructive call would destroy, read now (remote ref tips, file hashes): an approval or a check binds to it. */
  destroyed?(findings: readonly Finding[], deleted: readonly Deletion[]): DestroyedState | undefined
  /** The courtroom's probation (only when its file exists: one existsSync on the hot path), from `courtroom`. */
  probation?: { list: Probation[]; moderate: 'check' | 'ask' }
}

export function classifyContext(f: PreflightFacts): ClassifyContext {
  return {
    projectDir: f.projectDir,
    homeDir: f.homeDir,
    stateDir: f.stateDir,
    session: f.session,
    fileExists: f.fileExists,
    currentBranch: f.currentBranch,
    fileState: f.fileState,
    fs: f.fs,
    packageDir: f.packageDir,
    sandboxed: f.sandboxed,
    configHome: f.configHome,
    warmDirs: f.warmDirs,
    secretFilesUnder: f.secretFilesUnder,
    fileMentions: f.fileMentions,
    env: f.env,
    ...(f.publicRemote ? { publicRemote: f.publicRemote } : {}),
  }
}
