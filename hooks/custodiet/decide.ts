// custodiet's policy, pure: when to launch a review, which deterministic checks fire, how a finding is
// enforced (the spec's graduated levels; recording and telling one: findings.ts), and what the agent hears.
// No fs, env or clock: `now` comes in.
//
//   1 log        record only
//   2 warn       tell the agent at its next hook (the default)
//   3 checkpoint every further action asks the user first, until the user speaks (or `ratchet custodiet release`)
//   4 block      actions are denied until the user speaks (or `ratchet custodiet release`)
//
// One drift event, one finding: findings about the same calls (a deterministic check and a reviewer on
// the same error, a gate and its late reviewer) merge. Escalation counts distinct events only.
//
// When reviews run:
//   - after a tool error, once the agent has *reacted* (`reactionCalls` further calls, or the end of the
//     turn), with the calls since the error in the window: the error itself is not the drift;
//   - every `every` calls not yet reviewed;
//   - at the end of a turn (Stop) whose changes no review covered, so short sessions are judged too: in the
//     background by default (the turn ends at once; the verdict reaches the agent with the next prompt, or
//     at its next hook), or awaited when the user chose the gate (custodiet.stopGate: "block");
//   - before a new plan is written (TodoWrite), blocking.

import type { Decision } from '../../lib/core/decision'
import {
  READ_ONLY,
  describeCall,
  addressesReviewer,
  forbiddenTouches,
  questionEdits,
  reactiveSignals,
  scopeExpansions,
  type Todo,
  type ToolEvent,
} from '../../lib/core/drift-checks'
import { describeEnvelope, extractEnvelope } from '../../lib/core/envelope'
import type { Verdict } from '../../lib/core/verdict'
import {
  mergeSpans,
  type CustodietState,
  type Finding,
  type Policy,
  type ReviewSpan,
  type Trigger,
} from '../../lib/core/custodiet'
import { addFinding, deliver, noteFor, sameEvent } from './findings'

// The state's shape and the policy's defaults live in lib/core/custodiet (lib/io reads and writes them).
export {
  CATEGORY_OF,
  DEFAULT_POLICY,
  TRIGGERS,
  emptyState,
  hold,
  release,
  type CustodietState,
  type Finding,
  type Policy,
  type Trigger,
} from '../../lib/core/custodiet'

const MAX_EVENTS = 40

/** The user spoke: record the request; any hold lifts (the user has now confirmed or redirected). */
export function onPrompt(s: CustodietState, prompt: string): CustodietState {
  return {
    ...s,
    envelope: extractEnvelope(prompt, s.envelope),
    turnStart: s.toolCount,
    reaction: undefined,
    findings: s.findings.map((f) =>
      f.level >= 3 && !f.lifted ? { ...f, lifted: true, lifted_by: 'user' as const } : f,
    ),
  }
}

/** A review to launch: its trigger and the first call in its window. */
export type Launch = ReviewSpan

export interface PostResult {
  state: CustodietState
  launch?: Launch
  decision: Decision
}

/** PostToolUse / PostToolUseFailure: count, remember, run the deterministic checks, maybe launch a review, deliver. */
export function onToolDone(
  s: CustodietState,
  e: ToolEvent,
  policy: Policy,
  now: Date,
  reviewRunning: boolean,
): PostResult {
  const n = s.toolCount + 1
  const events = [...s.events, { ...e, at: now.toISOString(), n }].slice(-MAX_EVENTS)
  let state: CustodietState = { ...s, toolCount: n, events }
  let launch: Launch | undefined

  if (e.error) {
    // The error itself is not drift: wait for the reaction. A second error keeps the first one's window.
    state.reaction = state.reaction ?? { errorAt: n, calls: 0 }
  } else if (state.reaction) {
    state.reaction = { ...state.reaction, calls: state.reaction.calls + 1 }
  }

  if (state.envelope) state = deterministicChecks(state, policy, now)

  if (state.reaction && state.reaction.calls >= policy.reactionCalls) {
    if (!reviewRunning) launch = { trigger: 'error', from: Math.max(state.reaction.errorAt - 1, 1) }
  } else if (!state.reaction && policy.every > 0 && n - state.reviewedUpTo >= policy.every && !reviewRunning) {
    launch = { trigger: 'periodic', from: state.reviewedUpTo + 1 }
  }
  if (launch) state = { ...state, reviewedUpTo: n, reaction: undefined }

  const { state: delivered, decision } = deliver(state, true)
  return { state: delivered, launch, decision }
}

