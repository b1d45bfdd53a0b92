// The file-system facts self-protection needs (lib/core/actions/ratchet-self.ts `FsFacts`), read lazily and
// bounded: only the calls that write somewhere ask, and nothing here can hang the hook. stat/realpath/readdir
// never open a file; a file is opened only non-blocking and read only if fstat says it is a regular file of a
// bounded size, so a FIFO or a device planted at a path is never followed into a hang. git runs with a timeout.

import fs from 'node:fs'
import path from 'node:path'
import type { FsFacts } from '../core/actions/types'
import { readScript } from './script-facts'

const MAX_TEXT = 1024 * 1024
const MAX_ARCHIVE = 64 * 1024 * 1024
const MAX_ENTRIES = 10_000
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

function realpath(abs: string): string | undefined {
  // For a path that does not exist yet: the realpath of its nearest existing parent, plus the rest.
  let p = abs
  const rest: string[] = []
  for (let i = 0; i < 64; i++) {
    try {
      const r = fs.realpathSync(p)
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

const cstr = (s: string) => {
  const z = s.indexOf('\0')
  return z < 0 ? s : s.slice(0, z)
}

/** Member names of a tar (plain, or gzip-compressed) archive. */
function tarEntries(buf: Buffer): string[] | undefined {
  const out: string[] = []
  let off = 0
  let longName: string | undefined
  while (off + 512 <= buf.length && out.length < MAX_ENTRIES) {
    const h = buf.subarray(off, off + 512)
    if (h.every((b) => b === 0)) break
    const str = (a: number, b: number) => cstr(h.subarray(a, b).toString('utf8'))
    const size = parseInt(str(124, 136).trim() || '0', 8)
    if (Number.isNaN(size)) return undefined
    const type = String.fromCharCode(h[156] || 48)
    const magic = str(257, 263)
    const prefix = magic.startsWith('ustar') ? str(345, 500) : ''
    let name = (prefix ? prefix + '/' : '') + str(0, 100)
    const body = buf.subarray(off + 512, off + 512 + size)
    off += 512 + Math.ceil(size / 512) * 512
    if (type === 'L') {
      longName = cstr(body.toString('utf8'))
      continue
    }
    if (type === 'x' || type === 'g') {
      const m = /\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))
      if (m && type === 'x') longName = m[1]
      continue
    }
    if (longName !== undefined) {
      name = longName
      longName = undefined
    }
    out.push(type === '5' && !name.endsWith('/') ? name + '/' : name)
  }
  return out
}

/** Member names of a zip archive, from its central directory. */
function zipEntries(buf: Buffer): string[] | undefined {
  const min = Math.max(0, buf.length - 65_557)
  let eocd = -1
  for (let i = buf.length - 22; i >= min; i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i
      break
    }
  }
  if (eocd < 0) return undefined
  const count = buf.readUInt16LE(eocd + 10)
  let off = buf.readUInt32LE(eocd + 16)
  const out: string[] = []
  for (let k = 0; k < count && k < MAX_ENTRIES; k++) {
    if (off + 46 > buf.length || buf.readUInt32LE(off) !== 0x02014b50) return undefined
    const n = buf.readUInt16LE(off + 28)
    const x = buf.readUInt16LE(off + 30)
    const c = buf.readUInt16LE(off + 32)
    out.push(buf.subarray(off + 46, off + 46 + n).toString('utf8'))
    off += 46 + n + x + c
  }
  return out
}

function archiveEntries(abs: string): string[] | undefined {
  const buf = readRegular(abs, MAX_ARCHIVE)
  if (!buf || buf.length < 4) return undefined
  try {
    if (buf[0] === 0x50 && buf[1] === 0x4b) return zipEntries(buf)
    if (buf[0] === 0x1f && buf[1] === 0x8b) {
      // Loaded only here: zlib is not on the hook's start-up path.
      const zlib = require('node:zlib') as typeof import('node:zlib')
      return tarEntries(zlib.gunzipSync(buf, { maxOutputLength: MAX_ARCHIVE }))
    }
    return tarEntries(buf)
  } catch {
    return undefined
  }
}

