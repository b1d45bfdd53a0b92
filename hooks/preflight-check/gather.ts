// The I/O side of PreToolUse, part 1: read every fact the decision needs, once, into one value.
// Expensive facts (the capabilities file, full rule texts, git HEAD) are functions, read only when the
// decision asks for them: most calls are reads and simple commands that never do.

import fs from 'node:fs'
import { compileRules } from '../../lib/core/guardrails'
import { fingerprint } from '../../lib/core/fingerprint'
import type { PendingEntry } from '../../lib/core/pending'
import type { PayloadOf } from '../../lib/core/payloads'
import { currentBranch, fileStates } from '../../lib/io/git'
import { fsFacts, packageDirOf } from '../../lib/io/fs-facts'
import { holdFile, readState } from '../../lib/io/custodiet-state'
import { custodietConfig } from '../../lib/io/custodiet-config'
import { readQueue } from '../../lib/io/queue'
import { homeDir, loadGuardrails, readConfig, readSession, type Paths } from '../../lib/io/state'
import { telegramConfig } from '../../lib/io/telegram-config'
import type { Finding as HoldFinding } from '../../lib/core/custodiet'
import type { PreflightFacts, QueueFacts } from './compose'
import { capabilitiesUsed, isHeadless } from './pause'

export function gatherFacts(payload: PayloadOf<'PreToolUse'>, paths: Paths, env: NodeJS.ProcessEnv = process.env, now = Date.now()): PreflightFacts {
  const loaded = loadGuardrails(paths)
  const { config, problem } = readConfig(paths)
  const fp = fingerprint(payload.tool_name, payload.tool_input)
  let caps: Set<string> | undefined
  return {
    now,
    fingerprint: fp,
    projectDir: paths.projectDir,
    homeDir: homeDir(),
    stateDir: paths.stateDir,
    rules: compileRules(loaded.rules),
    // The slim index has no rule texts; the note needs them. Only calls that fire a rule pay for this.
    fullRules: loaded.slim ? () => compileRules(loadGuardrails(paths, { full: true }).rules) : undefined,
    problems: [...loaded.problems, ...(problem ? [problem] : [])],
    fallback: loaded.origin === 'packaged-fallback',
    session: readSession(paths, payload.session_id),
    queue: queueFacts(readQueue(paths).entries, fp, payload.session_id),
    hold: readHold(paths, payload.session_id),
    config: {
      checkWindowMs: (config.checkWindowSeconds ?? 600) * 1000,
      defer: config.headlessDefer !== false && isHeadless(env),
      telegram: !!telegramConfig(env, config),
    },
    fileExists: fs.existsSync,
    currentBranch,
    fileState: fileStates(paths.projectDir),
    fs: fsFacts(),
    packageDir: packageDirOf(__dirname),
    routeAroundLevel: () => {
      const { policy } = custodietConfig(paths)
      return Math.min(4, (policy.levels.route_around ?? 2) + (policy.escalate ? readState(paths, payload.session_id).findings.length : 0))
    },
    isNewCapability: config.firstUsePause === false ? undefined : (p) => !(caps ??= capabilitiesUsed(paths)).has(p),
  }
}

/** What the queue says about this call and session (read without the lock; apply.ts re-checks under it). */
export function queueFacts(entries: PendingEntry[], fp: string, session: string): QueueFacts {
  const q: QueueFacts = { undelivered: [] }
  for (const e of entries) {
    if (e.fingerprint === fp) {
      if (e.status === 'approved') q.approved ??= e
      if (e.status === 'pending') q.open = e
      if (e.status === 'denied' && e.session_id === session) q.denied = e
    }
    if (e.session_id === session && e.delivered === false && e.status !== 'pending') q.undelivered.push(e)
  }
  return q
}

function readHold(paths: Paths, session: string): HoldFinding | null {
  const file = holdFile(paths, session)
  if (!fs.existsSync(file)) return null
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as HoldFinding
  } catch {
    return null
  }
}
