import type { PatternDetector } from './types'
import { draft } from './types'

const LABEL: Record<string, string> = {
  error: 'reactive helpfulness after errors (Type A)',
  todo: 'scope expansion in plans (Type B)',
  periodic: 'drift from the request',
  subagent: 'subagents exceeding their task',
}

/** custodiet keeps finding the same kind of drift: make it a standing rule the agent sees at start. */
export const repeatedDrift: PatternDetector = {
  id: 'repeated-drift',
  description: 'custodiet found the same kind of drift at least 3 times, in 2 or more sessions',
  detect({ agg, rules, today }) {
    const out = []
    for (const [trigger, c] of agg.custodiet) {
      if (c.attention < 3 || c.sessions.size < 2) continue
      const pattern = `custodiet_${trigger}`
      if (rules.some((r) => r.pattern === pattern)) continue
      out.push({
        key: `repeated-drift:${trigger}`,
        detector: this.id,
        title: `custodiet flagged ${LABEL[trigger] ?? trigger} ${c.attention}× in ${c.sessions.size} sessions`,
        evidence: { count: c.attention, sessions: c.sessions.size, examples: c.examples },
        // An awareness rule: shown at every session start, where this kind of drift begins.
        guardrail: draft(
          {
            id: '',
            source: `pattern-detect: custodiet ${trigger} ×${c.attention}`,
            pattern,
            trigger: LABEL[trigger] ?? trigger,
            rule:
              trigger === 'error'
                ? 'After an error, report it and ask; do not investigate or fix the environment unasked.'
                : 'Do only what was asked; offer anything more as a suggestion.',
            severity: 'soft',
          },
          today,
        ),
      })
    }
    return out
  },
}