function gitStatus(dir: string): { code: string; path: string }[] | undefined {
  try {
    // Loaded only here: child_process is not on the hook's start-up path.
    const { execFileSync } = require('node:child_process') as typeof import('node:child_process')
    const cwd = stat(dir)?.isDirectory() ? dir : path.posix.dirname(dir)
    const opts = { cwd, timeout: 2000, encoding: 'utf8' as const, stdio: ['ignore', 'pipe', 'ignore'] as ['ignore', 'pipe', 'ignore'], maxBuffer: 4 * 1024 * 1024 }
    const top = execFileSync('git', ['rev-parse', '--show-toplevel'], opts).trim()
    const out = execFileSync('git', ['status', '--porcelain=v1', '-z', '--ignored', '--untracked-files=all', '--', dir], { ...opts, cwd: top })
    const entries: { code: string; path: string }[] = []
    const parts = out.split('\0')
    for (let i = 0; i < parts.length && entries.length < MAX_ENTRIES; i++) {
      const e = parts[i]
      if (e.length < 4) continue
      const code = e.slice(0, 2)
      entries.push({ code, path: path.posix.join(top, e.slice(3)) })
      if (code[0] === 'R' || code[0] === 'C') i++ // the original path follows
    }
    return entries
  } catch {
    return undefined
  }
}

/**
 * The files under `specs` (absolute) that moving the work tree from HEAD to `ref` would change: `git diff
 * --name-only HEAD <ref>`; with `ref` null (an orphan branch, an emptied index) every tracked file there.
 * A branch known only on origin counts as origin's. Undefined when git cannot say (no repository, an unknown
 * ref, a timeout). Three short git runs, each with a timeout; only for commands that move the tree.
 */
function gitTreeChanges(dir: string, ref: string | null, specs: string[]): string[] | undefined {
  try {
    const { execFileSync } = require('node:child_process') as typeof import('node:child_process')
    const cwd = stat(dir)?.isDirectory() ? dir : path.posix.dirname(dir)
    const opts = { cwd, timeout: 2000, encoding: 'utf8' as const, stdio: ['ignore', 'pipe', 'ignore'] as ['ignore', 'pipe', 'ignore'], maxBuffer: 4 * 1024 * 1024 }
    const top = execFileSync('git', ['rev-parse', '--show-toplevel'], opts).trim()
    const rel = [...new Set(specs.map((s) => path.posix.relative(top, s)).filter((r) => r && !r.startsWith('..') && !path.posix.isAbsolute(r)))]
    if (!rel.length) return []
    let args: string[]
    if (ref === null) args = ['ls-files', '-z', '--', ...rel]
    else {
      if (ref.startsWith('-')) return undefined
      let commit: string | undefined
      for (const r of [ref, `refs/remotes/origin/${ref}`]) {
        try {
          commit = execFileSync('git', ['rev-parse', '--verify', '--quiet', `${r}^{commit}`], { ...opts, cwd: top }).trim()
          if (commit) break
        } catch {
          commit = undefined
        }
      }
      if (!commit) return undefined
      args = ['diff', '--name-only', '-z', '--no-renames', 'HEAD', commit, '--', ...rel]
    }
    const out = execFileSync('git', args, { ...opts, cwd: top })
    return out.split('\0').filter(Boolean).slice(0, MAX_ENTRIES).map((f) => path.posix.join(top, f))
  } catch {
    return undefined
  }
}

export function fsFacts(): FsFacts {
  return {
    realpath,
    linkId: (abs) => {
      const st = stat(abs)
      return st?.isFile() && st.nlink > 1 ? `${st.dev}:${st.ino}` : undefined
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
    archiveEntries,
    gitStatus,
    gitTreeChanges,
    script: readScript,
  }
}

/** The installed package's folder when running from its bundle (`<pkg>/dist/<name>.cjs`); undefined from source. */
export function packageDirOf(bundleDir: string): string | undefined {
  return path.posix.basename(bundleDir) === 'dist' ? path.posix.dirname(bundleDir) : undefined
}
