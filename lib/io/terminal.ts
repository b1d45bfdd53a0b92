// The one message a headless run must not swallow. In `claude -p` the client shows neither a hook's
// systemMessage nor its stderr, so a deferred (paused) call would end the run with no word of the pending
// id. The hook's parent is the client itself (the registered command `exec`s the launcher), so writing to
// the parent's stderr puts the line where the person or script that started the run reads the run's own
// errors: the terminal, or the file or pipe it was sent to. Opened for appending, so a log file is never
// overwritten. A client started by a Node script has a socket for stderr (libuv's stdio "pipe" is a
// socketpair), which /proc cannot open (ENXIO): the line then goes to the nearest ancestor whose stderr can be
// opened — the script's own terminal or log. Without /proc (other platforms) the pause is still in
// `ratchet pending list` and on Telegram.

import fs from 'node:fs'
import { parentPid } from './proc'

/** How far up the process tree a socket-stderr client is followed (the client, its launcher, their shell). */
const MAX_HOPS = 3

/** Writes one line to the client's stderr, if it can be reached. Never blocks, never throws. */
export function tellClientStderr(line: string, clientPid: number = process.ppid): boolean {
  const text = line.endsWith('\n') ? line : line + '\n'
  let pid = clientPid
  for (let hop = 0; hop < MAX_HOPS && pid > 1; hop++) {
    const r = writeTo(pid, text)
    if (r !== 'socket') return r === 'written'
    pid = parentPid(pid)
  }
  return false
}

function writeTo(pid: number, text: string): 'written' | 'socket' | 'failed' {
  let fd: number | undefined
  try {
    fd = fs.openSync(
      `/proc/${pid}/fd/2`,
      fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK,
    )
    fs.writeSync(fd, text)
    return 'written'
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENXIO' ? 'socket' : 'failed'
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