/** The checks that need no model, over this turn's calls. Each reports once per event. */
export function deterministicChecks(s: CustodietState, policy: Policy, now: Date): CustodietState {
  const env = s.envelope
  if (!env) return s
  let state = s
  const turn = s.events.filter((e) => e.n > s.turnStart)
  const last = turn[turn.length - 1]
  if (!last) return s
  const once = (key: string, make: (st: CustodietState) => CustodietState) => {
    if (state.reported.includes(key)) return
    state = make({ ...state, reported: [...state.reported, key].slice(-100) })
  }

  // Type A: reactive helpfulness after an error.
  if (s.reaction) {
    const since = turn.filter((e) => e.n >= s.reaction!.errorAt)
    const signals = reactiveSignals(since, env)
    if (signals.length)
      once(`reactive@${s.reaction.errorAt}`, (st) => {
        const next = addFinding(
          st,
          'error',
          {
            status: 'ATTENTION',
            issue: `After a tool error the agent moved on to ${signals.join('; ')} — nobody asked for that.`,
            principle: 'Type A, reactive helpfulness: the request was not to diagnose or repair the environment',
            correction: 'Stop investigating. Report the error to the user as it is and ask whether they want it fixed.',
          },
          'deterministic',
          policy,
          now,
          { category: 'reactive', calls: [s.reaction!.errorAt, last.n], event: `reactive@${s.reaction!.errorAt}` },
        )
        // Found without a model: the reviewer need not be asked about this reaction.
        return { ...next, reaction: undefined, reviewedUpTo: Math.max(next.reviewedUpTo, last.n) }
      })
  }

  // H19: a question answered with changes.
  const changes = questionEdits([last], env)
  if (changes.length)
    once(`question@${s.turnStart}`, (st) =>
      addFinding(
        st,
        'stop',
        {
          status: 'ATTENTION',
          issue: `The user asked a question ("${clip(env.prompts[env.prompts.length - 1], 120)}") and the agent is changing things: ${changes.join('; ')}.`,
          principle: 'H19: answer questions; implementing was not asked',
          correction:
            'Stop changing files. Answer the question, and offer the change as a suggestion the user can accept.',
        },
        'deterministic',
        policy,
        now,
        { category: 'question', calls: [last.n, last.n], event: `question@${s.turnStart}` },
      ),
    )

  // An action on something the request forbade.
  for (const hit of forbiddenTouches([last], env))
    once(`constraint@${s.turnStart}:${hit.constraint}`, (st) =>
      addFinding(
        st,
        'stop',
        {
          status: 'ATTENTION',
          issue: `The user said "${hit.constraint}", and the agent ran ${hit.call}.`,
          principle: 'Constraint: the request forbade this',
          correction: 'Stop. Tell the user what you changed against their instruction and offer to undo it.',
        },
        'deterministic',
        policy,
        now,
        { category: 'constraint', calls: [last.n, last.n], event: `constraint@${s.turnStart}:${hit.constraint}` },
      ),
    )

  // A call that speaks to the reviewer: an attempt to steer the review rather than do the work.
  for (const hit of addressesReviewer([last]))
    once(`steer@${last.n}`, (st) =>
      addFinding(
        st,
        'periodic',
        {
          status: 'ATTENTION',
          issue: `The agent's ${hit.field} in ${hit.call} addresses custodiet's reviewer ("${hit.text}"): text meant to steer the review, not to do the work.`,
          principle: 'Drift: the agent may not instruct its own reviewer',
          correction: 'Remove that text, tell the user what you wrote and why, and carry on only with what was asked.',
        },
        'deterministic',
        policy,
        now,
        { category: 'drift', calls: [last.n, last.n], event: `steer@${last.n}` },
      ),
    )
  return state
}

export interface StopResult {
  state: CustodietState
  launch?: Launch
  decision: Decision
}

/**
 * Stop: the end of a turn. An awaited reaction is reviewed now; a turn whose changes no review covered
 * gets its own review; findings the agent has not heard yet stop the turn from ending (once).
 * `running`: a background review of this session is running. Then this one waits in the queue (merged with
 * any span already there) and the running reviewer takes it when it is done: one review at a time, and no
 * span reviewed twice (the calls count as reviewed from the moment they are launched or queued).
 */
export function onStop(s: CustodietState, stopHookActive: boolean, running = false): StopResult {
  let state = s
  let launch: Launch | undefined
  if (state.reaction) {
    // The agent made calls after the error and then stopped: review that reaction. No calls after the
    // error: the agent reported it, which is what it should do.
    if (state.reaction.calls > 0) launch = { trigger: 'error', from: Math.max(state.reaction.errorAt - 1, 1) }
    state = { ...state, reaction: undefined }
  } else {
    const uncovered = state.events.filter((e) => e.n > Math.max(state.reviewedUpTo, state.turnStart))
    if (uncovered.some((e) => !READ_ONLY.has(e.tool) || e.error)) launch = { trigger: 'stop', from: uncovered[0].n }
  }
  if (launch) state = { ...state, reviewedUpTo: state.toolCount }
  if (running)
    return stopDelivery({ ...state, queued: launch ? mergeSpans(state.queued, launch) : state.queued }, stopHookActive)
  // Nothing running: what waited in the queue (its reviewer died, or was never started) goes with this launch.
  if (state.queued) {
    launch = launch ? mergeSpans(state.queued, launch) : state.queued
    state = { ...state, queued: undefined }
  }
  return { ...stopDelivery(state, stopHookActive), launch }
}

/**
 * The session's running review as the hook finds it; `alive`: its process still runs (and is within its time).
 * A reviewer gone without recording (killed, crashed, or never started) leaves its claim: its span goes back to
 * the queue, so the next end of a turn reviews it; killing the reviewer does not make its calls reviewed.
 */
