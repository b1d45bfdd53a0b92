// Step 9 of preflight-check's precedence (compose.ts): a pause meets the approval queue. A human's approval of
// exactly this call, as it is now, lets it run once; a human's denial of it in this session is final; otherwise
// it is queued once, and the agent (or, in a headless run, the user) is told where the human decides.

import type { ToolCall } from '../../lib/core/classify'
import type { Decision } from '../../lib/core/decision'
import { trimTrailingSlashes } from '../../lib/core/actions/util'
import { lossSummary, type LossFacts } from '../../lib/core/loss'
import { evidenceFloor, evidenceSummary } from '../../lib/core/evidence/decision'
import type { EvidenceFacts } from '../../lib/core/evidence/gathered'
import { fnv64 } from '../../lib/core/fingerprint'
import { approvalCovers } from '../../lib/core/approval-binding'
import {
  outcomeNote,
  type DestroyedState,
  type NewAction,
  type PendingEntry,
  type Severity,
} from '../../lib/core/pending'
import { maskSecrets } from '../../lib/core/secrets'
import type { PreflightResult } from './decide'
import type { PreflightFacts, QueueFacts } from './facts'
import { withNotes, type Draft } from './outcome'
import { lostLines } from './verdict-stages'

/**
 * A paused call meets the queue (an approval counts only if it covers the call as it is now: session, evidence,
 * what it destroys). `held`: custodiet's hold (step 8), which keeps an approval unused while it stands.
 */
export function meetQueue(
  o: Draft,
  call: ToolCall & { session_id: string },
  facts: PreflightFacts,
  result: PreflightResult,
  loss: LossFacts | undefined,
  held: Decision | null,
): void {
  if (result.verdict !== 'pause') return
  const { action } = result
  const destroys = facts.destroyed?.(action.findings, action.deleted)
  const q = boundQueue(facts.queue, call.session_id, facts.evidence, facts.now, destroys)
  if (q.approved && held) {
    // The hold stops the call, so the approval is not used up: it is kept for when the hold is lifted.
    o.pendingId = q.approved.id
    o.decision = held
    o.verdict = held.kind === 'deny' ? 'custodiet_block' : 'custodiet_checkpoint'
  } else if (q.approved) {
    const a = q.approved
    o.effects.push({
      kind: 'consume-approval',
      id: a.id,
      fingerprint: facts.fingerprint,
      capabilities: action.findings.map((f) => f.pattern),
    })
    const left =
      a.scope === 'project'
        ? `It stays approved for this project until ${a.expires_at}, while what it affects is what the human saw.`
        : 'The approval is now used up.'
    o.decision = {
      kind: 'allow',
      context: `[RATCHET] Running ${a.id}, approved by ${a.decided_by}${a.reply ? ` ("${a.reply}")` : ''}. ${left}`,
    }
    o.verdict = 'approved_by_human'
    o.pendingId = a.id
  } else if (q.denied && !q.open) {
    // A human said no to exactly this call: that is the answer, with their words; nothing is queued again.
    o.decision = {
      kind: 'deny',
      reason: `${outcomeNote(q.denied)}\n\n${'reason' in o.decision ? o.decision.reason : ''}`.trim(),
    }
    o.verdict = 'denied_by_human'
    o.pendingId = q.denied.id
    if (q.denied.delivered === false) o.effects.push({ kind: 'deliver', ids: [q.denied.id] })
  } else {
    const fp = facts.fingerprint
    const entry =
      q.open ?? newPause(call, result, fp, facts.now, facts.evidence, facts.projectDir, loss, q.stale, destroys)
    if (!q.open)
      o.effects.push({ kind: 'enqueue', entry: entry as NewAction & { id: string }, notify: facts.config.telegram })
    o.pendingId = entry.id
    o.decision = pauseDecision(call, entry as { id: string; severity: Severity }, o.decision, facts)
    if (q.stale)
      o.decision = withNotes(
        o.decision,
        `[RATCHET] The human's approval does not cover this call as it is now: ${q.stale}. They are asked again, with the difference.`,
      )
  }
}

/**
 * The queue as it bears on this call now: an approval only if it covers the call (given in this session or for the
 * project, and the evidence is what the human saw; approval-binding.ts approvalCovers), an open entry only if it
 * asks about this session's call with this evidence. `stale`: why an approval of the same call does not cover it.
 */
