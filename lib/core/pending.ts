// The approval queue's rules, pure: entries of pending-actions.json and every transition they may
// take. Each transition is a function from the current list to the next, so the I/O layer can apply
// it under the lock and a decision is applied exactly once, whoever races to apply it.
//
// Severities and timeouts (the seed's "Timeout Behavior"):
//   destructive     never times out: the action does not happen without approval;
//   time-sensitive  4 h, then `timeout` with outcome `not_done` (the conservative path);
//   informational   30 min, then `timeout` with outcome `proceed_safer`, and the human is told after.

import { RatchetError, type Result } from './errors'
import { maskDeep, maskSecrets } from './secrets'
import type { EvidenceSeen } from './evidence-seen'

export const SEVERITIES = ['destructive', 'time-sensitive', 'informational'] as const
export type Severity = (typeof SEVERITIES)[number]
export const STATUSES = ['pending', 'approved', 'denied', 'timeout', 'consumed'] as const
export type Status = (typeof STATUSES)[number]

/** Seconds until a pending entry times out (the seed's table); null waits forever. */
export const TIMEOUT_SECONDS: Record<Severity, number | null> = {
  destructive: null,
  'time-sensitive': 14_400,
  informational: 1_800,
}

export interface PendingEntry {
  id: string
  action: string
  trigger: string
  context: string
  severity: Severity
  requested_at: string
  status: Status
  timeout: number | null
  /** Identity of the exact tool call (tool + normalized input) an approval applies to, if any. */
  fingerprint: string | null
  decided_at: string | null
  decided_by: string | null
  /** The human's words ("tell me what to change"), if any. */
  reply: string | null
  /** Delivery to the human: false until a message went out. */
  notified: boolean
  /** What a timeout meant: the action is not done, or the agent may take the safer option. */
  timeout_outcome?: 'not_done' | 'proceed_safer'
  /** A per-action secret carried in the Telegram buttons, so a stale tap cannot decide another action. */
  secret?: string
  /** Telegram message carrying the buttons, to edit after the decision. */
  message_id?: number
  /** Who asked: the session whose agent should hear the outcome, and whether it has. */
  session_id?: string | null
  delivered?: boolean
  /** Whether the Telegram message now shows the outcome (its buttons removed). */
  outcome_shown?: boolean
  /** For informational timeouts: whether the after-the-fact notice went out. */
  notice_sent?: boolean
  /** The tool call, masked (secrets never at rest); an approved retry must match it and the fingerprint. */
  tool?: string
  input?: unknown
  consumed_at?: string
  /** Set when the queued decision is a pattern-detect proposal rather than a tool call. */
  proposal_id?: string
  /**
   * What would leave, as the human was shown it (files and their content hashes, commits, destination, hazards):
   * an approval covers the call only while the evidence at run time is the same (see `approvalCovers`).
   */
  evidence?: BoundEvidence
  /** What would be destroyed, as the human was shown it: an approval covers the call only while it is the same. */
  destroys?: DestroyedState
  /**
   * `session` (the default): the approval covers the asking session, once. `project`: the human chose to approve
   * this action for the whole project until `expires_at`, any session, as often as it comes, while its hazards
   * and destination stay what they approved.
   */
  scope?: 'session' | 'project'
  expires_at?: string
  /** How often a project approval was used. */
  uses?: number
  notify_attempts?: number
  last_error?: string | null
  /** Which heartbeat is sending which message right now (see `claimSend`). */
  claims?: Partial<Record<SendKind, Claim>>
}

/** The messages a heartbeat sends about an entry: the pause itself, its outcome, an after-the-fact notice. */
export type SendKind = 'notify' | 'outcome' | 'notice'
export interface Claim {
  /** The claiming process ("<pid> <boot id>"). */
  by: string
  at: number
}
/** A claim whose holder is alive is honoured this long; a dead holder's claim lapses at once. */
export const CLAIM_TTL_MS = 10 * 60_000

