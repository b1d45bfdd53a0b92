// The store's primitives: a cross-process lock, atomic writes, appends, reads that never block on a FIFO,
// and the locked read-modify-write. Part of the one module that writes state (lib/io/store.ts re-exports
// all of it and adds reads and writes by registry key); apart because they need no registry, so
// preflight-check's fast path can use them without loading it (its schemas pull in zod and the rule engine).
// Synchronous on purpose: a hook does a handful of small file operations and exits.

import fs from 'node:fs'
import path from 'node:path'
import { RatchetError } from '../core/errors'
import { DIR_MODE, FILE_MODE } from './modes'

let stateRoot: string | undefined
let gitignoreText: (() => string) | undefined
/**
 * The state folder of this process (set by resolvePaths): created 0700 with its .gitignore (`gitignore`, from
 * the registry; without it a new state folder gets none — the fast path never creates one).
 */
export function setStateRoot(dir: string, gitignore?: () => string): void {
  stateRoot = dir
  gitignoreText = gitignore
}

/** Creates a file's folder 0700; when that creates the state folder, it gets its .gitignore first (see setStateRoot). */
export function mkdirFor(file: string): void {
  const first = fs.mkdirSync(path.dirname(file), { recursive: true, mode: DIR_MODE })
  if (first && stateRoot && gitignoreText && (stateRoot === first || stateRoot.startsWith(first + path.sep))) {
    try {
      fs.writeFileSync(path.join(stateRoot, '.gitignore'), gitignoreText(), { flag: 'wx', mode: FILE_MODE })
    } catch {
      /* already there */
    }
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4))
const sleep = (ms: number) => Atomics.wait(sleeper, 0, 0, ms)

export interface LockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number
  /**
   * A lock whose owner is still alive is broken only past this age (ms), in either direction: our
   * critical sections take milliseconds, so an older one is a hung owner or a reused pid. A lock whose
   * owner is gone (no such pid, or it was taken before the last reboot) is broken at once.
   */
  staleMs?: number
}

let bootIdCache: string | undefined
/** This boot's id (Linux), so a lock left before a reboot is never mistaken for a live one. */
function bootId(): string {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    } catch {
      bootIdCache = ''
    }
  }
  return bootIdCache
}

/** This process, as lock files and claims name it: "<pid> <boot id>". */
export const processTag = (): string => `${process.pid} ${bootId()}`

/** Is the process a tag names still there (same pid, same boot)? */
export function processAlive(tag: string): boolean {
  const [pidText, boot] = tag.trim().split(/\s+/)
  const pid = Number(pidText)
  if (!pid) return false
  if (boot && bootId() && boot !== bootId()) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Is the process that wrote this lock still there? */
function ownerAlive(text: string, ageMs: number): boolean {
  // Empty: the owner is between creating the file and writing its pid (microseconds).
  if (!text.trim()) return Math.abs(ageMs) < 2000
  return processAlive(text)
}

/** Runs `fn` holding an exclusive cross-process lock on `file` (a sibling `.lock` file). */
export function withLock<T>(file: string, fn: () => T, opts: LockOptions = {}): T {
  const lock = file + '.lock'
  const deadline = Date.now() + (opts.timeoutMs ?? 5000)
  const staleMs = opts.staleMs ?? 30_000
  let delay = 1
  let mine = -1
  for (;;) {
    try {
      const fd = fs.openSync(lock, 'wx', 0o600)
      fs.writeSync(fd, processTag())
      mine = fs.fstatSync(fd).ino
      fs.closeSync(fd)
      break
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === 'ENOENT') {
        mkdirFor(lock)
        continue
      }
      if (code !== 'EEXIST') throw e
      try {
        const st = fs.statSync(lock)
        const age = Date.now() - st.mtimeMs
        if (!ownerAlive(fs.readFileSync(lock, 'utf8'), age) || Math.abs(age) > staleMs) {
          // Break it by renaming first, so two breakers cannot both delete a fresh lock; if what we
          // renamed is not the lock we judged (it was replaced meanwhile), put it back.
          const grave = `${lock}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`
          fs.renameSync(lock, grave)
          if (fs.statSync(grave).ino !== st.ino) {
            try {
              fs.linkSync(grave, lock)
            } catch {
              /* someone else holds it now */
            }
          }
          fs.rmSync(grave, { force: true })
          continue
        }
      } catch {
        continue // the lock went away between our checks: try again
      }
      if (Date.now() > deadline)
        throw new RatchetError('state_lock', `timed out waiting for the lock ${lock}`, { file })
      sleep(delay + Math.random() * delay)
      delay = Math.min(delay * 2, 25)
    }
  }
  try {
    return fn()
  } finally {
    // Only our own lock: if we overran and it was broken and taken, the new owner keeps it.
    try {
      // unlink, not rmSync: rmSync loads Node's rimraf on first use (~0.8 ms of every hook that takes a lock).
      if (fs.statSync(lock).ino === mine) fs.unlinkSync(lock)
    } catch {
      /* already gone */
    }
  }
}

