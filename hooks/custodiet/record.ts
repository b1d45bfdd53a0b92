// What custodiet writes down: the session's record (every write goes through updateState) and each finding, in
// the activity log and, for a confident one, at the courtroom. The hook (main.ts) and the reviewer (review.ts)
// both record findings here.

import type { CustodietState, Trigger } from './decide'
import { CATEGORY_OF } from './decide'
import type { Paths } from '../../lib/io/registry'
import { logActivity } from '../../lib/io/activity'
import { readSession } from '../../lib/io/session-state'
import { updateState as updateRecord } from '../../lib/io/custodiet-state'
import { extractEnvelope } from '../../lib/core/envelope'
import { openHearing } from '../../lib/io/courtroom/trigger'

/**
 * Every write of the session's record. A damaged record starts afresh (its hold carried, lib/io/custodiet-state.ts),
 * and what the user asked for is rebuilt from the session file's prompts (masked), so the scope checks go on
 * before the user speaks again.
 */
export function updateState<R>(
  paths: Paths,
  session: string,
  change: (s: CustodietState) => { next: CustodietState; result: R },
): R {
  return updateRecord(paths, session, change, {
    afterReset: (s) => {
      const envelope = readSession(paths, session).prompts.reduce<CustodietState['envelope']>(
        (e, p) => extractEnvelope(p, e),
        undefined,
      )
      return envelope ? { ...s, envelope } : s
    },
  })
}

export function logFinding(
  paths: Paths,
  session: string,
  trigger: Trigger,
  status: string,
  issue: string,
  source: string,
  level?: number,
  category?: string,
): void {
  logActivity(paths, {
    time: new Date().toISOString(),
    hook: 'custodiet',
    event: 'verdict',
    session,
    decision: status === 'ATTENTION' ? 'attention' : status.toLowerCase(),
    note: issue,
    trigger,
    source,
    ...(level ? { level } : {}),
    ...(category ? { category } : {}),
  })
  // The courtroom's hook point: a confident finding may open a hearing (one existsSync while it is off).
  if (status === 'ATTENTION')
    openHearing(paths, {
      source: 'custodiet',
      signal: category ?? CATEGORY_OF[trigger],
      summary: issue,
      confidence: source === 'deterministic' ? 0.8 : 0.7,
      session,
    })
}
