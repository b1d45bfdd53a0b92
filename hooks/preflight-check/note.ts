// The agent's note, as a value: each stage of the decision (decide.ts, verdict-stages.ts) fills in or tightens its fields,
// and `decisionOf` renders it once, here, into what the agent reads. Nothing edits the rendered text.
//
//   [PRE-FLIGHT] Action: <action>
//   Trigger: <triggers, joined by " + "> (guardrail <ids>)
//   Check: <check>
//   Rule: <rules, one a line>
//   <named: what cannot be undone (Destroys:, Sends:, Pays:), the user's words that rule it out (Scope:)>
//   Evidence: <loss: what deleting would lose for good>
//   <evidence: what would leave (Evidence:, Private:, Do:)>
//   Proceed: <proceed>
//
// A change to Ratchet's own files is not a PRE-FLIGHT note: its denial (`denied`) is one plain sentence, led by
// the user's data the call would destroy when there is any.

import type { Decision } from '../../lib/core/decision'
import type { FiredRule } from '../../lib/core/rule-match'
import type { RuleDecision } from '../../lib/core/guardrails'
import { lossLines, type LossFacts } from '../../lib/core/loss'
import { CLASS_LABEL, type ActionClass } from '../../lib/core/patterns'
import { CLI } from '../../lib/core/manifest'

export interface Note {
  /** What the call does (or, for a catastrophic call, what it would destroy). */
  action: string
  /** Why Ratchet speaks, the reason the latest stage added first. */
  triggers: string[]
  /** The guardrails that fired (ids; the note shows the first few). */
  guardrails: string[]
  /** The question the agent must answer before going on. */
  check: string
  /** The rules' own words (already capped at what the note shows). */
  rules: string[]
  /** What cannot be undone, by name, and the user's words that rule the call out. */
  named: string[]
  /** What deleting would lose for good. */
  loss?: LossFacts
  /** What would leave the machine or be staged, and what to do about it. */
  evidence: string[]
  /** Whether and how the agent may go on. */
  proceed: string
  /** Set for a change to Ratchet's own files: the denial's sentence, without its "[RATCHET] Denied: " head. */
  denied?: string
}

/** The rules stage's outcome, and what the later stages raise or answer it to. */
export type Verdict = 'allow' | 'warn' | 'check' | 'proceeded_after_check' | 'ask' | 'pause' | 'deny'

export const MAX_NOTE_RULES = 5

const DEFAULT_CHECK: Record<ActionClass, string> = {
  public_surface:
    'Did the user ask for exactly this to become public, and does it contain nothing private (keys, personal data, internal files)?',
  irreversible: 'Is this what the user asked for, and is there a backup or a way back if it is wrong?',
  stale_data: 'Read the current contents first: your picture of this file may be out of date.',
  prior_incident: 'This has gone wrong before: re-read the rule below and confirm it holds.',
  scope_beyond_request:
    'Did the user ask for this? If not, finish what was asked and offer this as a next step instead.',
  self_protection: 'Ratchet’s rules and approvals are the user’s to change, not the agent’s.',
  secret_access: 'This reads credentials: does the task need them, and do they stay on this machine?',
  local_change: 'Is this commit what the user asked for, and does it stage nothing private?',
}

const CATASTROPHIC_RULE =
  'built-in: deleting / or home, formatting disks, dropping databases and force-pushing the default branch are never done by the agent'

/** The note the rules stage writes: the classes found, the rules that fired, and what `decision` lets the agent do. */
export function baseNote(
  summary: string,
  fired: FiredRule[],
  classes: ActionClass[],
  decision: RuleDecision,
  checkWindowMs: number,
  catastrophic?: string,
): Note {
  const shown = fired.slice(0, MAX_NOTE_RULES)
  const incidents = [...new Set(shown.flatMap((f) => (f.rule.source ?? '').match(/\bINC-\d+/gi) ?? []))]
  const own = [...new Set(shown.map((f) => f.rule.check).filter((c): c is string => !!c))]
  // Only the rules the note shows are rendered: a flood of matching rules costs nothing extra.
  const rules = shown.map(
    (f) => `${f.id}${f.rule.source && f.rule.source !== 'built-in' ? ` (from ${f.rule.source})` : ''}: ${f.rule.rule}`,
  )
  return {
    action: catastrophic ?? summary,
    triggers: [
      ...(catastrophic ? ['catastrophic if wrong'] : []),
      ...classes.filter((c) => c !== 'prior_incident').map((c) => CLASS_LABEL[c]),
      ...(incidents.length ? [`prior incident ${incidents.join(', ')}`] : []),
    ],
    guardrails: fired.map((f) => f.id),
    check: own.length ? own.join(' / ') : DEFAULT_CHECK[classes.find((c) => c !== 'prior_incident') ?? 'irreversible'],
    rules: catastrophic ? [CATASTROPHIC_RULE, ...rules] : rules,
    named: [],
    evidence: [],
    proceed: proceedFor(decision, fired, checkWindowMs),
  }
}

