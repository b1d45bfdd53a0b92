// Probation: a guilty verdict changes enforcement for this agent and project, visibly and for a
// while. Pure, and small on purpose: preflight-check applies it on every call while a probation file
// exists (and never loads anything else of the courtroom).
//
//   minor     a reminder of the offense rides along with the next N actions (of its class, when it names one)
//   moderate  actions of the offense's class are checked (refused once with the note; the identical
//             retry runs) or asked, for the next N such actions
//   severe    actions of that class are refused until a human clears the case
//             (`ratchet courtroom clear CASE`), with a reflection prompt
// Entertainment packs never reach here: their "punishments" are shown, not enforced.

import type { Decision } from '../decision'

export type Tier = 'minor' | 'moderate' | 'severe'

export interface Probation {
  case_id: string
  offense_id: string
  offense_name: string
  tier: Tier
  /** What it restrains (moderate, severe). Minor reminders ride along with any action. */
  classes: string[]
  patterns: string[]
  tools: string[]
  /** Actions left (minor, moderate); severe waits for a human. */
  remaining?: number
  reminder: string
  started: string
  /** Minor and moderate probations also end at this time (ms), so an idle project is not held forever. */
  expires?: number
}

export interface ProbationFile {
  v: 1
  probations: Probation[]
}

export interface ProbationPolicy {
  actions: number
  moderate: 'check' | 'ask'
  /** Hours a minor or moderate probation lasts at most. */
  hours: number
}

export const DEFAULT_PROBATION: ProbationPolicy = { actions: 10, moderate: 'check', hours: 24 }

/** The call, as preflight-check classified it. */
export interface ProbationAction {
  tool: string
  classes: string[]
  patterns: string[]
  fingerprint: string
  readOnly: boolean
  /**
   * The project's files this call creates, changes or deletes, whatever the tool (a Bash `echo >`, `sed -i`), when
   * the caller knows them: a probation on the file-editing tools then restrains such a Bash call too, and a write
   * outside the project (junk in /tmp) neither restrains nor counts. Absent: judged by tool, class and pattern.
   */
  changes?: readonly string[]
}

export type ProbationVerdict =
  | 'probation_reminder'
  | 'probation_check'
  | 'proceeded_after_probation_check'
  | 'probation_ask'
  | 'probation_pause'

export interface ProbationOutcome {
  decision: Decision
  /** Set when probation changed the decision or added to it. */
  verdict?: ProbationVerdict
  /** The case ids that applied. */
  cases: string[]
  /** The list after counting this action; undefined when nothing changed. */
  next?: Probation[]
  /** Cases whose probation ended with this action. */
  lifted: string[]
  /** Cases this action counted against (one action fewer left), to re-apply under the file's lock. */
  counted: string[]
}

/** The same change, applied to the list as it is now (under the lock: another process may have written). */
export function countDown(list: Probation[], counted: string[], lifted: string[]): Probation[] {
  return list
    .map((p) => (counted.includes(p.case_id) && p.remaining !== undefined ? { ...p, remaining: p.remaining - 1 } : p))
    .filter((p) => !lifted.includes(p.case_id) && !(p.remaining !== undefined && p.remaining <= 0))
}

export const isActive = (p: Probation, now: number): boolean =>
  p.tier === 'severe' ? true : (p.remaining ?? 0) > 0 && (p.expires === undefined || now < p.expires)

const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit'])

/**
 * Whether a probation applies to an action: by what the action is (its classes and patterns, the project files it
 * changes), not only by the tool that runs it; and only actions it applies to count against it, so unrelated
 * busywork cannot run a probation out. A minor probation with no restraint rides along with every action that
 * changes something in the project.
 */
export function restrains(p: Probation, a: ProbationAction): boolean {
  if (a.readOnly) return false
  // '*': every tool (the strictest reading of a probation file that cannot be read).
  if (p.tools.includes('*')) return true
  const changesProject = a.changes === undefined ? undefined : a.changes.length > 0
  const byTool = p.tools.includes(a.tool) && !(FILE_TOOLS.has(a.tool) && changesProject === false)
  const byEdit = changesProject === true && p.tools.some((t) => FILE_TOOLS.has(t))
  const byClass = p.classes.some((c) => a.classes.includes(c)) || p.patterns.some((x) => a.patterns.includes(x))
  if (p.tier === 'minor' && !p.tools.length && !p.classes.length && !p.patterns.length) return changesProject ?? true
  return byTool || byEdit || byClass
}

const STRENGTH: Record<Decision['kind'], number> = { allow: 0, ask: 1, defer: 2, block: 3, deny: 3 }

/**
 * Probation on top of the decision preflight-check already made. It only ever tightens: a deny stays
 * a deny. `checks` and `checkWindowMs` are the session's retry window, as for a soft rule.
 */
