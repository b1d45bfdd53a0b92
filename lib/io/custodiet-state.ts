// custodiet's per-session state (.ratchet/custodiet/<session>.json), its review cache, and the
// small hold file preflight-check looks for on every call (an existsSync, nothing more).

import fs from 'node:fs'
import path from 'node:path'
import { emptyState, hold, type CustodietState } from '../core/custodiet'
import { readJson, updateJson, writeFileAtomic } from './store'
import type { Paths } from './state'

const dir = (paths: Paths) => path.join(paths.stateDir, 'custodiet')
const safe = (id: string) => id.replace(/[^A-Za-z0-9_.-]/g, '_')
export const stateFile = (paths: Paths, session: string) => path.join(dir(paths), `${safe(session)}.json`)
export const holdFile = (paths: Paths, session: string) => path.join(dir(paths), `${safe(session)}.hold.json`)

const validate = (raw: unknown): CustodietState | string => (raw && typeof raw === 'object' && typeof (raw as CustodietState).toolCount === 'number' && Array.isArray((raw as CustodietState).findings) ? (raw as CustodietState) : 'not a custodiet state file')

export function readState(paths: Paths, session: string): CustodietState {
  const r = readJson(stateFile(paths, session), validate, emptyState)
  return r.ok ? r.value : emptyState()
}

export function updateState<R>(paths: Paths, session: string, change: (s: CustodietState) => { next: CustodietState; result: R }): R {
  const result = updateJson(stateFile(paths, session), { validate, fallback: emptyState, onCorrupt: 'reset' }, (s) => {
    const r = change(s)
    syncHold(paths, session, r.next)
    return r
  })
  return result
}

/** Keeps the hold file in step with the state (called under the state's lock). */
function syncHold(paths: Paths, session: string, s: CustodietState): void {
  const h = hold(s)
  const file = holdFile(paths, session)
  if (h) writeFileAtomic(file, JSON.stringify(h))
  else fs.rmSync(file, { force: true })
}

export function listSessions(paths: Paths): string[] {
  try {
    return fs.readdirSync(dir(paths)).filter((f) => f.endsWith('.json') && !f.endsWith('.hold.json')).map((f) => f.slice(0, -5))
  } catch {
    return []
  }
}

// ---- review cache: identical review windows are not bought twice ---------------------------------

interface CacheEntry {
  key: string
  at: number
  text: string
}
const cacheFile = (paths: Paths) => path.join(dir(paths), 'review-cache.json')
const validateCache = (raw: unknown): CacheEntry[] | string => (Array.isArray(raw) ? (raw as CacheEntry[]) : 'expected an array')

export function cacheGet(paths: Paths, key: string, ttlMs: number, now: number): string | undefined {
  const r = readJson(cacheFile(paths), validateCache, () => [])
  const e = r.ok ? r.value.find((x) => x.key === key) : undefined
  return e && now - e.at <= ttlMs ? e.text : undefined
}

/** LRU with a TTL: newest first, expired and overflowing entries dropped. */
export function cachePut(paths: Paths, key: string, text: string, ttlMs: number, max: number, now: number): void {
  updateJson(cacheFile(paths), { validate: validateCache, fallback: () => [], onCorrupt: 'reset' }, (list) => ({
    next: [{ key, at: now, text }, ...list.filter((e) => e.key !== key && now - e.at <= ttlMs)].slice(0, max),
    result: undefined,
  }))
}
