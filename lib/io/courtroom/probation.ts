// The probation file (.ratchet/courtroom/probation.json): read and changed under its lock. Only fs and
// the store: preflight-check imports this, and must load nothing else of the courtroom.

import fs from 'node:fs'
import type { Probation, ProbationFile } from '../../core/courtroom/probation'
import type { Paths } from '../state'
import { readJson, updateJson } from '../store'
import { probationFile } from './files'

// ---- probation -------------------------------------------------------------------------------

const validateProbation = (raw: unknown): ProbationFile | string => (raw && typeof raw === 'object' && Array.isArray((raw as ProbationFile).probations) ? (raw as ProbationFile) : 'not a probation file')

export function readProbation(paths: Paths): Probation[] {
  const r = readJson(probationFile(paths), validateProbation, () => ({ v: 1 as const, probations: [] }))
  return r.ok ? r.value.probations : []
}

/**
 * Locked change of the probation list. When it empties the file is removed, so preflight-check's
 * existsSync is false again and the hot path reads nothing.
 */
export function updateProbation<R>(paths: Paths, change: (list: Probation[]) => { next: Probation[]; result: R }): R {
  const file = probationFile(paths)
  let empty = false
  const r = updateJson<ProbationFile, R>(file, { validate: validateProbation, fallback: () => ({ v: 1, probations: [] }), onCorrupt: 'reset' }, (cur) => {
    const { next, result } = change(cur.probations)
    empty = next.length === 0
    return { next: next === cur.probations ? cur : { v: 1, probations: next }, result }
  })
  if (empty) {
    // Remove under the lock: a concurrent add must not be lost.
    updateJson<ProbationFile, void>(file, { validate: validateProbation, fallback: () => ({ v: 1, probations: [] }), onCorrupt: 'reset' }, (cur) => {
      if (!cur.probations.length) fs.rmSync(file, { force: true })
      return { next: cur, result: undefined }
    })
  }
  return r
}
