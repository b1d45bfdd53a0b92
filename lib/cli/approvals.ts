// The approval loop: `ratchet heartbeat` (cron or --watch) and `ratchet pending …` at the terminal.
// The queue file is the source of truth; Telegram is only a way to reach the human. Every queue
// change is a pure transition applied under the lock; no lock is held across a network call.

import path from 'node:path'
import { RatchetError } from '../core/errors'
import { decideEntry, outcomeNote, replyApproves, replyDenies } from '../core/pending'
import { emptyReport, logQueue as log, notifyOne, notifyPending, timeOut, type HeartbeatReport } from '../io/heartbeat'
import { claimSend, enqueue, queueEntries, readQueue, releaseSend, updateQueue, patchEntry } from '../io/queue'
import { applyProposal, rejectProposal } from '../io/proposals-apply'
import { updateProposals } from '../io/records'
import { emit } from './print'
import { terminalUser } from './run'
import { PACKAGE_ROOT } from '../io/package-root'
import { foldFires } from '../io/fires'
import { logActivity } from '../io/activity'
import { resolvePaths } from '../io/paths'
import type { Paths } from '../io/registry'
import { readStateOr, updateState } from '../io/store'
import {
  client,
  describeError,
  interpret,
  sameSeal,
  sealer,
  sendNotice,
  showOutcome,
  type Deciders,
  type TelegramConfig,
  type TgUpdate,
} from '../io/telegram'
import { readAsks } from '../io/labels'
import { configuredTelegram } from '../io/telegram-config'
import { CLI } from '../core/manifest'

const out = (s: string): void => void process.stdout.write(s.endsWith('\n') ? s : s + '\n')