const needsSend = (e: PendingEntry, kind: SendKind): boolean =>
  kind === 'notify'
    ? e.status === 'pending' && !e.notified
    : kind === 'outcome'
      ? e.status !== 'pending' && e.message_id !== undefined && !e.outcome_shown
      : e.status === 'timeout' && e.timeout_outcome === 'proceed_safer' && e.notice_sent === false

/**
 * Claims the right to send one message about an entry, under the queue lock and before the network
 * call, so parallel or slow heartbeats send it once. Returns the entry if the claim is ours.
 */
export function claimSend(
  list: PendingEntry[],
  id: string,
  kind: SendKind,
  by: string,
  now: number,
  alive: (by: string) => boolean,
): { next: PendingEntry[]; result: PendingEntry | null } {
  const i = list.findIndex((e) => e.id === id)
  if (i < 0 || !needsSend(list[i], kind)) return { next: list, result: null }
  const held = list[i].claims?.[kind]
  if (held && held.by !== by && now - held.at < CLAIM_TTL_MS && alive(held.by)) return { next: list, result: null }
  const entry: PendingEntry = { ...list[i], claims: { ...list[i].claims, [kind]: { by, at: now } } }
  const next = list.slice()
  next[i] = entry
  return { next, result: entry }
}

/** Ends a claim (sent or failed), applying what the send changed. */
export function releaseSend(
  list: PendingEntry[],
  id: string,
  kind: SendKind,
  patch: Partial<PendingEntry> | ((e: PendingEntry) => Partial<PendingEntry>),
): { next: PendingEntry[]; result: undefined } {
  const i = list.findIndex((e) => e.id === id)
  if (i < 0) return { next: list, result: undefined }
  const { [kind]: _done, ...rest } = list[i].claims ?? {}
  const entry: PendingEntry = {
    ...list[i],
    ...(typeof patch === 'function' ? patch(list[i]) : patch),
    claims: Object.keys(rest).length ? rest : undefined,
  }
  if (!entry.claims) delete entry.claims
  const next = list.slice()
  next[i] = entry
  return { next, result: undefined }
}

/** The evidence an approval is bound to: its digest, a signature of its hazards and destination, and what it showed. */
export interface BoundEvidence {
  digest: string
  signature: string
  seen: EvidenceSeen
}

/**
 * What a destructive call would destroy, as it was when the human was asked: a remote ref's tip, a file's content
 * hash (lib/io/destroyed.ts). An approval covers the call only while this stays the same: approving "delete
 * feature" while it pointed at X does not approve deleting it once a teammate has pushed Y there.
 */
export interface DestroyedState {
  digest: string
  /** One line per thing, as the human is shown it: `ref feature on origin at 1a2b3c4`, `file notes.txt (sha1 …)`. */
  seen: string[]
  /** Something could not be read (a remote that did not answer, an unreadable file): it may have changed unseen. */
  unreadable?: boolean
}

export interface NewAction {
  evidence?: BoundEvidence
  destroys?: DestroyedState
  proposal_id?: string
  action: string
  trigger: string
  context: string
  severity: Severity
  fingerprint?: string | null
  session_id?: string | null
  tool?: string
  input?: unknown
}

export function newEntry(a: NewAction, id: string, secret: string, now: Date): PendingEntry {
  return {
    id,
    // Masked at rest: the queue keeps masked text and the fingerprint, never a raw secret.
    action: maskSecrets(a.action),
    trigger: maskSecrets(a.trigger),
    context: maskSecrets(a.context),
    severity: a.severity,
    requested_at: now.toISOString(),
    status: 'pending',
    timeout: TIMEOUT_SECONDS[a.severity],
    fingerprint: a.fingerprint ?? null,
    decided_at: null,
    decided_by: null,
    reply: null,
    notified: false,
    secret,
    session_id: a.session_id ?? null,
    delivered: false,
    ...(a.tool ? { tool: a.tool, input: maskDeep(a.input) } : {}),
    ...(a.proposal_id ? { proposal_id: a.proposal_id } : {}),
    ...(a.evidence ? { evidence: maskDeep(a.evidence) } : {}),
    ...(a.destroys ? { destroys: maskDeep(a.destroys) } : {}),
  }
}

