// The one place that knows Claude Code's output wire format: Decision → exit code + stdout + stderr.
// Rules (../shared/reference/claude-code-hooks.md §3): exit 0 + one JSON object on stdout; exit 2 + stderr
// blocks; any other exit code fails open, so we never use one to mean "block". A clean allow prints nothing.

import type { Decision } from '../core/decision'
import type { HookEvent } from '../core/payloads'

export interface Rendered {
  exitCode: 0 | 2
  stdout: string
  stderr: string
}

/** Injected text is capped at 10,000 characters by Claude Code; we cut first and say so. */
const LIMIT = 9500
const cap = (s: string) => (s.length > LIMIT ? s.slice(0, LIMIT) + '\n… (cut; run `ratchet` for the rest)' : s)

const CONTEXT_EVENTS: ReadonlySet<HookEvent> = new Set([
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'SubagentStart',
  'Stop',
])
const BLOCK_EVENTS: ReadonlySet<HookEvent> = new Set([
  'UserPromptSubmit',
  'PostToolUse',
  'PostToolUseFailure',
  'Stop',
  'SubagentStop',
  'PreCompact',
])

export function render(event: HookEvent, d: Decision): Rendered {
  const out: Record<string, unknown> = {}
  const specific: Record<string, unknown> = { hookEventName: event }
  if (d.notice) out.systemMessage = cap(d.notice)

  if (event === 'PreToolUse') {
    if (d.kind === 'deny' || d.kind === 'ask' || d.kind === 'defer') {
      specific.permissionDecision = d.kind
      specific.permissionDecisionReason = cap(d.reason)
    } else if (d.kind === 'block') {
      specific.permissionDecision = 'deny'
      specific.permissionDecisionReason = cap(d.reason)
    }
    // An allow never says "allow": that would skip the user's own permission prompt.
    if (d.kind === 'allow' && d.context) specific.additionalContext = cap(d.context)
  } else if (event === 'PermissionRequest') {
    if (d.kind === 'deny' || d.kind === 'block') specific.decision = { behavior: 'deny', message: cap(d.reason) }
    // allow/ask: stay silent and let the user's prompt appear.
  } else {
    if ((d.kind === 'block' || d.kind === 'deny') && BLOCK_EVENTS.has(event)) {
      out.decision = 'block'
      out.reason = cap(d.reason)
    }
    const context = d.kind === 'allow' || d.kind === 'block' ? d.context : undefined
    if (context && CONTEXT_EVENTS.has(event)) specific.additionalContext = cap(context)
  }

  if (Object.keys(specific).length > 1) out.hookSpecificOutput = specific
  return { exitCode: 0, stdout: Object.keys(out).length ? JSON.stringify(out) + '\n' : '', stderr: '' }
}

/** For when there is no usable payload: exit 2 blocks whatever event this was, stderr says why. */
export function renderBlockingError(line: string): Rendered {
  return { exitCode: 2, stdout: '', stderr: oneLine(line) + '\n' }
}

/** A problem the user should see without blocking anything. */
export function renderNotice(line: string): Rendered {
  return { exitCode: 0, stdout: '', stderr: oneLine(line) + '\n' }
}

export function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim()
}

/**
 * A command hook's output as the body of an http hook's answer (the resident service, lib/runtime/service.ts),
 * so both transports say the same thing. An http hook has no exit code and no stderr: a blocking exit 2 becomes
 * the event's own refusal with stderr as the reason; a notice on stderr becomes the user's systemMessage.
 */
export function renderHttp(event: string | undefined, r: Rendered): string {
  const why = oneLine(r.stderr)
  if (r.exitCode === 2) {
    if (event === 'PreToolUse')
      return JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: why },
      })
    if (event === 'PermissionRequest')
      return JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: why } },
      })
    return JSON.stringify({ decision: 'block', reason: why })
  }
  const out = (r.stdout.trim() ? JSON.parse(r.stdout) : {}) as Record<string, unknown>
  if (why && out.systemMessage === undefined) out.systemMessage = why
  return JSON.stringify(out)
}

/** Two hook answers as one: their texts joined line by line (two findings told at once), the later's other fields. */
export function joinAnswers(earlier: string | undefined, later: string): string {
  if (!earlier) return later
  const a = JSON.parse(earlier) as Record<string, unknown>
  const b = JSON.parse(later) as Record<string, unknown>
  const join = (x: Record<string, unknown>, y: Record<string, unknown>) => {
    const out: Record<string, unknown> = { ...x, ...y }
    for (const k of Object.keys(y))
      if (typeof x[k] === 'string' && typeof y[k] === 'string' && x[k] !== y[k]) out[k] = `${x[k]}\n${y[k]}`
    return out
  }
  const out = join(a, b)
  if (a.hookSpecificOutput && b.hookSpecificOutput)
    out.hookSpecificOutput = join(
      a.hookSpecificOutput as Record<string, unknown>,
      b.hookSpecificOutput as Record<string, unknown>,
    )
  return JSON.stringify(out)
}