/** One heartbeat: timeouts, notifications and their retries, after-the-fact notices, replies. */
export async function heartbeatOnce(
  paths: Paths,
  opts: { now?: () => Date; pollSeconds?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<HeartbeatReport> {
  const now = opts.now ?? (() => new Date())
  const report = emptyReport()
  timeOut(paths, report, now())
  // Rule fire counts: the hooks only append to the fire log; guardrails.json catches up here.
  try {
    foldFires(paths)
  } catch (err) {
    report.errors.push(`fire counts: ${(err as Error).message}`)
  }

  const cfg = configuredTelegram(paths, opts.env)
  if (!cfg) return report
  report.telegram = true
  const api = client(cfg)
  const fail = (what: string, e: unknown) => report.errors.push(`${what}: ${describeError(e, cfg)}`)
  await notifyPending(paths, cfg, api, report)

  await pollReplies(paths, cfg, api, report, opts.pollSeconds ?? 0, now)
  applyProposalDecisions(paths, report)

  // Show outcomes on the buttons' message (decisions made here, at the terminal or by timeout) and
  // tell the human after the fact when an informational pause timed out.
  for (const { id } of queueEntries(paths)) {
    const shown = claimSend(paths, id, 'outcome')
    if (shown) {
      try {
        await showOutcome(api, cfg, shown)
        releaseSend(paths, id, 'outcome', { outcome_shown: true })
      } catch (err) {
        releaseSend(paths, id, 'outcome', {})
        fail(`edit ${id}`, err)
      }
    }
    const e = claimSend(paths, id, 'notice')
    if (e) {
      try {
        await sendNotice(
          api,
          cfg,
          `⏱ No answer within ${Math.round((e.timeout ?? 0) / 60)} min on "${e.action}" (${e.id}): the agent went ahead with the safer option instead.`,
        )
        releaseSend(paths, id, 'notice', { notice_sent: true })
        report.notices.push(`told after the fact: ${id}`)
      } catch (err) {
        releaseSend(paths, id, 'notice', {})
        fail(`notice ${id}`, err)
      }
    }
  }
  return report
}

/** Proposals decided over Telegram: approved → applied to guardrails.json; denied → rejected. */
function applyProposalDecisions(paths: Paths, report: HeartbeatReport): void {
  for (const e of queueEntries(paths).filter(
    (x) => x.proposal_id && (x.status === 'approved' || x.status === 'denied' || x.status === 'timeout'),
  )) {
    try {
      if (e.status === 'approved') applyProposal(paths, e.proposal_id!, e.decided_by ?? 'telegram')
      else rejectProposal(paths, e.proposal_id!, e.decided_by ?? 'telegram')
      logActivity(paths, {
        time: new Date().toISOString(),
        hook: 'pattern-detect',
        event: 'proposal',
        decision: e.status === 'approved' ? 'approved' : 'rejected',
        note: `${e.proposal_id} via ${e.decided_by}`,
      })
    } catch (err) {
      report.errors.push(`proposal ${e.proposal_id}: ${(err as Error).message}`)
    }
    patchEntry(paths, e.id, () => ({ status: 'consumed', consumed_at: new Date().toISOString(), delivered: true }))
  }
}

/** New proposals go to the human over Telegram as destructive pauses (they wait until decided). */
export function queueProposals(
  paths: Paths,
  proposals: { id: string; title: string; evidence: { count: number; sessions: number; examples: string[] } }[],
): void {
  if (!configuredTelegram(paths)) return
  for (const p of proposals) {
    const e = enqueue(paths, {
      action: `add a guardrail: ${p.title}`,
      trigger: 'pattern-detect proposal',
      context: `${p.evidence.count}× in ${p.evidence.sessions} sessions${p.evidence.examples.length ? `, e.g. ${p.evidence.examples[0]}` : ''} (${p.id}; ${CLI} proposals show ${p.id})`,
      severity: 'destructive',
      proposal_id: p.id,
    })
    updateProposals(paths, (list) => ({
      next: list.map((x) => (x.id === p.id ? { ...x, pending_id: e.id } : x)),
      result: undefined,
    }))
  }
}

// ---- schedule: pattern-detect daily, the weekly digest weekly --------------------------------------

/** Claims a slot atomically: of two heartbeats at once, only one runs the job. */
function claim(paths: Paths, key: 'mined_at' | 'digest_at', everyMs: number, now: Date): boolean {
  return updateState(paths, 'schedule', (s) => {
    const last = s[key] ? Date.parse(s[key]!) : 0
    if (now.getTime() - last < everyMs) return { next: s, result: false }
    return { next: { ...s, [key]: now.toISOString() }, result: true }
  })
}

export async function runSchedule(paths: Paths, now = new Date()): Promise<string[]> {
  const done: string[] = []
  if (claim(paths, 'mined_at', 24 * 3600_000, now)) {
    const { mine } = await import('./pattern-detect')
    const r = await mine(paths)
    queueProposals(paths, r.added)
    done.push(`pattern-detect: ${r.agg.events} events, ${r.added.length} new proposals`)
  }
  if (claim(paths, 'digest_at', 7 * 24 * 3600_000, now)) {
    const { weeklyReview, sendDigest } = await import('./pattern-detect')
    const { report, ask } = await weeklyReview(paths, new Date(now.getTime() - 7 * 24 * 3600_000).toISOString())
    const err = await sendDigest(paths, report, ask)
    done.push(err ? `weekly digest not sent: ${err}` : 'weekly digest')
  }
  return done
}

async function pollReplies(
  paths: Paths,
  cfg: TelegramConfig,
  api: ReturnType<typeof client>,
  report: HeartbeatReport,
  pollSeconds: number,
  now: () => Date,
): Promise<void> {
  const offset = readStateOr(paths, 'telegramState').offset
  let updates: TgUpdate[]
  try {
    updates = (await api.getUpdates({
      offset,
      timeout: pollSeconds,
      allowed_updates: ['message', 'callback_query'],
    })) as unknown as TgUpdate[]
  } catch (err) {
    report.errors.push(`poll: ${describeError(err, cfg)}`)
    return
  }
  const deciders: Deciders = { chatId: cfg.chatId, approvers: cfg.approvers, seal: sealer(cfg) }
  for (const u of updates) {
    const entries = queueEntries(paths)
    const what = interpret(u, deciders, entries, replyApproves, replyDenies)
    let answer: string | undefined
    if (what.kind === 'decide') {
      const res = updateQueue(paths, (list) =>
        decideEntry(list, what.id, what.verdict, `telegram:${what.by}`, now(), what.reply),
      )
      if (res.ok) {
        report.decided.push(what.id)
        log(paths, what.verdict, res.value, what.reply ? `reply: ${what.reply}` : undefined)
        answer = what.verdict === 'approved' ? 'Approved ✅' : 'Cancelled ❌'
        const shown = claimSend(paths, what.id, 'outcome')
        if (shown) {
          try {
            await showOutcome(api, cfg, shown)
            releaseSend(paths, what.id, 'outcome', { outcome_shown: true })
          } catch (err) {
            releaseSend(paths, what.id, 'outcome', {})
            report.errors.push(`edit ${what.id}: ${describeError(err, cfg)}`)
          }
        }
      } else {
        report.ignored.push(`${u.update_id}: ${res.error.message}`)
        answer = `Already decided (${queueEntries(paths).find((x) => x.id === what.id)?.status ?? 'unknown'})`
      }
    } else if (what.kind === 'label') {
      // "Was this check needed?": recorded as a human label (pattern-detect owns the flow). The button carries
      // the ask's sealed secret; the ask it seals is found here, and only then answered with its own secret.
      const ask = readAsks(paths).find((a) => a.id === what.id && sameSeal(deciders.seal(a.secret), what.secret))
      if (!ask) {
        report.ignored.push(
          `${u.update_id}: This button is no longer valid. (label button for ${what.id} matches no ask)`,
        )
        answer = 'This button is no longer valid.'
      } else {
        const { answerLabel } = await import('./pattern-detect')
        const r = await answerLabel(paths, cfg, api, { ...what, secret: ask.secret })
        if (!r.ok) report.ignored.push(`${u.update_id}: ${r.text}`)
        if (r.error) report.errors.push(r.error)
        answer = r.text
      }
    } else if (what.kind === 'unauthorized') {
      const whyNot = what.notApprover
        ? `not an approver (approvers: ${cfg.approvers.join(', ') || 'none configured'})`
        : 'not the configured chat'
      report.ignored.push(`${u.update_id}: from ${what.from} in chat ${what.chat}, ${whyNot}`)
      if (what.notApprover) answer = 'Only an approver can decide this.'
      logActivity(paths, {
        time: now().toISOString(),
        hook: 'pause-and-ask',
        event: 'telegram',
        decision: 'unauthorized',
        note: `update ${u.update_id} from ${what.from} in chat ${what.chat}: ${whyNot}`,
      })
    } else {
      report.ignored.push(`${u.update_id}: ${what.why}`)
      answer = what.callbackId ? 'This button is no longer valid.' : undefined
    }
    if (what.callbackId)
      await api
        .answerCallbackQuery({ callback_query_id: what.callbackId, ...(answer ? { text: answer } : {}) })
        .catch(() => {})
    // Persist the offset after each update: a crash re-reads at most one, and it is applied once.
    updateState(paths, 'telegramState', (s) => ({
      next: { offset: Math.max(s.offset, u.update_id + 1) },
      result: undefined,
    }))
  }
}

// ---- commands ------------------------------------------------------------------------------------

export async function heartbeat(o: {
  watch?: boolean
  cronLine?: boolean
  json?: boolean
  seconds?: string
  notify?: string
}): Promise<void> {
  const paths = resolvePaths()
  if (o.notify) {
    const r = await notifyOne(paths, o.notify)
    for (const e of r.errors) process.stderr.write(`ratchet heartbeat: ${e}\n`)
    return
  }
  if (o.cronLine) {
    const bin = path.join(PACKAGE_ROOT, 'bin', 'ratchet')
    const line = `* * * * * cd ${JSON.stringify(paths.projectDir)} && ${JSON.stringify(bin)} heartbeat >> ${JSON.stringify(paths.heartbeatLog)} 2>&1`
    return emit(o, { cron_line: line }, [
      '# Ratchet heartbeat: timeouts, Telegram replies, retries (add with: crontab -e)',
      line,
    ])
  }
  const print = (r: HeartbeatReport) => {
    if (o.json) return out(JSON.stringify(r))
    const parts = [
      r.telegram ? '' : `Telegram not configured (the queue still works: ${CLI} pending list)`,
      r.timedOut.length ? `timed out: ${r.timedOut.join(', ')}` : '',
      r.notified.length ? `notified: ${r.notified.join(', ')}` : '',
      r.decided.length ? `decided: ${r.decided.join(', ')}` : '',
      r.notices.length ? r.notices.join('; ') : '',
      ...r.errors.map((e) => `! ${e}`),
    ].filter(Boolean)
    out(`${new Date().toISOString()} heartbeat: ${parts.length ? parts.join('; ') : 'nothing to do'}`)
  }
  if (!o.watch) {
    // The schedule first: proposals it queues are notified in this same beat.
    const scheduled = await runSchedule(paths)
    const r = await heartbeatOnce(paths)
    r.notices.push(...scheduled)
    print(r)
    if (r.errors.length) process.exitCode = 1
    return
  }
  // --watch: long-poll so a tap reaches the queue within a second or two; back off on errors.
  const stopAt = o.seconds ? Date.now() + Number(o.seconds) * 1000 : Infinity
  let backoff = 1000
  let stopping = false
  process.once('SIGINT', () => (stopping = true))
  process.once('SIGTERM', () => (stopping = true))
  while (!stopping && Date.now() < stopAt) {
    const scheduled = await runSchedule(paths)
    const r = await heartbeatOnce(paths, {
      pollSeconds: Math.max(0, Math.min(25, Math.floor((stopAt - Date.now()) / 1000) - 1)),
    })
    r.notices.push(...scheduled)
    if (r.errors.length || r.decided.length || r.timedOut.length || r.notified.length) print(r)
    if (r.errors.length) {
      await new Promise((res) => setTimeout(res, backoff))
      backoff = Math.min(backoff * 2, 60_000)
    } else backoff = 1000
    if (!r.telegram) await new Promise((res) => setTimeout(res, 5000))
  }
}

export function pendingList(o: { json?: boolean; all?: boolean }): void {
  const paths = resolvePaths()
  const q = readQueue(paths)
  if (!q.ok) throw q.error
  const entries = q.value
  const shown = o.all ? entries : entries.filter((e) => e.status === 'pending')
  // The seal of a Telegram button is the queue's, not for printing (as pending show).
  if (o.json)
    return out(
      JSON.stringify(
        shown.map(({ secret: _secret, ...visible }) => visible),
        null,
        2,
      ),
    )
  if (!shown.length)
    return out(
      o.all ? 'The queue is empty.' : `Nothing is waiting for you. (${CLI} pending list --all shows decided ones)`,
    )
  for (const e of shown)
    out(
      `${e.id}  ${e.status.padEnd(8)} ${e.severity.padEnd(14)} ${e.requested_at}  ${e.action}${e.reply ? `  “${e.reply}”` : ''}${e.scope === 'project' ? `  (for the project until ${e.expires_at})` : ''}`,
    )
}

export function pendingShow(id: string, o: { json?: boolean }): void {
  const e = queueEntries(resolvePaths()).find((x) => x.id === id)
  if (!e) throw new RatchetError('not_found', `no pending action ${id} (${CLI} pending list --all)`)
  const { secret: _secret, ...visible } = e
  if (o.json) return out(JSON.stringify(visible, null, 2))
  for (const [k, v] of Object.entries(visible))
    if (v !== undefined && k !== 'input') out(`${k.padEnd(16)} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
  out(`\nThe agent will hear: ${outcomeNote(e)}`)
}

export async function pendingDecide(
  id: string,
  verdict: 'approved' | 'denied',
  o: { note?: string; project?: boolean; hours?: string; json?: boolean },
): Promise<void> {
  const paths = resolvePaths()
  if ((o.project || o.hours !== undefined) && verdict !== 'approved')
    throw new RatchetError('usage', '--project and --hours are for approving only')
  if (o.hours !== undefined && !o.project)
    throw new RatchetError('usage', '--hours goes with --project (a session approval is used once)')
  const hours = o.hours === undefined ? undefined : Number(o.hours)
  if (hours !== undefined && !Number.isFinite(hours))
    throw new RatchetError('usage', `--hours: expected a number, got ${o.hours}`)
  const res = updateQueue(paths, (list) =>
    decideEntry(list, id, verdict, `terminal:${terminalUser()}`, new Date(), o.note ?? null, {
      project: o.project,
      hours,
    }),
  )
  if (!res.ok) throw res.error
  const entry = res.value
  log(
    paths,
    verdict,
    entry,
    [o.note ? `reply: ${o.note}` : '', entry.scope === 'project' ? `for the project until ${entry.expires_at}` : '']
      .filter(Boolean)
      .join('; ') || undefined,
  )
  const { secret: _secret, ...visible } = entry
  emit(o, { entry: visible }, [
    `${verdict === 'approved' ? 'Approved' : 'Denied'} ${id}: ${entry.action}${entry.scope === 'project' ? ` — for this project, any session, until ${entry.expires_at}` : verdict === 'approved' ? ' — once, in the session that asked' : ''}`,
    ...(verdict === 'approved' && entry.evidence
      ? [
          `Bound to what you were shown (${entry.evidence.seen.status}: ${entry.evidence.seen.files.length} file(s), ${entry.evidence.seen.commits} commit(s)${entry.evidence.seen.destinations.length ? ` → ${entry.evidence.seen.destinations.join(', ')}` : ''}): if that changes, you are asked again.`,
        ]
      : []),
  ])
  // Update the Telegram message too, if there is one; the queue is already decided either way.
  const cfg = configuredTelegram(paths)
  const shown = cfg && entry.message_id !== undefined ? claimSend(paths, id, 'outcome') : null
  if (cfg && shown) {
    try {
      await showOutcome(client(cfg), cfg, shown)
      releaseSend(paths, id, 'outcome', { outcome_shown: true })
    } catch (e) {
      releaseSend(paths, id, 'outcome', {})
      process.stderr.write(`ratchet: decided, but the Telegram message was not updated: ${describeError(e, cfg)}\n`)
    }
  }
}
