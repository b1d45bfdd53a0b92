// Human labels on guardrail fires (.ratchet/labels.json): the false-positive rate's only source.

import path from 'node:path'
import { RatchetError } from '../core/errors'
import { validateAsks, validateLabels, withLabel, type Label, type LabelAsk } from '../core/labels'
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

// .ratchet/label-asks.json: fires asked about over Telegram (buttons), each claimed before it is sent.
export const asksFile = (paths: Paths) => path.join(paths.stateDir, 'label-asks.json')

export function readAsks(paths: Paths): LabelAsk[] {
  const r = readJson(asksFile(paths), validateAsks, () => [])
  return r.ok ? r.value : []
}

/** A corrupt asks file is reset: the worst case is one fire asked again, never a lost label. */
export function updateAsks<R>(paths: Paths, change: (list: LabelAsk[]) => { next: LabelAsk[]; result: R }): R {
  return updateJson(asksFile(paths), { validate: validateAsks, fallback: (): LabelAsk[] => [], onCorrupt: 'reset' }, change)
}
