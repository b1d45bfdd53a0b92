// custodiet — the ultra vires watchdog. One executable for every event it watches:
//   UserPromptSubmit          record the authority envelope (the latest instruction wins)
//   PostToolUse[Failure]      count calls; every N, or after an error, launch a background review;
//                             deliver findings the agent has not heard yet
//   PreToolUse:TodoWrite      the blocking gate: compare the new plan with the envelope (Type B)
//   SubagentStop              audit delegated work in the background
// `custodiet review …` is the background reviewer itself, started detached by the hook: the hook
// never waits for a model, and never asks the main agent to do the reviewing.

import path from 'node:path'
import type { Decision } from '../../lib/core/decision'
import type { HookPayload } from '../../lib/core/payloads'
import type { Todo, ToolEvent } from '../../lib/core/envelope'
import type { Verdict } from '../../lib/core/verdict'
import { PACKAGE_ROOT, logActivity, logError, resolvePaths, type Paths } from '../../lib/io/state'
import { readState, updateState } from '../../lib/io/custodiet-state'
import { hookSpec } from '../../lib/core/manifest'
import { processIO, runHook } from '../../lib/runtime/run-hook'
import { spawnDetached } from '../../lib/io/spawn'
import { openHearing } from '../../lib/io/courtroom/trigger'
import { CATEGORY_OF, onPrompt, onTodos, onToolDone, type CustodietState, type Trigger } from './decide'
import { custodietConfig, type CustodietConfig } from '../../lib/io/custodiet-config'

const HELP = `custodiet — Ratchet's ultra vires watchdog (a Claude Code hook; reads one hook payload on stdin)

Records what the user asked for (UserPromptSubmit), reviews the agent's recent work against it in the
background every N tool calls and after tool errors (PostToolUse), gates new plans (PreToolUse on
TodoWrite) and audits subagents (SubagentStop). Findings reach the agent at its next hook.
Register with \`ratchet init\`; see what it saw with \`ratchet custodiet status\`.`

/** A short record of a tool call: enough for the Type A check, never whole file contents. */
function summarize(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of ['file_path', 'path', 'url', 'query', 'pattern', 'command', 'description', 'notebook_path', 'subagent_type']) if (typeof input[k] === 'string') out[k] = (input[k] as string).slice(0, 300)
  return out
}

function responseIsError(r: unknown): boolean {
  if (!r || typeof r !== 'object') return typeof r === 'string' && /^Error\b/.test(r)
  const o = r as Record<string, unknown>
  return o.is_error === true || o.isError === true || (typeof o.error === 'string' && o.error.length > 0)
}

const reviewRunning = (s: CustodietState, cfg: CustodietConfig, now: number): boolean => {
  if (!s.reviewing) return false
  if (now - s.reviewing.since > ((cfg.reviewer.timeoutSeconds ?? 60) + 15) * 1000) return false
  try {
    process.kill(s.reviewing.pid, 0)
    return true
  } catch {
    return false
  }
}

function launchReview(paths: Paths, session: string, trigger: Trigger, extra: string[] = []): number | undefined {
  try {
    return spawnDetached('custodiet', ['review', '--session', session, '--trigger', trigger, ...extra])
  } catch (e) {
    logError(paths, 'custodiet', e)
    return undefined
  }
}

