// session-start — SessionStart: puts the active guardrails and pending approvals in front of the agent.
// On `compact` and `clear` it also forgets which files were read: the model no longer holds them.

import fs from 'node:fs'
import { decide, type PendingSummary } from './decide'
import type { Decision } from '../../lib/core/decision'
import { describeProbation } from '../../lib/core/courtroom/probation'
import { probationFile } from '../../lib/io/courtroom/files'
import { readProbation } from '../../lib/io/courtroom/probation'
import type { HookPayload } from '../../lib/core/payloads'
import { readJson } from '../../lib/io/store'
import { recordLiveSession } from '../../lib/io/live-sessions'
import { loadGuardrails } from '../../lib/io/guardrails'
import { logActivity, logError } from '../../lib/io/activity'
import { resolvePaths } from '../../lib/io/paths'
import { updateSession } from '../../lib/io/session-state'
import type { Paths } from '../../lib/io/registry'
import { hookSpec, CLI } from '../../lib/core/manifest'
import { processIO, runHook } from '../../lib/runtime/run-hook'
import { modeLine } from '../../lib/core/floor'
import { checkSessionFloor, type SessionFloor } from '../../lib/io/floor'
import { ensureService } from '../../lib/io/service'
import { warmProcess } from '../../lib/io/package-root'
import { registeredRatchetHooks } from '../../lib/core/settings'

const HELP = `session-start — Ratchet's SessionStart hook (reads one hook payload on stdin)

Injects a compact "active guardrails" block (hard rules first, at most 5 lines plus a count of the
rest) and any pending approvals into the new session, via additionalContext.
Register it with \`npx ratchet-guard init\`; see the block by hand with \`npx ratchet-guard guardrails list\`.`

export function pendingSummaries(paths: Paths): PendingSummary[] {
  // Loosely (any array): a queue with one bad entry still shows the others at session start.
  const r = readJson(
    paths.pending,
    (raw) => (Array.isArray(raw) ? raw : 'expected an array'),
    () => [] as unknown[],
  )
  if (!r.ok) return []
  return (r.value as Record<string, unknown>[])
    .filter((e) => e && e.status === 'pending')
    .map((e) => ({
      id: String(e.id),
      action: String(e.action ?? ''),
      severity: e.severity as string | undefined,
      requested_at: e.requested_at as string | undefined,
    }))
}

async function handle(payload: HookPayload, paths: Paths): Promise<Decision> {
  if (payload.hook_event_name !== 'SessionStart') return { kind: 'allow' as const }
  if (payload.source === 'compact' || payload.source === 'clear') {
    updateSession(paths, payload.session_id, (s) => ({
      next: { ...s, reads: {}, compactions: (s.compactions ?? 0) + 1, updated: Date.now() },
      result: undefined,
    }))
  }
  try {
    // For the deciding CLI: while this claude process lives, deciding commands need a terminal of their own.
    recordLiveSession(paths)
  } catch (e) {
    logError(paths, 'session-start', e)
  }
  const loaded = loadGuardrails(paths, { full: true, fold: false })
  const pending = pendingSummaries(paths)
  const floor = checkSessionFloor(paths)
  logActivity(paths, {
    time: new Date().toISOString(),
    hook: 'session-start',
    event: 'SessionStart',
    session: payload.session_id,
    decision: 'context',
    note: `source=${payload.source ?? '?'} rules=${loaded.rules.length} pending=${pending.length} floor=${floor.state.mode}${floor.held ? ' held' : ''}`,
  })
  const d = withFloor(withProbation(decide(loaded.rules, pending, loaded.problems), paths), floor)
  if (servedOverHttp(floor)) return withService(d, payload.session_id)
  try {
    // The warm process loads its engines while the client starts up: the first prompt's hooks find it running.
    warmProcess(paths.projectDir, 'prestart')
  } catch (e) {
    logError(paths, 'session-start', e) // only a speed-up is lost: the first call starts it
  }
  return d
}

/** Some scope registers Ratchet's hooks over http (`init --transport http`): this session needs the service. */
function servedOverHttp(floor: SessionFloor): boolean {
  return floor.state.scopes.some((x) => registeredRatchetHooks(x.settings).some((r) => r.command.startsWith('http:')))
}

/**
 * Brings the resident service up and tells it about this session, with the environment its hooks run with (an
 * http request carries none). Without it every served call is blocked, so the session hears why.
 */
async function withService(d: Decision, session: string): Promise<Decision> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && e[0] !== 'CLAUDE_ENV_FILE'),
  )
  // Within the hook's own budget (3 s), so a service that cannot come up is said in a line, not lost to the budget.
  const r = await ensureService({ session_id: session, env, cwd: process.cwd(), ppid: process.ppid }, process.env, 2000)
  if (r.ok || d.kind !== 'allow') return d
  const line = `[RATCHET] Ratchet's decision service could not start (${r.why}), so every tool call it checks is refused. Tell the user: \`${CLI} service start\` in a terminal, then \`claude --continue\`.`
  return {
    ...d,
    context: d.context ? `${d.context}\n${line}` : line,
    notice: [d.notice, `Ratchet: the decision service could not start (${r.why}); run \`${CLI} service start\``]
      .filter(Boolean)
      .join('\n'),
  }
}

/**
 * The floor's mode, every session; and when it changed since a human last saw it, what changed: every tool call
 * is then denied until the user runs `ratchet floor confirm` (preflight-check honours the hold file).
 */
function withFloor(d: Decision, floor: SessionFloor): Decision {
  if (d.kind !== 'allow') return d
  const lines = [`[RATCHET] ${modeLine(floor.state.mode, floor.state.plugin)}`]
  const warnings = floor.state.problems.filter((p) => !p.block).map((p) => p.what)
  if (warnings.length) lines.push(...warnings.map((w) => `  Note: ${w}`))
  let notice = d.notice
  if (floor.held) {
    lines.push(
      `[RATCHET] HELD: Ratchet's floor does not hold as a human last saw it, so every tool call is refused until the user, in a terminal, sets it up again (\`npx ratchet-guard init\`) or accepts the change (\`npx ratchet-guard floor confirm\`). Tell the user what changed and stop:`,
      ...floor.held.slice(0, 8).map((h) => `  - ${h}`),
    )
    notice = `Ratchet: this session is held until you run \`npx ratchet-guard init\` or \`npx ratchet-guard floor confirm\` (${floor.held[0]}${floor.held.length > 1 ? `, and ${floor.held.length - 1} more` : ''}); \`npx ratchet-guard floor status\` shows what changed`
  }
  const block = lines.join('\n')
  return { ...d, context: d.context ? `${d.context}\n${block}` : block, ...(notice ? { notice } : {}) }
}

/** The courtroom's probation, if any, is part of what the agent must know from the start. */
function withProbation(d: Decision, paths: Paths): Decision {
  if (d.kind !== 'allow' || !fs.existsSync(probationFile(paths))) return d
  const lines = describeProbation(readProbation(paths), Date.now())
  if (!lines.length) return d
  const block = [
    `[COURTROOM] On probation after a guilty verdict (${lines.length}); it changes what is checked until it lifts:`,
    ...lines,
  ].join('\n')
  return { ...d, context: d.context ? `${d.context}\n${block}` : block }
}

export function main(): Promise<void> {
  const paths = resolvePaths()
  return runHook(
    {
      ...hookSpec('session-start'),
      help: HELP,
      onFailure: () => ({ kind: 'allow' }),
      handle: (p) => handle(p, paths),
    },
    processIO((hook, e) => logError(paths, hook, e)),
  )
}
