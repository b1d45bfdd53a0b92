// The I/O side of a `pause` verdict: queue exactly this call for a human, or let it through once if
// a human already approved exactly this call; and hand decided outcomes back to the asking session.

import path from 'node:path'
import fs from 'node:fs'
import type { Decision } from '../../lib/core/decision'
import { normalizedInput } from '../../lib/core/fingerprint'
import { consumeApproval, openFor, outcomeNote, takeUndelivered, type PendingEntry, type Severity } from '../../lib/core/pending'
import { enqueue, readQueue, updateQueue } from '../../lib/io/queue'
import type { Paths } from '../../lib/io/state'
import { spawnDetached } from '../../lib/io/spawn'
import { readJson, updateJson } from '../../lib/io/store'
import type { PreflightResult } from './decide'

export interface PauseOutcome {
  decision: Decision
  verdict: 'approved' | 'pause'
  entry: PendingEntry
}

interface Call {
  session_id: string
  tool_name: string
  tool_input: Record<string, unknown>
}

/**
 * Headless runs (`claude -p`, seen as CLAUDE_CODE_SESSION_ATTENDED=0) can `defer` a call: the run stops
 * with stop_reason "tool_deferred" and `claude -p --resume <session>` re-asks once a human decided.
 * Claude Code honours defer only for a turn with a single tool call; otherwise it is treated as a deny.
 */
export function isHeadless(env: NodeJS.ProcessEnv): boolean {
  return env.CLAUDE_CODE_SESSION_ATTENDED === '0' || env.CLAUDE_CODE_ENTRYPOINT === 'sdk-cli'
}

export function handlePause(paths: Paths, call: Call, r: PreflightResult, fp: string, now: Date, telegram: boolean, defer = false): PauseOutcome {
  const input = normalizedInput(call.tool_name, call.tool_input)
  const used = updateQueue(paths, (list) => consumeApproval(list, fp, input, now))
  if (used) {
    recordCapabilities(paths, r.action.findings.map((f) => f.pattern), now)
    return { verdict: 'approved', entry: used, decision: { kind: 'allow', context: `[RATCHET] Running ${used.id}, approved by ${used.decided_by}${used.reply ? ` ("${used.reply}")` : ''}. The approval is now used up.` } }
  }
  let entry = openFor(readQueue(paths).entries, fp)
  if (!entry) {
    const severity: Severity = r.builtin === 'catastrophic' || r.classes.includes('irreversible') ? 'destructive' : 'time-sensitive'
    const why = [r.builtin === 'first-use' ? 'first use of a new capability' : '', ...r.fired.map((f) => `${f.id}${f.rule.source && f.rule.source !== 'built-in' ? ` (${f.rule.source})` : ''}`)].filter(Boolean).join(', ')
    entry = enqueue(paths, {
      action: `${call.tool_name === 'Bash' ? 'run' : 'use ' + call.tool_name + ':'} ${r.action.summary.replace(/^(Write|Edit|MultiEdit|NotebookEdit) /, '')}`,
      trigger: `${r.classes.join(' + ') || 'guardrail'}${why ? ` — ${why}` : ''}`,
      context: r.fired[0]?.rule.rule ?? 'Ratchet pauses the first use of a capability for a human to confirm.',
      severity,
      fingerprint: fp,
      session_id: call.session_id,
      tool: call.tool_name,
      input,
    }, now)
    if (telegram) notifyInBackground(entry.id)
  }
  const where = telegram ? 'on Telegram' : `at the terminal (\`ratchet pending approve ${entry.id}\`)`
  const note = 'reason' in r.decision ? r.decision.reason : ''
  if (defer) {
    const reason = `${note}\nPending: ${entry.id} (${entry.severity}) — deferred until the human decides ${where}; resume with: claude -p --resume ${call.session_id}`
    return { verdict: 'pause', entry, decision: { kind: 'defer', reason } }
  }
  const reason = `${note}\nPending: ${entry.id} (${entry.severity}) — the human has been asked ${where}. You will be told the outcome at a later step; an approval lets exactly this call through once.`
  return { verdict: 'pause', entry, decision: { kind: 'deny', reason } }
}

/** Sends the Telegram message from a detached process: the hook never waits on the network. */
function notifyInBackground(id: string): void {
  try {
    spawnDetached('ratchet', ['heartbeat', '--notify', id])
  } catch {
    /* the heartbeat retries unsent notifications */
  }
}

/** Decisions on this session's pauses that it has not heard yet, as notes (marked delivered). */
export function takeOutcomes(paths: Paths, sessionId: string): string[] {
  // Read without the lock first: almost always there is nothing to deliver.
  const { entries } = readQueue(paths)
  if (!entries.some((e) => e.session_id === sessionId && e.delivered === false && e.status !== 'pending')) return []
  return updateQueue(paths, (list) => takeUndelivered(list, sessionId)).map(outcomeNote)
}

const capabilitiesFile = (paths: Paths) => path.join(paths.stateDir, 'capabilities.json')
type Capabilities = Record<string, string>
const validateCaps = (raw: unknown): Capabilities | string => (raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Capabilities) : 'expected an object')

export function capabilitiesUsed(paths: Paths): Set<string> {
  const r = readJson(capabilitiesFile(paths), validateCaps, () => ({}))
  return new Set(Object.keys(r.ok ? r.value : {}))
}

export function recordCapabilities(paths: Paths, patterns: string[], now: Date): void {
  if (!patterns.length) return
  if (!fs.existsSync(paths.stateDir)) fs.mkdirSync(paths.stateDir, { recursive: true })
  updateJson(capabilitiesFile(paths), { validate: validateCaps, fallback: () => ({}), onCorrupt: 'reset' }, (c) => {
    const missing = patterns.filter((p) => !(p in c))
    if (!missing.length) return { next: c, result: undefined }
    return { next: { ...c, ...Object.fromEntries(missing.map((p) => [p, now.toISOString()])) }, result: undefined }
  })
}
