import type { PatternDetector } from './types'
import { draft } from './types'
import { isKnownPattern } from '../patterns'
import type { Incident } from '../incidents'

/**
 * Incidents of one class keep happening and no guardrail cites them. The prevention they name becomes a
 * *check* that asks for its evidence ("list staged files before any push" → show the list), not a deny
 * of every such action; without a prevention, a pause: a human decides each one.
 */
export const recurringIncident: PatternDetector = {
  id: 'recurring-incident',
  description: 'two or more incidents of the same class, none of them cited by a guardrail',
  detect({ incidents, rules, today }) {
    const byClass = new Map<string, typeof incidents>()
    for (const i of incidents) {
      const k = i.pattern || i.class
      if (!k) continue
      byClass.set(k, [...(byClass.get(k) ?? []), i])
    }
    const out = []
    for (const [k, list] of byClass) {
      if (list.length < 2) continue
      const ids = list.map((i) => i.id)
      if (rules.some((r) => ids.some((id) => (r.source ?? '').includes(id)))) continue
      out.push({
        key: `recurring-incident:${k}:${ids.join(',')}`,
        detector: this.id,
        title: `${list.length} incidents of class ${k}: ${ids.join(', ')}`,
        evidence: { count: list.length, sessions: 0, examples: list.map((i) => `${i.id} ${i.title}`).slice(0, 3) },
        guardrail: guardrailFrom(list, ids, k, today),
      })
    }
    return out
  },
}

function guardrailFrom(list: Incident[], ids: string[], k: string, today: string) {
  const prevention = [...new Set(list.flatMap((i) => i.prevention))].slice(0, 2)
  const base = {
    id: '',
    source: ids.join(', '),
    pattern: isKnownPattern(k) ? k : k.replace(/\W+/g, '_'),
    trigger: list[0].title,
  }
  if (!prevention.length)
    return draft(
      {
        ...base,
        rule: `This has gone wrong ${list.length} times (${ids.join(', ')}): a human decides each one.`,
        severity: 'soft',
        decision: 'pause',
      },
      today,
    )
  return draft(
    {
      ...base,
      rule: prevention.join(' '),
      check: `Prevention from ${ids.join(', ')}: ${prevention.join(' ')} Do it now and quote what it showed (the evidence) before retrying.`,
      severity: 'soft',
      decision: 'check',
    },
    today,
  )
}
