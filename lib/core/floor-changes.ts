// What the floor was when a human last confirmed it, against what it is now: the facts of a session's floor and
// which of their changes wait for a human (session-start). Pure: two sets of facts in, the changes out.

/**
 * What a session is started under, as named facts: compared with the last session a human confirmed, any change
 * waits for a human (session-start). Each value is a short string, so a change can be shown as before → after.
 */
export type FloorFacts = Record<string, string>

export interface FloorChange {
  fact: string
  before: string
  after: string
}

/**
 * The facts that changed, in a stable order. Rules that were added or made stricter are not a change a human must
 * confirm (only the user can write the rules); a rule removed or made weaker is.
 */
export function floorChanges(before: FloorFacts, after: FloorFacts): FloorChange[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
  const out: FloorChange[] = []
  for (const fact of keys) {
    const b = before[fact] ?? '(none)'
    const a = after[fact] ?? '(none)'
    if (b === a) continue
    if (fact.startsWith('rule ') && !weaker(b, a)) continue
    out.push({ fact, before: b, after: a })
  }
  return out
}

/** Rule strengths, weakest first (lib/core/guardrails.ts STRENGTH agrees in order). */
const STRENGTHS = ['off', 'warn', 'check', 'ask', 'pause', 'deny']
function weaker(before: string, after: string): boolean {
  const b = STRENGTHS.indexOf(before)
  const a = after === '(none)' ? -1 : STRENGTHS.indexOf(after)
  return a < b
}

export function describeChange(c: FloorChange): string {
  if (c.fact.startsWith('rule '))
    return `${c.fact} ${c.after === '(none)' ? 'was removed' : `went from ${c.before} to ${c.after}`}`
  return `${c.fact}: ${c.before} → ${c.after}`
}
