// The reader's shapes: what it gives its callers (a command line's invocations, code snippets and script files)
// and the state it carries while it reads one line.

import type { Redirect, SimpleCommand } from '../shell'

/** Where an invocation or snippet read from a file on disk comes from: the file as named, and its line when known. */
export interface ScriptOrigin {
  file: string
  abs: string
  line?: number
  /** The file's text, to find the line of a finding in (a shell script's commands carry no positions). */
  text?: string
}

/**
 * A file named in a command, read at the edge (lib/io/script-facts.ts) from the directory the command runs in
 * (after its `cd`s): its text, or why it cannot be read (a FIFO, too big, not a regular file), or `binary` for a
 * compiled program (nothing to read). Undefined: there is nothing at that path.
 */
export interface ScriptFile {
  abs: string
  text?: string
  problem?: string
  binary?: boolean
}
export type ScriptReader = (file: string, cwdChanges: string[]) => ScriptFile | undefined
/**
 * The test files a runner finds for itself (`node --test` with no file named) from the folder the command runs in
 * (after its `cd`s), as paths the reader can read; undefined when they cannot be listed (scripts are not read then).
 */
export type TestFinder = (cwdChanges: string[]) => string[] | undefined

/** A script file this command runs (a shell or interpreter script, package.json scripts, a Makefile's recipes). */
export interface ScriptRun {
  file: string
  abs: string
  /** Set when it exists but cannot be read: the command is then unreadable. */
  problem?: string
  text?: string
  /** What could not be read inside it (computed command words, …): judged by the caller, see classify.ts. */
  unreadable: string[]
}

export interface Invocation {
  /** Program name without path or leading backslash: `rm`, `git`. Empty for a redirect-only command (`> f`). */
  name: string
  args: string[]
  redirects: Redirect[]
  stdin?: string
  /** Wrappers that were peeled off, outermost first (`sudo`, `bash -c`, `xargs`). */
  via: string[]
  /** Directory changes earlier in the same command line (`cd .ratchet && rm x`). */
  cwdChanges: string[]
  /** Set when the invocation comes from a script file on disk that the command runs. */
  origin?: ScriptOrigin
  /**
   * Variables the program is given, as far as the line shows them: `X=1 cmd`, `env X=1 cmd`, and names exported
   * earlier in the line. For settings a program reads from its environment (git's GIT_CONFIG_*, GIT_EXTERNAL_DIFF).
   */
  env?: Record<string, string>
}

export interface CodeSnippet {
  lang: 'python' | 'node' | 'perl' | 'ruby' | 'php' | 'sql'
  code: string
  via: string[]
  /** Directory changes earlier in the same command line (`cd node_modules/x && node -e "require('./y')"`). */
  cwdChanges?: string[]
  /** Set when the code is a script file on disk that the command runs (`python3 x.py`). */
  origin?: ScriptOrigin
}

export interface CommandLine {
  invocations: Invocation[]
  snippets: CodeSnippet[]
  incomplete: boolean
  /** What could not be read, a few words each (empty when everything was): treat by the worst reading. */
  unreadable: string[]
  /** Script files on disk this command runs, read as if their lines were in the command (when a reader is given). */
  scripts: ScriptRun[]
}

/** `bash -c` inside `bash -c` inside …: deeper than this is not read. */
export const MAX_CODE_DEPTH = 6
/** A variable with several candidate values (a `for` list) multiplies a command at most this much. */
export const MAX_VARIANTS = 8

/** Reads shell code into the line: the reader itself, handed to what reads scripts and wrapped code. */
type Expand = (
  command: string,
  via: string[],
  st: LineState,
  depth: number,
  pipedFrom?: SimpleCommand,
  cwd?: string[],
) => void

export interface LineState {
  /** The reader's entry for nested code (`bash -c`, a script's text): kept here so its helpers need not import it. */
  expand: Expand
  out: CommandLine
  unreadable: Set<string>
  functions: Set<string>
  aliases: Map<string, string>
  /** `git config alias.x …` run earlier in this command line: a later `git x` is that alias. */
  gitAliases: Map<string, string>
  /** Values assigned earlier in this command line; several for a `for` list. */
  vars: Map<string, string[]>
  /** Names exported earlier in this command line (`export X=1; git status` gives git X). */
  exported: Set<string>
  /**
   * Files written earlier in this command line, by their path as written: the text a literal `echo`/`printf`/
   * here-document put there, or null when what was written is not visible (`printf 'rm -rf x' > s.sh && sh s.sh`).
   */
  generated: Map<string, string | null>
  /** Bodies of the shell functions defined in this line ('' when a name is defined twice: not filled in). */
  bodies: Map<string, string>
  /** Reads script files named in the command; absent, scripts on disk are not read. */
  reader?: ScriptReader
  /** Lists the test files a runner would find itself; absent, they are not read. */
  testFiles?: TestFinder
  /** The script being read, if any: its invocations carry it. */
  origin?: ScriptOrigin
  /** Script files and bytes read so far in this command line (bounded). */
  budget: { files: number; bytes: number }
}

/**
 * One simple command as a peeler sees it: its words so far (`name`, `args`, with which are computed), the wrappers
 * already peeled (`via`, which a peeler extends with its own), and what it may do besides peeling: record the
 * command as an invocation, read code it runs, read a command inside its arguments.
 */
export interface Cmd {
  simple: SimpleCommand
  name: string
  args: string[]
  argComp: boolean[]
  via: string[]
  st: LineState
  depth: number
  cwdChanges: string[]
  /** Records the command (its current words, or `words`) as an invocation. */
  push(words?: string[]): void
  /** Reads `text` as shell code that this command runs (`bash -c text`), one level deeper. */
  code(text: string, label: string, pipedFrom?: SimpleCommand): void
  /** Reads a command inside this one's arguments (`find -exec cmd {} ;`). */
  inner(words: string[], computed: boolean[], label: string): void
  /** A variable given to the program (`env X=1 cmd`). */
  given(assignment: string): void
}

/**
 * What a peeler made of a command: the words of the program it wraps, to be read next (`sudo rm x` → `rm x`);
 * `read` when it read the command itself (recorded it, or read the code it runs, or found it unreadable); `none`
 * when the command is not one its family wraps (it is then a plain program).
 */
export type Peeled = { argv: string[]; comp: boolean[] } | 'read' | 'none'
export type Peeler = (c: Cmd) => Peeled

/** A wrapper family: the programs it peels, by name, and (for names that vary, `python3.12`) a test. */
export interface ReaderFamily {
  family: string
  programs: Record<string, Peeler>
  /** Tried for names no family's table has, or whose peeler said `none`. */
  byPattern?: Peeler
}

/** The words after a peeler's own: a suffix of the command's arguments, with which of them are computed. */
export function rest(c: Cmd, words: string[]): Peeled {
  return { argv: words, comp: c.argComp.slice(c.argComp.length - words.length) }
}
