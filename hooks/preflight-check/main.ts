// preflight-check — PreToolUse: checks each pending tool call against the guardrails.
// Also keeps the session facts the check needs, from the hook payloads (never the transcript, which
// lags): the user's prompts (UserPromptSubmit) and which files were read (forgotten at PreCompact).

import fs from 'node:fs'
import { decide } from './decide'
import type { Decision } from '../../lib/core/decision'
import type { HookPayload, PayloadOf } from '../../lib/core/payloads'
import { compileRules } from '../../lib/core/guardrails'
import { fingerprint } from '../../lib/core/fingerprint'
import { currentBranch } from '../../lib/io/git'
import { homeDir, loadGuardrails, logActivity, logError, readConfig, readSession, recordFires, resolvePaths, updateSession, type Paths } from '../../lib/io/state'
import { hookSpec } from '../../lib/core/manifest'
import { processIO, runHook } from '../../lib/runtime/run-hook'
import { capabilitiesUsed, handlePause, isHeadless, takeOutcomes } from './pause'
import { addFinding, holdDecision, type Finding } from '../custodiet/decide'
import { holdFile, updateState } from '../../lib/io/custodiet-state'
import { custodietConfig } from '../../lib/io/custodiet-config'
import { routeAround } from '../../lib/core/route-around'
import { telegramConfig } from '../../lib/io/telegram-config'

const READ_ONLY_TOOLS = new Set(['Read', 'Glob', 'Grep', 'LS', 'NotebookRead', 'TodoWrite', 'TodoRead', 'ToolSearch', 'TaskList', 'TaskGet', 'TaskOutput'])
const MAX_PROMPTS = 20

const HELP = `preflight-check — Ratchet's PreToolUse guard (a Claude Code hook; reads one hook payload on stdin)

Classifies the pending tool call (public surface, irreversible, stale data, prior incident, scope beyond
the request) and applies the matching guardrails: allow silently, warn, check (deny once with a
[PRE-FLIGHT] note, let the identical retry through), ask, or deny. Also records prompts
(UserPromptSubmit) and forgets reads at compaction (PreCompact).

Register it with \`ratchet init\`. Try a decision by hand with:
  ratchet guardrails explain --command "git push origin main"
State folder: $RATCHET_DIR, else $CLAUDE_PROJECT_DIR/.ratchet, else ./.ratchet`

function handle(payload: HookPayload, paths: Paths): Decision {
  switch (payload.hook_event_name) {
    case 'PreToolUse':
      return preToolUse(payload, paths)
    case 'UserPromptSubmit': {
      const prompt = payload.prompt
      updateSession(paths, payload.session_id, (s) => ({ next: { ...s, prompts: [...s.prompts, prompt].slice(-MAX_PROMPTS), updated: Date.now() }, result: undefined }))
      // Decisions on this session's pauses reach the model before its next turn.
      const outcomes = takeOutcomes(paths, payload.session_id)
      return outcomes.length ? { kind: 'allow', context: outcomes.join('\n') } : { kind: 'allow' }
    }
    case 'PreCompact':
      // After compaction the model no longer holds what it read: reads must be redone before edits.
      updateSession(paths, payload.session_id, (s) => ({ next: { ...s, reads: {}, compactions: (s.compactions ?? 0) + 1, updated: Date.now() }, result: undefined }))
      return { kind: 'allow' }
    default:
      return { kind: 'allow' }
  }
}

