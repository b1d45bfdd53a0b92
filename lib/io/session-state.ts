// Each session's facts (what it read, its prompts, the checks issued), kept masked; a damaged or removed record
// reads as a session that may have read a secret.

import path from 'node:path'
import { maskDeep } from '../core/secrets'
import { logError } from './activity'
import { fileOf, type Paths, type SessionState } from './registry'
import { readRegularFile, readState, updateState } from './store'

const emptySession = (): SessionState => ({ reads: {}, prompts: [], checks: {} })

export function sessionFile(paths: Paths, sessionId: string): string {
  return fileOf(paths, 'session', sessionId)
}

/**
 * What an unreadable session file (bad JSON, wrong shape, a folder, a FIFO, mode 000, a link) is read as — and a
 * missing one, once the session has run a tool (see removedSession): a session that may have read a secret, with no
 * earlier check issued (no identical retry passes on its strength), nothing read and nothing created by the
 * agent. Its secrets entry names the file, so a later send off the machine is judged, and said, as after a
 * secret read (lib/core/actions/secrets.ts secretSends). Ordinary reads and edits stay as quiet as in a
 * session that did read a secret.
 */
export function damagedSession(paths: Paths, sessionId: string, now: number): SessionState {
  return { ...emptySession(), secrets: { [damagedMark(paths, sessionId)]: now } }
}

/** The secrets entry of a damaged session: what it may have read, named by the file that lost it. */
export const damagedMark = (paths: Paths, sessionId: string): string =>
  `whatever it read before its record ${path.relative(paths.projectDir, sessionFile(paths, sessionId)) || sessionFile(paths, sessionId)} was lost (unreadable or removed)`

/**
 * A session file absent although the session has run a tool: custodiet has counted one, so the first prompt's
 * hooks had all finished, preflight-check's among them, which writes the session file. (Not mere existence of
 * custodiet's record: on the first prompt the two hooks run at once.) Read only when the session file is absent.
 */
function removedSession(paths: Paths, sessionId: string): boolean {
  try {
    const raw = JSON.parse(readRegularFile(fileOf(paths, 'custodietState', sessionId), { noFollow: true })) as {
      toolCount?: unknown
    }
    return typeof raw?.toolCount === 'number' && raw.toolCount > 0
  } catch {
    return false
  }
}

export function readSession(paths: Paths, sessionId: string): SessionState {
  const r = readState(paths, 'session', sessionId)
  if (!r.ok || (!r.exists && removedSession(paths, sessionId))) return damagedSession(paths, sessionId, Date.now())
  return r.value
}

export function updateSession<R = void>(
  paths: Paths,
  sessionId: string,
  change: (s: SessionState) => { next: SessionState; result: R },
): R {
  // Prompts and blocked-call summaries are kept masked (secrets never at rest).
  return updateState(
    paths,
    'session',
    (s) => {
      const r = change(s)
      return r.next === s ? r : { next: maskDeep(r.next), result: r.result }
    },
    {
      id: sessionId,
      // The damaged copy is kept aside (by the store) and the new record carries the mark forward: what the
      // session may have read is never forgotten by starting afresh.
      afterReset: (error, aside) => {
        logError(paths, 'ratchet', `${error.message}; kept as ${aside}; the session now counts as having read a secret`)
        return damagedSession(paths, sessionId, Date.now())
      },
      fallback: () => {
        if (!removedSession(paths, sessionId)) return emptySession()
        logError(
          paths,
          'ratchet',
          `${sessionFile(paths, sessionId)} was removed during the session; the session now counts as having read a secret`,
        )
        return damagedSession(paths, sessionId, Date.now())
      },
    },
  )
}
