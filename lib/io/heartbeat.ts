// The heartbeat's first steps, on the queue and Telegram only: pauses past their time are timed out, and pauses the
// human has not heard of yet are sent (claimed under the queue lock first, so parallel heartbeats send one message).
// pause-and-ask runs these right after it queues; `ratchet heartbeat` (lib/cli/approvals.ts) runs them, then reads
// the replies. Apart from the CLI so that pause-and-ask, which needs only these, does not carry the classifier.

import { applyTimeouts, type PendingEntry } from '../core/pending'
import { claimSend, queueEntries, releaseSend, updateQueue } from './queue'
import { logActivity } from './activity'
import type { Paths } from './registry'
import { client, describeError, sendPause } from './telegram'
import { configuredTelegram, type TelegramConfig } from './telegram-config'

export interface HeartbeatReport {
  timedOut: string[]
  notified: string[]
  decided: string[]
  notices: string[]
  errors: string[]
  ignored: string[]
  telegram: boolean
}

export const emptyReport = (): HeartbeatReport => ({
  timedOut: [],
  notified: [],
  decided: [],
  notices: [],
  errors: [],
  ignored: [],
  telegram: false,
})

/** A queue event in the activity record. */
export function logQueue(paths: Paths, decision: string, e: Partial<PendingEntry>, note?: string): void {
  logActivity(paths, {
    time: new Date().toISOString(),
    hook: 'pause-and-ask',
    event: 'queue',
    session: e.session_id ?? undefined,
    action: e.action,
    decision,
    pending_id: e.id,
    severity: e.severity,
    ...(note ? { note } : {}),
  })
}

/** Times out the pauses past their time (each recorded). */
export function timeOut(paths: Paths, report: HeartbeatReport, now: Date): void {
  for (const e of updateQueue(paths, (list) => applyTimeouts(list, now))) {
    report.timedOut.push(e.id)
    logQueue(paths, `timeout_${e.timeout_outcome}`, e)
  }
}

/** Sends what has not reached the human yet (and retries earlier failures); `onlyId`: that pause only. */
export async function notifyPending(
  paths: Paths,
  cfg: TelegramConfig,
  api: ReturnType<typeof client>,
  report: HeartbeatReport,
  onlyId?: string,
): Promise<void> {
  for (const { id } of queueEntries(paths).filter(
    (x) => x.status === 'pending' && !x.notified && (!onlyId || x.id === onlyId),
  )) {
    const e = claimSend(paths, id, 'notify')
    if (!e) continue
    try {
      const messageId = await sendPause(api, cfg, e)
      releaseSend(paths, id, 'notify', { notified: true, message_id: messageId, last_error: null })
      report.notified.push(id)
    } catch (err) {
      releaseSend(paths, id, 'notify', (x) => ({
        notify_attempts: (x.notify_attempts ?? 0) + 1,
        last_error: describeError(err, cfg),
      }))
      report.errors.push(`notify ${id}: ${describeError(err, cfg)}`)
    }
  }
}

/** What pause-and-ask runs after it queues `id` (and `ratchet heartbeat --notify id`): timeouts, then that pause's message. */
export async function notifyOne(paths: Paths, id: string): Promise<HeartbeatReport> {
  const report = emptyReport()
  timeOut(paths, report, new Date())
  const cfg = configuredTelegram(paths)
  if (!cfg) return report
  report.telegram = true
  await notifyPending(paths, cfg, client(cfg), report, id)
  return report
}
