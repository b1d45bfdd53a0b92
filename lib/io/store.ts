// The one module that writes state. Several hook processes run at once (Claude Code runs matching
// hooks in parallel, and sessions share a project), so every read-modify-write is:
//   lock → read → validate → apply a pure change → write a temp file → rename → unlock.
// Readers take no lock: a rename replaces the whole file atomically.
// Synchronous on purpose: a hook does a handful of small file operations and exits.

import fs from 'node:fs'
import path from 'node:path'
import { DIR_MODE, FILE_MODE } from './modes'
import { STATE, fileOf, stateGitignore, type FileKey, type Paths, type StateFileSpec, type ValueOf } from './registry'
import type { RatchetError } from '../core/errors'
import {
  appendJsonl,
  mkdirFor,
  readJson,
  readRegularFile,
  setStateRoot as setRoot,
  updateJson,
  writeFileAtomic,
  type ReadResult,
} from './store-core'

// The primitives (lock, atomic write, append, FIFO-safe reads, locked update) live in store-core.ts, which
// needs no registry (preflight-check's fast path uses them without loading it); they are exported from here.
export {
  appendJsonl,
  appendLine,
  openRegular,
  processAlive,
  processTag,
  readJson,
  readRegularFile,
  updateJson,
  withLock,
  writeFileAtomic,
  type ReadResult,
} from './store-core'

/** The state folder of this process (set by resolvePaths): created 0700 with its .gitignore. */
export function setStateRoot(dir: string): void {
  setRoot(dir, stateGitignore)
}

// ---- the registry's files, by key ------------------------------------------------------------------
// Every state file is named by its key in lib/io/registry.ts, never by a path built elsewhere: the
// table gives its path, schema, empty value, corrupt-file policy and mode.

type Where = Pick<Paths, 'stateDir' | 'configHome'>

function checkOf<K extends FileKey>(key: K): (raw: unknown) => ValueOf<K> | string {
  const s = STATE[key] as StateFileSpec<ValueOf<K>>
  return s.schema ? s.schema() : (raw: unknown) => raw as ValueOf<K>
}
const emptyOf = <K extends FileKey>(key: K) =>
  (STATE[key] as StateFileSpec<ValueOf<K>>).empty ?? ((): ValueOf<K> => null as ValueOf<K>)

/**
 * Machine-written files are only ever replaced by a rename, which leaves no link: a symbolic link at one was
 * planted (by an agent that can reach the folder), and is read as damaged, never followed. A human's file
 * (guardrails.json, config.json) may be a link to where the user keeps it.
 */
const noFollow = (key: FileKey): boolean => (STATE[key] as StateFileSpec).owner === 'machine'

/** Reads a registry file: its value, the registry's empty value when absent, or an error naming file and field. */
export function readState<K extends FileKey>(paths: Where, key: K, id?: string): ReadResult<ValueOf<K>> {
  return readJson(fileOf(paths, key, id), checkOf(key), emptyOf(key), undefined, { noFollow: noFollow(key) })
}

/** The value, or the empty value when the file is absent or bad (for files whose policy lets a reader go on). */
export function readStateOr<K extends FileKey>(paths: Where, key: K, id?: string): ValueOf<K> {
  const r = readState(paths, key, id)
  return r.ok ? r.value : emptyOf(key)()
}

/**
 * Locked read-modify-write of a registry file, with its corrupt-file policy ('ignore' files reset).
 * `afterReset`: what a damaged file that was moved aside is read as; `fallback`: what an absent one is read as
 * (both default to the empty value).
 */
export function updateState<K extends FileKey, R>(
  paths: Where,
  key: K,
  change: (current: ValueOf<K>) => { next: ValueOf<K>; result: R },
  opts: {
    id?: string
    indent?: number
    afterWrite?: () => void
    afterReset?: (error: RatchetError, aside: string) => ValueOf<K>
    fallback?: () => ValueOf<K>
  } = {},
): R {
  const s: StateFileSpec = STATE[key]
  return updateJson(
    fileOf(paths, key, opts.id),
    {
      validate: checkOf(key),
      fallback: opts.fallback ?? emptyOf(key),
      onCorrupt: s.onCorrupt === 'fail' ? 'fail' : 'reset',
      noFollow: noFollow(key),
      indent: opts.indent,
      afterWrite: opts.afterWrite,
      afterReset: opts.afterReset,
    },
    change,
  )
}

/** Replaces a registry file whole (atomically); JSON values are written as one line unless `indent`. */
export function writeState(
  paths: Where,
  key: FileKey,
  value: unknown,
  opts: { id?: string; indent?: number } = {},
): void {
  writeFileAtomic(
    fileOf(paths, key, opts.id),
    typeof value === 'string' ? value : JSON.stringify(value, null, opts.indent) + (opts.indent ? '\n' : ''),
  )
}

