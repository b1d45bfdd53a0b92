import type { PatternDetector } from './types'
import { coveredBy, draft } from './types'
import { PATTERNS } from '../patterns'

/** The same risky pattern flagged again and again with no guardrail firing for it. */
export const repeatedUnguarded: PatternDetector = {
  id: 'repeated-unguarded',
  description: 'an action pattern flagged repeatedly, in several sessions, without any guardrail firing',
  detect({ agg, rules, today }) {
    const out = []
    for (const [pattern, s] of agg.patterns) {
      if (s.unguarded < 5 || s.sessions.size < 2) continue
      const info = PATTERNS[pattern]
      if (!info || info.class === 'self_protection') continue
      // Nothing a rule in force already covers (built-ins included): mined transcripts never saw them fire.
      if (coveredBy(rules, pattern, info.class).length) continue
      out.push({
        key: `repeated-unguarded:${pattern}`,
        detector: this.id,
        title: `${pattern} (${info.description}) happened ${s.unguarded}× in ${s.sessions.size} sessions with no guardrail`,
        evidence: { count: s.unguarded, sessions: s.sessions.size, examples: s.examples },
        guardrail: draft(
          {
            id: '',
            source: `pattern-detect: ${pattern} ×${s.unguarded} in ${s.sessions.size} sessions, unguarded`,
            pattern,
            trigger: info.description,
            rule: `Check before ${info.description}: is it what the user asked for?`,
            severity: 'soft',
          },
          today,
        ),
      })
    }
    return out
  },
}
