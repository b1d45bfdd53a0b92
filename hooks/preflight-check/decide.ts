// preflight-check's decision: pure. Same call, rules, session facts and clock → same decision.
//
// Why a soft rule *denies* the first time: PreToolUse additionalContext on an allowed call reaches the
// model only after the tool has run. The only way to put the check in front of the model before the
// action is to refuse once with the note, and let an identical retry through ("proceeded after check").

import { classify, type Classification, type ClassifyContext, type ToolCall } from '../../lib/core/classify'
import type { Decision } from '../../lib/core/decision'
import { STRENGTH, citesIncident, matchRules, type FiredRule, type RuleDecision, type RuleIndex } from '../../lib/core/guardrails'
import { CLASS_LABEL, type ActionClass } from '../../lib/core/patterns'

export type Verdict = 'allow' | 'warn' | 'check' | 'proceeded_after_check' | 'ask' | 'pause' | 'deny'

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
  decision: Decision
  verdict: Verdict
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

const MAX_NOTE_RULES = 5

const DEFAULT_CHECK: Record<ActionClass, string> = {
  public_surface: 'Did the user ask for exactly this to become public, and does it contain nothing private (keys, personal data, internal files)?',
  irreversible: 'Is this what the user asked for, and is there a backup or a way back if it is wrong?',
  stale_data: 'Read the current contents first: your picture of this file may be out of date.',
  prior_incident: 'This has gone wrong before: re-read the rule below and confirm it holds.',
  scope_beyond_request: 'Did the user ask for this? If not, finish what was asked and offer this as a next step instead.',
  self_protection: 'Ratchet’s rules and approvals are the user’s to change, not the agent’s.',
  secret_access: 'This reads credentials: does the task need them, and do they stay on this machine?',
  local_change: 'Is this commit what the user asked for, and does it stage nothing private?',
}

export function decide(call: ToolCall, ctx: ClassifyContext, index: RuleIndex, opts: PreflightOptions): PreflightResult {
  const action = classify(call, ctx)
  const fired = matchRules(index, action, ctx.projectDir)
  const classes = classesOf(action, fired)
  const base = { action, fired, classes }

  const self = action.findings.find((f) => f.class === 'self_protection')
  if (self) {
    // A read of Ratchet's keys, or a change to its files: denied either way, each said as what it is.
    const reason =
      self.pattern === 'ratchet_key_read'
        ? `[RATCHET] Denied: ${self.detail}. Ratchet's token and keys are the user's alone: with them a pause could be approved or a case signed without a human. Nothing there is needed for the task; if you think it is, tell the user.`
        : `[RATCHET] Denied: ${self.detail} would change Ratchet's own rules, approvals, log or hook registrations. ` +
          `The agent may read them but never change them. If a rule is wrong, tell the user which one and why; ` +
          `they can edit it themselves or run \`npx ratchet-guard guardrails explain\`.`
    return { ...base, builtin: 'self-protection', verdict: 'deny', decision: { kind: 'deny', reason } }
  }

  const catastrophic = action.findings.find((f) => f.catastrophic)
  let strongest: RuleDecision | undefined
  for (const f of fired) if (!strongest || STRENGTH[f.decision] > STRENGTH[strongest]) strongest = f.decision
  if (catastrophic) {
    // Hard by default; a user's own rule may only turn it into a question for a human, never a retry.
    const human = fired.filter((f) => f.rule.pattern === 'catastrophic' && (f.decision === 'ask' || f.decision === 'pause'))
    const via: RuleDecision = human.length ? human.reduce<RuleDecision>((a, f) => (STRENGTH[f.decision] > STRENGTH[a] ? f.decision : a), 'ask') : 'deny'
    const note = preflightNote(action, fired, classes, via, opts, catastrophic.detail)
    return { ...base, builtin: 'catastrophic', verdict: via, decision: via === 'ask' ? { kind: 'ask', reason: note } : { kind: 'deny', reason: note } }
  }

  const firstUse = opts.isNewCapability && action.findings.find((f) => FIRST_USE.has(f.pattern) && opts.isNewCapability!(f.pattern))
  const firstUseAs = opts.firstUse ?? 'pause'
  if (firstUse && (!strongest || STRENGTH[strongest] < STRENGTH[firstUseAs])) {
    const note = preflightNote(action, fired, classes, firstUseAs, opts).replace(/^Trigger: /m, `Trigger: first use of a new capability (${firstUse.pattern}) + `)
    return { ...base, builtin: 'first-use', verdict: firstUseAs, decision: firstUseAs === 'ask' ? { kind: 'ask', reason: note } : { kind: 'deny', reason: note } }
  }

  if (!strongest) return { ...base, verdict: 'allow', decision: { kind: 'allow' } }

  const note = preflightNote(action, fired, classes, strongest, opts)
  switch (strongest) {
    case 'warn':
      return { ...base, verdict: 'warn', decision: { kind: 'allow', context: note, notice: `Ratchet warned: ${firstLine(note)}` } }
    case 'check': {
      // A check that asks for a Read is answered by the Read (the file then counts as read and the finding goes),
      // not by a retry: retrying without reading would change a file the agent has not seen.
      if (readsAnswer(action)) return { ...base, verdict: 'check', decision: { kind: 'deny', reason: note.replace(/^Proceed: .*$/m, `Proceed: not yet. Read ${staleFiles(action)} first (Read, or cat), then make the change; retrying without reading it will not run.`) } }
      const at = opts.checks[opts.fingerprint]
      if (at !== undefined && opts.now - at <= opts.checkWindowMs && opts.now >= at) return { ...base, verdict: 'proceeded_after_check', decision: { kind: 'allow' } }
      return { ...base, verdict: 'check', decision: { kind: 'deny', reason: note } }
    }
    case 'ask':
      return { ...base, verdict: 'ask', decision: { kind: 'ask', reason: note } }
    case 'pause':
    case 'deny':
      // `pause` needs the approval queue (pause-and-ask); until it answers, a pause holds like a deny.
      return { ...base, verdict: strongest, decision: { kind: 'deny', reason: note } }
  }
}

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

