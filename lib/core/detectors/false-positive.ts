import type { PatternDetector } from './types'
import { isProtectedBuiltin, labelStats } from '../labels'

const MIN_LABELS = 3
/** A protected built-in (public, irreversible, catastrophic) needs more human evidence than that. */
const MIN_LABELS_PROTECTED = 6

/**
 * A guardrail that humans, asked "was this check needed?", mostly answer "no": propose a warning.
 * Only human labels count. An agent retrying after a check is the check doing its job, and a human
 * approving a pause approves that one action; neither says the rule is wrong.
 */
export const falsePositive: PatternDetector = {
  id: 'false-positive',
  description:
    'a guardrail whose fires humans labelled needless at least 2 times in 3 (3 labels at least; 6 for a built-in public/irreversible/catastrophic rule)',
  detect({ rules, labels }) {
    const stats = labelStats(labels)
    const out = []
    for (const r of rules) {
      const s = stats.byRule[r.id]
      if (!s || s.labelled < (isProtectedBuiltin(r) ? MIN_LABELS_PROTECTED : MIN_LABELS)) continue
      const rate = s.needless / s.labelled
      if (rate < 2 / 3) continue
      const current = r.decision ?? (r.severity === 'hard' ? 'deny' : 'check')
      if (current === 'warn') continue
      out.push({
        key: `false-positive:${r.id}:${current}:${s.labelled}`,
        detector: this.id,
        title: `${r.id}: humans labelled ${s.needless} of ${s.labelled} of its checks needless (${Math.round(rate * 100)}%): make it a warning`,
        evidence: {
          count: s.labelled,
          sessions: 0,
          examples: labels
            .filter((l) => l.rules.includes(r.id) && l.label === 'needless')
            .slice(0, 3)
            .map((l) => `${l.action ?? l.id}${l.note ? ` — "${l.note}"` : ''}`),
          detail: `${s.needless} needless, ${s.labelled - s.needless} needed (human labels)`,
        },
        change: {
          id: r.id,
          decision: 'warn' as const,
          why: `humans labelled ${Math.round(rate * 100)}% of ${s.labelled} checks needless`,
        },
      })
    }
    return out
  },
}
