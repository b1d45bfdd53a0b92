// The file-system facts the classifier asks for (lib/core/actions/types.ts `FsFacts`), read lazily and bounded:
// nothing here can hang the hook. stat/realpath/readdir never open a file; a file is opened only non-blocking and
// read only if fstat says it is a regular file of a bounded size, so a FIFO or a device planted at a path is never
// followed into a hang.

import fs from 'node:fs'
import path from 'node:path'
import type { FsFacts } from '../core/actions/types'
import { readScript } from './script-facts'

const MAX_TEXT = 1024 * 1024
const MAX_LIST = 500

function stat(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p, { throwIfNoEntry: false }) ?? undefined
  } catch {
    return undefined
  }
}

/** Opens a regular file without blocking (a FIFO opens at once and is refused), or undefined. */
function openRegular(p: string, maxBytes: number): number | undefined {
  const st = stat(p)
  if (!st?.isFile() || st.size > maxBytes) return undefined
  let fd: number | undefined
  try {
    fd = fs.openSync(p, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
    const st2 = fs.fstatSync(fd)
    if (!st2.isFile() || st2.size > maxBytes) {
      fs.closeSync(fd)
      return undefined
    }
    return fd
  } catch {
    if (fd !== undefined) fs.closeSync(fd)
    return undefined
  }
}

function readRegular(p: string, maxBytes: number): Buffer | undefined {
  const fd = openRegular(p, maxBytes)
  if (fd === undefined) return undefined
  try {
    const size = fs.fstatSync(fd).size
    const buf = Buffer.alloc(size)
    let off = 0
    while (off < size) {
      const n = fs.readSync(fd, buf, off, size - off, off)
      if (n <= 0) break
      off += n
    }
    return buf.subarray(0, off)
  } catch {
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}

// The native realpath is one system call where the JS one lstat()s each component in turn (~0.3 ms of a
// cold start).
function realpath(abs: string): string | undefined {
  // For a path that does not exist yet: the realpath of its nearest existing parent, plus the rest.
  let p = abs
  const rest: string[] = []
  for (let i = 0; i < 64; i++) {
    try {
      const r = fs.realpathSync.native(p)
      return rest.length ? path.posix.join(r, ...rest.reverse()) : r
    } catch {
      const parent = path.posix.dirname(p)
      if (parent === p) return undefined
      rest.push(path.posix.basename(p))
      p = parent
    }
  }
  return undefined
}

export function fsFacts(): FsFacts {
  // One decision, one view of the disk: each path is resolved once (protected paths, key reads and secrets ask for
  // the same few folders on every call).
  const realpaths = new Map<string, string | undefined>()
  return {
    realpath: (abs) => {
      if (!realpaths.has(abs)) realpaths.set(abs, realpath(abs))
      return realpaths.get(abs)
    },
    isDir: (abs) => !!stat(abs)?.isDirectory(),
    list: (dir) => {
      if (!stat(dir)?.isDirectory()) return undefined
      try {
        return fs.readdirSync(dir).slice(0, MAX_LIST)
      } catch {
        return undefined
      }
    },
    readText: (abs) => readRegular(abs, MAX_TEXT)?.toString('utf8'),
    script: readScript,
  }
}

/** The installed package's folder when running from its bundle (`<pkg>/dist/<name>.cjs`); undefined from source. */
export function packageDirOf(bundleDir: string): string | undefined {
  return path.posix.basename(bundleDir) === 'dist' ? path.posix.dirname(bundleDir) : undefined
}