/** Writes via a unique temp file and a rename, so readers see the old or the new file, never half. */
export function writeFileAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
  try {
    fs.writeFileSync(tmp, text, { mode: FILE_MODE })
    fs.renameSync(tmp, file)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !fs.existsSync(path.dirname(file))) {
      mkdirFor(file)
      return writeFileAtomic(file, text)
    }
    fs.rmSync(tmp, { force: true })
    throw e
  }
}

const KIND = (st: fs.Stats) =>
  st.isFIFO()
    ? 'a FIFO'
    : st.isCharacterDevice() || st.isBlockDevice()
      ? 'a device'
      : st.isSocket()
        ? 'a socket'
        : st.isDirectory()
          ? 'a folder'
          : 'not a regular file'

export interface ReadOptions {
  /**
   * Refuse a symbolic link at the file itself (O_NOFOLLOW). Ratchet writes its machine state by rename, which
   * never leaves a link: one found there was planted, and what it points at (a clean copy elsewhere, or
   * nothing) must not be read as the state.
   */
  noFollow?: boolean
}

/**
 * Opens a file for reading only if it is a regular file. Opened non-blocking, so a FIFO planted where
 * a state file (or .git/HEAD) should be cannot hang the hook: it is refused with a clear error, as are
 * devices, sockets and folders. ENOENT and other open errors are thrown as they are.
 */
export function openRegular(file: string, opts: ReadOptions = {}): number {
  let fd: number
  try {
    fd = fs.openSync(
      file,
      fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (opts.noFollow ? fs.constants.O_NOFOLLOW : 0),
    )
  } catch (e) {
    if (opts.noFollow && (e as NodeJS.ErrnoException).code === 'ELOOP')
      throw new RatchetError(
        'state_unreadable',
        `${file} is a symbolic link, not a regular file: refusing to read it (remove it)`,
        { file },
      )
    throw e
  }
  let st: fs.Stats
  try {
    st = fs.fstatSync(fd)
  } catch (e) {
    fs.closeSync(fd)
    throw e
  }
  if (!st.isFile()) {
    fs.closeSync(fd)
    throw new RatchetError(
      'state_unreadable',
      `${file} is ${KIND(st)}, not a regular file: refusing to read it (remove it)`,
      { file },
    )
  }
  return fd
}

/** Reads a regular file (see `openRegular`): never blocks on a FIFO or device. */
export function readRegularFile(file: string, opts: ReadOptions = {}): string {
  const fd = openRegular(file, opts)
  try {
    return fs.readFileSync(fd, 'utf8')
  } finally {
    fs.closeSync(fd)
  }
}

/** A state read: the value (a missing file gives the registry's empty value), or an error naming the file and field. */
export type ReadResult<T> = { ok: true; value: T; exists: boolean } | { ok: false; error: RatchetError }

