// Whether a human's approval still binds to the call as it is now: the same session (or an unexpired project
// approval), the same things destroyed, the same evidence of what would leave. Pure: the approved entry and the
// call's facts in, yes or the reason the human is asked again out.

import { evidenceChanges } from './evidence-seen'
import type { BoundEvidence, DestroyedState, PendingEntry } from './pending'

/**
 * Whether a human's approval covers this call as it is now. It does when it was given in this session (or for
 * the project, not expired), and the evidence is what the human saw: the same files, content, commits and
 * destination for a session approval; the same hazards and destination for a project one. Otherwise the reason,
 * with what changed, for the human who is asked again.
 */
export function approvalCovers(
  e: PendingEntry,
  call: { session: string; evidence?: BoundEvidence; destroys?: DestroyedState },
  now: number,
): { ok: true } | { ok: false; why: string } {
  if (e.scope === 'project') {
    if (!(Date.parse(e.expires_at ?? '') > now))
      return { ok: false, why: `the project approval ${e.id} expired at ${e.expires_at}` }
  } else if (e.session_id && e.session_id !== call.session)
    return { ok: false, why: `${e.id} was approved in another session` }
  // Session or project approval alike: what is destroyed must be what the human saw.
  // A reusable approval does not cover what cannot be read now (a remote that did not answer): it may have changed.
  if (e.destroys && e.scope === 'project' && call.destroys?.unreadable)
    return {
      ok: false,
      why: `what would be destroyed could not be read now, and the project approval ${e.id} covers only what can be`,
    }
  if (e.destroys && e.destroys.digest !== call.destroys?.digest)
    return {
      ok: false,
      why: `what would be destroyed is not what the human approved in ${e.id}: ${destroyedChanges(e.destroys, call.destroys).join('; ')}`,
    }
  if (!e.evidence) return { ok: true }
  if (!call.evidence)
    return { ok: false, why: `${e.id} was approved with evidence of what would leave, and now there is none` }
  // A reusable approval covers what can be read: when what would leave cannot be read in full now (a slow or
  // widened package, a remote that did not answer), it is not waved through for every session until it expires.
  if (e.scope === 'project' && call.evidence.seen.status === 'incomplete')
    return {
      ok: false,
      why: `what would leave could not be read in full now, and the project approval ${e.id} covers only what can be`,
    }
  const same =
    e.scope === 'project'
      ? e.evidence.signature === call.evidence.signature
      : e.evidence.digest === call.evidence.digest
  if (same) return { ok: true }
  return {
    ok: false,
    why: `what would leave is not what the human approved in ${e.id}: ${evidenceChanges(e.evidence.seen, call.evidence.seen).join('; ')}`,
  }
}

/** What changed between the destroyed state the human approved and the one now, in the human's terms. */
function destroyedChanges(then: DestroyedState, now: DestroyedState | undefined): string[] {
  if (!now) return ['it can no longer be read']
  const was = then.seen.filter((x) => !now.seen.includes(x))
  const is = now.seen.filter((x) => !then.seen.includes(x))
  return [
    ...(was.length ? [`was ${was.slice(0, 3).join(', ')}`] : []),
    ...(is.length ? [`now ${is.slice(0, 3).join(', ')}`] : []),
  ].slice(0, 2)
}
