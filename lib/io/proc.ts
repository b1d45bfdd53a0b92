// The process tree, read from /proc (Linux). Used to find who started a call: the deciding CLI looks for a
// Claude Code ancestor (lib/cli/run.ts), and the headless pause notice climbs to a stderr it can open
// (terminal.ts). Without /proc (macOS, Windows) nothing is found and both fall back as they say.

import fs from 'node:fs'

/** What /proc/<pid>/stat says of a process that Ratchet uses. */
export interface ProcStat {
  ppid: number
  /** The session id (setsid makes a new one). */
  sid: number
  /** The controlling terminal's device number; 0 when the process has none (detached, cron, at, a daemon). */
  tty: number
  /** Start time in clock ticks since boot: with the pid, it names one process (pids are reused). */
  start: number
}

/** /proc/<pid>/stat, or undefined when it cannot be read (gone, or no /proc). */
export function procStat(pid: number, proc = '/proc'): ProcStat | undefined {
  try {
    const stat = fs.readFileSync(`${proc}/${pid}/stat`, 'utf8')
    // "pid (comm) state ppid pgrp session tty_nr … starttime(22nd) …": comm may hold spaces and parentheses, so
    // read after the last ')'; field n is at index n - 3 of what follows.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const n = (i: number) => Number(f[i])
    return { ppid: n(1), sid: n(3), tty: n(4), start: n(19) }
  } catch {
    return undefined
  }
}

/** The parent pid of `pid`, or 0 when it cannot be read. */
export function parentPid(pid: number, proc = '/proc'): number {
  const ppid = procStat(pid, proc)?.ppid ?? 0
  return Number.isInteger(ppid) && ppid > 0 ? ppid : 0
}

/** How many parents are looked at: a shell, a wrapper or two, npx, node… claude is never far up. */
const MAX_ANCESTORS = 32

/**
 * The nearest ancestor that is the Claude Code CLI, or undefined. Reads /proc/<pid>/cmdline and the parent pid;
 * on other platforms there is no /proc and this finds nothing.
 */
export function findClaudeAncestor(start = process.ppid, proc = '/proc'): { pid: number; argv: string[] } | undefined {
  let pid = start
  for (let i = 0; i < MAX_ANCESTORS && pid > 1; i++) {
    let argv: string[]
    try {
      argv = fs.readFileSync(`${proc}/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    } catch {
      return undefined
    }
    if (isClaudeCli(argv)) return { pid, argv }
    const ppid = parentPid(pid, proc)
    if (ppid === pid) return undefined
    pid = ppid
  }
  return undefined
}

/** The Claude Code CLI: the native `claude` binary (claude.exe in the npm package), or node running its cli.js. */
export function isClaudeCli(argv: string[]): boolean {
  const base = (s: string | undefined) => (s ?? '').slice((s ?? '').lastIndexOf('/') + 1)
  if (/^claude(\.exe)?$/.test(base(argv[0]))) return true
  return (
    /^(node|nodejs|bun)$/.test(base(argv[0])) &&
    /@anthropic-ai\/claude-code\/(cli\.(m?js)|bin\/claude(\.exe)?)$/.test(argv[1] ?? '')
  )
}
