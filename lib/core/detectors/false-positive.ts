import type { Detector } from './types'

/** A guardrail that the agent proceeds past, or a human approves, nearly every time: a false positive. */
export const falsePositive: Detector = {
  id: 'false-positive',
  description: 'a guardrail overridden (proceeded after check) or approved by a human at least 80% of the time',
  detect({ agg, rules }) {
    const out = []
    for (const r of rules) {
      const s = agg.rules.get(r.id)
      if (!s || s.fires < 5) continue
      const passed = s.overrides + s.approvals
      const rate = passed / s.fires
      if (rate < 0.8) continue
      const current = r.decision ?? (r.severity === 'hard' ? 'deny' : 'check')
      if (current === 'warn') continue
      out.push({
        key: `false-positive:${r.id}:${current}`,
        detector: this.id,
        title: `${r.id} was passed ${passed} of ${s.fires} times (${Math.round(rate * 100)}%): make it a warning`,
        evidence: { count: s.fires, sessions: s.sessions.size, examples: [], detail: `${s.overrides} proceeded after check, ${s.approvals} approved by a human` },
        change: { id: r.id, decision: 'warn' as const, why: `false-positive rate ${Math.round(rate * 100)}% over ${s.fires} fires` },
      })
    }
    return out
  },
}
