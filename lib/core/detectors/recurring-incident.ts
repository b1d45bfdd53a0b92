import type { Detector } from './types'
import { draft } from './types'
import { isKnownPattern } from '../patterns'

/** Incidents of one class keep happening and no guardrail cites them: propose a hard rule. */
export const recurringIncident: Detector = {
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
        guardrail: draft({ id: '', source: ids.join(', '), pattern: isKnownPattern(k) ? k : k.replace(/\W+/g, '_'), trigger: list[0].title, rule: list.flatMap((i) => i.prevention).slice(0, 2).join(' ') || `This has gone wrong ${list.length} times: stop and check with the user first.`, severity: 'hard' }, today),
      })
    }
    return out
  },
}
