// Live Claude Code sessions of this project, as session-start records them (pid, start time, controlling
// terminal of the claude process), so the deciding CLI can tell a human's terminal from a command the agent
// detached (lib/cli/run.ts humanOnly). Linux only: elsewhere nothing is recorded and nothing is required.

import type { Paths } from './registry'
import { readState, updateState } from './store'
import { findClaudeAncestor, procStat } from './proc'
import type { LiveSession } from './registry'

const alive = (s: LiveSession): boolean => procStat(s.pid)?.start === s.start

/** session-start: records the claude process above this hook (and forgets the ones that ended). */
export function recordLiveSession(paths: Paths, now = new Date()): void {
  const c = findClaudeAncestor()
  const st = c && procStat(c.pid)
  if (!c || !st) return
  updateState(paths, 'liveSessions', (list) => {
    const rest = list.filter((s) => s.pid !== c.pid && alive(s))
    return { next: [...rest, { pid: c.pid, start: st.start, tty: st.tty, at: now.toISOString() }], result: undefined }
  })
}

/**
 * Undefined when this process may decide as a human: no live session, or a controlling terminal that is not a live
 * session's. Otherwise one line saying why not. An unreadable record is read as a live session (the strict reading).
 */
export function terminalVerdict(paths: Paths, self = process.pid): string | undefined {
  const me = procStat(self)
  if (!me) return undefined // no /proc: nothing was recorded either
  const r = readState(paths, 'liveSessions')
  if (!r.ok)
    return me.tty
      ? undefined
      : `${r.error.message}; read as a live session, and this command has no terminal of its own`
  const live = r.value.filter(alive)
  if (!live.length) return undefined
  const pids = live.map((s) => s.pid).join(', ')
  if (!me.tty)
    return `a Claude Code session (pid ${pids}) is running for this project, and this command has no terminal of its own: it was started detached, by cron, at or a daemon`
  if (live.some((s) => s.tty === me.tty))
    return `this command runs in the terminal of the Claude Code session (pid ${pids}); run it in another terminal`
  return undefined
}
