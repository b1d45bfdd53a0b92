// custodiet's policy, pure: when to launch a background review, how a finding is enforced (the
// spec's graduated levels), and what the agent hears. No fs, env or clock: `now` comes in.
//
//   1 log        record only
//   2 warn       tell the agent at its next hook (the default)
//   3 checkpoint the next action asks the user first (permission prompt), then the hold lifts
//   4 block      actions are denied until the user speaks again
// Repeated drift in one session escalates: each earlier finding adds a level (up to 4).

import type { Decision } from '../../lib/core/decision'
import { describeEnvelope, extractEnvelope, reactiveSignals, scopeExpansions, type Todo, type ToolEvent } from '../../lib/core/envelope'
import { formatVerdict, type Verdict } from '../../lib/core/verdict'
import { type Category, type CustodietState, type Finding, type Level, type Policy, type Trigger } from '../../lib/core/custodiet'

// The state's shape and the policy's defaults live in lib/core/custodiet (lib/io reads and writes them).
export { DEFAULT_POLICY, emptyState, hold, type CustodietState, type Finding, type Policy, type Trigger } from '../../lib/core/custodiet'

export const CATEGORY_OF: Record<Trigger, Category> = { periodic: 'drift', error: 'reactive', todo: 'scope_expansion', subagent: 'subagent' }

const MAX_EVENTS = 30

/** The user spoke: record the request; any hold lifts (the user has now confirmed or redirected). */
export function onPrompt(s: CustodietState, prompt: string): CustodietState {
  return { ...s, envelope: extractEnvelope(prompt, s.envelope), findings: s.findings.map((f) => (f.level >= 3 && !f.lifted ? { ...f, lifted: true } : f)) }
}

export interface PostResult {
  state: CustodietState
  launch?: Trigger
  decision: Decision
}

/** PostToolUse / PostToolUseFailure: count, remember, maybe launch a review, deliver findings. */
export function onToolDone(s: CustodietState, e: ToolEvent, policy: Policy, now: Date, reviewRunning: boolean): PostResult {
  const events = [...s.events, { ...e, at: now.toISOString() }].slice(-MAX_EVENTS)
  // A tool ran: a level-3 checkpoint was confirmed by the user at the permission prompt.
  const findings = s.findings.map((f) => (f.level === 3 && f.delivered && !f.lifted ? { ...f, lifted: true } : f))
  let state: CustodietState = { ...s, toolCount: s.toolCount + 1, events, findings }
  let launch: Trigger | undefined
  if (e.error) launch = 'error'
  else if (policy.every > 0 && state.toolCount % policy.every === 0) launch = 'periodic'
  if (launch && reviewRunning) launch = undefined

  // Type A without waiting for the reviewer: configuration reads or web searches right after an error.
  if (state.envelope) {
    const errorAt = events.map((x) => !!x.error).lastIndexOf(true)
    const absoluteError = state.toolCount - (events.length - errorAt)
    if (errorAt >= 0 && state.reactiveReportedFor !== absoluteError) {
      const signals = reactiveSignals(events.slice(errorAt), state.envelope)
      if (signals.length) {
        state = addFinding({ ...state, reactiveReportedFor: absoluteError }, 'error', {
          status: 'ATTENTION',
          issue: `After a tool error the agent moved on to ${signals.join('; ')} — nobody asked for that.`,
          principle: 'Type A, reactive helpfulness: the request was not to diagnose or repair the environment',
          correction: 'Stop investigating. Report the error to the user as it is and ask whether they want it fixed.',
        }, 'deterministic', policy, now)
      }
    }
  }
  const { state: delivered, decision } = deliver(state)
  return { state: delivered, launch, decision }
}

/** Records a finding at its enforcement level (escalating with earlier findings in the session). */
export function addFinding(s: CustodietState, trigger: Trigger, verdict: Extract<Verdict, { status: 'ATTENTION' }>, source: Finding['source'], policy: Policy, now: Date, category: Category = CATEGORY_OF[trigger]): CustodietState {
  const prior = s.findings.length
  const base = policy.levels[category] ?? 2
  const level = Math.min(4, base + (policy.escalate ? prior : 0)) as Level
  const f: Finding = { id: `cf-${prior + 1}`, at: now.toISOString(), trigger, category, verdict, level, source, delivered: level === 1 }
  return { ...s, findings: [...s.findings, f] }
}

