// The background reviewer as a process, seen from the hook: whether a claimed review still runs, claiming and
// starting one detached, and the gates' wait for a verdict within a budget. The reviewer itself is review.ts.

import path from 'node:path'
import type { CustodietState, Launch } from './decide'
import type { Verdict } from '../../lib/core/verdict'
import { mergeSpans } from '../../lib/core/custodiet'
import { PACKAGE_ROOT } from '../../lib/io/package-root'
import { logError } from '../../lib/io/activity'
import type { Paths } from '../../lib/io/registry'
import { spawnDetached } from '../../lib/io/spawn'
import { overCap, type CustodietConfig } from '../../lib/io/custodiet-config'
import { updateState } from './record'

/**
 * Whether the session's claimed review still runs: its process is there, within the reviewer's own bound (its
 * watchdog ends the run at the reviewer's timeout + 30 s). A claim with no pid yet is a reviewer still starting.
 */
export function reviewerAlive(s: CustodietState, cfg: CustodietConfig, now: number): boolean {
  const r = s.reviewing
  if (!r) return false
  if (now - r.since > ((cfg.reviewer.timeoutSeconds ?? 60) + 45) * 1000) return false
  if (!r.pid) return now - r.since < 30_000 // claimed; its reviewer has not written its pid yet
  try {
    process.kill(r.pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export type Claim = NonNullable<CustodietState['reviewing']> & { claim: string; from: number }
export const claimFor = (launch: Launch, now: Date): Claim => ({
  pid: 0,
  since: now.getTime(),
  trigger: launch.trigger,
  from: launch.from,
  claim: `${process.pid}.${now.getTime().toString(36)}`,
})

/** `custodiet review` for a session's span of calls: what both the background review and a gate's review run. */
const reviewArgs = (session: string, launch: Launch): string[] => [
  'review',
  '--session',
  session,
  '--trigger',
  launch.trigger,
  '--from',
  String(launch.from),
]

export function launchReview(paths: Paths, session: string, launch: Launch, extra: string[] = []): number | undefined {
  try {
    return spawnDetached('custodiet', [...reviewArgs(session, launch), ...extra])
  } catch (e) {
    logError(paths, 'custodiet', e)
    return undefined
  }
}

export const canReview = (paths: Paths, cfg: CustodietConfig, now: Date) =>
  cfg.reviewer.kind !== 'none' && !overCap(paths, cfg, now)

/**
 * Starts the review a hook has claimed (the claim was written with the decision, under the record's lock, so a
 * second hook finds it and queues instead). The reviewer writes its pid into the claim when it starts and clears
 * the claim when it has recorded its verdict; one that could not be started puts its span back in the queue.
 */
export function startClaimed(paths: Paths, session: string, c: Claim): void {
  if (launchReview(paths, session, c, ['--claim', c.claim])) return
  updateState(paths, session, (s) =>
    s.reviewing?.claim === c.claim
      ? { next: { ...s, reviewing: undefined, queued: mergeSpans(s.queued, c) }, result: undefined }
      : { next: s, result: undefined },
  )
}

/**
 * A blocking gate asks the reviewer and waits at most `budgetMs`. The reviewer is a detached child in
 * its own process group (so the hook bundle never loads the model clients, and a kill takes its whole
 * tree): when the budget runs out the gate decides without it, and the reviewer finishes on its own —
 * bounded by its own timeout — recording its cost and, if it found drift, a finding delivered later.
 */
export function reviewWithin(
  session: string,
  launch: Launch,
  plan: string,
  budgetMs: number,
): Promise<Verdict | undefined> {
  return new Promise((resolve) => {
    const { spawn } = require('node:child_process') as typeof import('node:child_process')
    const args = [
      path.join(PACKAGE_ROOT, 'bin', 'custodiet'),
      ...reviewArgs(session, launch),
      '--print',
      '--budget',
      String(budgetMs),
      ...(plan ? ['--message', plan] : []),
    ]
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: process.env,
      detached: true,
    })
    let out = ''
    let done = false
    const finish = (v: Verdict | undefined) => {
      if (done) return
      done = true
      clearTimeout(timer)
      child.stdout.removeAllListeners('data')
      child.stdout.destroy()
      child.unref()
      resolve(v)
    }
    const timer = setTimeout(() => finish(undefined), budgetMs)
    child.stdout.on('data', (d) => {
      out += d
      // The verdict is one line of JSON; the reviewer goes on recording after printing it.
      const nl = out.indexOf('\n')
      if (nl >= 0) {
        try {
          finish(JSON.parse(out.slice(0, nl)) as Verdict)
        } catch {
          finish(undefined)
        }
      }
    })
    child.on('error', () => finish(undefined))
    child.on('close', () => finish(undefined))
  })
}
