// What a git subcommand's handler is given (git/index.ts reads it once: global options, aliases, the subcommand).

import type { Invocation } from '../../commands'
import type { InvocationFacts, Sink } from '../types'

/** Branches whose loss or rewrite is catastrophic. */
export const DEFAULT_BRANCHES = /^(main|master|trunk|production|prod|release)$/

export interface GitCall {
  c: Sink
  inv: Invocation
  f: InvocationFacts
  /** The subcommand (an inline alias already expanded) and the words after it. */
  sub: string
  rest: string[]
  /** The words after the subcommand that are not options, and its single-letter flags run together. */
  ops: string[]
  flags: string
  /** The folder the command runs in (after `-C`). */
  dir: string
  dry: boolean
  /** A path resolved against `dir`. */
  at: (p: string) => string
  /** An operand names one of Ratchet's own files. */
  touchesProtected: boolean
  /** Discarding uncommitted work in these paths, unless git says there is none. */
  discard: (paths: string[]) => void
}

export type SubcommandHandler = (g: GitCall) => void