/** What `decision` lets the agent do, said in the note's Proceed line. */
export function proceedFor(decision: RuleDecision, fired: FiredRule[], checkWindowMs: number): string {
  switch (decision) {
    case 'warn':
      return 'yes, allowed; keep the check in mind.'
    case 'check':
      return `not yet. If the check holds and the user asked for this, retry the identical call within ${Math.round(checkWindowMs / 60000)} min and it will run (logged as "proceeded after check"). Otherwise stop and ask the user.`
    case 'ask':
      return 'only if the user approves at the prompt.'
    case 'pause':
      return 'no: queued for a human decision. Carry on with other work; do not retry or route around it until you hear the outcome.'
    case 'deny': {
      const hard = fired
        .filter((f) => f.decision === 'deny')
        .map((f) => f.id)
        .slice(0, MAX_NOTE_RULES)
      return `no. This is a hard rule${hard.length ? ` (${hard.join(', ')})` : ''}: do not retry it or get the same effect another way (other commands and tools are checked too). Tell the user what you wanted to do and why.`
    }
  }
}

/** The note with `why` as its leading trigger. */
export const because = (n: Note, why: string): Note => ({ ...n, triggers: [why, ...n.triggers] })

/** The note with these lines named (each once). */
export const naming = (n: Note, lines: string[]): Note => ({ ...n, named: [...new Set([...n.named, ...lines])] })

/** The note as the agent reads it. */
export function renderNote(n: Note): string {
  if (n.denied !== undefined) {
    const l = n.loss
    const head = l
      ? [
          `[RATCHET] Denied: ${n.action} would destroy ${l.more ? 'at least ' : ''}${l.files} file${l.files === 1 ? '' : 's'} of the user's that nothing can bring back (below), and it would change Ratchet's own files too.`,
          `Also: ${n.denied}`,
        ]
      : [`[RATCHET] Denied: ${n.denied}`]
    return [...head, ...n.named, ...(l ? lossLines(l) : [])].join('\n')
  }
  const ids =
    n.guardrails.length > MAX_NOTE_RULES
      ? [...n.guardrails.slice(0, MAX_NOTE_RULES), `+${n.guardrails.length - MAX_NOTE_RULES}`]
      : n.guardrails
  return [
    `[PRE-FLIGHT] Action: ${n.action}`,
    `Trigger: ${n.triggers.join(' + ') || 'guardrail match'}${ids.length ? ` (guardrail ${ids.join(', ')})` : ''}`,
    `Check: ${n.check}`,
    // Five rules say what matters; a wall of them would be skimmed.
    ...n.rules.slice(0, MAX_NOTE_RULES).map((r) => `Rule: ${r}`),
    ...(n.guardrails.length > MAX_NOTE_RULES
      ? [`Rule: …and ${n.guardrails.length - MAX_NOTE_RULES} more (${CLI} guardrails explain shows all)`]
      : []),
    ...n.named,
    ...(n.loss ? lossLines(n.loss) : []),
    ...n.evidence,
    `Proceed: ${n.proceed}`,
  ].join('\n')
}

/** The decision a verdict and its note make: the one place the note becomes text. */
export function decisionOf(verdict: Verdict, note: Note): Decision {
  switch (verdict) {
    case 'allow':
    case 'proceeded_after_check':
      return { kind: 'allow' }
    case 'warn': {
      const text = renderNote(note)
      return { kind: 'allow', context: text, notice: `Ratchet warned: ${text.split('\n')[0]}` }
    }
    case 'ask':
      return { kind: 'ask', reason: renderNote(note) }
    case 'check':
    case 'pause':
    case 'deny':
      // `pause` needs the approval queue (pause-and-ask); until it answers, a pause holds like a deny.
      return { kind: 'deny', reason: renderNote(note) }
  }
}