/** Reads and validates a JSON file. A missing file yields `fallback`; a bad one an error naming it. */
export function readJson<T>(
  file: string,
  validate: (raw: unknown) => T | string,
  fallback: () => T,
  onText?: (text: string) => void,
  opts: ReadOptions = {},
): ReadResult<T> {
  let text: string
  try {
    text = readRegularFile(file, opts)
    onText?.(text)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, value: fallback(), exists: false }
    if (e instanceof RatchetError) return { ok: false, error: e }
    const code = (e as NodeJS.ErrnoException).code
    const why =
      code === 'EISDIR'
        ? 'is a folder, not a regular file'
        : code === 'EACCES'
          ? 'is not readable (permission denied)'
          : (e as Error).message
    return { ok: false, error: new RatchetError('state_unreadable', `${file}: ${why}`, { file }) }
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    return {
      ok: false,
      error: new RatchetError('state_corrupt', `${file}: not valid JSON (${(e as Error).message})`, { file }),
    }
  }
  const v = validate(raw)
  if (typeof v === 'string') return { ok: false, error: new RatchetError('state_corrupt', `${file}: ${v}`, { file }) }
  return { ok: true, value: v, exists: true }
}

export interface UpdateOptions<T> {
  validate: (raw: unknown) => T | string
  fallback: () => T
  /**
   * What to do with a file that does not parse or validate. Machine-written files are moved aside
   * (kept for inspection) and reset; human-edited files are never rewritten: the update fails.
   */
  onCorrupt: 'reset' | 'fail'
  /**
   * With 'reset': the value to start from instead of `fallback()` (a damaged session starts as one that may
   * have read a secret, so what the damaged copy knew is not forgotten; `aside` is where it was moved).
   */
  afterReset?: (error: RatchetError, aside: string) => T
  /** See ReadOptions. */
  noFollow?: boolean
  indent?: number
  /** Runs after a write, still holding the lock. */
  afterWrite?: () => void
}

/** Locked read-modify-write. `change` is pure: it gets the current value and returns the next. */
export function updateJson<T, R = void>(
  file: string,
  opts: UpdateOptions<T>,
  change: (current: T) => { next: T; result: R },
): R {
  return withLock(file, () => {
    const read = readJson(file, opts.validate, opts.fallback, undefined, { noFollow: opts.noFollow })
    let current: T
    if (read.ok) current = read.value
    else if (opts.onCorrupt === 'reset') {
      const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`
      try {
        fs.renameSync(file, aside)
      } catch {
        /* already gone */
      }
      process.emitWarning(`${read.error.message}; moved aside to ${aside} and started afresh`)
      current = opts.afterReset ? opts.afterReset(read.error, aside) : opts.fallback()
    } else throw read.error
    const { next, result } = change(current)
    if (next !== current || !read.ok || !read.exists) {
      writeFileAtomic(file, JSON.stringify(next, null, opts.indent ?? 2) + '\n')
      opts.afterWrite?.()
    }
    return result
  })
}

/** Appends one JSON line with a single write(2) on an O_APPEND descriptor: lines never interleave. */
export function appendJsonl(file: string, record: unknown): void {
  appendLine(file, JSON.stringify(record) + '\n')
}

/**
 * Appends text with one write(2) on an O_APPEND descriptor, creating the file 0600. Opened
 * non-blocking and checked to be a regular file: a FIFO planted at a log's path would otherwise block
 * the open until a reader comes, hanging the hook (fires.jsonl is written on every rule fire).
 */
export function appendLine(file: string, line: string): void {
  const flags = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NONBLOCK
  let fd: number
  try {
    fd = fs.openSync(file, flags, FILE_MODE)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENXIO')
      throw new RatchetError(
        'state_unreadable',
        `${file} is a FIFO, not a regular file: refusing to write it (remove it)`,
        { file },
      )
    if (code === 'EISDIR')
      throw new RatchetError(
        'state_unreadable',
        `${file} is a folder, not a regular file: refusing to write it (remove it)`,
        { file },
      )
    if (code !== 'ENOENT') throw e
    mkdirFor(file)
    fd = fs.openSync(file, flags, FILE_MODE)
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile())
      throw new RatchetError(
        'state_unreadable',
        `${file} is ${KIND(st)}, not a regular file: refusing to write it (remove it)`,
        { file },
      )
    fs.writeSync(fd, line)
  } finally {
    fs.closeSync(fd)
  }
}
