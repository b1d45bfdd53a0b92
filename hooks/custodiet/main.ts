// custodiet — the ultra vires watchdog. One executable for every event it watches:
//   UserPromptSubmit          record the authority envelope (the latest instruction wins)
//   PostToolUse[Failure]      count calls; every N, or after an error, launch a background review;
//                             deliver findings the agent has not heard yet
//   PreToolUse:TodoWrite      the blocking gate: compare the new plan with the envelope (Type B)
//   Stop                      the end of a turn: a turn no review covered is reviewed in the background
//                             (one review at a time per session, the rest queued), and its verdict reaches
//                             the agent with the next prompt; or awaited, with custodiet.stopGate: "block"
//   SubagentStop              audit delegated work in the background
// `custodiet review …` is the background reviewer itself, started detached by the hook: the hook
// never waits for a model, and never asks the main agent to do the reviewing.

import type { Decision } from '../../lib/core/decision'
import { isResumePrompt, type HookPayload, type PayloadOf } from '../../lib/core/payloads'
import type { Todo, ToolEvent } from '../../lib/core/drift-checks'
import type { Verdict } from '../../lib/core/verdict'
import { logActivity, logError } from '../../lib/io/activity'
import { resolvePaths } from '../../lib/io/paths'
import type { Paths } from '../../lib/io/registry'
import { hasRecord, readState, recentSessions } from '../../lib/io/custodiet-state'
import { closeIndexSources } from '../../lib/io/guardrails'
import { hookSpec, CLI } from '../../lib/core/manifest'
import { processIO, runHook, type HookIO } from '../../lib/runtime/run-hook'
import { deterministicChecks, onPrompt, onStop, onTodos, onToolDone, settleReviewing, stopDelivery } from './decide'
import { capReason, custodietConfig, type CustodietConfig } from '../../lib/io/custodiet-config'
import { deliver, relay, relayNote } from './findings'
import { logFinding, updateState } from './record'
import { canReview, claimFor, launchReview, reviewerAlive, reviewWithin, startClaimed } from './reviewer-process'

const HELP = `custodiet — Ratchet's ultra vires watchdog (a Claude Code hook; reads one hook payload on stdin)

Records what the user asked for (UserPromptSubmit); checks each call without a model and reviews the
agent's work against the request in the background every N calls and once the agent has reacted to a
tool error (PostToolUse); refuses plans that add unrequested work (PreToolUse on TodoWrite); reviews a
turn no review covered when it ends (Stop: in the background, so the turn ends at once; with
\`${CLI} custodiet gate on\` the end of the turn waits for it); audits subagents (SubagentStop).
Findings reach the agent at its next hook, or with the next prompt.
Register with \`${CLI} init\`; see what it saw with \`${CLI} custodiet status\`.`

/** A short record of a tool call: enough for the Type A check, never whole file contents. */
function summarize(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of [
    'file_path',
    'path',
    'url',
    'query',
    'pattern',
    'command',
    'description',
    'notebook_path',
    'subagent_type',
  ])
    if (typeof input[k] === 'string') out[k] = (input[k] as string).slice(0, 300)
  return out
}

function responseIsError(r: unknown): boolean {
  if (!r || typeof r !== 'object') return typeof r === 'string' && /^Error\b/.test(r)
  const o = r as Record<string, unknown>
  return o.is_error === true || o.isError === true || (typeof o.error === 'string' && o.error.length > 0)
}

const COST_UNREADABLE = 'cost-file-unreadable'
/**
 * Once per session, when a review was due and the cost file cannot be read: one line for the user (the file,
 * and that reviews are off as at the cap). Not for the agent: nothing it can do about it.
 */
function costNotice(paths: Paths, session: string, cfg: CustodietConfig, now: Date): string | undefined {
  if (cfg.reviewer.kind === 'none') return undefined
  const why = capReason(paths, cfg, now)
  if (!why || !('unreadable' in why)) return undefined
  const told = updateState(paths, session, (s) =>
    s.reported.includes(COST_UNREADABLE)
      ? { next: s, result: true }
      : { next: { ...s, reported: [...s.reported, COST_UNREADABLE].slice(-100) }, result: false },
  )
  if (told) return undefined
  logError(paths, 'custodiet', why.unreadable)
  return `custodiet: ${why.unreadable} — reviews are off as if today's cost cap were reached (the deterministic checks go on); fix or remove the file (${CLI} doctor)`
}

const withNotice = (d: Decision, notice: string | undefined): Decision =>
  notice ? { ...d, notice: d.notice ? `${d.notice}\n${notice}` : notice } : d

/** What every event's handling reads: where the state is, the configuration, the clock, the session. */
interface Turn {
  paths: Paths
  cfg: CustodietConfig
  now: Date
  session: string
}

