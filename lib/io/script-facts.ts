// Reading a script file that a command runs (issue 9: scripts on disk are read when run). Bounded and
// non-blocking like every other file fact: stat first, open O_NONBLOCK, fstat the open file, read only a regular
// file, at most MAX_SCRIPT bytes. A compiled program (its first bytes hold a NUL) is not a script: nothing to read.

import fs from 'node:fs'

export const MAX_SCRIPT = 256 * 1024
const SNIFF = 8192

export interface ScriptText {
  text?: string
  /** It is there but cannot be read: a FIFO, a device, too big, no permission. */
  problem?: string
  binary?: boolean
}

/** The text of the script at `abs`; undefined when nothing (or a folder) is there. */
export function readScript(abs: string): ScriptText | undefined {
  let st: fs.Stats | undefined
  try {
    st = fs.statSync(abs, { throwIfNoEntry: false }) ?? undefined
  } catch {
    return { problem: 'it cannot be read' }
  }
  if (!st || st.isDirectory()) return undefined
  if (!st.isFile()) return { problem: st.isFIFO() ? 'it is a FIFO' : 'it is not a regular file' }
  let fd: number | undefined
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
    const st2 = fs.fstatSync(fd)
    if (!st2.isFile()) return { problem: 'it is not a regular file' }
    const head = Buffer.alloc(Math.min(SNIFF, st2.size))
    const n = head.length ? fs.readSync(fd, head, 0, head.length, 0) : 0
    if (head.subarray(0, n).includes(0)) return { binary: true }
    if (st2.size > MAX_SCRIPT)
      return { problem: `it is too big to read (${st2.size} bytes, more than ${MAX_SCRIPT / 1024} KB)` }
    const buf = Buffer.alloc(st2.size)
    let off = 0
    while (off < st2.size) {
      const k = fs.readSync(fd, buf, off, st2.size - off, off)
      if (k <= 0) break
      off += k
    }
    return { text: buf.subarray(0, off).toString('utf8') }
  } catch {
    return { problem: 'it cannot be read' }
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
