// The process tree, read from /proc (Linux). Used to find who started a call: the deciding CLI looks for a
// Claude Code ancestor (lib/cli/run.ts), and the headless pause notice climbs to a stderr it can open
// (terminal.ts). Without /proc (macOS, Windows) nothing is found and both fall back as they say.

import fs from 'node:fs'

/** The parent pid of `pid`, or 0 when it cannot be read. */
export function parentPid(pid: number, proc = '/proc'): number {
  try {
    const stat = fs.readFileSync(`${proc}/${pid}/stat`, 'utf8')
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    return Number.isInteger(ppid) && ppid > 0 ? ppid : 0
  } catch {
    return 0
  }
}
