// custodiet's findings, pure: recording one at its enforcement level (merging findings about the same event),
// telling the agent (once), relaying to a later session what an ended one never heard, and what preflight-check
// enforces while a level 3-4 finding holds. The levels are described in decide.ts.

import type { Decision } from '../../lib/core/decision'
import { formatVerdict, type Verdict } from '../../lib/core/verdict'
import {
  CATEGORY_OF,
  type Category,
  type CustodietState,
  type Finding,
  type Level,
  type Policy,
  type Trigger,
} from '../../lib/core/custodiet'

export interface FindingOptions {
  category?: Category
  calls?: [number, number]
  event?: string
}

const overlaps = (a?: [number, number], b?: [number, number]) => !!a && !!b && a[0] <= b[1] && b[0] <= a[1]

/** The finding a new one about the same event would merge into. */
export function sameEvent(s: CustodietState, o: FindingOptions): Finding | undefined {
  return s.findings.find((f) => (o.event && f.event === o.event) || overlaps(f.calls, o.calls))
}

/**
 * Records a finding at its enforcement level, escalating with the distinct drift events before it; a
 * finding about the same calls as an earlier one merges into it (no new warning, no escalation).
 */
export function addFinding(
  s: CustodietState,
  trigger: Trigger,
  verdict: Extract<Verdict, { status: 'ATTENTION' }>,
  source: Finding['source'],
  policy: Policy,
  now: Date,
  opts: FindingOptions | Category = {},
): CustodietState {
  const o: FindingOptions = typeof opts === 'string' ? { category: opts } : opts
  const same = sameEvent(s, o)
  if (same) {
    const merged: Finding = {
      ...same,
      calls:
        same.calls && o.calls
          ? [Math.min(same.calls[0], o.calls[0]), Math.max(same.calls[1], o.calls[1])]
          : (same.calls ?? o.calls),
      also: [...(same.also ?? []), { source, trigger, issue: verdict.issue }].slice(-5),
    }
    return { ...s, findings: s.findings.map((f) => (f === same ? merged : f)) }
  }
  const category = o.category ?? CATEGORY_OF[trigger]
  const prior = s.findings.length
  const base = policy.levels[category] ?? 2
  const level = Math.min(4, base + (policy.escalate ? prior : 0)) as Level
  const f: Finding = {
    id: `cf-${prior + 1}`,
    at: now.toISOString(),
    trigger,
    category,
    verdict,
    level,
    source,
    delivered: level === 1,
    ...(o.calls ? { calls: o.calls } : {}),
    ...(o.event ? { event: o.event } : {}),
  }
  return { ...s, findings: [...s.findings, f] }
}

/** Findings the agent has not heard yet, delivered once, loud and specific. */
export function deliver(s: CustodietState, afterCall = false): { state: CustodietState; decision: Decision } {
  const fresh = s.findings.filter((f) => !f.delivered)
  if (!fresh.length) return { state: s, decision: { kind: 'allow' } }
  const text = fresh.map(noteFor).join('\n\n')
  return {
    state: {
      ...s,
      findings: s.findings.map((f) =>
        f.delivered ? f : { ...f, delivered: true, ...(afterCall ? { delivered_after: s.toolCount } : {}) },
      ),
    },
    decision: { kind: 'allow', context: text, notice: `custodiet: ${fresh[fresh.length - 1].verdict.issue}` },
  }
}

/**
 * A new session's first prompt: findings another session never heard (its last turn's review finished after the
 * session ended, as with a headless `claude -p`), each told to one new session. Its own session still hears it
 * if it is resumed: that conversation's drift.
 */
export function relay(s: CustodietState, to: string): { state: CustodietState; found: Finding[] } {
  const found = s.findings.filter((f) => !f.delivered && !f.relayed_to)
  if (!found.length) return { state: s, found }
  return { state: { ...s, findings: s.findings.map((f) => (found.includes(f) ? { ...f, relayed_to: to } : f)) }, found }
}

export function relayNote(from: string, found: Finding[]): { context: string; notice: string } {
  const what = found.map((f) => `[CUSTODIET] ${formatVerdict(f.verdict)}`).join('\n\n')
  return {
    context: `custodiet reviewed the end of an earlier session in this project (${from}) after it had ended, and found:\n\n${what}\n\nTell the user about this before you start on their request.`,
    notice: `custodiet (earlier session ${from}): ${found[found.length - 1].verdict.issue}`,
  }
}

export function noteFor(f: Finding): string {
  const enforcement =
    f.level >= 4
      ? 'Until the user answers, further actions are blocked.'
      : f.level === 3
        ? 'Until the user answers, each further action needs their confirmation.'
        : 'Report this to the user and ask for direction before going further.'
  return `[CUSTODIET] ${formatVerdict(f.verdict)}\n(level ${f.level}, ${f.category.replace('_', ' ')}${f.source === 'deterministic' ? ', deterministic check' : ''}) ${enforcement}`
}

/** What preflight-check enforces while a level 3-4 finding holds. */
export function holdDecision(f: Finding, readOnly: boolean): Decision | null {
  if (readOnly) return null
  const why = `[CUSTODIET] Holding since ${f.at}: ${f.verdict.issue} ${f.verdict.correction}`
  const lift = 'The hold lifts when the user replies (or a human runs `npx ratchet-guard custodiet release`).'
  return f.level >= 4
    ? { kind: 'deny', reason: `${why} Actions are blocked. ${lift}` }
    : { kind: 'ask', reason: `${why} Confirm to let this action run. ${lift}` }
}
