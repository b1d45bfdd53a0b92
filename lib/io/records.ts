// Incidents, proposals and the activity stream: the inputs and outputs of pattern-detect.

import fs from 'node:fs'
import readline from 'node:readline'
import { addEvent, newAggregate, type ActivityEvent, type Aggregate } from '../core/mining'
import type { Incident } from '../core/incidents'
import type { Proposal } from '../core/proposals'
import { openRegular, readState, updateState } from './store'
import type { Paths } from './registry'

export function readIncidents(paths: Paths): Incident[] {
  const r = readState(paths, 'incidents')
  if (!r.ok) throw r.error
  return r.value
}
export function updateIncidents<R>(paths: Paths, change: (l: Incident[]) => { next: Incident[]; result: R }): R {
  return updateState(paths, 'incidents', change)
}
export function readProposals(paths: Paths): Proposal[] {
  const r = readState(paths, 'proposals')
  if (!r.ok) throw r.error
  return r.value
}
export function updateProposals<R>(paths: Paths, change: (l: Proposal[]) => { next: Proposal[]; result: R }): R {
  return updateState(paths, 'proposals', change)
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
  const rl = readline.createInterface({
    input: fs.createReadStream('', { fd, encoding: 'utf8', highWaterMark: 1 << 16 }),
    crlfDelay: Infinity,
  })
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
