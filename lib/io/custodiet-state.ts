// custodiet's per-session state (.ratchet/custodiet/<session>.json), its review cache, and the
// small hold file preflight-check looks for on every call (an existsSync, nothing more).

import fs from 'node:fs'
import path from 'node:path'
import { emptyState, hold, type CustodietState, type Finding } from '../core/custodiet'
import { maskDeep } from '../core/secrets'
import { fileOf, type DayCost } from './registry'
import {
  readRegularFile,
  readState as readStateFile,
  readStateOr,
  removeState,
  updateState as updateStateFile,
  writeState,
} from './store'
import type { Paths } from './registry'

export type { DayCost }
const dir = (paths: Paths) => paths.custodiet
export const holdFile = (paths: Paths, session: string) => fileOf(paths, 'custodietHold', session)

export function readState(paths: Paths, session: string): CustodietState {
  const r = readStateFile(paths, 'custodietState', session)
  // Unreadable: what the next update will start from (a hold in force is carried), not a clean record.
  return r.ok ? r.value : heldOver(paths, session)
}

/** `afterReset`: what the hook adds to a record that was damaged and started afresh (custodiet rebuilds the envelope). */
export function updateState<R>(
  paths: Paths,
  session: string,
  change: (s: CustodietState) => { next: CustodietState; result: R },
  opts: { afterReset?: (s: CustodietState) => CustodietState } = {},
): R {
  return updateStateFile(
    paths,
    'custodietState',
    (s) => {
      const r = change(s)
      if (r.next === s) return r
      const next = maskDeep(r.next) // the envelope and recent calls come from prompts and commands: masked at rest
      syncHold(paths, session, next)
      return { next, result: r.result }
    },
    { id: session, afterReset: () => (opts.afterReset ?? ((x: CustodietState) => x))(heldOver(paths, session)) },
  )
}

/**
 * A damaged record starts afresh, but not free: the hold file (kept in step with the record) says whether a
 * hold was in force, and that hold is carried into the new record, so syncHold does not lift it. A hold file
 * that exists but cannot be read is carried as the strictest hold (as preflight-check reads it).
 */
function heldOver(paths: Paths, session: string): CustodietState {
  const file = holdFile(paths, session)
  const base = emptyState()
  if (!fs.existsSync(file)) return base
  let f: Finding | undefined
  try {
    const raw = JSON.parse(readRegularFile(file, { noFollow: true })) as Finding
    if (
      raw &&
      typeof raw === 'object' &&
      typeof raw.level === 'number' &&
      raw.level >= 3 &&
      typeof raw.verdict?.issue === 'string'
    )
      f = { ...raw, lifted: false }
  } catch {
    /* read as the strictest below */
  }
  f ??= {
    id: 'unreadable-record',
    at: new Date().toISOString(),
    trigger: 'periodic',
    category: 'drift',
    level: 4,
    source: 'deterministic',
    delivered: true,
    verdict: {
      status: 'ATTENTION',
      issue: `custodiet's record of this session (${fileOf(paths, 'custodietState', session)}) could not be read, and a hold was in force`,
      correction: 'Read as the strictest hold until the user replies or runs `npx ratchet-guard custodiet release`.',
    },
  } as Finding
  return { ...base, findings: [f] }
}

/** Keeps the hold file in step with the state (called under the state's lock). */
function syncHold(paths: Paths, session: string, s: CustodietState): void {
  const h = hold(s)
  if (h) writeState(paths, 'custodietHold', h, { id: session })
  else removeState(paths, 'custodietHold', session)
}

export function listSessions(paths: Paths): string[] {
  try {
    // Each session's record, not the folder's other files (the registry's custodiet/ rows).
    const others = new Set([fileOf(paths, 'reviewCache'), fileOf(paths, 'reviewCost')].map((f) => path.basename(f)))
    return fs
      .readdirSync(dir(paths))
      .filter((f) => f.endsWith('.json') && !f.endsWith('.hold.json') && !others.has(f))
      .map((f) => f.slice(0, -5))
  } catch {
    return []
  }
}

/** Whether custodiet has a record of this session yet (none before its first prompt). */
export const hasRecord = (paths: Paths, session: string): boolean =>
  fs.existsSync(fileOf(paths, 'custodietState', session))

/** Other sessions' records changed in the last `withinMs`, newest first, at most `max`. */
export function recentSessions(paths: Paths, except: string, max: number, withinMs: number, now: number): string[] {
  const rows: { id: string; at: number }[] = []
  for (const id of listSessions(paths)) {
    if (id === except) continue
    try {
      const at = fs.statSync(fileOf(paths, 'custodietState', id)).mtimeMs
      if (now - at <= withinMs) rows.push({ id, at })
    } catch {
      /* gone meanwhile */
    }
  }
  return rows
    .sort((a, b) => b.at - a.at)
    .slice(0, max)
    .map((r) => r.id)
}

// ---- review cache: identical review windows are not bought twice ---------------------------------

export function cacheGet(paths: Paths, key: string, ttlMs: number, now: number): string | undefined {
  const e = readStateOr(paths, 'reviewCache').find((x) => x.key === key)
  return e && now - e.at <= ttlMs ? e.text : undefined
}

/** LRU with a TTL: newest first, expired and overflowing entries dropped. */
export function cachePut(paths: Paths, key: string, text: string, ttlMs: number, max: number, now: number): void {
  updateStateFile(paths, 'reviewCache', (list) => ({
    next: [{ key, at: now, text }, ...list.filter((e) => e.key !== key && now - e.at <= ttlMs)].slice(0, max),
    result: undefined,
  }))
}

// ---- the reviewer's cost per day (for `ratchet custodiet status` and the daily cap) ---------------

const zero = (): DayCost => ({ calls: 0, input_tokens: 0, output_tokens: 0, usd: 0 })

/**
 * The reviewer's cost per day, or why the file cannot be read. An unreadable file is never read as "nothing
 * spent" (an agent that damages it would get reviews without limit on the user's account): the caller
 * treats it as today's cap reached (lib/io/custodiet-config.ts capReason).
 */
export function readDailyCosts(
  paths: Paths,
): { ok: true; days: Record<string, DayCost> } | { ok: false; problem: string } {
  const r = readStateFile(paths, 'reviewCost')
  return r.ok ? { ok: true, days: r.value } : { ok: false, problem: r.error.message }
}

/**
 * Adds one review's cost to its day; keeps the last 60 days. The file's policy is 'fail': a damaged one is
 * never reset to zero (which would give a fresh cap); the write fails and the file waits for the user.
 */
export function addDailyCost(paths: Paths, day: string, c: DayCost): void {
  updateStateFile(paths, 'reviewCost', (all) => {
    const d = { ...zero(), ...(all[day] ?? {}) }
    const next = {
      ...all,
      [day]: {
        calls: d.calls + c.calls,
        input_tokens: d.input_tokens + c.input_tokens,
        output_tokens: d.output_tokens + c.output_tokens,
        usd: Math.round((d.usd + c.usd) * 1e6) / 1e6,
      },
    }
    const days = Object.keys(next).sort().slice(-60)
    return { next: Object.fromEntries(days.map((k) => [k, next[k]])), result: undefined }
  })
}
