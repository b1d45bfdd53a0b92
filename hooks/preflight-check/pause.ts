// Small I/O helpers around pauses: is this a headless run, and which capabilities has this project
// already used (the seed's mandatory first-use pause is spent by a human's approval).

import type { Paths } from '../../lib/io/registry'
import { readStateOr, updateState } from '../../lib/io/store'

/**
 * Headless runs (`claude -p`, seen as CLAUDE_CODE_SESSION_ATTENDED=0) can `defer` a call: the run stops
 * with stop_reason "tool_deferred" and `claude -p --resume <session>` re-asks once a human decided.
 * Claude Code honours defer only for a turn with a single tool call; otherwise it is treated as a deny.
 */
export function isHeadless(env: NodeJS.ProcessEnv): boolean {
  return env.CLAUDE_CODE_SESSION_ATTENDED === '0' || env.CLAUDE_CODE_ENTRYPOINT === 'sdk-cli'
}

export function capabilitiesUsed(paths: Paths): Set<string> {
  return new Set(Object.keys(readStateOr(paths, 'capabilities')))
}

export function recordCapabilities(paths: Paths, patterns: string[], now: Date): void {
  if (!patterns.length) return
  updateState(paths, 'capabilities', (c) => {
    const missing = patterns.filter((p) => !(p in c))
    if (!missing.length) return { next: c, result: undefined }
    return { next: { ...c, ...Object.fromEntries(missing.map((p) => [p, now.toISOString()])) }, result: undefined }
  })
}