async function handle(payload: HookPayload, paths: Paths): Promise<Decision> {
  // Inside the reviewer's own `claude -p` nothing is watched: no recursion, whatever its settings.
  if (process.env.RATCHET_REVIEWER === '1') return { kind: 'allow' }
  const t: Turn = { paths, cfg: custodietConfig(paths), now: new Date(), session: payload.session_id }
  switch (payload.hook_event_name) {
    case 'UserPromptSubmit':
      return onUserPrompt(t, payload)
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return onToolEvent(t, payload)
    case 'Stop':
      return onStopEvent(t, payload)
    case 'PreToolUse':
      return onPreToolUse(t, payload)
    case 'SubagentStop':
      return onSubagentStop(t, payload)
    default:
      return { kind: 'allow' }
  }
}

function onUserPrompt({ paths, now, session }: Turn, payload: PayloadOf<'UserPromptSubmit'>): Decision {
  const prompt = payload.prompt
  const first = !hasRecord(paths, session)
  // A late verdict about the last turn is delivered with the user's next prompt.
  const d = updateState(paths, session, (s) => {
    // Claude Code's resume prompt is not the user speaking: the request stays, and no hold lifts.
    const r = deliver({
      ...(isResumePrompt(prompt) ? s : onPrompt(s, prompt)),
      transcript_path: payload.transcript_path ?? s.transcript_path,
    })
    return { next: r.state, result: r.decision }
  })
  return first ? relayEarlier(paths, session, d, now) : d
}

function onToolEvent(
  { paths, cfg, now, session }: Turn,
  payload: PayloadOf<'PostToolUse'> | PayloadOf<'PostToolUseFailure'>,
): Decision {
  const failed = payload.hook_event_name === 'PostToolUseFailure' || responseIsError(payload.tool_response)
  const event: ToolEvent = {
    tool: payload.tool_name,
    input: summarize(payload.tool_input),
    ...(failed ? { error: true } : {}),
  }
  const before = readState(paths, session).findings.length
  const r = updateState(paths, session, (s) => {
    const settled = settleReviewing(s, reviewerAlive(s, cfg, now.getTime()))
    const res = onToolDone(
      { ...settled.state, transcript_path: payload.transcript_path ?? s.transcript_path },
      event,
      cfg.policy,
      now,
      settled.running,
    )
    const claim = res.launch && canReview(paths, cfg, now) ? claimFor(res.launch, now) : undefined
    return { next: claim ? { ...res.state, reviewing: claim } : res.state, result: { ...res, claim } }
  })
  if (r.claim) startClaimed(paths, session, r.claim)
  for (const f of r.state.findings.slice(before).filter((x) => x.source === 'deterministic'))
    logFinding(paths, session, f.trigger, 'ATTENTION', f.verdict.issue, 'deterministic', f.level, f.category)
  return r.launch ? withNotice(r.decision, costNotice(paths, session, cfg, now)) : r.decision
}

async function onStopEvent({ paths, cfg, now, session }: Turn, payload: PayloadOf<'Stop'>): Promise<Decision> {
  const active = payload.stop_hook_active === true
  const before = readState(paths, session).findings.length
  const gate = cfg.stopGate === 'block'
  const r = updateState(paths, session, (s) => {
    const checked = deterministicChecks(s, cfg.policy, now)
    // With the gate the turn waits for its own review (below), whatever else runs; without it, one review
    // at a time: a turn that ends while one runs is queued for it.
    const settled = gate
      ? { state: checked, running: false }
      : settleReviewing(checked, reviewerAlive(checked, cfg, now.getTime()))
    const res = onStop(settled.state, active, settled.running)
    const background = res.launch && (!gate || res.decision.kind !== 'allow' || active)
    const claim = background && canReview(paths, cfg, now) ? claimFor(res.launch!, now) : undefined
    return { next: claim ? { ...res.state, reviewing: claim } : res.state, result: { ...res, claim } }
  })
  for (const f of r.state.findings.slice(before).filter((x) => x.source === 'deterministic'))
    logFinding(paths, session, f.trigger, 'ATTENTION', f.verdict.issue, 'deterministic', f.level, f.category)
  if (r.claim) startClaimed(paths, session, r.claim)
  if (!gate || r.decision.kind !== 'allow' || !r.launch || active)
    return r.launch ? withNotice(r.decision, costNotice(paths, session, cfg, now)) : r.decision
  if (!canReview(paths, cfg, now)) return withNotice(r.decision, costNotice(paths, session, cfg, now))
  // The gate (custodiet.stopGate: "block"): the turn's review, within a budget. An answer in time keeps the
  // turn going with the warning; a late one is recorded by the reviewer and delivered with the next prompt.
  await reviewWithin(session, r.launch, '', cfg.stopBudgetMs)
  return updateState(paths, session, (s) => {
    const d = stopDelivery(s, active)
    return { next: d.state, result: d.decision }
  })
}