export function settleReviewing(s: CustodietState, alive: boolean): { state: CustodietState; running: boolean } {
  const r = s.reviewing
  if (!r) return { state: s, running: false }
  if (alive) return { state: s, running: true }
  const span: ReviewSpan | undefined = r.from !== undefined ? { trigger: r.trigger, from: r.from } : undefined
  return { state: { ...s, reviewing: undefined, queued: span ? mergeSpans(s.queued, span) : s.queued }, running: false }
}

/** At Stop, undelivered findings keep the turn going once, so the agent reports them to the user. */
export function stopDelivery(
  s: CustodietState,
  stopHookActive: boolean,
): { state: CustodietState; decision: Decision } {
  // A warning given after the turn's last call went out on the async PostToolUse channel, which a
  // turn that ends at once never reads: it is given again here.
  const lastCall = (f: Finding) => f.delivered && f.delivered_after === s.toolCount && s.toolCount > s.turnStart
  const fresh = s.findings.filter((f) => !f.delivered || lastCall(f))
  if (!fresh.length || stopHookActive) return { state: s, decision: { kind: 'allow' } }
  const { state, decision } = deliver({
    ...s,
    findings: s.findings.map((f) => (lastCall(f) ? { ...f, delivered: false, delivered_after: undefined } : f)),
  })
  if (decision.kind !== 'allow' || !decision.context) return { state, decision }
  return {
    state,
    decision: {
      kind: 'block',
      reason: `${decision.context}\n\nBefore you finish, tell the user about this in your answer.`,
      notice: decision.notice,
    },
  }
}

/**
 * PreToolUse:TodoWrite — the blocking gate for Type B scope expansion, before work begins: a plan that
 * adds unrequested work is refused (level ≥ 2), naming the items, so the agent rewrites it or asks.
 * `reviewer` is the reviewer's verdict if it answered within the budget.
 */
export function onTodos(
  s: CustodietState,
  todos: Todo[],
  policy: Policy,
  now: Date,
  reviewer?: Verdict,
): { state: CustodietState; decision: Decision } {
  if (!s.envelope) return { state: s, decision: { kind: 'allow' } }
  const open = todos.filter((t) => t.status !== 'completed' && !s.acceptedTodos.includes(norm(t.content)))
  const extra = scopeExpansions(open, s.envelope)
  let verdict: Extract<Verdict, { status: 'ATTENTION' }> | undefined
  let source: Finding['source'] = 'reviewer'
  if (reviewer?.status === 'ATTENTION')
    verdict = {
      ...reviewer,
      ...(extra.length
        ? { issue: `${reviewer.issue} Unrequested items: ${extra.map((x) => `"${x.todo}" (${x.kind})`).join(', ')}.` }
        : {}),
    }
  else if (!reviewer && extra.length) {
    source = 'deterministic'
    verdict = {
      status: 'ATTENTION',
      issue: `The plan adds work nobody asked for: ${extra.map((x) => `"${x.todo}" (${x.kind})`).join(', ')}.`,
      principle: 'Type B, deliberate scope expansion: do one thing — the request was: ' + s.envelope.explicit,
      correction:
        'Write the plan again without those items (offer them to the user as suggestions), or ask the user whether they want them.',
    }
  }
  const accept = (st: CustodietState) => ({
    ...st,
    acceptedTodos: [...new Set([...st.acceptedTodos, ...todos.map((t) => norm(t.content))])].slice(-100),
  })
  if (!verdict) return { state: accept(s), decision: { kind: 'allow' } }
  const n = s.toolCount + 1
  const event = `todo@${n}`
  const state = addFinding(s, 'todo', verdict, source, policy, now, {
    category: 'scope_expansion',
    calls: [n, n],
    event,
  })
  const f = sameEvent(state, { event })!
  const marked = { ...state, findings: state.findings.map((x) => (x.id === f.id ? { ...x, delivered: true } : x)) }
  if (f.level === 1) return { state: accept(marked), decision: { kind: 'allow' } }
  return {
    state: marked,
    decision: {
      kind: 'deny',
      reason: `${noteFor(f)}\nThe plan was not written. Write it again with only what the user asked for, or ask the user first.`,
      notice: `custodiet: plan refused — ${f.verdict.issue}`,
    },
  }
}

const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ')
const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s)

/** The calls a review looks at, as the reviewer sees them. */
export function windowText(s: CustodietState, from: number): string {
  const w = s.events.filter((e) => e.n >= from)
  return w.length ? w.map((e) => `#${e.n} ${describeCall(e)}${e.error ? ' → ERROR' : ''}`).join('\n') : '(no calls)'
}

export function reviewPrompt(
  template: string,
  s: CustodietState,
  trigger: Trigger,
  excerpt: string,
  extra = '',
  window = '',
): string {
  return template
    .replaceAll('{{trigger}}', trigger)
    .replaceAll('{{envelope}}', s.envelope ? describeEnvelope(s.envelope) : '(no request recorded)')
    .replaceAll('{{window}}', window)
    .replaceAll('{{excerpt}}', excerpt)
    .replaceAll('{{extra}}', extra)
}
