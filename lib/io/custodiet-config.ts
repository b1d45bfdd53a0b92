// custodiet's settings (.ratchet/config.json → "custodiet"), with the defaults filled in, and the daily
// reviewer cap. Read by the custodiet hook, its background reviewer, the CLI, and preflight-check (which
// enforces custodiet's holds).

import { DEFAULT_POLICY, type Policy } from '../core/custodiet'
import { dailyCost } from './custodiet-state'
import type { ReviewerConfig } from './reviewer'
import { readConfig, type Paths } from './state'

export interface CustodietConfig {
  policy: Policy
  reviewer: ReviewerConfig
  /** How long the TodoWrite gate waits for the reviewer before deciding deterministically. */
  todoBudgetMs: number
  /** How long the end of a turn waits for its review before letting the turn end. */
  stopBudgetMs: number
  /** The reviewer's budget for the transcript excerpt, in tokens (~4 characters each). */
  tokenBudget: number
  cacheTtlMs: number
  /** Reviews stop for the day (deterministic checks go on) once either cap is reached. */
  dailyCap: { usd: number; calls: number }
  /** USD per million tokens, when the reviewer does not report its own cost. */
  price: { input: number; output: number }
}

/** A hook may wait at most this long for a model (the registration's timeout leaves room for the rest). */
export const MAX_GATE_MS = 20_000

export function custodietConfig(paths: Paths): CustodietConfig {
  const c = ((readConfig(paths).config as Record<string, unknown>).custodiet ?? {}) as Record<string, unknown>
  const levels = { ...DEFAULT_POLICY.levels, ...((c.levels as object) ?? {}) }
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) ? v : d)
  const cap = (c.dailyCap ?? {}) as Record<string, unknown>
  const price = (c.price ?? {}) as Record<string, unknown>
  return {
    policy: { every: num(c.every, DEFAULT_POLICY.every), reactionCalls: Math.max(1, num(c.reactionCalls, DEFAULT_POLICY.reactionCalls)), levels, escalate: c.escalate !== false },
    reviewer: { kind: 'claude', model: 'haiku', timeoutSeconds: 60, ...((c.reviewer as object) ?? {}) } as ReviewerConfig,
    // A real `claude -p --model haiku` review takes 5-15 s: the gates wait up to 15 s by default, inside
    // their 30 s registrations (lib/manifest.ts).
    todoBudgetMs: Math.min(MAX_GATE_MS, num(c.todoBudgetMs, 15_000)),
    stopBudgetMs: Math.min(MAX_GATE_MS, num(c.stopBudgetMs, 15_000)),
    tokenBudget: num(c.tokenBudget, 6000),
    cacheTtlMs: num(c.cacheTtlMinutes, 30) * 60_000,
    dailyCap: { usd: num(cap.usd, 2), calls: num(cap.calls, 500) },
    price: { input: num(price.input, 1), output: num(price.output, 5) },
  }
}

/** Reviews are off for today once the daily cap is reached (the deterministic checks go on). */
export function overCap(paths: Paths, cfg: CustodietConfig, now: Date): boolean {
  const d = dailyCost(paths, now.toISOString().slice(0, 10))
  return d.usd >= cfg.dailyCap.usd || d.calls >= cfg.dailyCap.calls
}