function preToolUse(payload: PayloadOf<'PreToolUse'>, paths: Paths): Decision {
  const started = process.hrtime.bigint()
  const now = Date.now()
  let loaded = loadGuardrails(paths)
  const session = readSession(paths, payload.session_id)
  const { config, problem } = readConfig(paths)
  const fp = fingerprint(payload.tool_name, payload.tool_input)
  let caps: Set<string> | undefined
  const isNewCapability = config.firstUsePause === false ? undefined : (p: string) => !(caps ??= capabilitiesUsed(paths)).has(p)
  const run = () =>
    decide(
      { tool_name: payload.tool_name, tool_input: payload.tool_input, cwd: payload.cwd },
      { projectDir: paths.projectDir, homeDir: homeDir(), stateDir: paths.stateDir, session, fileExists: fs.existsSync, currentBranch },
      compileRules(loaded.rules),
      { checkWindowMs: (config.checkWindowSeconds ?? 600) * 1000, checks: session.checks, fingerprint: fp, now, isNewCapability },
    )
  let result = run()
  if (result.fired.length && loaded.slim) {
    // The index has no rule texts; the note needs them. Only calls that fire a rule pay for this.
    loaded = loadGuardrails(paths, { full: true })
    result = run()
  }

  const { action } = result
  // A pause queues exactly this call for a human, or lets it through once if one approved it.
  let decision = result.decision
  let verdict: string = result.verdict
  let pendingId: string | undefined
  if (result.verdict === 'pause') {
    const defer = config.headlessDefer !== false && isHeadless(process.env)
    const p = handlePause(paths, payload, result, fp, new Date(now), !!telegramConfig(process.env, config), defer)
    decision = p.decision
    verdict = p.verdict === 'approved' ? 'approved_by_human' : 'pause'
    pendingId = p.entry.id
  }
  // The same effect as a call just blocked, through another command or tool: a signal for custodiet.
  const patterns = [...new Set(action.findings.map((f) => f.pattern))]
  const around = routeAround(session.blocked ?? [], { fingerprint: fp, patterns, paths: action.paths }, now)
  if (around) {
    const note = `[RATCHET] This looks like the same effect as a call denied moments ago (${around.summary}), tried another way. Do not route around a block: tell the user what you need.`
    decision = withNotes(decision, note)
    if (decision.kind === 'allow') flagRouteAround(paths, payload.session_id, around.summary, action.summary, new Date(now))
  }

  // custodiet's level 3-4 findings hold the session: ask (checkpoint) or deny (block) until the user speaks.
  const held = fs.existsSync(holdFile(paths, payload.session_id)) ? custodietHold(paths, payload.session_id, READ_ONLY_TOOLS.has(payload.tool_name)) : null
  if (held && (decision.kind === 'allow' || (decision.kind === 'ask' && held.kind === 'deny'))) {
    decision = held
    verdict = held.kind === 'deny' ? 'custodiet_block' : 'custodiet_checkpoint'
  }
  const outcomes = takeOutcomes(paths, payload.session_id)
  if (outcomes.length) decision = withNotes(decision, outcomes.join('\n'))

  // Side effects after the decision; if one fails the decision still stands (and is logged).
  try {
    // Only hard blocks are remembered: answering a check (read the file, then edit it) is not routing around.
    const blockedNow = verdict === 'deny' || verdict === 'pause' || verdict === 'custodiet_block'
    // A call that does not run reads (or creates) nothing.
    const runs = decision.kind === 'allow'
    if ((runs && action.reads.length) || verdict === 'check' || verdict === 'proceeded_after_check' || blockedNow || verdict === 'approved_by_human') {
      updateSession(paths, payload.session_id, (s) => {
        const reads = { ...s.reads }
        if (runs) for (const r of action.reads) reads[r] = now
        const checks = { ...s.checks }
        if (verdict === 'check') checks[fp] = now
        if (verdict === 'proceeded_after_check') delete checks[fp]
        // A human's approval supersedes earlier blocks in the session.
        const blocked = blockedNow ? [...(s.blocked ?? []), { at: now, fingerprint: fp, patterns, paths: action.paths, summary: action.summary }].slice(-10) : verdict === 'approved_by_human' ? [] : s.blocked
        return { next: { ...s, reads, checks, blocked, updated: now }, result: undefined }
      })
    }
    // A proceed-after-check is the same action again: it was counted when the check fired.
    if (verdict !== 'proceeded_after_check') recordFires(paths, result.fired.map((f) => f.id), new Date(now).toISOString())
  } catch (e) {
    logError(paths, 'preflight-check', e)
  }
  logActivity(paths, {
    time: new Date(now).toISOString(),
    hook: 'preflight-check',
    event: 'PreToolUse',
    session: payload.session_id,
    tool: payload.tool_name,
    action: action.summary,
    classes: result.classes,
    patterns,
    guardrails: result.fired.map((f) => f.id),
    ...(result.builtin ? { builtin: result.builtin } : {}),
    ...(pendingId ? { pending_id: pendingId } : {}),
    ...(around ? { signals: ['route_around'], after: around.summary } : {}),
    decision: verdict,
    fingerprint: fp,
    latency_ms: Number((process.hrtime.bigint() - started) / 10_000n) / 100,
  })

  const problems = [...loaded.problems, ...(problem ? [problem] : [])]
  if (!problems.length) return decision
  const notice = `Ratchet: ${problems[0]}${problems.length > 1 ? ` (+${problems.length - 1} more)` : ''}${loaded.origin === 'packaged-fallback' ? ' — using the packaged default rules until it is fixed' : ''}`
  return { ...decision, notice }
}

/** An allowed route-around becomes a custodiet finding (category route_around, level 3 by default). */
function flagRouteAround(paths: Paths, session: string, blocked: string, attempt: string, at: Date): void {
  try {
    const { policy } = custodietConfig(paths)
    updateState(paths, session, (s) => ({
      next: addFinding(s, 'periodic', { status: 'ATTENTION', issue: `After "${blocked}" was blocked, the agent tried "${attempt}", which has the same effect.`, principle: 'Routing around a block', correction: 'Stop and tell the user what you need and why; do not look for another way.' }, 'deterministic', policy, at, 'route_around'),
      result: undefined,
    }))
  } catch (e) {
    logError(paths, 'preflight-check', e)
  }
}

function custodietHold(paths: Paths, session: string, readOnly: boolean): Decision | null {
  try {
    return holdDecision(JSON.parse(fs.readFileSync(holdFile(paths, session), 'utf8')) as Finding, readOnly)
  } catch {
    return null
  }
}

/** Outcomes of earlier pauses go first: in a deny's reason, or as context on an allow. */
function withNotes(d: Decision, notes: string): Decision {
  if (d.kind === 'allow') return { ...d, context: d.context ? `${notes}\n${d.context}` : notes }
  if ('reason' in d) return { ...d, reason: `${notes}\n\n${d.reason}` }
  return d
}

export function failurePolicy(payload: HookPayload, why: string): Decision {
  if (payload.hook_event_name !== 'PreToolUse' || READ_ONLY_TOOLS.has(payload.tool_name)) return { kind: 'allow' }
  // Never fail open on an action we could not check.
  return { kind: 'deny', reason: `[RATCHET] preflight-check could not check this action (${why}), so it is denied to be safe. Tell the user; \`ratchet doctor\` shows what is wrong.` }
}

export function main(): Promise<void> {
  const paths = resolvePaths()
  return runHook(
    {
      ...hookSpec('preflight-check'),
      help: HELP,
      onFailure: failurePolicy,
      handle: (p) => handle(p, paths),
    },
    processIO((hook, e) => logError(paths, hook, e)),
  )
}