/** Findings the agent has not heard yet, delivered once, loud and specific. */
export function deliver(s: CustodietState): { state: CustodietState; decision: Decision } {
  const fresh = s.findings.filter((f) => !f.delivered)
  if (!fresh.length) return { state: s, decision: { kind: 'allow' } }
  const text = fresh.map(noteFor).join('\n\n')
  return {
    state: { ...s, findings: s.findings.map((f) => (f.delivered ? f : { ...f, delivered: true })) },
    decision: { kind: 'allow', context: text, notice: `custodiet: ${fresh[fresh.length - 1].verdict.issue}` },
  }
}

export function noteFor(f: Finding): string {
  const enforcement = f.level >= 4 ? 'Until the user answers, further actions are blocked.' : f.level === 3 ? 'Your next action needs the user’s confirmation.' : 'Report this to the user and ask for direction before going further.'
  return `[CUSTODIET] ${formatVerdict(f.verdict)}\n(level ${f.level}, ${f.category.replace('_', ' ')}${f.source === 'deterministic' ? ', deterministic check' : ''}) ${enforcement}`
}

/**
 * PreToolUse:TodoWrite — the blocking gate for Type B scope expansion, before work begins.
 * `reviewer` is the reviewer's verdict if it answered within the budget.
 */
export function onTodos(s: CustodietState, todos: Todo[], policy: Policy, now: Date, reviewer?: Verdict): { state: CustodietState; decision: Decision } {
  if (!s.envelope) return { state: s, decision: { kind: 'allow' } }
  let verdict: Extract<Verdict, { status: 'ATTENTION' }> | undefined
  let source: Finding['source'] = 'reviewer'
  if (reviewer?.status === 'ATTENTION') verdict = reviewer
  else if (!reviewer) {
    const extra = scopeExpansions(todos, s.envelope)
    source = 'deterministic'
    if (extra.length)
      verdict = {
        status: 'ATTENTION',
        issue: `The plan adds work nobody asked for: ${extra.map((x) => `"${x.todo}" (${x.kind})`).join(', ')}.`,
        principle: 'Type B, deliberate scope expansion: do one thing — the request was: ' + s.envelope.explicit,
        correction: 'Drop those items from the plan (offer them to the user as suggestions) and do what was asked.',
      }
  }
  if (!verdict) return { state: s, decision: { kind: 'allow' } }
  const state = addFinding(s, 'todo', verdict, source, policy, now)
  const f = state.findings[state.findings.length - 1]
  const marked = { ...state, findings: state.findings.map((x) => (x.id === f.id ? { ...x, delivered: true } : x)) }
  const note = noteFor(f)
  if (f.level === 1) return { state: marked, decision: { kind: 'allow' } }
  if (f.level === 2) return { state: marked, decision: { kind: 'allow', context: note, notice: `custodiet: ${f.verdict.issue}` } }
  if (f.level === 3) return { state: marked, decision: { kind: 'ask', reason: note } }
  return { state: marked, decision: { kind: 'deny', reason: note } }
}

/** What preflight-check enforces while a level 3-4 finding holds. */
export function holdDecision(f: Finding, readOnly: boolean): Decision | null {
  if (readOnly) return null
  const why = `[CUSTODIET] Holding since ${f.at}: ${f.verdict.issue} ${f.verdict.correction}`
  return f.level >= 4 ? { kind: 'deny', reason: `${why} Actions are blocked until the user answers.` } : { kind: 'ask', reason: `${why} Confirm to let the agent continue.` }
}

export function reviewPrompt(template: string, s: CustodietState, trigger: Trigger, excerpt: string, extra = ''): string {
  return template
    .replaceAll('{{trigger}}', trigger)
    .replaceAll('{{envelope}}', s.envelope ? describeEnvelope(s.envelope) : '(no request recorded)')
    .replaceAll('{{excerpt}}', excerpt)
    .replaceAll('{{extra}}', extra)
}
