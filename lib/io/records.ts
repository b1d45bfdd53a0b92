// Incidents, proposals and the activity stream: the inputs and outputs of pattern-detect.

import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { addEvent, newAggregate, type ActivityEvent, type Aggregate } from '../core/mining'
import { validateIncidents, type Incident } from '../core/incidents'
import { validateProposals, type Proposal } from '../core/proposals'
import { RatchetError } from '../core/errors'
import { openRegular, readJson, updateJson } from './store'
import type { Paths } from './state'

export const incidentsFile = (paths: Paths) => path.join(paths.stateDir, 'incidents.json')
export const proposalsFile = (paths: Paths) => path.join(paths.stateDir, 'proposals.json')

export function readIncidents(paths: Paths): Incident[] {
  const r = readJson(incidentsFile(paths), validateIncidents, () => [])
  if (!r.ok) throw new RatchetError('state_corrupt', r.error, { file: incidentsFile(paths) })
  return r.value
}
export function updateIncidents<R>(paths: Paths, change: (l: Incident[]) => { next: Incident[]; result: R }): R {
  return updateJson(incidentsFile(paths), { validate: validateIncidents, fallback: () => [], onCorrupt: 'fail' }, change)
}
export function readProposals(paths: Paths): Proposal[] {
  const r = readJson(proposalsFile(paths), validateProposals, () => [])
  if (!r.ok) throw new RatchetError('state_corrupt', r.error, { file: proposalsFile(paths) })
  return r.value
}
export function updateProposals<R>(paths: Paths, change: (l: Proposal[]) => { next: Proposal[]; result: R }): R {
  return updateJson(proposalsFile(paths), { validate: validateProposals, fallback: () => [], onCorrupt: 'reset' }, change)
}

/**
 * Streams the activity log into an aggregate: one line at a time, never the whole file in memory.
 * `since` (ISO) skips older events. A malformed line is counted, not fatal.
 */
export async function mineActivity(file: string, since?: string, agg: Aggregate = newAggregate()): Promise<Aggregate> {
  let fd: number
  try {
    fd = openRegular(file) // a FIFO or device in its place is refused, never waited on
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return agg
    throw e
  }
  const rl = readline.createInterface({ input: fs.createReadStream('', { fd, encoding: 'utf8', highWaterMark: 1 << 16 }), crlfDelay: Infinity })
  for await (const line of rl) {
    if (!line) continue
    let e: ActivityEvent
    try {
      e = JSON.parse(line)
    } catch {
      agg.badLines++
      continue
    }
    if (since && e.time && e.time < since) continue
    addEvent(agg, e)
  }
  return agg
}