async function handle(payload: HookPayload, paths: Paths): Promise<Decision> {
  // Inside the reviewer's own `claude -p` nothing is watched: no recursion, whatever its settings.
  if (process.env.RATCHET_REVIEWER === '1') return { kind: 'allow' }
  const cfg = custodietConfig(paths)
  const now = new Date()
  const session = payload.session_id
  switch (payload.hook_event_name) {
    case 'UserPromptSubmit': {
      const prompt = payload.prompt
      updateState(paths, session, (s) => ({ next: { ...onPrompt(s, prompt), transcript_path: payload.transcript_path ?? s.transcript_path }, result: undefined }))
      return { kind: 'allow' }
    }
    case 'PostToolUse':
    case 'PostToolUseFailure': {
      const failed = payload.hook_event_name === 'PostToolUseFailure' || responseIsError(payload.tool_response)
      const event: ToolEvent = { tool: payload.tool_name, input: summarize(payload.tool_input), ...(failed ? { error: true } : {}) }
      const r = updateState(paths, session, (s) => {
        const res = onToolDone({ ...s, transcript_path: payload.transcript_path ?? s.transcript_path }, event, cfg.policy, now, reviewRunning(s, cfg, now.getTime()))
        return { next: res.state, result: res }
      })
      if (r.launch && cfg.reviewer.kind !== 'none') {
        const pid = launchReview(paths, session, r.launch)
        if (pid) updateState(paths, session, (s) => ({ next: { ...s, reviewing: { pid, since: now.getTime(), trigger: r.launch! } }, result: undefined }))
      }
      for (const f of r.state.findings.filter((x) => x.source === 'deterministic' && x.at === now.toISOString())) logFinding(paths, session, f.trigger, 'ATTENTION', f.verdict.issue, 'deterministic', f.level)
      return r.decision
    }
    case 'PreToolUse': {
      if (payload.tool_name !== 'TodoWrite') return { kind: 'allow' }
      const todos = (Array.isArray(payload.tool_input.todos) ? payload.tool_input.todos : []) as Todo[]
      const state = readState(paths, session)
      let reviewer: Verdict | undefined
      if (state.envelope && cfg.reviewer.kind !== 'none' && cfg.todoBudgetMs > 0) reviewer = await reviewWithin(session, todos.map((t) => `- [${t.status ?? 'pending'}] ${t.content}`).join('\n'), cfg)
      const r = updateState(paths, session, (s) => {
        const res = onTodos(s, todos, cfg.policy, now, reviewer)
        return { next: res.state, result: res }
      })
      const f = r.state.findings[r.state.findings.length - 1]
      if (r.decision.kind !== 'allow' || r.decision.context) logFinding(paths, session, 'todo', 'ATTENTION', f?.verdict.issue ?? '', reviewer ? 'reviewer' : 'deterministic', f?.level)
      return r.decision
    }
    case 'SubagentStop': {
      if (cfg.reviewer.kind === 'none') return { kind: 'allow' }
      const extra = ['--transcript', payload.agent_transcript_path ?? '', '--message', (payload.last_assistant_message ?? '').slice(0, 2000)]
      launchReview(paths, session, 'subagent', extra)
      return { kind: 'allow' }
    }
    default:
      return { kind: 'allow' }
  }
}

export function logFinding(paths: Paths, session: string, trigger: Trigger, status: string, issue: string, source: string, level?: number): void {
  logActivity(paths, { time: new Date().toISOString(), hook: 'custodiet', event: 'verdict', session, decision: status === 'ATTENTION' ? 'attention' : status.toLowerCase(), note: issue, trigger, source, ...(level ? { level } : {}) })
  // The courtroom's hook point: a confident finding may open a hearing (one existsSync while it is off).
  if (status === 'ATTENTION') openHearing(paths, { source: 'custodiet', signal: CATEGORY_OF[trigger], summary: issue, confidence: source === 'deterministic' ? 0.8 : 0.7, session })
}

/**
 * The TodoWrite gate asks the reviewer (a child process, so the hook bundle never loads the model
 * clients) and decides deterministically if it has not answered within the budget.
 */
function reviewWithin(session: string, plan: string, cfg: CustodietConfig): Promise<Verdict | undefined> {
  return new Promise((resolve) => {
    const { spawn } = require('node:child_process') as typeof import('node:child_process')
    const child = spawn(process.execPath, [path.join(PACKAGE_ROOT, 'bin', 'custodiet'), 'review', '--session', session, '--trigger', 'todo', '--message', plan, '--print', '--timeout', String(Math.max(1, Math.ceil(cfg.todoBudgetMs / 1000)))], { stdio: ['ignore', 'pipe', 'ignore'], env: process.env })
    let out = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      resolve(undefined)
    }, cfg.todoBudgetMs)
    child.stdout.on('data', (d) => (out += d))
    child.on('error', () => resolve(undefined))
    child.on('close', () => {
      clearTimeout(timer)
      try {
        resolve(JSON.parse(out) as Verdict)
      } catch {
        resolve(undefined)
      }
    })
  })
}

export function main(): Promise<void> {
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
    processIO((hook, e) => logError(paths, hook, e)),
  )
}
