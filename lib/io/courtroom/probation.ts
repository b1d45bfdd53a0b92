// The probation file (.ratchet/courtroom/probation.json): read and changed under its lock. Only fs and
// the store: preflight-check imports this, and must load nothing else of the courtroom.

import type { Probation, ProbationFile } from '../../core/courtroom/probation'
import type { Paths } from '../state'
import { readStateOr, removeState, updateState } from '../store'

// ---- probation -------------------------------------------------------------------------------

export function readProbation(paths: Paths): Probation[] {
  return readStateOr(paths, 'probation').probations
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