/** Project approvals last this long unless the human says otherwise, and never longer than a week. */
export const PROJECT_APPROVAL_HOURS = 8
export const MAX_PROJECT_APPROVAL_HOURS = 168

/** How a human approves: for the asking session once (default), or for the project until it expires. */
export interface ApprovalScope {
  project?: boolean
  hours?: number
}

export type DecideResult = Result<PendingEntry>

/**
 * Records a human's decision. Only a pending entry can be decided: a second tap, a duplicate update
 * or a racing heartbeat gets `ok: false` and changes nothing.
 */
export function decideEntry(
  list: PendingEntry[],
  id: string,
  verdict: 'approved' | 'denied',
  by: string,
  now: Date,
  reply?: string | null,
  scope: ApprovalScope = {},
): { next: PendingEntry[]; result: DecideResult } {
  const i = list.findIndex((e) => e.id === id)
  if (i < 0)
    return { next: list, result: { ok: false, error: new RatchetError('not_found', `no pending action ${id}`) } }
  const e = list[i]
  if (e.status !== 'pending')
    return { next: list, result: { ok: false, error: new RatchetError('conflict', `${id} is already ${e.status}`) } }
  const hours = scope.hours ?? PROJECT_APPROVAL_HOURS
  if (scope.project && verdict === 'approved' && !(hours > 0 && hours <= MAX_PROJECT_APPROVAL_HOURS))
    return {
      next: list,
      result: {
        ok: false,
        error: new RatchetError(
          'usage',
          `--hours: expected more than 0 and at most ${MAX_PROJECT_APPROVAL_HOURS}, got ${scope.hours}`,
        ),
      },
    }
  if (scope.project && verdict === 'approved' && !e.fingerprint)
    return {
      next: list,
      result: { ok: false, error: new RatchetError('usage', `${id} is not a tool call: it can only be approved once`) },
    }
  const project =
    scope.project && verdict === 'approved'
      ? { scope: 'project' as const, expires_at: new Date(now.getTime() + hours * 3600_000).toISOString() }
      : {}
  const entry: PendingEntry = {
    ...e,
    status: verdict,
    decided_at: now.toISOString(),
    decided_by: by,
    reply: reply ?? e.reply,
    delivered: false,
    ...project,
  }
  const next = list.slice()
  next[i] = entry
  return { next, result: { ok: true, value: entry } }
}

