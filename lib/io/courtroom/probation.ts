// The probation file (.ratchet/courtroom/probation.json): read and changed under its lock. Only fs and
// the store: preflight-check imports this, and must load nothing else of the courtroom.

import type { Probation, ProbationFile } from '../../core/courtroom/probation'
import type { Paths } from '../registry'
import { readState, removeState, updateState } from '../store'

// ---- probation -------------------------------------------------------------------------------

/**
 * The probations in force. A probation file that exists but cannot be read (a folder, no permission, a FIFO,
 * bad JSON) is not "no probation": that would let whoever broke it lift every restraint. It reads as the
 * strictest probation there is, on every action that changes something, with one line saying what to fix.
 */
export function readProbation(paths: Paths): Probation[] {
  const r = readState(paths, 'probation')
  return r.ok ? r.value.probations : [unreadableProbation(r.error.message)]
}

export function unreadableProbation(why: string): Probation {
  return {
    case_id: 'probation-unreadable',
    offense_name: 'the probation file is unreadable',
    offense_id: 'unreadable',
    tier: 'severe',
    classes: [],
    patterns: [],
    tools: ['*'],
    reminder: `${why}. Read as the strictest probation: every action that changes something waits until the user fixes or removes that file.`,
    started: new Date(0).toISOString(),
  }
}

/**
 * Locked change of the probation list. When it empties the file is removed, so preflight-check's
 * existsSync is false again and the hot path reads nothing.
 */
export function updateProbation<R>(paths: Paths, change: (list: Probation[]) => { next: Probation[]; result: R }): R {
  let empty = false
  const r = updateState(paths, 'probation', (cur): { next: ProbationFile; result: R } => {
    const { next, result } = change(cur.probations)
    empty = next.length === 0
    return { next: next === cur.probations ? cur : { v: 1, probations: next }, result }
  })
  if (empty) {
    // Remove under the lock: a concurrent add must not be lost.
    updateState(paths, 'probation', (cur) => {
      if (!cur.probations.length) removeState(paths, 'probation')
      return { next: cur, result: undefined }
    })
  }
  return r
}
