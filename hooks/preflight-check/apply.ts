// The I/O side of PreToolUse, part 2: apply the effects the pure decision asked for, in one place.
// Each effect is a small locked transition. The approval is used up first, under the queue lock: if a
// racing call used it a moment ago, `applyEffects` says so and the shell decides again without it.

import { consumeApproval, takeUndelivered, type PendingEntry } from '../../lib/core/pending'
import { enqueue, updateQueue } from '../../lib/io/queue'
import { spawnDetached } from '../../lib/io/spawn'
import { homeDir } from '../../lib/io/paths'
import { logError } from '../../lib/io/activity'
import { recordFires } from '../../lib/io/fires'
import { updateSession } from '../../lib/io/session-state'
import type { Paths } from '../../lib/io/registry'
import { rememberSecrets } from '../../lib/io/known-secrets'
import { updateState } from '../../lib/io/custodiet-state'
import { addFinding } from '../custodiet/findings'
import { custodietConfig } from '../../lib/io/custodiet-config'
import { routeAroundVerdict } from './compose'
import type { Effect } from './outcome'
import { recordCapabilities } from './pause'
import { countDown } from '../../lib/core/courtroom/probation'
import { updateProbation } from '../../lib/io/courtroom/probation'
import { openHearing } from '../../lib/io/courtroom/trigger'

/** Returns false when an approval the decision relied on is gone (used by a racing identical call). */
export function applyEffects(paths: Paths, session: string, effects: Effect[], now: number): boolean {
  const at = new Date(now)
  const consume = effects.find((e): e is Extract<Effect, { kind: 'consume-approval' }> => e.kind === 'consume-approval')
  if (consume) {
    const used = updateQueue(paths, (list) => consumeApproval(list, consume.fingerprint, undefined, at, consume.id))
    if (!used || used.id !== consume.id) return false
    try {
      recordCapabilities(paths, consume.capabilities, at)
    } catch (e) {
      logError(paths, 'preflight-check', e)
    }
  }
  // The rest are side effects after the decision: if one fails, the decision still stands (and is logged).
  for (const e of effects) {
    try {
      applyOne(paths, session, e, now)
    } catch (err) {
      logError(paths, 'preflight-check', err)
    }
  }
  return true
}

function applyOne(paths: Paths, session: string, e: Effect, now: number): void {
  switch (e.kind) {
    case 'consume-approval':
      return
    case 'enqueue': {
      const entry = enqueue(paths, e.entry, new Date(now), e.entry.id)
      // The Telegram message goes out from a detached process: the hook never waits on the network.
      if (e.notify) spawnDetached('ratchet', ['heartbeat', '--notify', entry.id])
      return
    }
    case 'deliver': {
      const ids = new Set(e.ids)
      updateQueue(paths, (list) => ({
        next: list.map((x): PendingEntry => (ids.has(x.id) && x.status !== 'pending' ? { ...x, delivered: true } : x)),
        result: undefined,
      }))
      return
    }
    case 'session':
      return recordSession(paths, session, e, now)
    case 'fires':
      recordFires(paths, e.ids, new Date(now).toISOString())
      return
    case 'route-around':
      return recordRouteAround(paths, session, e, now)
    case 'probation':
      updateProbation(paths, (list) => ({ next: countDown(list, e.counted, e.lifted), result: undefined }))
      return
  }
}

/** What the session remembers of this call: files read, created, secrets read, checks, blocks. */
function recordSession(paths: Paths, session: string, e: Extract<Effect, { kind: 'session' }>, now: number): void {
  updateSession(paths, session, (s) => {
    const reads = { ...s.reads }
    for (const r of e.reads) reads[r] = now
    const checks = { ...s.checks }
    if (e.checkIssued) checks[e.checkIssued] = now
    if (e.checkAnswered) delete checks[e.checkAnswered]
    const blocked = e.block ? [...(s.blocked ?? []), e.block].slice(-10) : e.clearBlocks ? [] : s.blocked
    const remember = (old: Record<string, number> | undefined, add: string[] | undefined) =>
      add?.length
        ? Object.fromEntries([...Object.entries(old ?? {}), ...add.map((k) => [k, now] as const)].slice(-1000))
        : old
    const created = remember(s.created, e.created)
    const secrets = remember(s.secrets, e.secrets)
    return {
      next: {
        ...s,
        reads,
        checks,
        blocked,
        updated: now,
        ...(created ? { created } : {}),
        ...(secrets ? { secrets } : {}),
      },
      result: undefined,
    }
  })
  // The values in the secret files this call reads are remembered, hashed, so they are known if they leave later.
  if (e.secrets?.length) rememberSecrets({ ...paths, homeDir: homeDir() }, session, e.secrets, now)
}

/** An allowed route-around becomes a custodiet finding (category route_around, level 3 by default). */
function recordRouteAround(
  paths: Paths,
  session: string,
  e: Extract<Effect, { kind: 'route-around' }>,
  now: number,
): void {
  const { policy } = custodietConfig(paths)
  updateState(paths, session, (s) => ({
    next: addFinding(
      s,
      'periodic',
      { status: 'ATTENTION', ...routeAroundVerdict(e.blocked, e.attempt) },
      'deterministic',
      policy,
      new Date(now),
      'route_around',
    ),
    result: undefined,
  }))
  // The courtroom's hook point (one existsSync while it is off): a route-around may open a hearing.
  openHearing(paths, {
    source: 'route_around',
    signal: 'route_around',
    summary: routeAroundVerdict(e.blocked, e.attempt).issue,
    confidence: 0.9,
    session,
    evidence: [`blocked: ${e.blocked}`, `then: ${e.attempt}`],
  })
}

/** Outside PreToolUse (UserPromptSubmit): decisions on this session's pauses, as notes, marked heard. */
export function takeOutcomes(paths: Paths, entries: PendingEntry[], sessionId: string): PendingEntry[] {
  if (!entries.some((e) => e.session_id === sessionId && e.delivered === false && e.status !== 'pending')) return []
  return updateQueue(paths, (list) => takeUndelivered(list, sessionId))
}
