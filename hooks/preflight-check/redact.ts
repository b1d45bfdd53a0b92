// What preflight-check writes about a call (the activity line, a queued pause, a remembered block) never holds a
// secret the session has seen: the agent may have typed one into a command, a URL or a search, where the masking
// of well-known shapes (lib/core/secrets.ts) cannot tell it from any other word. Asked only of calls that would
// send something or hold a long token, since knowing the secrets costs a few milliseconds.

import { redactKnown, type Recognizer } from '../../lib/core/known-secrets'
import type { PreflightOutcome } from './outcome'

/** A run of letters and digits long enough to be (part of) a key, with letters and digits both (not a long file name). */
const LONG_TOKEN = /[A-Za-z0-9]{16,}/g

export function mayHoldSecret(summary: string): boolean {
  for (const m of summary.matchAll(LONG_TOKEN))
    if (/\d[^\d]*\d/.test(m[0]) && /[A-Za-z][^A-Za-z]*[A-Za-z]/.test(m[0])) return true
  return false
}

export function redactOutcome(out: PreflightOutcome, known: Recognizer): PreflightOutcome {
  const r = (s: string) => redactKnown(s, known)
  const record = { ...out.record, ...(typeof out.record.action === 'string' ? { action: r(out.record.action) } : {}) }
  const effects = out.effects.map((e) => {
    if (e.kind === 'enqueue') {
      const ev = e.entry.evidence
      const seen = ev && {
        ...ev.seen,
        files: ev.seen.files.map(r),
        hazards: ev.seen.hazards.map(r),
        destinations: ev.seen.destinations.map(r),
      }
      return {
        ...e,
        entry: {
          ...e.entry,
          action: r(e.entry.action),
          context: r(e.entry.context),
          ...(ev && seen ? { evidence: { ...ev, seen } } : {}),
        },
      }
    }
    if (e.kind === 'session' && e.block) return { ...e, block: { ...e.block, summary: r(e.block.summary) } }
    if (e.kind === 'route-around') return { ...e, blocked: r(e.blocked), attempt: r(e.attempt) }
    return e
  })
  const d = out.decision
  const decision = d.notice ? { ...d, notice: r(d.notice) } : d
  return { ...out, record, effects, decision }
}
