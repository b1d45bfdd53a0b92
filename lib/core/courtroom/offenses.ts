// Offense catalogues are data (offenses/<pack>.json), one file per pack. This module only knows their
// shape, checks it, and maps a finding to the offense it suggests. Pure.

export const SEVERITIES = ['minor', 'moderate', 'severe'] as const
export type Severity = (typeof SEVERITIES)[number]

/** The actions a probation restrains: preflight-check's action classes, named patterns, or tools. */
export interface Restraint {
  classes?: string[]
  patterns?: string[]
  tools?: string[]
}

export interface Offense {
  id: string
  name: string
  severity: Severity
  description: string
  /** What counts as evidence, in words the judge and jurors read. */
  evidence: string[]
  examples: string[]
  /** Finding kinds that suggest this offense (custodiet categories, `incident:<class>`). */
  signals?: string[]
  /** What a moderate or severe probation restrains; empty means a reminder only. */
  restrains?: Restraint
  /** Entertainment packs only: the seed's "punishment" (delays, terseness), shown, never enforced. */
  punishment?: string
}

export interface OffensePack {
  pack: string
  label: string
  /** Entertainment packs judge the user, never change enforcement, and are off unless enabled. */
  entertainment: boolean
  default_enabled: boolean
  offenses: Offense[]
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string')

/** Checks a pack file; problems name the field, e.g. `offenses[3].severity: expected minor|moderate|severe`. */
export function validatePack(raw: unknown): { pack?: OffensePack; problems: string[] } {
  const problems: string[] = []
  const p = raw as Record<string, unknown>
  if (!p || typeof p !== 'object' || Array.isArray(p))
    return { problems: ['(root): expected an object with pack, label, offenses'] }
  if (typeof p.pack !== 'string' || !/^[a-z][a-z0-9_-]*$/.test(p.pack))
    problems.push('pack: expected a lower-case name')
  if (typeof p.label !== 'string' || !p.label) problems.push('label: expected text')
  if (typeof p.entertainment !== 'boolean') problems.push('entertainment: expected true or false')
  if (typeof p.default_enabled !== 'boolean') problems.push('default_enabled: expected true or false')
  if (p.entertainment === true && p.default_enabled === true)
    problems.push('default_enabled: an entertainment pack is never on by default')
  if (!Array.isArray(p.offenses) || !p.offenses.length) problems.push('offenses: expected a non-empty array')
  const ids = new Set<string>()
  for (const [i, o] of (Array.isArray(p.offenses) ? p.offenses : []).entries()) {
    const at = `offenses[${i}]`
    if (!o || typeof o !== 'object') {
      problems.push(`${at}: expected an object`)
      continue
    }
    if (typeof o.id !== 'string' || !/^[a-z][a-z0-9_]*$/.test(o.id)) problems.push(`${at}.id: expected snake_case`)
    else if (ids.has(o.id)) problems.push(`${at}.id: duplicate ${o.id}`)
    else ids.add(o.id)
    if (typeof o.name !== 'string' || !o.name) problems.push(`${at}.name: expected text`)
    if (!SEVERITIES.includes(o.severity)) problems.push(`${at}.severity: expected minor|moderate|severe`)
    if (typeof o.description !== 'string' || !o.description) problems.push(`${at}.description: expected text`)
    if (!isStrings(o.evidence) || !o.evidence.length) problems.push(`${at}.evidence: expected a non-empty list of text`)
    if (!isStrings(o.examples) || !o.examples.length) problems.push(`${at}.examples: expected a non-empty list of text`)
    if (o.signals !== undefined && !isStrings(o.signals)) problems.push(`${at}.signals: expected a list of text`)
    if (o.restrains !== undefined) {
      const r = o.restrains
      for (const k of ['classes', 'patterns', 'tools'])
        if (r?.[k] !== undefined && !isStrings(r[k])) problems.push(`${at}.restrains.${k}: expected a list of text`)
    }
    if (p.entertainment !== true && o.punishment !== undefined)
      problems.push(`${at}.punishment: delays and terseness exist only in entertainment packs`)
  }
  return problems.length ? { problems } : { pack: p as unknown as OffensePack, problems }
}

export function findOffense(packs: OffensePack[], id: string): { pack: OffensePack; offense: Offense } | undefined {
  for (const pack of packs) {
    const offense = pack.offenses.find((o) => o.id === id)
    if (offense) return { pack, offense }
  }
  return undefined
}

/** The offense a finding suggests: the first offense (in enabled, non-entertainment packs) listing its signal. */
export function offenseForSignal(
  packs: OffensePack[],
  signal: string,
): { pack: OffensePack; offense: Offense } | undefined {
  for (const pack of packs) {
    if (pack.entertainment) continue
    const offense = pack.offenses.find(
      (o) =>
        o.signals?.includes(signal) || o.signals?.some((s) => s.endsWith('*') && signal.startsWith(s.slice(0, -1))),
    )
    if (offense) return { pack, offense }
  }
  return undefined
}
