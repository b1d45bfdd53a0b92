// custodiet's per-session state (.ratchet/custodiet/<session>.json), its review cache, and the
// small hold file preflight-check looks for on every call (an existsSync, nothing more).

import fs from 'node:fs'
import path from 'node:path'
import { emptyState, hold, normalizeState, type CustodietState } from '../core/custodiet'
import { maskDeep } from '../core/secrets'
import { readJson, updateJson, writeFileAtomic } from './store'
import type { Paths } from './state'

const dir = (paths: Paths) => path.join(paths.stateDir, 'custodiet')
const safe = (id: string) => id.replace(/[^A-Za-z0-9_.-]/g, '_')
export const stateFile = (paths: Paths, session: string) => path.join(dir(paths), `${safe(session)}.json`)
export const holdFile = (paths: Paths, session: string) => path.join(dir(paths), `${safe(session)}.hold.json`)

const validate = (raw: unknown): CustodietState | string => (raw && typeof raw === 'object' && typeof (raw as CustodietState).toolCount === 'number' && Array.isArray((raw as CustodietState).findings) ? normalizeState(raw as CustodietState) : 'not a custodiet state file')

export function readState(paths: Paths, session: string): CustodietState {
  const r = readJson(stateFile(paths, session), validate, emptyState)
  return r.ok ? r.value : emptyState()
}

export function updateState<R>(paths: Paths, session: string, change: (s: CustodietState) => { next: CustodietState; result: R }): R {
  const result = updateJson(stateFile(paths, session), { validate, fallback: emptyState, onCorrupt: 'reset' }, (s) => {
    const r = change(s)
    if (r.next === s) return r
    const next = maskDeep(r.next) // the envelope and recent calls come from prompts and commands: masked at rest
    syncHold(paths, session, next)
    return { next, result: r.result }
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
    return fs.readdirSync(dir(paths)).filter((f) => f.endsWith('.json') && !f.endsWith('.hold.json') && f !== 'review-cache.json' && f !== 'cost-daily.json').map((f) => f.slice(0, -5))
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

// ---- the reviewer's cost per day (for `ratchet custodiet status` and the daily cap) ---------------

export interface DayCost {
  calls: number
  input_tokens: number
  output_tokens: number
  usd: number
}
const costFile = (paths: Paths) => path.join(dir(paths), 'cost-daily.json')
const validateCost = (raw: unknown): Record<string, DayCost> | string => (raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, DayCost>) : 'expected an object of days')
const zero = (): DayCost => ({ calls: 0, input_tokens: 0, output_tokens: 0, usd: 0 })

export function dailyCosts(paths: Paths): Record<string, DayCost> {
  const r = readJson(costFile(paths), validateCost, () => ({}))
  return r.ok ? r.value : {}
}

export function dailyCost(paths: Paths, day: string): DayCost {
  return { ...zero(), ...(dailyCosts(paths)[day] ?? {}) }
}

/** Adds one review's cost to its day; keeps the last 60 days. */
export function addDailyCost(paths: Paths, day: string, c: DayCost): void {
  updateJson(costFile(paths), { validate: validateCost, fallback: (): Record<string, DayCost> => ({}), onCorrupt: 'reset' }, (all) => {
    const d = { ...zero(), ...(all[day] ?? {}) }
    const next = { ...all, [day]: { calls: d.calls + c.calls, input_tokens: d.input_tokens + c.input_tokens, output_tokens: d.output_tokens + c.output_tokens, usd: Math.round((d.usd + c.usd) * 1e6) / 1e6 } }
    const days = Object.keys(next).sort().slice(-60)
    return { next: Object.fromEntries(days.map((k) => [k, next[k]])), result: undefined }
  })
}
