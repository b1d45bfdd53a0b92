// Human labels on guardrail fires (.ratchet/labels.json): the false-positive rate's only source.

import { withLabel, type Label, type LabelAsk } from '../core/labels'
import { readState, readStateOr, updateState } from './store'
import type { Paths } from './registry'

/** Throws a one-line error naming the file and field when labels.json is bad (it is never reset). */
export function readLabels(paths: Paths): Label[] {
  const r = readState(paths, 'labels')
  if (!r.ok) throw r.error
  return r.value
}

export function addLabel(paths: Paths, l: Label): void {
  updateState(paths, 'labels', (list) => ({ next: withLabel(list, l), result: undefined }))
}

// .ratchet/label-asks.json: fires asked about over Telegram (buttons), each claimed before it is sent.
// A corrupt copy is reset: the worst case is one fire asked again, never a lost label.
export function readAsks(paths: Paths): LabelAsk[] {
  return readStateOr(paths, 'labelAsks')
}

export function updateAsks<R>(paths: Paths, change: (list: LabelAsk[]) => { next: LabelAsk[]; result: R }): R {
  return updateState(paths, 'labelAsks', change)
}
