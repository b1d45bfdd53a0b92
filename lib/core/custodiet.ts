// custodiet's state and policy, as data: the shape of a session's record (.ratchet/custodiet/<session>.json),
// the enforcement levels per category, and which finding currently holds the agent. Pure; shared by
// the hook's decisions (hooks/custodiet/decide.ts) and the store that keeps them (lib/io/custodiet-state.ts).

import type { Envelope, ToolEvent } from './envelope'
import type { Verdict } from './verdict'

export const CATEGORIES = ['reactive', 'scope_expansion', 'drift', 'subagent', 'route_around'] as const
export type Category = (typeof CATEGORIES)[number]
export type Trigger = 'periodic' | 'error' | 'todo' | 'subagent'
export type Level = 1 | 2 | 3 | 4

export interface Policy {
  /** Review every N tool calls (PostToolUse). */
  every: number
  levels: Record<Category, Level>
  escalate: boolean
}

export const DEFAULT_POLICY: Policy = { every: 7, levels: { reactive: 2, scope_expansion: 2, drift: 2, subagent: 2, route_around: 3 }, escalate: true }

export interface Finding {
  id: string
  at: string
  trigger: Trigger
  category: Category
  verdict: Extract<Verdict, { status: 'ATTENTION' }>
  level: Level
  source: 'reviewer' | 'deterministic'
  delivered: boolean
  /** A level 3-4 hold ends when the user speaks (or, for 3, confirms the next action). */
  lifted?: boolean
}

export interface ReviewRecord {
  at: string
  trigger: Trigger
  status: 'OK' | 'ATTENTION' | 'unparseable' | 'error' | 'timeout' | 'skipped'
  cached?: boolean
  ms?: number
  input_tokens?: number
  output_tokens?: number
  note?: string
}

export interface CustodietState {
  envelope?: Envelope
  toolCount: number
  /** The last tool calls (input summarised), for the deterministic Type A check and the reviewer. */
  events: (ToolEvent & { at: string })[]
  reviews: ReviewRecord[]
  findings: Finding[]
  cost: { calls: number; input_tokens: number; output_tokens: number }
  transcript_path?: string
  /** Set while a background review runs, so a looping agent does not start a second one. */
  reviewing?: { pid: number; since: number; trigger: Trigger }
  /** Index in `events` of the error whose reactive signals were already reported. */
  reactiveReportedFor?: number
}

export const emptyState = (): CustodietState => ({ toolCount: 0, events: [], reviews: [], findings: [], cost: { calls: 0, input_tokens: 0, output_tokens: 0 } })

export function hold(s: CustodietState): Finding | undefined {
  // The strongest undelivered-or-active enforcement: a level 3-4 finding not yet lifted by the user.
  return [...s.findings].reverse().find((f) => f.level >= 3 && !f.lifted)
}
