// The incident log (INC-001, …): what went wrong, how bad, what class, what prevents it next time.

export const INCIDENT_SEVERITIES = ['P1', 'P2', 'P3'] as const

export interface Incident {
  id: string
  title: string
  date: string
  severity: (typeof INCIDENT_SEVERITIES)[number]
  /** The trigger class or named pattern (public_surface, git_push, inline_execution_of_spawnable_task…). */
  class: string
  pattern?: string
  what_happened: string
  prevention: string[]
  status: 'open' | 'closed'
  closed_at?: string
  /** The guardrail derived from it, if any. */
  guardrail?: string
  /** The session it happened in, when known (for "repeated-class incidents within a session"). */
  session?: string
}

export function nextIncidentId(list: Incident[]): string {
  const n = list.reduce((m, i) => Math.max(m, Number(/^INC-(\d+)$/.exec(i.id)?.[1] ?? 0)), 0) + 1
  return `INC-${String(n).padStart(3, '0')}`
}

export function validateIncidents(raw: unknown): Incident[] | string {
  if (!Array.isArray(raw)) return 'expected an array of incidents'
  for (let i = 0; i < raw.length; i++) {
    const e = raw[i] as Partial<Incident>
    if (typeof e?.id !== 'string' || typeof e.title !== 'string')
      return `[${i}]: expected an incident with id and title`
    if (!INCIDENT_SEVERITIES.includes(e.severity as Incident['severity']))
      return `[${i}].severity: expected P1, P2 or P3`
  }
  return raw as Incident[]
}