function boundQueue(
  q: QueueFacts,
  session: string,
  evidence: EvidenceFacts | undefined,
  now: number,
  destroys?: DestroyedState,
): QueueFacts & { stale?: string } {
  const bound = evidence && { digest: evidence.digest, signature: evidence.signature, seen: evidence.seen }
  const approvals = q.approvals ?? (q.approved ? [q.approved] : [])
  const why: string[] = []
  let approved: PendingEntry | undefined
  for (const a of approvals) {
    const c = approvalCovers(a, { session, evidence: bound, destroys }, now)
    if (c.ok) {
      approved = a
      break
    }
    // What changed since an approval that could have applied says more than another session's approval.
    if (a.scope === 'project' || a.session_id === session) why.unshift(c.why)
    else why.push(c.why)
  }
  const stale = why[0]
  const opens = q.opens ?? (q.open ? [q.open] : [])
  const open = opens.find(
    (e) =>
      (!e.session_id || e.session_id === session) &&
      (e.evidence?.digest ?? '') === (bound?.digest ?? '') &&
      (e.destroys?.digest ?? '') === (destroys?.digest ?? ''),
  )
  return { ...q, approved, open, ...(stale && !approved ? { stale } : {}) }
}

/** A new queue entry for exactly this call. Holds masked text and the fingerprint, never the raw input. */
function newPause(
  call: ToolCall & { session_id: string; cwd?: string },
  r: PreflightResult,
  fp: string,
  now: number,
  evidence: EvidenceFacts | undefined,
  projectDir: string,
  loss?: LossFacts,
  stale?: string,
  destroys?: DestroyedState,
): NewAction & { id: string } {
  const severity: Severity =
    r.builtin === 'catastrophic' || r.classes.includes('irreversible') || loss ? 'destructive' : 'time-sensitive'
  const why = [
    r.builtin === 'first-use' ? 'first use of a new capability' : '',
    ...r.fired.map((f) => `${f.id}${f.rule.source && f.rule.source !== 'built-in' ? ` (${f.rule.source})` : ''}`),
  ]
    .filter(Boolean)
    .join(', ')
  return {
    // Derived from the call and the clock, so the decision stays pure; unique per call and moment.
    id: `pa-${fnv64(`${call.session_id}\u0000${fp}\u0000${now}`).slice(0, 8)}`,
    // The folder, when it is not the project: the human approves the action where it runs (the fingerprint binds it there).
    action: maskSecrets(
      `${call.tool_name === 'Bash' ? 'run' : 'use ' + call.tool_name + ':'} ${r.action.summary.replace(/^(Write|Edit|MultiEdit|NotebookEdit) /, '')}${call.cwd && trimTrailingSlashes(call.cwd) !== trimTrailingSlashes(projectDir) ? ` (in ${call.cwd})` : ''}`,
    ),
    trigger: `${r.classes.join(' + ') || 'guardrail'}${why ? ` — ${why}` : ''}`,
    // What the human needs to decide: the evidence when it is the reason (which files, why), else the rule; and,
    // when an earlier approval of the same call no longer covers it, what changed since.
    context: maskSecrets(
      [
        stale ? `Asked again: ${stale}.` : '',
        destroys ? `Now: ${destroys.seen.slice(0, 3).join('; ')}.` : '',
        (evidence && evidenceFloor(evidence)?.decision === 'pause' ? evidenceSummary(evidence) : '') ||
          (loss ? lossSummary(loss) : '') ||
          lostLines(r.action.findings).join('; ') ||
          r.fired[0]?.rule.rule ||
          'Ratchet pauses the first use of a capability for a human to confirm.',
      ]
        .filter(Boolean)
        .join(' '),
    ),
    // What the human is shown of what would leave: an approval covers the call only while this stays the same.
    ...(evidence ? { evidence: { digest: evidence.digest, signature: evidence.signature, seen: evidence.seen } } : {}),
    // What would be destroyed as the human is shown it (a remote ref's tip, a file's hash): the same binding.
    ...(destroys ? { destroys } : {}),
    severity,
    fingerprint: fp,
    session_id: call.session_id,
    tool: call.tool_name,
  }
}

function pauseDecision(
  call: ToolCall & { session_id: string },
  entry: { id: string; severity: Severity },
  d: Decision,
  facts: PreflightFacts,
): Decision {
  const where = facts.config.telegram
    ? 'on Telegram'
    : `at the terminal (\`npx ratchet-guard pending approve ${entry.id}\` or \`npx ratchet-guard pending deny ${entry.id} --note "…"\`)`
  const note = 'reason' in d ? d.reason : ''
  if (facts.config.defer) {
    const reason = `${note}\nPending: ${entry.id} (${entry.severity}) — deferred until the human decides ${where}; resume with: claude -p --resume ${call.session_id}`
    return {
      kind: 'defer',
      reason,
      notice: `Ratchet paused ${entry.id}: ${firstLine(note).replace(/^\[PRE-FLIGHT\] Action: /, '')}. Decide with \`npx ratchet-guard pending approve ${entry.id}\` or \`npx ratchet-guard pending deny ${entry.id} --note "…"\`, then resume with: claude -p --resume ${call.session_id}`,
    }
  }
  const reason = `${note}\nPending: ${entry.id} (${entry.severity}) — the human has been asked ${where}. You will be told the outcome at a later step; an approval lets exactly this call through once.`
  return { kind: 'deny', reason }
}

const firstLine = (s: string) => s.split('\n')[0]
