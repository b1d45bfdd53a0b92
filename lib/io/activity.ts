// The activity record (one masked line per decision) and the error log (full details, never in the agent's context).

import type { ActivityRecord } from '../core/activity'
import { RatchetError } from '../core/errors'
import { maskDeep, maskSecrets } from '../core/secrets'
import type { Paths } from './registry'
import { appendLine, appendState } from './store'

/**
 * One line per decision, masked: no token, password or key from a command or prompt is kept at rest.
 * Appends one masked record. A log that is not a regular file (a FIFO planted there) is not written, and
 * does not stop the hook: the problem goes to errors.log and is returned, for the hook to tell the user.
 */
export function logActivity(paths: Paths, record: ActivityRecord): string | undefined {
  try {
    appendState(paths, 'activity', maskDeep(record))
    return undefined
  } catch (e) {
    if (!(e instanceof RatchetError) || e.code !== 'state_unreadable') throw e
    logError(paths, String(record.hook ?? 'ratchet'), e)
    return e.message
  }
}

/** Full details (stacks) go here, never into the agent's context. */
export function logError(paths: Paths, hook: string, error: unknown): void {
  try {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error)
    appendLine(paths.errors, `${new Date().toISOString()} ${hook}: ${maskSecrets(text)}\n`)
  } catch {
    /* the error log is best effort */
  }
}
