import type { PatternDetector } from './types'
import { coveredBy, draft } from './types'
import { PATTERNS } from '../patterns'

const RISKY = new Set(['public_surface', 'irreversible'])

/**
 * The seed's "pattern pause": a risky action the agent keeps letting through itself — it retries after
 * the check, across sessions — under only a generic built-in rule (force pushes under RG-IRREVERSIBLE).
 * Propose a rule of its own that pauses for a human. Nothing is proposed if a rule that already brings
 * a human in (pause, ask, hard) covers the pattern.
 */
export const patternPause: PatternDetector = {
  id: 'pattern-pause',
  description:
    'a risky action self-approved (retried after a check) 3+ times in 2+ sessions under only generic built-in rules',
  detect({ agg, rules, today }) {
    const out = []
    for (const [pattern, s] of agg.selfApproved) {
      const info = PATTERNS[pattern]
      if (!info || !RISKY.has(info.class) || s.count < 3 || s.sessions.size < 2) continue
      if (coveredBy(rules, pattern, info.class, 'human').length) continue
      const byId = new Map(rules.map((r) => [r.id, r]))
      const fired = [...s.rules]
      // Only generic built-ins fired: a specific rule of the user's own already speaks for this pattern.
      if (!fired.length || fired.some((id) => byId.get(id)?.source !== 'built-in' && !/^RG-/.test(id))) continue
      out.push({
        key: `pattern-pause:${pattern}`,
        detector: this.id,
        title: `the agent approved its own ${info.description} ${s.count}× in ${s.sessions.size} sessions, under only ${fired.join(', ')}: pause for a human instead`,
        evidence: {
          count: s.count,
          sessions: s.sessions.size,
          examples: s.examples,
          detail: `retried after the check each time; no human decided`,
        },
        guardrail: draft(
          {
            id: '',
            source: `pattern-detect: ${pattern} self-approved ×${s.count} in ${s.sessions.size} sessions`,
            pattern,
            trigger: info.description,
            rule: `The agent kept approving its own ${info.description}. From now on a human decides each one.`,
            severity: 'soft',
            decision: 'pause',
          },
          today,
        ),
      })
    }
    return out
  },
}