/** The seed's structured note: Action / Trigger / Check / Rule / Proceed. */
export function preflightNote(action: Classification, fired: FiredRule[], classes: ActionClass[], decision: RuleDecision, opts: Pick<PreflightOptions, 'checkWindowMs'>, catastrophic?: string): string {
  const shown = fired.slice(0, MAX_NOTE_RULES)
  const incidents = [...new Set(shown.flatMap((f) => (f.rule.source ?? '').match(/\bINC-\d+/gi) ?? []))]
  const trigger = [
    ...(catastrophic ? ['catastrophic if wrong'] : []),
    ...classes.filter((c) => c !== 'prior_incident').map((c) => CLASS_LABEL[c]),
    ...(incidents.length ? [`prior incident ${incidents.join(', ')}`] : []),
  ].join(' + ')
  const ids = fired.map((f) => f.id)
  const shownIds = ids.length > MAX_NOTE_RULES ? [...ids.slice(0, MAX_NOTE_RULES), `+${ids.length - MAX_NOTE_RULES}`] : ids
  const own = [...new Set(shown.map((f) => f.rule.check).filter((c): c is string => !!c))]
  const checkText = own.length ? own.join(' / ') : DEFAULT_CHECK[classes.find((c) => c !== 'prior_incident') ?? 'irreversible']
  // Only the rules the note shows are rendered: a flood of matching rules costs nothing extra.
  const rules = shown.map((f) => `${f.id}${f.rule.source && f.rule.source !== 'built-in' ? ` (from ${f.rule.source})` : ''}: ${f.rule.rule}`)
  if (catastrophic) rules.unshift('built-in: deleting / or home, formatting disks, dropping databases and force-pushing the default branch are never done by the agent')
  const hardIds = fired.filter((f) => f.decision === 'deny').map((f) => f.id).slice(0, MAX_NOTE_RULES)
  const windowMin = Math.round(opts.checkWindowMs / 60000)
  const proceed: Record<RuleDecision, string> = {
    warn: 'yes, allowed; keep the check in mind.',
    check: `not yet. If the check holds and the user asked for this, retry the identical call within ${windowMin} min and it will run (logged as "proceeded after check"). Otherwise stop and ask the user.`,
    ask: 'only if the user approves at the prompt.',
    pause: 'no: queued for a human decision. Carry on with other work; do not retry or route around it until you hear the outcome.',
    deny: `no. This is a hard rule${hardIds.length ? ` (${hardIds.join(', ')})` : ''}: do not retry it or get the same effect another way (other commands and tools are checked too). Tell the user what you wanted to do and why.`,
  }
  return [
    `[PRE-FLIGHT] Action: ${catastrophic ?? action.summary}`,
    `Trigger: ${trigger || 'guardrail match'}${ids.length ? ` (guardrail ${shownIds.join(', ')})` : ''}`,
    `Check: ${checkText}`,
    // Five rules say what matters; a wall of them would be skimmed.
    ...rules.slice(0, MAX_NOTE_RULES).map((r) => `Rule: ${r}`),
    ...(fired.length > MAX_NOTE_RULES ? [`Rule: …and ${fired.length - MAX_NOTE_RULES} more (ratchet guardrails explain shows all)`] : []),
    `Proceed: ${proceed[decision]}`,
  ].join('\n')
}

function firstLine(s: string): string {
  return s.split('\n')[0]
}
