// `ratchet incident add|list|show|close`: the incident log, and guardrails derived from it.

import { RatchetError } from '../core/errors'
import { INCIDENT_SEVERITIES, nextIncidentId, type Incident } from '../core/incidents'
import { isKnownPattern } from '../core/patterns'
import { readIncidents, updateIncidents } from '../io/records'
import { editGuardrails } from '../io/guardrails'
import { resolvePaths } from '../io/paths'
import { nextGuardrailId, type Guardrail } from '../core/guardrails'
import { CLI } from '../core/manifest'

const out = (s: string): void => void process.stdout.write(s + '\n')

export function add(o: {
  title: string
  severity: string
  class: string
  pattern?: string
  what?: string
  prevention?: string[]
  date?: string
  session?: string
  json?: boolean
}): void {
  if (!INCIDENT_SEVERITIES.includes(o.severity as Incident['severity']))
    throw new RatchetError('usage', `--severity must be one of ${INCIDENT_SEVERITIES.join(', ')}`)
  const paths = resolvePaths()
  const inc = updateIncidents(paths, (list) => {
    const i: Incident = {
      id: nextIncidentId(list),
      title: o.title,
      date: o.date ?? new Date().toISOString().slice(0, 10),
      severity: o.severity as Incident['severity'],
      class: o.class,
      ...(o.pattern ? { pattern: o.pattern } : {}),
      what_happened: o.what ?? '',
      prevention: o.prevention ?? [],
      status: 'open',
      ...(o.session ? { session: o.session } : {}),
    }
    return { next: [...list, i], result: i }
  })
  if (o.json) return out(JSON.stringify(inc, null, 2))
  out(`Logged ${inc.id} (${inc.severity}, ${inc.class}): ${inc.title}`)
}

export function list(o: { json?: boolean; all?: boolean }): void {
  const items = readIncidents(resolvePaths())
  const shown = o.all ? items : items
  if (o.json) return out(JSON.stringify(shown, null, 2))
  if (!shown.length) return out(`No incidents logged. (${CLI} incident add --title … --severity P2 --class …)`)
  for (const i of shown)
    out(
      `${i.id}  ${i.severity}  ${i.status.padEnd(6)}  ${i.date}  ${i.class}${i.pattern ? `/${i.pattern}` : ''}  ${i.title}${i.guardrail ? `  → ${i.guardrail}` : ''}`,
    )
}

export function show(id: string, o: { json?: boolean }): void {
  const i = readIncidents(resolvePaths()).find((x) => x.id === id)
  if (!i) throw new RatchetError('not_found', `no incident ${id}`)
  if (o.json) return out(JSON.stringify(i, null, 2))
  for (const [k, v] of Object.entries(i))
    out(`${k.padEnd(14)} ${Array.isArray(v) ? v.map((x) => `\n  - ${x}`).join('') : v}`)
}

/** Closing offers to derive a guardrail: with --guardrail "rule" it is added, citing the incident. */
export function close(
  id: string,
  o: { guardrail?: string; severity?: 'hard' | 'soft'; pattern?: string; command?: string[]; json?: boolean },
): void {
  const paths = resolvePaths()
  const inc = readIncidents(paths).find((x) => x.id === id)
  if (!inc) throw new RatchetError('not_found', `no incident ${id}`)
  if (inc.status === 'closed') throw new RatchetError('conflict', `${id} is already closed`)
  let derived: Guardrail | undefined
  if (o.guardrail) {
    const pattern = o.pattern ?? inc.pattern ?? inc.class
    derived = editGuardrails(paths, (list) => {
      const g = {
        id: nextGuardrailId(list.map((x) => x.id as string)),
        source: inc.id,
        pattern: pattern.replace(/\W+/g, '_'),
        trigger: inc.title,
        rule: o.guardrail!,
        severity: o.severity ?? (inc.severity === 'P1' ? 'hard' : 'soft'),
        added: new Date().toISOString().slice(0, 10),
        last_fired: null,
        fire_count: 0,
        ...(o.command?.length ? { match: { command: o.command } } : {}),
      } as Guardrail
      return { next: [...list, g as unknown as Record<string, unknown>], result: g }
    })
  }
  const closed = updateIncidents(paths, (list) => {
    const next = list.map((x) =>
      x.id === id
        ? {
            ...x,
            status: 'closed' as const,
            closed_at: new Date().toISOString(),
            ...(derived ? { guardrail: derived.id } : {}),
          }
        : x,
    )
    return { next, result: next.find((x) => x.id === id)! }
  })
  if (o.json) return out(JSON.stringify({ incident: closed, guardrail: derived ?? null }, null, 2))
  out(`Closed ${id}.`)
  if (derived)
    out(
      `Added ${derived.id} (${derived.severity}, pattern ${derived.pattern}${isKnownPattern(derived.pattern) || derived.match ? '' : ' — not a detector: shown at session start only; add --command to match it'}) citing ${id}.`,
    )
  else
    out(
      `No guardrail derived. To add one citing it:\n  ${CLI} guardrails add --source ${id} --pattern ${inc.pattern ?? inc.class} --rule "what the agent must do" [--severity hard]`,
    )
}
