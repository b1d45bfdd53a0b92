// The process edges every hook shares, kept free of anything heavy: the fast path (preflight-check's
// fast.ts) runs on these before any bundle of the full engine loads. stdin and stdout go through plain
// file-descriptor calls: touching process.stdin/stdout builds stream objects and costs ~10 ms of start-up.

import fs from 'node:fs'

/** A terminal on stdin means a human ran the hook by hand. Checked without node:tty, which drags in streams. */
export function stdinIsTerminal(): boolean {
  try {
    const st = fs.fstatSync(0)
    return st.isCharacterDevice() && st.rdev !== fs.statSync('/dev/null').rdev
  } catch {
    return false
  }
}

/** All of stdin, read synchronously; undefined when the pipe is non-blocking (the caller falls back to streams). */
export function readStdinSync(): string | undefined {
  try {
    return fs.readFileSync(0, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EOF') return ''
    if (code === 'EAGAIN') return undefined
    throw e
  }
}

export function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text)
  let off = 0
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e
    }
  }
}
