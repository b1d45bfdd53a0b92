// "The same effect retried through another tool right after a block" (custodiet's extra signal):
// a denied `rm notes.md` followed by `python -c "os.remove('notes.md')"` or a Write over notes.md.
// Pure: compares the call being decided with the blocks remembered for the session.

export interface Blocked {
  at: number
  fingerprint: string
  /** Named patterns and files of the blocked call: its effect. */
  patterns: string[]
  paths: string[]
  summary: string
}

/** Patterns too generic to mean "the same effect" on their own. */
const GENERIC = new Set(['outside_project', 'unrequested_web', 'unrequested_publish', 'commit_to_public_repo'])

export const ROUTE_AROUND_WINDOW_MS = 5 * 60_000

export function routeAround(
  blocked: Blocked[],
  call: { fingerprint: string; patterns: string[]; paths: string[] },
  now: number,
): Blocked | undefined {
  for (let i = blocked.length - 1; i >= 0; i--) {
    const b = blocked[i]
    if (now - b.at > ROUTE_AROUND_WINDOW_MS || b.fingerprint === call.fingerprint) continue
    const samePath = call.paths.some((p) => b.paths.includes(p))
    const samePattern = call.patterns.some((p) => !GENERIC.has(p) && b.patterns.includes(p))
    if (samePath || samePattern) return b
  }
  return undefined
}
