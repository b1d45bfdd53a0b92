// Small I/O helpers around pauses: is this a headless run, and which capabilities has this project
// already used (the seed's mandatory first-use pause is spent by a human's approval).

import path from 'node:path'
import fs from 'node:fs'
import type { Paths } from '../../lib/io/state'
import { readJson, updateJson } from '../../lib/io/store'

/**
 * Headless runs (`claude -p`, seen as CLAUDE_CODE_SESSION_ATTENDED=0) can `defer` a call: the run stops
 * with stop_reason "tool_deferred" and `claude -p --resume <session>` re-asks once a human decided.
 * Claude Code honours defer only for a turn with a single tool call; otherwise it is treated as a deny.
 */
export function isHeadless(env: NodeJS.ProcessEnv): boolean {
  return env.CLAUDE_CODE_SESSION_ATTENDED === '0' || env.CLAUDE_CODE_ENTRYPOINT === 'sdk-cli'
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
