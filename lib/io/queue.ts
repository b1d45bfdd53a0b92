// pending-actions.json: the approval queue, through the one state writer (lib/io/store.ts).
// Every change is a pure transition from lib/core/pending.ts applied under the lock; no lock is
// ever held across a network call or a wait for a human.

import {
  claimSend as claim,
  newEntry,
  releaseSend as release,
  type NewAction,
  type PendingEntry,
  type SendKind,
} from '../core/pending'
import { processAlive, processTag, readState, updateState } from './store'
import type { Paths } from './registry'
import type { Result } from '../core/errors'

/** The queue, or the error (naming the file and field) when it cannot be read: for callers that must say so. */
export function readQueue(paths: Paths): Result<PendingEntry[]> {
  return readState(paths, 'pending')
}

/** The queue's entries; none when it cannot be read (a hook goes on: its decision never relies on an approval it cannot see). */
export function queueEntries(paths: Paths): PendingEntry[] {
  const r = readState(paths, 'pending')
  return r.ok ? r.value : []
}

export function updateQueue<R>(paths: Paths, change: (list: PendingEntry[]) => { next: PendingEntry[]; result: R }): R {
  return updateState(paths, 'pending', change)
}

// node:crypto is loaded only when something is queued: on a hook's hot path it costs ~5 ms.
const random = (bytes: number): string =>
  (require('node:crypto') as typeof import('node:crypto')).randomBytes(bytes).toString('hex')

export function newId(): string {
  return `pa-${random(4)}`
}

/** `id` may be given (preflight-check derives it from the call, so its decision stays pure). */
export function enqueue(paths: Paths, action: NewAction, now = new Date(), id = newId()): PendingEntry {
  const entry = newEntry(action, id, random(8), now)
  return updateQueue(paths, (list) => ({ next: [...list, entry], result: entry }))
}

export function patchEntry(
  paths: Paths,
  id: string,
  patch: (e: PendingEntry) => Partial<PendingEntry>,
): PendingEntry | undefined {
  return updateQueue(paths, (list) => {
    const i = list.findIndex((e) => e.id === id)
    if (i < 0) return { next: list, result: undefined }
    const next = list.slice()
    next[i] = { ...list[i], ...patch(list[i]) }
    return { next, result: next[i] }
  })
}

/** Claims one message about an entry for this process (null: not needed, or another heartbeat has it). */
export function claimSend(paths: Paths, id: string, kind: SendKind): PendingEntry | null {
  return updateQueue(paths, (list) => claim(list, id, kind, processTag(), Date.now(), processAlive))
}

/** Ends this process's claim, recording what the send changed. */
export function releaseSend(
  paths: Paths,
  id: string,
  kind: SendKind,
  patch: Partial<PendingEntry> | ((e: PendingEntry) => Partial<PendingEntry>),
): void {
  updateQueue(paths, (list) => release(list, id, kind, patch))
}
