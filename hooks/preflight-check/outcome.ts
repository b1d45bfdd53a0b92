// What preflight-check's pure decision returns (compose.ts): the Decision, the final verdict, the state changes it
// implies as data (applied by apply.ts), and the activity-log record.

import type { Decision } from '../../lib/core/decision'
import { decisionRecord, type ActivityRecord } from '../../lib/core/activity'
import type { LossFacts } from '../../lib/core/loss'
import type { NewAction } from '../../lib/core/pending'
import type { Blocked } from '../../lib/core/route-around'
import { maskSecrets } from '../../lib/core/secrets'
import type { ProbationVerdict } from '../../lib/core/courtroom/probation'
import type { ToolCall } from '../../lib/core/classify'
import type { PreflightResult } from './decide'
import type { Verdict } from './note'
import type { PreflightFacts } from './facts'

/** A state change the decision implies, applied by apply.ts in this order. */
export type Effect =
  /** Use up a human's approval (under the queue lock; if it is gone, the shell decides again without it). */
  | { kind: 'consume-approval'; id: string; fingerprint: string; capabilities: string[] }
  /** Queue this call for a human, and notify Telegram in the background. */
  | { kind: 'enqueue'; entry: NewAction & { id: string }; notify: boolean }
  /** Mark these decided pauses as heard by the agent. */
  | { kind: 'deliver'; ids: string[] }
  /** Session facts: files read, a check issued or answered, a block remembered or forgiven. */
  | {
      kind: 'session'
      reads: string[]
      created?: string[]
      secrets?: string[]
      checkIssued?: string
      checkAnswered?: string
      block?: Blocked
      clearBlocks?: boolean
    }
  /** Count firings of these rules. */
  | { kind: 'fires'; ids: string[] }
  /** The same effect as a blocked call, tried another way and let through: a custodiet finding. */
  | { kind: 'route-around'; blocked: string; attempt: string }
  /** Probation actions used up, and probations that ended (re-applied under the probation file's lock). */
  | { kind: 'probation'; counted: string[]; lifted: string[] }

export type FinalVerdict =
  | Verdict
  | 'approved_by_human'
  | 'denied_by_human'
  | 'custodiet_block'
  | 'custodiet_checkpoint'
  | 'floor_hold'
  | ProbationVerdict

export interface PreflightOutcome {
  decision: Decision
  verdict: FinalVerdict
  effects: Effect[]
  /** The rules stage's result (classification, fired rules, classes). */
  result: PreflightResult
  /** The activity-log record, minus timing. */
  record: ActivityRecord
}

/** The outcome as steps 8–14 build it, each changing it in place in the order the precedence is numbered. */
export interface Draft {
  decision: Decision
  verdict: FinalVerdict
  effects: Effect[]
  /** The queue entry this call is about (approved, denied or queued now). */
  pendingId?: string
}

/** Outcomes and notes go first: in a deny's reason, or as context on an allow. */
export function withNotes(d: Decision, notes: string): Decision {
  if (d.kind === 'allow') return { ...d, context: d.context ? `${notes}\n${d.context}` : notes }
  if ('reason' in d) return { ...d, reason: `${notes}\n\n${d.reason}` }
  return d
}

/** The activity-log record of the outcome, minus timing: what was decided, and the facts that decided it. */
export function activityRecordOf(
  call: ToolCall & { session_id: string },
  facts: PreflightFacts,
  result: PreflightResult,
  o: Draft,
  seen: { patterns: string[]; around?: Blocked; onProbation: string[]; loss?: LossFacts },
): ActivityRecord {
  const { action } = result
  const { patterns, around, onProbation, loss } = seen
  return decisionRecord(
    {
      now: facts.now,
      session: call.session_id,
      tool: call.tool_name,
      action: maskSecrets(action.summary),
      classes: result.classes,
      patterns,
      guardrails: result.fired.map((f) => f.id),
      decision: o.verdict,
      fingerprint: facts.fingerprint,
    },
    {
      ...(result.builtin ? { builtin: result.builtin } : {}),
      ...(o.pendingId ? { pending_id: o.pendingId } : {}),
      ...(around ? { signals: ['route_around'], after: around.summary } : {}),
      ...(onProbation.length ? { probation: onProbation } : {}),
      ...(loss
        ? {
            loss: {
              files: loss.files,
              bytes: loss.bytes,
              paths: loss.items.slice(0, 20).map((i) => maskSecrets(i.path)),
            },
          }
        : {}),
      ...(facts.evidence
        ? {
            evidence: {
              status: facts.evidence.status,
              commits: facts.evidence.commits,
              files: facts.evidence.files,
              scanned: facts.evidence.scanned,
              private: [...new Set(facts.evidence.hazards.map((h) => h.path))].slice(0, 20),
            },
          }
        : {}),
      ...(result.requested ? { requested: true } : {}),
    },
  )
}
