// preflight-check — PreToolUse: gather the facts, decide (pure, compose.ts), apply the effects, log.
// Also keeps the session facts the check needs, from the hook payloads (never the transcript, which
// lags): the user's prompts (UserPromptSubmit) and which files were read (forgotten at PreCompact).

import type { Decision } from '../../lib/core/decision'
import { isResumePrompt, type HookPayload, type PayloadOf } from '../../lib/core/payloads'
import { outcomeNote } from '../../lib/core/pending'
import { queueEntries } from '../../lib/io/queue'
import { rememberRemotes } from '../../lib/io/known-secrets'
import { resolvePaths } from '../../lib/io/paths'
import { logActivity, logError } from '../../lib/io/activity'
import { updateSession } from '../../lib/io/session-state'
import type { Paths } from '../../lib/io/registry'
import { closeIndexSources } from '../../lib/io/guardrails'
import { hookSpec, CLI } from '../../lib/core/manifest'
import { tellClientStderr } from '../../lib/io/terminal'
import { processIO, runHook, type HookIO } from '../../lib/runtime/run-hook'
import { applyEffects, takeOutcomes } from './apply'
import { READ_ONLY_TOOLS } from './facts'
import { judge } from './judge'

const MAX_PROMPTS = 20

const HELP = `preflight-check — Ratchet's PreToolUse guard (a Claude Code hook; reads one hook payload on stdin)

Classifies the pending tool call (public surface, irreversible, stale data, prior incident, scope beyond
the request) and applies the matching guardrails: allow silently, warn, check (deny once with a
[PRE-FLIGHT] note, let the identical retry through), ask, pause for a human, or deny. Also records
prompts (UserPromptSubmit) and forgets reads at compaction (PreCompact).

Register it with \`npx ratchet-guard init\`. Try a decision by hand with:
  ${CLI} guardrails explain --command "git push origin main"
State folder: $RATCHET_DIR, else <project>/.ratchet (the project: $CLAUDE_PROJECT_DIR, else found from here as git finds a repository)`

async function preToolUse(payload: PayloadOf<'PreToolUse'>, paths: Paths): Promise<Decision> {
  const started = process.hrtime.bigint()
  const { facts: judged, decide } = await judge(payload, paths)
  let facts = judged
  const decideNow = () => decide(facts)
  let out = decideNow()
  // The approval it relied on was used a moment ago by an identical call: decide again without it.
  if (!applyEffects(paths, payload.session_id, out.effects, facts.now)) {
    facts = { ...facts, queue: { ...facts.queue, approved: undefined, approvals: undefined } }
    out = decideNow()
    applyEffects(paths, payload.session_id, out.effects, facts.now)
  }
  const unlogged = logActivity(paths, {
    ...out.record,
    latency_ms: Number((process.hrtime.bigint() - started) / 10_000n) / 100,
  })
  // The decision stands (it never needed the log); the user hears that the log is not being kept.
  if (unlogged)
    out.decision = { ...out.decision, notice: [`Ratchet: ${unlogged}`, out.decision.notice].filter(Boolean).join('\n') }
  // A deferred call ends a headless run silently: tell whoever started it what is pending and how to go on.
  if (out.decision.kind === 'defer' && out.decision.notice) tellClientStderr(`[ratchet] ${out.decision.notice}`)
  return out.decision
}

function handle(payload: HookPayload, paths: Paths): Decision | Promise<Decision> {
  switch (payload.hook_event_name) {
    case 'PreToolUse':
      return preToolUse(payload, paths)
    case 'UserPromptSubmit': {
      const prompt = payload.prompt
      // Claude Code's own "Continue from where you left off." on a resume is not a request: the user's last one
      // stands, and so does where it left the remotes.
      if (!isResumePrompt(prompt)) {
        updateSession(paths, payload.session_id, (s) => ({
          next: { ...s, prompts: [...s.prompts, prompt].slice(-MAX_PROMPTS), updated: Date.now() },
          result: undefined,
        }))
        // Where the user's request leaves the remotes: a push this turn that goes elsewhere is evidence.
        try {
          rememberRemotes(paths, payload.session_id)
        } catch (e) {
          logError(paths, 'preflight-check', e)
        }
      }
      // Decisions on this session's pauses reach the model before its next turn.
      const outcomes = takeOutcomes(paths, queueEntries(paths), payload.session_id).map(outcomeNote)
      return outcomes.length ? { kind: 'allow', context: outcomes.join('\n') } : { kind: 'allow' }
    }
    case 'PreCompact':
      // After compaction the model no longer holds what it read: reads must be redone before edits.
      updateSession(paths, payload.session_id, (s) => ({
        next: { ...s, reads: {}, compactions: (s.compactions ?? 0) + 1, updated: Date.now() },
        result: undefined,
      }))
      return { kind: 'allow' }
    default:
      return { kind: 'allow' }
  }
}

export function failurePolicy(payload: HookPayload, why: string): Decision {
  if (payload.hook_event_name !== 'PreToolUse' || READ_ONLY_TOOLS.has(payload.tool_name)) return { kind: 'allow' }
  // Never fail open on an action we could not check.
  return {
    kind: 'deny',
    reason: `[RATCHET] preflight-check could not check this action (${why}), so it is denied to be safe. Tell the user; \`npx ratchet-guard doctor\` shows what is wrong.`,
  }
}

/**
 * `pre.stdin`: the payload, when the fast path (fast.ts) read it and could not settle the call. `pre.io`:
 * the edges the warm process (lib/runtime/warm.ts) answers through instead of this process's own.
 * `pre.failNow`: the warm process took this call and overran: decided by the failure policy, not run again.
 */
export function main(
  _argv?: string[],
  pre?: { stdin?: string; failNow?: string; io?: Pick<HookIO, 'argv' | 'stdinIsTTY' | 'write' | 'exitNow'> },
): Promise<void> {
  const paths = resolvePaths()
  return runHook(
    { ...hookSpec('preflight-check'), help: HELP, onFailure: failurePolicy, handle: (p) => handle(p, paths) },
    {
      ...processIO((hook, e) => logError(paths, hook, e), pre?.stdin),
      ...pre?.io,
      ...(pre?.failNow ? { failNow: pre.failNow } : {}),
    },
  ).finally(closeIndexSources)
}
