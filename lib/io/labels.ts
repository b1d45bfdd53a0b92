// Human labels on guardrail fires (.ratchet/labels.json): the false-positive rate's only source.

import { withLabel, type Label } from '../core/labels'
import { readState, updateState } from './store'
import type { Paths } from './state'


/** Throws a one-line error naming the file and field when labels.json is bad (it is never reset). */
export function readLabels(paths: Paths): Label[] {
  const r = readState(paths, 'labels')
  if (!r.ok) throw r.error
  return r.value
}

export function addLabel(paths: Paths, l: Label): void {
  updateState(paths, 'labels', (list) => ({ next: withLabel(list, l), result: undefined }))
}