/** Removes a registry file (absent is fine). */
export function removeState(paths: Where, key: FileKey, id?: string): void {
  fs.rmSync(fileOf(paths, key, id), { force: true })
}

/** Appends one JSON line to a registry log (see appendJsonl). */
export function appendState(paths: Where, key: FileKey, record: unknown, id?: string): void {
  appendJsonl(fileOf(paths, key, id), record)
}

/** Renames one registry file to another (log rotation); false when the source is gone. */
export function renameState(
  paths: Where,
  from: FileKey,
  to: FileKey,
  ids: { from?: string; to?: string } = {},
): boolean {
  try {
    fs.renameSync(fileOf(paths, from, ids.from), fileOf(paths, to, ids.to))
    return true
  } catch {
    return false
  }
}

/**
 * The state folder, 0700, with its .gitignore: created if missing, and tightened if an older Ratchet
 * (or a hand-made mkdir) left it readable by others. Returns the names it created.
 */
export function ensureStateDir(paths: Pick<Paths, 'stateDir'>): string[] {
  setStateRoot(paths.stateDir)
  const created: string[] = []
  fs.mkdirSync(paths.stateDir, { recursive: true, mode: DIR_MODE })
  tighten(paths.stateDir, DIR_MODE)
  try {
    fs.writeFileSync(path.join(paths.stateDir, STATE.gitignore.name), stateGitignore(), { flag: 'wx', mode: FILE_MODE })
    created.push(STATE.gitignore.name)
  } catch {
    /* already there */
  }
  return created
}

/** chmod down to `mode` when the path is ours and broader (a folder someone else owns is left alone). */
function tighten(p: string, mode: number): void {
  try {
    const st = fs.lstatSync(p)
    if (
      !st.isSymbolicLink() &&
      (st.mode & 0o777 & ~mode) !== 0 &&
      (typeof process.getuid !== 'function' || st.uid === process.getuid())
    )
      fs.chmodSync(p, mode)
  } catch {
    /* gone, or not ours */
  }
}

/** Creates a registry file from a template (e.g. the packaged guardrails.json), 0600, unless it exists. */
export function createStateFrom(paths: Where, key: FileKey, template: string): boolean {
  const file = fileOf(paths, key)
  const text = fs.readFileSync(template, 'utf8')
  try {
    fs.writeFileSync(file, text, { flag: 'wx', mode: FILE_MODE })
    return true
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return false
    if (code !== 'ENOENT') throw e
    mkdirFor(file)
    return createStateFrom(paths, key, template)
  }
}

/**
 * A private file outside the state folder (the courtroom's keys and heads in the config home, Claude
 * Code's settings): its folder made 0700 when created here, the file written 0600 via a rename.
 */
export function writePrivateFile(file: string, text: string, opts: { tightenDir?: boolean } = {}): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: DIR_MODE })
  if (opts.tightenDir) tighten(path.dirname(file), DIR_MODE)
  writeFileAtomic(file, text)
}

/** Cuts a file to its first `bytes` bytes (the case ledger's torn last line, recorded in a signed repair entry first). */
export function truncateFile(file: string, bytes: number): void {
  fs.truncateSync(file, bytes)
}

/** A private folder (0700, made with its parents when absent), e.g. the case server's embedded store. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE })
}

/**
 * A private file written once: created 0600 (in a 0700 folder) with `make()`'s text only if absent, exclusively
 * (written aside, then linked into place: of two processes at once, both end up reading the same text).
 */
export function privateFileOnce(file: string, make: () => string): string {
  try {
    return readRegularFile(file)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: DIR_MODE })
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, make(), { mode: FILE_MODE })
  try {
    fs.linkSync(tmp, file)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  } finally {
    fs.rmSync(tmp, { force: true })
  }
  return readRegularFile(file)
}

/** Removes a file a registry row names by a path the caller already holds (a docket file it was handed). */
export function removeFile(file: string): void {
  fs.rmSync(file, { force: true })
}

/** Creates the state folder if needed and proves a file can be created in it (`ratchet doctor`). */
export function probeWritable(paths: Pick<Paths, 'stateDir'>): void {
  fs.mkdirSync(paths.stateDir, { recursive: true, mode: DIR_MODE })
  const probe = path.join(paths.stateDir, `.doctor-${process.pid}`)
  fs.writeFileSync(probe, '', { mode: FILE_MODE })
  fs.rmSync(probe)
}
