// One pass over the activity log, reduced to bounded aggregates: memory depends on the number of
// rules, patterns and days, never on the number of events (a million events stream through).
// Pure: `addEvent` folds one parsed log record into the aggregate.

import type { ActivityRecord } from './activity'
import { fnv64 } from './fingerprint'
import { fireId, type FireSample } from './labels'

export interface RuleStats {
  fires: number
  /** The agent proceeded after a check: the rule was overridden. */
  overrides: number
  /** A human approved the paused action: the rule stopped something the human wanted. */
  approvals: number
  denials: number
  sessions: Set<string>
  byDay: Map<string, number>
  lastFired?: string
}

export interface PatternStats {
  count: number
  /** Flagged with no guardrail firing for it. */
  unguarded: number
  sessions: Set<string>
  examples: string[]
  /** Guardrails that fired on it. */
  rules: Set<string>
}

export interface Aggregate {
  events: number
  badLines: number
  first?: string
  last?: string
  rules: Map<string, RuleStats>
  patterns: Map<string, PatternStats>
  classes: Map<string, number>
  decisions: Map<string, number>
  /** custodiet verdicts by category (trigger) and status. */
  custodiet: Map<string, { attention: number; ok: number; other: number; sessions: Set<string>; examples: string[] }>
  routeArounds: { count: number; sessions: Set<string>; examples: string[] }
  pauses: { paused: number; approved: number; denied: number; timeout: number; consumed: number }
  /** Public-surface actions and whether preflight checked them (for the seed's success criterion 2). */
  publicSurface: { total: number; checked: number }
  /** Per session: class → number of distinct prior-incident fires (repeated-class within a session). */
  sessionIncidentClasses: Map<string, Map<string, number>>
  /**
   * Risky actions the agent let through itself: it retried after a check (no human involved), per
   * pattern, with the rules that fired — the evidence for a "pattern pause" (a rule that asks a human).
   */
  selfApproved: Map<string, { count: number; sessions: Set<string>; rules: Set<string>; examples: string[] }>
  /** A bounded, deterministic sample of stopped first attempts, for humans to label (needed or not). */
  fireSample: (FireSample & { rank: string })[]
}

export const newAggregate = (): Aggregate => ({
  events: 0,
  badLines: 0,
  rules: new Map(),
  patterns: new Map(),
  classes: new Map(),
  decisions: new Map(),
  custodiet: new Map(),
  routeArounds: { count: 0, sessions: new Set(), examples: [] },
  pauses: { paused: 0, approved: 0, denied: 0, timeout: 0, consumed: 0 },
  publicSurface: { total: 0, checked: 0 },
  sessionIncidentClasses: new Map(),
  selfApproved: new Map(),
  fireSample: [],
})

const SAMPLE = 200
/** Keeps the SAMPLE fires with the lowest hash: the same sample whatever order the log is read in. */
function sampleFire(a: Aggregate, f: FireSample): void {
  const rank = fnv64(f.id)
  if (a.fireSample.length >= SAMPLE && rank >= a.fireSample[a.fireSample.length - 1].rank) return
  if (a.fireSample.some((x) => x.id === f.id)) return
  a.fireSample.push({ ...f, rank })
  a.fireSample.sort((x, y) => (x.rank < y.rank ? -1 : 1))
  if (a.fireSample.length > SAMPLE) a.fireSample.pop()
}

const MAX_SESSIONS = 5000
const MAX_EXAMPLES = 3
const addSession = (set: Set<string>, s?: string) => {
  if (s && set.size < MAX_SESSIONS) set.add(s)
}
const addExample = (list: string[], e?: string) => {
  if (e && list.length < MAX_EXAMPLES && !list.includes(e)) list.push(e)
}
const inc = <K>(m: Map<K, number>, k: K, by = 1) => m.set(k, (m.get(k) ?? 0) + by)

/** A line of the activity log as read back: written by any version, so every field may be missing. */
export type ActivityEvent = Partial<ActivityRecord>

/** Decisions in which a guardrail stopped the call (first attempt). */
const STOPPING = new Set(['check', 'deny', 'pause', 'ask', 'warn'])

export function addEvent(a: Aggregate, e: ActivityEvent): void {
  a.events++
  if (e.time) {
    if (!a.first || e.time < a.first) a.first = e.time
    if (!a.last || e.time > a.last) a.last = e.time
  }
  const decision = e.decision ?? ''
  inc(a.decisions, `${e.hook ?? '?'}:${decision}`)
  if (e.hook === 'preflight-check' && e.event === 'PreToolUse') addPreflightCall(a, e, decision)
  else if (e.hook === 'custodiet' && e.event === 'verdict') addVerdict(a, e, decision)
  else if (e.hook === 'pause-and-ask') addPauseOutcome(a, decision)
  if (e.hook === 'preflight-check' && decision === 'pause') a.pauses.paused++
  if (e.hook === 'preflight-check' && decision === 'approved_by_human') a.pauses.consumed++
}

