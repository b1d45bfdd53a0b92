// Human labels on guardrail fires (.ratchet/labels.json): the false-positive rate's only source.

import path from 'node:path'
import { RatchetError } from '../core/errors'
import { validateLabels, withLabel, type Label } from '../core/labels'
import { readJson, updateJson } from './store'
import type { Paths } from './state'

export const labelsFile = (paths: Paths) => path.join(paths.stateDir, 'labels.json')

export function readLabels(paths: Paths): Label[] {
  const r = readJson(labelsFile(paths), validateLabels, () => [])
  if (!r.ok) throw new RatchetError('state_corrupt', r.error, { file: labelsFile(paths) })
  return r.value
}

export function addLabel(paths: Paths, l: Label): void {
  updateJson(labelsFile(paths), { validate: validateLabels, fallback: (): Label[] => [], onCorrupt: 'fail' }, (list) => ({ next: withLabel(list, l), result: undefined }))
}
