// The one message a headless run must not swallow. In `claude -p` the client shows neither a hook's
// systemMessage nor its stderr, so a deferred (paused) call would end the run with no word of the pending
// id. The hook's parent is the client itself (the registered command `exec`s the launcher), so writing to
// the parent's stderr puts the line where the person or script that started the run reads the run's own
// errors: the terminal, or the file or pipe it was sent to. Opened for appending, so a log file is never
// overwritten. Without a readable parent (other platforms) the pause is still in `ratchet pending list`
// and on Telegram.

import fs from 'node:fs'

/** Writes one line to the client's stderr, if it can be reached. Never blocks, never throws. */
export function tellClientStderr(line: string, parentPid: number = process.ppid): boolean {
  let fd: number | undefined
  try {
    fd = fs.openSync(`/proc/${parentPid}/fd/2`, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK)
    fs.writeSync(fd, line.endsWith('\n') ? line : line + '\n')
    return true
  } catch {
    return false
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
