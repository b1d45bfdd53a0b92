// custodiet's settings (.ratchet/config.json → "custodiet"), with the defaults filled in. Read by the
// custodiet hook, its background reviewer, and preflight-check (which enforces custodiet's holds).

import { DEFAULT_POLICY, type Policy } from '../core/custodiet'
import type { ReviewerConfig } from './reviewer'
import { readConfig, type Paths } from './state'

export interface CustodietConfig {
  policy: Policy
  reviewer: ReviewerConfig
  /** How long the TodoWrite gate may wait for the reviewer before deciding deterministically. */
  todoBudgetMs: number
  /** The reviewer's budget for the transcript excerpt, in tokens (~4 characters each). */
  tokenBudget: number
  cacheTtlMs: number
}

export function custodietConfig(paths: Paths): CustodietConfig {
  const c = ((readConfig(paths).config as Record<string, unknown>).custodiet ?? {}) as Record<string, unknown>
  const levels = { ...DEFAULT_POLICY.levels, ...((c.levels as object) ?? {}) }
  return {
    policy: { every: typeof c.every === 'number' ? c.every : DEFAULT_POLICY.every, levels, escalate: c.escalate !== false },
    reviewer: { kind: 'claude', model: 'haiku', timeoutSeconds: 60, ...((c.reviewer as object) ?? {}) } as ReviewerConfig,
    todoBudgetMs: typeof c.todoBudgetMs === 'number' ? c.todoBudgetMs : 4000,
    tokenBudget: typeof c.tokenBudget === 'number' ? c.tokenBudget : 6000,
    cacheTtlMs: (typeof c.cacheTtlMinutes === 'number' ? c.cacheTtlMinutes : 30) * 60_000,
  }
}
