// What lib/io/evidence.ts gathered for each target (files as they would leave, where a push really goes), and the
// one fact assessEvidence makes of it for the decision.

import type { EvidenceSeen } from '../evidence-seen'
import type { Hazard } from './private-names'

/** One file as it would leave. */
export interface GatheredFile {
  /** As it would appear on the other side: repo-relative for git, as named for uploads. */
  path: string
  /** How it would leave: `untracked, would be staged by git add -A`, `in 2 commits`, `in the package`. */
  how: string
  /** The first maxBytesPerFile bytes as text, when read; undefined when not (binary, too many, missing). */
  text?: string
  /** Why the contents were not (fully) read: `binary`, `first 64 KB of 3 MB`, `over the file limit`. */
  partial?: string
  /** What the name really points at: a symbolic link's target, or a hard link's private-named twin. */
  target?: string
  /** Not a regular file (`a FIFO`, `a device`): never read, and what it yields is unknown. */
  special?: string
  /** Read and scanned whole at the edge (streamed): the secrets found, by label. Then `text` is not needed. */
  found?: string[]
  /** Fragments of known secrets (values this session read, the environment's credentials) found in it. */
  known?: number
  /** Why all or part of it was not read (the time ran out at 40 MB of 150 MB): nobody checked that part. */
  unread?: string
  /** Not a file: a message, the names of refs or files, a destination. Scanned, not listed or counted. */
  meta?: boolean
  /** A hash of the content as it would leave (git's blob id, or one computed while reading it). */
  digest?: string
}

/** Where a push really goes: the URLs git would push to, after pushurl and (push)insteadOf. */
export interface Destination {
  /** The remote's name, when it is one. */
  remote?: string
  /** The URLs git pushes to (a remote may have several). */
  push: string[]
  /** Where the remote fetches from, to compare. */
  fetch?: string
  /** A remote of the repository (false: a URL or a name git does not know). */
  configured: boolean
  /**
   * The remote's URL when the user last asked for something (null: the remote did not exist then); absent when
   * not known. A push that goes elsewhere since, to a place the user did not name, is a hazard.
   */
  atRequest?: string | null
  /** The user's prompts name this remote or URL. */
  named?: boolean
}

/** What lib/io gathered for one target. */
export interface Gathered {
  /** `push of main to origin`, `git add -A`, `npm publish`, `curl … https://x`. */
  what: string
  /** Where it goes (remote URL/name, host), when known. */
  dest?: string
  /** Commits a push would send, including those the same line creates. */
  commits?: number
  /** The remote has none of the pushed branch yet. */
  newBranch?: boolean
  files: GatheredFile[]
  /** Files that would leave but were not even listed (over maxNames). */
  unlisted?: number
  /** Set when gathering did not finish: the reason (timeout, git error). The facts are then partial. */
  incomplete?: string
  /** Local only: staging or committing, nothing leaves the machine yet. */
  local?: boolean
  /** What kind of leaving it is, for matching the user's request. */
  kind?: LeaveKind
  /** Where a push really goes (git's own answer, not the remote's name). */
  destination?: Destination
}

export type LeaveKind = 'push' | 'publish' | 'upload'

export interface FileHazard extends Hazard {
  path: string
  how: string
}

export interface EvidenceFacts {
  /**
   * clean: everything that would leave was gathered and scanned, nothing found.
   * hazard: a secret or private file would leave (or be staged).
   * incomplete: gathering did not finish or could not know the contents: a human decides.
   */
  status: 'clean' | 'hazard' | 'incomplete'
  /** Nothing leaves the machine (a broad `git add`/`commit -a` alone). */
  local: boolean
  hazards: FileHazard[]
  /** Reasons gathering is partial (timeouts, unknown stdin). */
  incomplete: string[]
  /** Lines for the PRE-FLIGHT note, beginning "Evidence:". */
  lines: string[]
  /** The kinds of leaving seen (push, publish, upload). */
  kinds: LeaveKind[]
  /** Counts, for the activity log. */
  files: number
  commits: number
  scanned: number
  /** Destinations that are not remotes of the repository (a URL typed into the push): the user must have named them. */
  unnamed: string[]
  /** What the human would see, for binding an approval to it (evidence-seen.ts), its digest and its signature. */
  seen: EvidenceSeen
  digest: string
  signature: string
}
