// The command reader's entry: what its callers use. The reader itself is in ./reader (the loop in line.ts, one
// peeler per wrapper family in reader/peelers); this file keeps the one name callers import from.

export { readCommandLine } from './reader/line'
export { shellCallsIn } from './reader/code-calls'
export { findRoots, programName } from './reader/words'
export type {
  CodeSnippet,
  CommandLine,
  Invocation,
  ScriptFile,
  ScriptOrigin,
  ScriptReader,
} from './reader/types'
