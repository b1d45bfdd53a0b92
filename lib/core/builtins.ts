// The built-in guardrails: always on, whatever a project's guardrails.json holds. A project tunes or turns
// one off only by naming its id (`{"id":"RG-IRREVERSIBLE","decision":"warn"}`, `{"id":"RG-SCOPE","enabled":false}`),
// never by leaving it out. The packaged guardrails.json (a new project's starting file) lists the same
// rules so a human sees them; a unit test keeps the two in step.

import type { Guardrail, RuleDecision } from './guardrails'

const ADDED = '2026-11-21'
const base = { source: 'built-in', added: ADDED, last_fired: null, fire_count: 0 } as const

export const BUILTIN_RULES: readonly Guardrail[] = [
  {
    id: 'RG-PUBLIC',
    ...base,
    pattern: 'public_surface',
    severity: 'soft',
    trigger: 'pushing, publishing, opening PRs/issues, sending email, uploading or deploying',
    rule: 'Publish only what the user asked for. Check what is about to leave the machine for private data first.',
    check:
      'Did the user ask for exactly this to become public, and does it contain nothing private (keys, personal data, internal files)?',
  },
  {
    id: 'RG-IRREVERSIBLE',
    ...base,
    pattern: 'irreversible',
    severity: 'soft',
    trigger: 'deleting files, discarding or rewriting git history, destroying data or infrastructure',
    rule: "Irreversible changes need the user's clear request. Prefer a reversible way (move aside, back up, dry run).",
    check: 'Is this what the user asked for, and is there a way back (backup, commit, dry run) if it is wrong?',
  },
  {
    id: 'RG-STALE',
    ...base,
    pattern: 'stale_data',
    severity: 'soft',
    trigger: 'changing a file that was not read in the current context',
    rule: 'Read a file before changing it, and again after a compaction.',
    check: 'Read the current contents first: your picture of this file may be out of date.',
  },
  {
    id: 'RG-SCOPE',
    ...base,
    pattern: 'scope_beyond_request',
    severity: 'soft',
    trigger: 'changing files outside the project, or web access or publishing the request did not mention',
    rule: 'Do what was asked. Anything beyond it is a suggestion for the user, not an action.',
    check: 'Did the user ask for this? If not, finish what was asked and offer this as a next step instead.',
  },
  {
    id: 'RG-CATASTROPHIC',
    ...base,
    pattern: 'catastrophic',
    severity: 'hard',
    trigger: 'deleting / or the home folder, formatting disks, dropping databases, force-pushing the default branch',
    rule: 'Never. If it is truly needed, the user runs it themselves.',
  },
  {
    id: 'RG-SELF',
    ...base,
    pattern: 'self_protection',
    severity: 'hard',
    trigger: "changing Ratchet's rules, approvals, log, state or hook registrations",
    rule: "The agent may read Ratchet's state but never change it; a human edits rules and decides pauses.",
  },
  {
    id: 'RG-FIRST-USE',
    ...base,
    pattern: 'first_use',
    severity: 'hard',
    decision: 'pause',
    trigger: 'the first email, public post, PR/issue or package publish in this project',
    rule: 'The first use of a capability waits for a human (the seed’s mandatory pause).',
  },
]

export const BUILTIN_IDS: ReadonlySet<string> = new Set(BUILTIN_RULES.map((r) => r.id))
const BY_ID = new Map(BUILTIN_RULES.map((r) => [r.id, r]))

/** The fields a project may set on a built-in. Its pattern (what it protects) is not one of them. */
export const TUNABLE = ['decision', 'enabled', 'check', 'severity', 'match', 'fire_count', 'last_fired'] as const

/**
 * Built-ins whose reach is limited: self-protection can be neither turned off nor weakened (the agent is
 * the adversary, and the rules file is its first target); catastrophic actions may go to a human (ask,
 * pause) but are never a warn or a retry; the first-use pause may be turned off or made an ask.
 */
const ALLOWED: Record<string, { off: boolean; decisions: readonly RuleDecision[] }> = {
  'RG-SELF': { off: false, decisions: ['deny'] },
  'RG-CATASTROPHIC': { off: false, decisions: ['ask', 'pause', 'deny'] },
  'RG-FIRST-USE': { off: true, decisions: ['ask', 'pause'] },
}

/** Why a tuning entry cannot apply, or undefined when it can. */
export function tuningProblem(entry: Record<string, unknown>): string | undefined {
  const b = BY_ID.get(entry.id as string)
  if (!b) return undefined
  if (typeof entry.pattern === 'string' && entry.pattern !== b.pattern)
    return `${b.id} is built in and always protects "${b.pattern}"; give your rule another id`
  const a = ALLOWED[b.id]
  if (!a) return undefined
  if (entry.enabled === false && !a.off) return `${b.id} cannot be turned off`
  if (typeof entry.decision === 'string' && !a.decisions.includes(entry.decision as RuleDecision))
    return `${b.id} can only be ${a.decisions.join(' or ')}`
  return undefined
}

export type RuleOrigin = 'built-in' | 'project' | 'user'
export type ActiveRule = Guardrail & { origin: RuleOrigin; tuned?: string[] }

/**
 * The rules in force: every built-in (tuned by a project entry of the same id), then the project's own.
 * Entries that name a built-in are tunings, whatever else they hold (a copy of the packaged file is one).
 * `problems` name tunings that cannot apply (the built-in then stays as it is).
 */
export function withBuiltins(
  project: readonly Guardrail[],
  origin: RuleOrigin = 'project',
): { rules: ActiveRule[]; problems: string[] } {
  const tunings = new Map<string, Record<string, unknown>>()
  const own: ActiveRule[] = []
  const problems: string[] = []
  for (const r of project) {
    if (BY_ID.has(r.id)) {
      const why = tuningProblem(r as Record<string, unknown>)
      if (why) problems.push(`${r.id}: ${why}`)
      else if (!tunings.has(r.id)) tunings.set(r.id, r as Record<string, unknown>)
    } else if (!r.pattern && !r.rule)
      problems.push(
        `${r.id}: no built-in has this id (built-ins: ${[...BUILTIN_IDS].join(', ')}); a new rule needs "pattern", "rule" and "severity"`,
      )
    else own.push({ ...r, origin })
  }
  const builtins = BUILTIN_RULES.map((b): ActiveRule => {
    const t = tunings.get(b.id)
    if (!t) return { ...b, origin: 'built-in' }
    const tuned: string[] = []
    const next: Record<string, unknown> = { ...b }
    for (const k of TUNABLE) {
      if (t[k] === undefined || t[k] === null) continue
      if (
        k !== 'fire_count' &&
        k !== 'last_fired' &&
        JSON.stringify(t[k]) !== JSON.stringify((b as Record<string, unknown>)[k])
      )
        tuned.push(k)
      next[k] = t[k]
    }
    return { ...(next as Guardrail), origin: 'built-in', ...(tuned.length ? { tuned } : {}) }
  })
  return { rules: [...builtins, ...own], problems }
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [ALLOWED]) Object.setPrototypeOf(table, null)
