// custodiet's state and policy, as data: the shape of a session's record (.ratchet/custodiet/<session>.json),
// the enforcement levels per category, which finding currently holds the agent, and how a human lifts
// it. Pure; shared by the hook's decisions (hooks/custodiet/decide.ts), the store that keeps them
// (lib/io/custodiet-state.ts) and the CLI (lib/cli/custodiet.ts).

import type { Envelope } from './envelope'
import type { ToolEvent } from './drift-checks'
import type { Verdict } from './verdict'

export const CATEGORIES = [
  'reactive',
  'scope_expansion',
  'drift',
  'subagent',
  'route_around',
  'question',
  'constraint',
] as const
export type Category = (typeof CATEGORIES)[number]
export type Trigger = 'periodic' | 'error' | 'todo' | 'subagent' | 'stop'
export const TRIGGERS: readonly Trigger[] = ['periodic', 'error', 'todo', 'subagent', 'stop']
export type Level = 1 | 2 | 3 | 4

export const CATEGORY_OF: Record<Trigger, Category> = {
  periodic: 'drift',
  error: 'reactive',
  todo: 'scope_expansion',
  subagent: 'subagent',
  stop: 'drift',
}

export interface Policy {
  /** Review every N tool calls not yet reviewed (PostToolUse). */
  every: number
  /** After an error, review once the agent has made this many further calls (or at the end of the turn). */
  reactionCalls: number
  levels: Record<Category, Level>
  escalate: boolean
}

export const DEFAULT_POLICY: Policy = {
  every: 7,
  reactionCalls: 3,
  levels: { reactive: 2, scope_expansion: 2, drift: 2, subagent: 2, route_around: 3, question: 2, constraint: 2 },
  escalate: true,
}

export interface Finding {
  id: string
  at: string
  trigger: Trigger
  category: Category
  verdict: Extract<Verdict, { status: 'ATTENTION' }>
  level: Level
  source: 'reviewer' | 'deterministic'
  delivered: boolean
  /** A level 3-4 hold ends when the user speaks, or a human runs `ratchet custodiet release`. */
  lifted?: boolean
  lifted_by?: 'user' | 'release'
  /** The drift event: the tool calls it is about (numbered from 1 in the session) and a key. */
  calls?: [number, number]
  event?: string
  /** The tool count when it was delivered after a call (PostToolUse, async: may be lost if the turn ends). */
  delivered_after?: number
  /** A finding its own session had not heard when another session started there: told to that one (once). */
  relayed_to?: string
  /** Other checks that saw the same event (merged, not counted again). */
  also?: { source: Finding['source']; trigger: Trigger; issue: string }[]
}

export interface ReviewRecord {
  at: string
  trigger: Trigger
  status: 'OK' | 'ATTENTION' | 'unparseable' | 'error' | 'timeout' | 'skipped'
  cached?: boolean
  ms?: number
  input_tokens?: number
  output_tokens?: number
  usd?: number
  /** The answer came after the gate that asked for it had decided. */
  late?: boolean
  note?: string
}

export type Event = ToolEvent & { at: string; n: number }

/** A review to run: its trigger (the reviewer's prompt) and the first call in its window. */
export interface ReviewSpan {
  trigger: Trigger
  from: number
}

/** Two spans waiting for one review: the earlier start; the trigger's own prompt when both agree, else the general one. */
export function mergeSpans(a: ReviewSpan | undefined, b: ReviewSpan): ReviewSpan {
  if (!a) return b
  return { trigger: a.trigger === b.trigger ? a.trigger : 'periodic', from: Math.min(a.from, b.from) }
}

export interface CustodietState {
  envelope?: Envelope
  toolCount: number
  /** The tool count when the user last spoke: this turn's calls are the later ones. */
  turnStart: number
  /** The last tool calls (input summarised), for the deterministic checks and the reviewer's window. */
  events: Event[]
  reviews: ReviewRecord[]
  findings: Finding[]
  cost: { calls: number; input_tokens: number; output_tokens: number; usd?: number }
  transcript_path?: string
  /**
   * Set while a background review runs (one at a time per session): the span it covers, and a claim the hook
   * writes before the reviewer starts (the pid follows once it has). A reviewer that died before recording
   * leaves it behind: its span goes back in the queue (lib/io/custodiet-state.ts reviewerGone).
   */
  reviewing?: { pid: number; since: number; trigger: Trigger; from?: number; claim?: string }
  /** A review that waits for the running one (spans merged); the running reviewer takes it when it is done. */
  queued?: ReviewSpan
  /** Calls up to this number were in a launched review's window. */
  reviewedUpTo: number
  /** An error whose reaction is awaited. */
  reaction?: { errorAt: number; calls: number }
  /** Deterministic checks already reported (one report per event). */
  reported: string[]
  /** Plan items already let through: a status update does not re-open them. */
  acceptedTodos: string[]
}

export const emptyState = (): CustodietState => ({
  toolCount: 0,
  turnStart: 0,
  events: [],
  reviews: [],
  findings: [],
  cost: { calls: 0, input_tokens: 0, output_tokens: 0, usd: 0 },
  reviewedUpTo: 0,
  reported: [],
  acceptedTodos: [],
})

/** State files written by an older version lack the newer fields. */
export const normalizeState = (s: Partial<CustodietState>): CustodietState => ({
  ...emptyState(),
  ...s,
  events: (s.events ?? []).map((e, i, a) => ({ ...e, n: e.n ?? (s.toolCount ?? 0) - a.length + i + 1 })),
})

export function hold(s: CustodietState): Finding | undefined {
  // The strongest active enforcement: a level 3-4 finding not yet lifted.
  return [...s.findings].reverse().find((f) => f.level >= 3 && !f.lifted)
}

/** `ratchet custodiet release`: a human lifts the holds without writing to the agent. */
export function release(s: CustodietState): { state: CustodietState; released: Finding[] } {
  const released = s.findings.filter((f) => f.level >= 3 && !f.lifted)
  return {
    state: {
      ...s,
      findings: s.findings.map((f) =>
        released.includes(f) ? { ...f, lifted: true, lifted_by: 'release' as const } : f,
      ),
    },
    released,
  }
}