/** A reply that is not a plain approval: recorded as instructions, and the action is not approved. */
export function replyApproves(text: string): boolean {
  return /^\s*(✅|👍|yes|y|ok|okay|approve[d]?|go( ahead)?|proceed|do it|lgtm)\s*[.!]*\s*$/i.test(text)
}
export function replyDenies(text: string): boolean {
  return /^\s*(❌|👎|no|n|deny|denied|cancel|stop|don'?t)\s*[.!]*\s*$/i.test(text)
}

/** Applies timeouts that are due. Returns the entries that timed out. */
export function applyTimeouts(list: PendingEntry[], now: Date): { next: PendingEntry[]; result: PendingEntry[] } {
  const timedOut: PendingEntry[] = []
  const next = list.map((e) => {
    if (e.status !== 'pending' || e.timeout === null) return e
    if (now.getTime() - Date.parse(e.requested_at) < e.timeout * 1000) return e
    const t: PendingEntry = {
      ...e,
      status: 'timeout',
      decided_at: now.toISOString(),
      decided_by: 'timeout',
      timeout_outcome: e.severity === 'informational' ? 'proceed_safer' : 'not_done',
      delivered: false,
      notice_sent: e.severity === 'informational' ? false : undefined,
    }
    timedOut.push(t)
    return t
  })
  return { next: timedOut.length ? next : list, result: timedOut }
}

/**
 * An approved entry for exactly this call (same fingerprint and, when kept, the same input; `id` when the
 * decision chose one) is used up: allowed once, then `consumed`. A project approval is not used up: it counts
 * the use and stays until it expires. A different action finds nothing.
 */
export function consumeApproval(
  list: PendingEntry[],
  fingerprint: string,
  input: unknown,
  now: Date,
  id?: string,
): { next: PendingEntry[]; result: PendingEntry | null } {
  const masked = input === undefined ? undefined : JSON.stringify(maskDeep(input))
  const i = list.findIndex(
    (e) =>
      e.status === 'approved' &&
      e.fingerprint === fingerprint &&
      (id === undefined || e.id === id) &&
      (e.input === undefined || JSON.stringify(e.input) === masked),
  )
  if (i < 0) return { next: list, result: null }
  const project = list[i].scope === 'project'
  if (project && Date.parse(list[i].expires_at ?? '') <= now.getTime()) return { next: list, result: null }
  const entry: PendingEntry = project
    ? { ...list[i], uses: (list[i].uses ?? 0) + 1 }
    : { ...list[i], status: 'consumed', consumed_at: now.toISOString(), delivered: true }
  const next = list.slice()
  next[i] = entry
  return { next, result: entry }
}

/** The newest entry still open for this exact call (so a retry does not queue a duplicate). */
export function openFor(list: PendingEntry[], fingerprint: string): PendingEntry | undefined {
  for (let i = list.length - 1; i >= 0; i--) {
    const e = list[i]
    if (e.fingerprint === fingerprint && e.status === 'pending') return e
  }
  return undefined
}

/** Decisions the asking session has not heard yet; marks them delivered. */
export function takeUndelivered(
  list: PendingEntry[],
  sessionId: string,
): { next: PendingEntry[]; result: PendingEntry[] } {
  const out: PendingEntry[] = []
  const next = list.map((e) => {
    if (e.session_id !== sessionId || e.delivered !== false || e.status === 'pending') return e
    out.push(e)
    return { ...e, delivered: true }
  })
  return { next: out.length ? next : list, result: out }
}

/** How the agent hears about a decision at its next hook. */
export function outcomeNote(e: PendingEntry): string {
  const reply = e.reply ? ` The human said: "${e.reply}".` : ''
  switch (e.status) {
    case 'approved':
      return `[RATCHET] Approved by ${e.decided_by}: ${e.action} (${e.id}).${reply} Retry exactly that action now; it is allowed once.`
    case 'denied':
      return `[RATCHET] Not approved: ${e.action} (${e.id}).${reply || ' Do not do it.'} Do not retry it or route around it.`
    case 'timeout':
      return e.timeout_outcome === 'proceed_safer'
        ? `[RATCHET] No answer in time for ${e.action} (${e.id}): go ahead with the safer option, not the action itself. The human will be told.`
        : `[RATCHET] No answer in time for ${e.action} (${e.id}): it is not done. Carry on without it.`
    default:
      return `[RATCHET] ${e.id}: ${e.status}.`
  }
}

export function validatePendingList(raw: unknown): PendingEntry[] | string {
  if (!Array.isArray(raw)) return 'expected an array of pending actions'
  for (let i = 0; i < raw.length; i++) {
    const e = raw[i] as Partial<PendingEntry>
    if (!e || typeof e !== 'object') return `[${i}]: expected an object`
    if (typeof e.id !== 'string') return `[${i}].id: expected a string`
    if (!STATUSES.includes(e.status as Status)) return `[${i}].status: expected one of ${STATUSES.join(', ')}`
    if (!SEVERITIES.includes(e.severity as Severity)) return `[${i}].severity: expected one of ${SEVERITIES.join(', ')}`
    if (typeof e.action !== 'string') return `[${i}].action: expected a string`
  }
  return raw as PendingEntry[]
}