/** Before a TodoWrite: the plan is weighed against the envelope (by the reviewer, within a budget, when one runs). */
async function onPreToolUse({ paths, cfg, now, session }: Turn, payload: PayloadOf<'PreToolUse'>): Promise<Decision> {
  if (payload.tool_name !== 'TodoWrite') return { kind: 'allow' }
  const todos = (Array.isArray(payload.tool_input.todos) ? payload.tool_input.todos : []) as Todo[]
  const state = readState(paths, session)
  let reviewer: Verdict | undefined
  const open = todos.filter(
    (t) =>
      t.status !== 'completed' && !state.acceptedTodos.includes(t.content.trim().toLowerCase().replace(/\s+/g, ' ')),
  )
  if (state.envelope && open.length && canReview(paths, cfg, now) && cfg.todoBudgetMs > 0) {
    const plan = todos.map((t) => `- [${t.status ?? 'pending'}] ${t.content}`).join('\n')
    reviewer = await reviewWithin(session, { trigger: 'todo', from: state.toolCount + 1 }, plan, cfg.todoBudgetMs)
  }
  const before = state.findings.length
  const r = updateState(paths, session, (s) => {
    const res = onTodos(s, todos, cfg.policy, now, reviewer)
    return { next: res.state, result: res }
  })
  const f = r.state.findings[r.state.findings.length - 1]
  if (r.state.findings.length > before && f)
    logFinding(paths, session, 'todo', 'ATTENTION', f.verdict.issue, f.source, f.level, f.category)
  return state.envelope && open.length && cfg.todoBudgetMs > 0
    ? withNotice(r.decision, costNotice(paths, session, cfg, now))
    : r.decision
}

/** A subagent's end: its transcript is reviewed in the background. */
function onSubagentStop({ paths, cfg, now, session }: Turn, payload: PayloadOf<'SubagentStop'>): Decision {
  if (!canReview(paths, cfg, now)) return withNotice({ kind: 'allow' }, costNotice(paths, session, cfg, now))
  const extra = [
    '--transcript',
    payload.agent_transcript_path ?? '',
    '--message',
    (payload.last_assistant_message ?? '').slice(0, 2000),
  ]
  launchReview(paths, session, { trigger: 'subagent', from: readState(paths, session).toolCount + 1 }, extra)
  return { kind: 'allow' }
}

/** A session's first prompt also carries what earlier sessions never heard (see relay), newest sessions first. */
function relayEarlier(paths: Paths, session: string, d: Decision, now: Date): Decision {
  let out = d
  for (const id of recentSessions(paths, session, 10, 7 * 86_400_000, now.getTime())) {
    const found = updateState(paths, id, (s) => {
      const r = relay(s, session)
      return { next: r.state, result: r.found }
    })
    if (!found.length) continue
    const n = relayNote(id, found)
    const before = out.kind === 'allow' ? out.context : undefined
    out = {
      kind: 'allow',
      context: before ? `${before}\n\n${n.context}` : n.context,
      notice: out.notice ? `${out.notice}\n${n.notice}` : n.notice,
    }
    logActivity(paths, {
      time: now.toISOString(),
      hook: 'custodiet',
      event: 'relayed',
      session,
      decision: 'relayed',
      note: `${found.length} finding(s) of session ${id}`,
    })
  }
  return out
}

/**
 * Whether the warm process (lib/runtime/warm.ts) may answer this call: not the gates, which may wait seconds for
 * the reviewer (the TodoWrite check, and the end of a turn under custodiet.stopGate "block"). Those are decided in
 * the hook's own process, where a wait holds no other call up.
 */
export function warmAnswers(stdin: string): boolean {
  let event: unknown
  try {
    event = (JSON.parse(stdin) as { hook_event_name?: unknown })?.hook_event_name
  } catch {
    return true // not a payload: answered as the hook's own process would (one line, allowed)
  }
  if (event === 'PreToolUse') return false
  return event !== 'Stop' || custodietConfig(resolvePaths()).stopGate !== 'block'
}

/** `pre`: the payload and the edges, when the resident service (lib/runtime/service.ts) answers the call. */
export function main(
  _argv?: string[],
  pre?: { stdin?: string; io?: Pick<HookIO, 'argv' | 'stdinIsTTY' | 'write' | 'exitNow'> },
): Promise<void> {
  const paths = resolvePaths()
  return runHook(
    {
      ...hookSpec('custodiet'),
      help: HELP,
      // custodiet watches; it is not the guard of last resort (preflight-check is). Failing open here
      // never lets a dangerous action through that preflight-check would stop.
      onFailure: () => ({ kind: 'allow' }),
      handle: (p) => handle(p, paths),
    },
    { ...processIO((hook, e) => logError(paths, hook, e), pre?.stdin), ...pre?.io },
  ).finally(closeIndexSources)
}