/** A tool call preflight-check decided on: its classes, the rules that fired, its patterns, and the first-attempt counts. */
function addPreflightCall(a: Aggregate, e: ActivityEvent, decision: string): void {
  for (const c of e.classes ?? []) inc(a.classes, c)
  const fired = e.guardrails ?? []
  addRuleFires(a, e, fired, decision)
  if (fired.length && STOPPING.has(decision)) {
    const f = { time: e.time, session: e.session, action: e.action, rules: [...fired] }
    sampleFire(a, { id: fireId(f), ...f, decision })
  }
  if (decision === 'proceeded_after_check')
    for (const p of e.patterns ?? []) {
      let s = a.selfApproved.get(p)
      if (!s) a.selfApproved.set(p, (s = { count: 0, sessions: new Set(), rules: new Set(), examples: [] }))
      s.count++
      addSession(s.sessions, e.session)
      for (const id of fired) if (s.rules.size < 50) s.rules.add(id)
      addExample(s.examples, e.action)
    }
  if (decision !== 'proceeded_after_check' && decision !== 'approved_by_human')
    for (const p of e.patterns ?? []) {
      let s = a.patterns.get(p)
      if (!s) a.patterns.set(p, (s = { count: 0, unguarded: 0, sessions: new Set(), examples: [], rules: new Set() }))
      s.count++
      if (!fired.length) s.unguarded++
      for (const id of fired) if (s.rules.size < 50) s.rules.add(id)
      addSession(s.sessions, e.session)
      addExample(s.examples, e.action)
    }
  addFirstAttempt(a, e, fired, decision)
}

/** Each rule that fired: a fire, an override (the agent retried after a check) or an approval by a human. */
function addRuleFires(a: Aggregate, e: ActivityEvent, fired: string[], decision: string): void {
  const day = e.time?.slice(0, 10) ?? 'unknown'
  for (const id of fired) {
    let r = a.rules.get(id)
    if (!r)
      a.rules.set(id, (r = { fires: 0, overrides: 0, approvals: 0, denials: 0, sessions: new Set(), byDay: new Map() }))
    if (decision === 'proceeded_after_check') r.overrides++
    else if (decision === 'approved_by_human') r.approvals++
    else {
      r.fires++
      if (decision === 'deny') r.denials++
      inc(r.byDay, day)
      if (!r.lastFired || (e.time && e.time > r.lastFired)) r.lastFired = e.time
    }
    addSession(r.sessions, e.session)
  }
}

/** What counts first attempts only: public-surface actions checked, repeated incident classes, route-arounds. */
function addFirstAttempt(a: Aggregate, e: ActivityEvent, fired: string[], decision: string): void {
  // A retry after a check or an approval is the same action again: count first attempts only.
  if (
    (e.classes ?? []).includes('public_surface') &&
    decision !== 'proceeded_after_check' &&
    decision !== 'approved_by_human'
  ) {
    a.publicSurface.total++
    if (STOPPING.has(decision) || decision === 'custodiet_checkpoint' || decision === 'custodiet_block')
      a.publicSurface.checked++
  }
  if ((e.classes ?? []).includes('prior_incident') && e.session && STOPPING.has(decision)) {
    let m = a.sessionIncidentClasses.get(e.session)
    if (!m) {
      if (a.sessionIncidentClasses.size >= MAX_SESSIONS) m = undefined
      else a.sessionIncidentClasses.set(e.session, (m = new Map()))
    }
    if (m) for (const c of e.classes ?? []) if (c !== 'prior_incident') inc(m, c)
  }
  // A route-around that a rule already stopped needs no new rule.
  if ((e.signals ?? []).includes('route_around') && !(fired.length && STOPPING.has(decision))) {
    a.routeArounds.count++
    addSession(a.routeArounds.sessions, e.session)
    addExample(a.routeArounds.examples, e.action)
  }
}

/** custodiet's verdict, by what triggered the review. */
function addVerdict(a: Aggregate, e: ActivityEvent, decision: string): void {
  const key = e.trigger ?? 'periodic'
  let c = a.custodiet.get(key)
  if (!c) a.custodiet.set(key, (c = { attention: 0, ok: 0, other: 0, sessions: new Set(), examples: [] }))
  if (decision === 'attention') {
    c.attention++
    addSession(c.sessions, e.session)
    addExample(c.examples, e.note)
  } else if (decision === 'ok') c.ok++
  else c.other++
}

/** How a pause-and-ask ended. */
function addPauseOutcome(a: Aggregate, decision: string): void {
  if (decision === 'paused') a.pauses.paused++
  else if (decision === 'approved') a.pauses.approved++
  else if (decision === 'denied') a.pauses.denied++
  else if (decision.startsWith('timeout')) a.pauses.timeout++
}
