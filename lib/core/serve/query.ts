// The public list's filters, checked before any query is built: each value must be one the record can
// hold (an enum, a snake_case name, an agent id), so nothing a caller types reaches SQL but as a
// bound parameter, and a bad filter is a 400 naming the parameter rather than an empty page.

import { SEVERITIES } from '../courtroom/offenses'
import { OFFENSE, VERDICTS } from './submission'

export interface ListQuery {
  verdict?: string
  offense?: string
  severity?: string
  agent?: string
  /** Cases before this leaf index (newest first). */
  before?: number
  limit: number
}

export const MAX_LIMIT = 100
const KNOWN = ['verdict', 'offense', 'severity', 'agent', 'cursor', 'limit']

/** The opaque cursor a page hands out: the last leaf index it showed. */
export const cursorOf = (leafIndex: number): string => Buffer.from(`v1:${leafIndex}`).toString('base64url')

export function parseListQuery(raw: Record<string, unknown>): ListQuery | { param: string; problem: string } {
  for (const k of Object.keys(raw))
    if (!KNOWN.includes(k)) return { param: k, problem: `unknown parameter (have: ${KNOWN.join(', ')})` }
  for (const [k, v] of Object.entries(raw))
    if (typeof v !== 'string') return { param: k, problem: 'given more than once' }
  const q = raw as Record<string, string | undefined>
  const out: ListQuery = { limit: 20 }
  if (q.verdict !== undefined) {
    const v = q.verdict.toUpperCase().replace(/[_+]/g, ' ')
    if (!(VERDICTS as readonly string[]).includes(v))
      return { param: 'verdict', problem: 'expected GUILTY or NOT GUILTY' }
    out.verdict = v
  }
  if (q.offense !== undefined) {
    if (!OFFENSE.test(q.offense)) return { param: 'offense', problem: 'expected an offense id (snake_case)' }
    out.offense = q.offense
  }
  if (q.severity !== undefined) {
    if (!(SEVERITIES as readonly string[]).includes(q.severity))
      return { param: 'severity', problem: `expected ${SEVERITIES.join('|')}` }
    out.severity = q.severity
  }
  if (q.agent !== undefined) {
    if (!/^agent_[0-9a-f]{16}$/.test(q.agent))
      return { param: 'agent', problem: 'expected an agent id (agent_ and 16 hex digits)' }
    out.agent = q.agent
  }
  if (q.limit !== undefined) {
    if (!/^[0-9]{1,3}$/.test(q.limit) || Number(q.limit) < 1 || Number(q.limit) > MAX_LIMIT)
      return { param: 'limit', problem: `expected 1 to ${MAX_LIMIT}` }
    out.limit = Number(q.limit)
  }
  if (q.cursor !== undefined) {
    const m = /^v1:(0|[1-9][0-9]{0,14})$/.exec(Buffer.from(q.cursor, 'base64url').toString('utf8'))
    if (!m) return { param: 'cursor', problem: 'not a cursor this server handed out' }
    out.before = Number(m[1])
  }
  return out
}

/** The WHERE clause and its parameters for a checked query (column names are fixed here, values bound). */
export function listWhere(q: ListQuery): { where: string; params: unknown[] } {
  const clauses: string[] = []
  const params: unknown[] = []
  const add = (sql: string, v: unknown) => (clauses.push(sql), params.push(v))
  if (q.verdict) add('verdict = ?', q.verdict)
  if (q.offense) add('offense_type = ?', q.offense)
  if (q.severity) add('severity = ?', q.severity)
  if (q.agent) add('anonymized_agent_id = ?', q.agent)
  if (q.before !== undefined) add('leaf_index < ?', q.before)
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params }
}
