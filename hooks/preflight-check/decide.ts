// preflight-check's decision: pure. Same call, rules, session facts and clock → same decision.
//
// Why a soft rule *denies* the first time: PreToolUse additionalContext on an allowed call reaches the
// model only after the tool has run. The only way to put the check in front of the model before the
// action is to refuse once with the note, and let an identical retry through ("proceeded after check").

import { classify, type Classification, type ClassifyContext, type ToolCall } from '../../lib/core/classify'
import type { Decision } from '../../lib/core/decision'
import { STRENGTH, citesIncident, type RuleDecision } from '../../lib/core/guardrails'
import { matchRules, type FiredRule, type RuleIndex } from '../../lib/core/rule-match'
import type { ActionClass } from '../../lib/core/patterns'
import { baseNote, because, decisionOf, type Note, type Verdict } from './note'
import { CLI } from '../../lib/core/manifest'

export interface PreflightOptions {
  /** How long an identical retry after a check is let through. */
  checkWindowMs: number
  /**
   * Whether this project has never used a capability (a named pattern in FIRST_USE) before: its
   * first use pauses for a human (the seed's mandatory pause). Omit to turn that off. Asked only
   * when such a pattern is found, so the hot path does not read the capabilities file.
   */
  isNewCapability?: (pattern: string) => boolean
  /** What a first use is (RG-FIRST-USE's decision): a pause for a human (default) or an ask at the terminal. */
  firstUse?: 'ask' | 'pause'
  /** Checks issued earlier in this session: fingerprint → time (ms). */
  checks: Record<string, number>
  fingerprint: string
  now: number
}

export interface PreflightResult {
  /** The note's rendering (decisionOf): what the agent or the user reads. */
  decision: Decision
  verdict: Verdict
  /** What the agent is told, as a value the later stages tighten; rendered once, into `decision`. */
  note: Note
  action: Classification
  fired: FiredRule[]
  classes: ActionClass[]
  /** Set when the user's latest prompt asked for exactly this, which answered a generic check. */
  requested?: boolean
  /** A built-in protection that decided, if any. */
  builtin?: 'self-protection' | 'catastrophic' | 'first-use'
}

/** The seed's mandatory pause: the first email, the first public post, the first publish. */
export const FIRST_USE = new Set(['email_send', 'external_post', 'pr_or_issue_create', 'package_publish'])

export function decide(
  call: ToolCall,
  ctx: ClassifyContext,
  index: RuleIndex,
  opts: PreflightOptions,
): PreflightResult {
  const action = classify(call, ctx)
  const fired = matchRules(index, action, ctx.projectDir)
  const classes = classesOf(action, fired)
  const base = { action, fired, classes }

  const self = action.findings.find((f) => f.class === 'self_protection')
  if (self) {
    // A read of Ratchet's keys, or a change to its files: denied either way, each said as what it is.
    const denied =
      self.pattern === 'ratchet_key_read'
        ? `${self.detail}. Ratchet's token and keys are the user's alone: with them a pause could be approved or a case signed without a human. Nothing there is needed for the task; if you think it is, tell the user.`
        : `${self.detail} would change Ratchet's own rules, approvals, log or hook registrations. ` +
          `The agent may read them but never change them. If a rule is wrong, tell the user which one and why; ` +
          `they can edit it themselves or run \`${CLI} guardrails explain\`.`
    return rendered({
      ...base,
      builtin: 'self-protection',
      verdict: 'deny',
      note: { ...baseNote(action.summary, fired, classes, 'deny', opts.checkWindowMs), denied },
    })
  }

  const catastrophic = action.findings.find((f) => f.catastrophic)
  let strongest: RuleDecision | undefined
  for (const f of fired) if (!strongest || STRENGTH[f.decision] > STRENGTH[strongest]) strongest = f.decision
  if (catastrophic) {
    // Hard by default; a user's own rule may only turn it into a question for a human, never a retry.
    const human = fired.filter(
      (f) => f.rule.pattern === 'catastrophic' && (f.decision === 'ask' || f.decision === 'pause'),
    )
    const via: RuleDecision = human.length
      ? human.reduce<RuleDecision>((a, f) => (STRENGTH[f.decision] > STRENGTH[a] ? f.decision : a), 'ask')
      : 'deny'
    // A pause here is not queued by the rules stage: until the queue answers, it holds like a deny.
    return rendered({
      ...base,
      builtin: 'catastrophic',
      verdict: via,
      note: baseNote(action.summary, fired, classes, via, opts.checkWindowMs, catastrophic.detail),
    })
  }

  const firstUse =
    opts.isNewCapability && action.findings.find((f) => FIRST_USE.has(f.pattern) && opts.isNewCapability!(f.pattern))
  const firstUseAs = opts.firstUse ?? 'pause'
  if (firstUse && (!strongest || STRENGTH[strongest] < STRENGTH[firstUseAs])) {
    const note = because(
      baseNote(action.summary, fired, classes, firstUseAs, opts.checkWindowMs),
      `first use of a new capability (${firstUse.pattern})`,
    )
    return rendered({ ...base, builtin: 'first-use', verdict: firstUseAs, note })
  }

  const note = baseNote(action.summary, fired, classes, strongest ?? 'warn', opts.checkWindowMs)
  if (!strongest) return rendered({ ...base, verdict: 'allow', note })
  if (strongest !== 'check') return rendered({ ...base, verdict: strongest, note })
  // A check that asks for a Read is answered by the Read (the file then counts as read and the finding goes),
  // not by a retry: retrying without reading would change a file the agent has not seen.
  if (readsAnswer(action))
    return rendered({
      ...base,
      verdict: 'check',
      note: {
        ...note,
        proceed: `not yet. Read ${staleFiles(action)} first (Read, or cat), then make the change; retrying without reading it will not run.`,
      },
    })
  return rendered({ ...base, verdict: checkAnswered(opts) ? 'proceeded_after_check' : 'check', note })
}

/** An identical call was checked within the window: this retry is the agent's answer to the check. */
export function checkAnswered(o: {
  checks: Record<string, number>
  fingerprint: string
  now: number
  checkWindowMs: number
}): boolean {
  const at = o.checks[o.fingerprint]
  return at !== undefined && o.now - at <= o.checkWindowMs && o.now >= at
}

/** A result while the stages still tighten it: its note is not rendered yet. */
export type Staged = Omit<PreflightResult, 'decision'>

/** The result with its note rendered into the decision (note.ts decisionOf). */
export const rendered = (r: Staged): PreflightResult => ({ ...r, decision: decisionOf(r.verdict, r.note) })

/** Only stale data stands in the way: what answers the check is reading the file. */
function readsAnswer(action: Classification): boolean {
  const weighed = action.findings.filter((f) => f.class !== 'local_change' && f.class !== 'secret_access')
  return weighed.length > 0 && weighed.every((f) => f.pattern === 'stale_write')
}

/** The files a stale-data check names (from its findings' details, else the paths the call changes). */
function staleFiles(action: Classification): string {
  const files = [...new Set(action.paths)].slice(0, 3)
  return files.length ? files.join(', ') : 'the file'
}

function classesOf(action: Classification, fired: FiredRule[]): ActionClass[] {
  const set = new Set<ActionClass>(action.findings.map((f) => f.class))
  if (fired.some((f) => citesIncident(f.rule))) set.add('prior_incident')
  return [...set]
}