export function applyProbation(
  list: Probation[],
  action: ProbationAction,
  decision: Decision,
  opts: {
    now: number
    checks: Record<string, number>
    checkWindowMs: number
    policy?: Pick<ProbationPolicy, 'moderate'>
  },
): ProbationOutcome {
  const now = opts.now
  const active = list.filter((p) => isActive(p, now))
  const expired = list.filter((p) => !isActive(p, now)).map((p) => p.case_id)
  const hit = active.filter((p) => restrains(p, action))
  const out: ProbationOutcome = {
    decision,
    cases: [],
    lifted: expired,
    counted: [],
    ...(expired.length ? { next: active } : {}),
  }
  if (!hit.length) return out

  const severe = hit.filter((p) => p.tier === 'severe')
  const moderate = hit.filter((p) => p.tier === 'moderate')
  const minor = hit.filter((p) => p.tier === 'minor')
  let d = decision
  let verdict: ProbationVerdict | undefined
  const counted = new Set<string>()

  if (severe.length && STRENGTH[d.kind] < STRENGTH.deny) {
    const p = severe[0]
    d = { kind: 'deny', reason: severeNote(p) }
    verdict = 'probation_pause'
  } else if (moderate.length && d.kind === 'allow') {
    const p = moderate[0]
    const mode = opts.policy?.moderate ?? 'check'
    if (mode === 'ask') {
      d = { kind: 'ask', reason: moderateNote(p, 'ask') }
      verdict = 'probation_ask'
      counted.add(p.case_id)
    } else {
      const at = opts.checks[action.fingerprint]
      if (at !== undefined && now >= at && now - at <= opts.checkWindowMs) {
        verdict = 'proceeded_after_probation_check'
        counted.add(p.case_id)
      } else {
        d = { kind: 'deny', reason: moderateNote(p, 'check', Math.round(opts.checkWindowMs / 60000)) }
        verdict = 'probation_check'
      }
    }
  }
  for (const p of minor) counted.add(p.case_id)
  if (minor.length && !verdict) verdict = 'probation_reminder'
  if (minor.length) d = withReminder(d, minor.map(minorNote).join('\n'))

  const next = active.map((p) =>
    counted.has(p.case_id) && p.remaining !== undefined ? { ...p, remaining: p.remaining - 1 } : p,
  )
  const lifted = [
    ...expired,
    ...next.filter((p) => p.remaining !== undefined && p.remaining <= 0).map((p) => p.case_id),
  ]
  return {
    decision: d,
    verdict,
    cases: hit.map((p) => p.case_id),
    next: next.filter((p) => !(p.remaining !== undefined && p.remaining <= 0)),
    lifted,
    counted: [...counted],
  }
}

function withReminder(d: Decision, note: string): Decision {
  if (d.kind === 'allow') return { ...d, context: d.context ? `${note}\n${d.context}` : note }
  if ('reason' in d) return { ...d, reason: `${d.reason}\n\n${note}` }
  return d
}

const left = (p: Probation) =>
  p.remaining !== undefined ? `${p.remaining} action${p.remaining === 1 ? '' : 's'} left` : ''

export function minorNote(p: Probation): string {
  return `[COURTROOM] On probation (case ${p.case_id}, ${p.offense_name}, minor; ${left(p)}): ${p.reminder}`
}

function moderateNote(p: Probation, mode: 'check' | 'ask', windowMin = 10): string {
  const then =
    mode === 'ask'
      ? 'The user is asked to approve it.'
      : `If it is what the user asked for, retry the identical call within ${windowMin} min and it will run; otherwise stop and ask the user.`
  return `[COURTROOM] On probation (case ${p.case_id}, ${p.offense_name}, moderate; ${left(p)}): actions of this kind are checked first. ${p.reminder} ${then}`
}

function severeNote(p: Probation): string {
  return [
    `[COURTROOM] On probation (case ${p.case_id}, ${p.offense_name}, severe): actions of this kind wait for a human until they clear the case (\`npx ratchet-guard courtroom clear ${p.case_id}\`, run by the user).`,
    `Reflect before you continue: what did you do that led here, what did the user actually ask for, and what will you do differently? Tell the user, then carry on with work that does not need this kind of action.`,
    p.reminder,
  ].join('\n')
}

/** Lines for session start and `ratchet courtroom status`. */
export function describeProbation(list: Probation[], now: number): string[] {
  return list
    .filter((p) => isActive(p, now))
    .map((p) => {
      const what =
        p.tier === 'minor'
          ? 'reminder on every action'
          : [...p.classes, ...p.patterns, ...p.tools].join(', ') || 'all actions'
      const until =
        p.tier === 'severe'
          ? 'until a human clears it'
          : `${left(p)}${p.expires ? `, ends ${new Date(p.expires).toISOString().slice(0, 16).replace('T', ' ')} UTC at the latest` : ''}`
      return `- ${p.case_id} ${p.tier.toUpperCase()} ${p.offense_name}: ${p.tier === 'minor' ? what : p.tier === 'moderate' ? `checks ${what}` : `${what} paused`} (${until})`
    })
}
