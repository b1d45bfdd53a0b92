// custodiet's settings (.ratchet/config.json → "custodiet"), with the defaults filled in, and the daily
// reviewer cap. Read by the custodiet hook, its background reviewer, the CLI, and preflight-check (which
// enforces custodiet's holds).

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { DEFAULT_POLICY, type Policy } from '../core/custodiet'
import { readDailyCosts } from './custodiet-state'
import { claudeRoad, httpModel, type ReviewerConfig } from './reviewer'
import { readConfig } from './config'
import type { Paths } from './registry'
import { CLI } from '../core/manifest'

export interface CustodietConfig {
  policy: Policy
  reviewer: ReviewerConfig
  /** How long the TodoWrite gate waits for the reviewer before deciding deterministically. */
  todoBudgetMs: number
  /**
   * The end of a turn: 'background' (the default) reviews it after the turn has ended, and the verdict reaches
   * the agent with the next prompt (or its next hook); 'block' waits for the review, up to stopBudgetMs.
   */
  stopGate: StopGate
  /** With the gate: how long the end of a turn waits for its review before letting the turn end. */
  stopBudgetMs: number
  /** The reviewer's budget for the transcript excerpt, in tokens (~4 characters each). */
  tokenBudget: number
  cacheTtlMs: number
  /** Reviews stop for the day (deterministic checks go on) once either cap is reached. */
  dailyCap: { usd: number; calls: number }
  /** USD per million tokens, when the reviewer does not report its own cost. */
  price: { input: number; output: number }
}

export type StopGate = 'background' | 'block'

/** What each choice of custodiet.stopGate costs and gives, for init, doctor and `ratchet custodiet gate`. */
export function stopGateLine(gate: StopGate, budgetMs: number): string {
  return gate === 'block'
    ? `the end of every turn that changed something waits for custodiet's review (up to ${Math.round(budgetMs / 1000)} s; a real model takes 5-15 s), and a drift it finds keeps the turn going until the agent has told you. Off: ${CLI} custodiet gate off`
    : `the end of a turn does not wait for custodiet: its review runs in the background and a drift it finds reaches the agent with your next prompt (or after its next tool call); one found after the last turn of a session is in the activity log, \`${CLI} custodiet status\`, and told to the next session. To wait for it at every turn end instead: ${CLI} custodiet gate on`
}

/** custodiet.stopGate as written, or why it is not one of the two. */
export function stopGateOf(c: Record<string, unknown>): { gate: StopGate; problem?: string } {
  const v = c.stopGate
  if (v === undefined || v === 'background') return { gate: 'background' }
  if (v === 'block') return { gate: 'block' }
  return {
    gate: 'background',
    problem: `custodiet.stopGate is ${JSON.stringify(v)}, not "background" or "block": the end of a turn does not wait (the default)`,
  }
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
    policy: {
      every: num(c.every, DEFAULT_POLICY.every),
      reactionCalls: Math.max(1, num(c.reactionCalls, DEFAULT_POLICY.reactionCalls)),
      levels,
      escalate: c.escalate !== false,
    },
    reviewer: {
      kind: 'claude',
      model: 'haiku',
      timeoutSeconds: 60,
      ...((c.reviewer as object) ?? {}),
    } as ReviewerConfig,
    // A real `claude -p --model haiku` review takes 5-15 s: the gates (TodoWrite, and Stop when the user chose to
    // wait there) wait up to 15 s by default, inside
    // their 30 s registrations (lib/manifest.ts).
    todoBudgetMs: Math.min(MAX_GATE_MS, num(c.todoBudgetMs, 15_000)),
    stopGate: stopGateOf(c).gate,
    stopBudgetMs: Math.min(MAX_GATE_MS, num(c.stopBudgetMs, 15_000)),
    tokenBudget: num(c.tokenBudget, 6000),
    cacheTtlMs: num(c.cacheTtlMinutes, 30) * 60_000,
    dailyCap: { usd: num(cap.usd, 2), calls: num(cap.calls, 500) },
    price: { input: num(price.input, 1), output: num(price.output, 5) },
  }
}

/**
 * Why reviews are off today, if they are: the daily cap reached, or the cost file unreadable. Unreadable counts
 * as the cap reached (no review is spent, none is reset): an agent that damages custodiet/cost-daily.json gets
 * neither unlimited reviews on the user's account nor a fresh cap. What custodiet does without a review is
 * what it does at the cap: the deterministic checks, findings and holds go on.
 */
export function capReason(
  paths: Paths,
  cfg: CustodietConfig,
  now: Date,
): { reached: true } | { unreadable: string } | undefined {
  const all = readDailyCosts(paths)
  if (!all.ok) return { unreadable: all.problem }
  const d = all.days[now.toISOString().slice(0, 10)]
  return d && (d.usd >= cfg.dailyCap.usd || d.calls >= cfg.dailyCap.calls) ? { reached: true } : undefined
}

/** Reviews are off for today once the daily cap is reached, or its file cannot be read (the deterministic checks go on). */
export function overCap(paths: Paths, cfg: CustodietConfig, now: Date): boolean {
  return capReason(paths, cfg, now) !== undefined
}

/** What the reviewer is, whether it runs, where its key comes from, and what it spent: for doctor, init and the report. */
export interface ReviewerStatus {
  on: boolean
  /** In words: `claude -p --model haiku`, `the Anthropic API (claude-haiku-5-5)`, `the command "…"`, or `off`. */
  reviewer: string
  /** Where the model's key comes from, or what is missing (never the key). */
  credential: { found: boolean; detail: string }
  cap: { usd: number; calls: number }
  /** Spent per day (UTC) from `from` on, oldest first; today is the last day when anything was spent today. */
  days: { day: string; calls: number; input_tokens: number; output_tokens: number; usd: number }[]
  total: { calls: number; usd: number }
  today: { calls: number; usd: number }
  /** Today's cap reached: reviews are off until tomorrow (the deterministic checks go on). */
  reached: boolean
  /** The cost file cannot be read: reviews are off as at the cap. */
  unreadable?: string
}

function credentialOf(r: ReviewerConfig, env: NodeJS.ProcessEnv, home: string): ReviewerStatus['credential'] {
  if (r.kind === 'http')
    return env.ANTHROPIC_API_KEY
      ? { found: true, detail: 'ANTHROPIC_API_KEY is set' }
      : {
          found: false,
          detail: 'ANTHROPIC_API_KEY is not set: every review fails until it is (the deterministic checks go on)',
        }
  if (r.kind === 'command') return { found: true, detail: 'the command brings its own' }
  if (r.kind !== 'claude') return { found: true, detail: 'none needed' }
  for (const k of ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN'])
    if (env[k]) return { found: true, detail: `claude's login: ${k} is set` }
  const file = path.join(home, '.claude', '.credentials.json')
  if (fs.existsSync(file)) return { found: true, detail: `claude's login: ${file}` }
  return {
    found: false,
    detail:
      'no login found for claude (ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN or ~/.claude/.credentials.json; a keychain login is not visible here): reviews fail until claude is logged in',
  }
}

export function reviewerStatus(
  paths: Paths,
  o: { env?: NodeJS.ProcessEnv; home?: string; now?: Date; from?: string } = {},
): ReviewerStatus {
  const env = o.env ?? process.env
  const cfg = custodietConfig(paths)
  const r = cfg.reviewer
  const now = o.now ?? new Date()
  const today = now.toISOString().slice(0, 10)
  const from = (o.from ?? today).slice(0, 10)
  const costs = readDailyCosts(paths)
  const all = costs.ok ? costs.days : {}
  const days = Object.keys(all)
    .filter((d) => d >= from && d <= today)
    .sort()
    .map((day) => ({ day, ...all[day] }))
  const t = all[today] ?? { calls: 0, usd: 0 }
  const road = r.kind === 'claude' ? claudeRoad(r, env) : undefined
  const reviewer =
    road?.via === 'api'
      ? `the Anthropic API with claude's key (${road.model}; \`claude -p\` where the key is not in the session's environment)`
      : r.kind === 'claude'
        ? `claude -p --model ${r.model ?? 'haiku'}`
        : r.kind === 'http'
          ? `the Anthropic API (${httpModel(r, env)})`
          : r.kind === 'command'
            ? `the command ${JSON.stringify(r.command ?? '')}`
            : 'off'
  return {
    on: r.kind !== 'none',
    reviewer,
    credential: credentialOf(r, env, o.home ?? env.HOME ?? os.homedir()),
    cap: cfg.dailyCap,
    days,
    total: {
      calls: days.reduce((a, d) => a + d.calls, 0),
      usd: Math.round(days.reduce((a, d) => a + d.usd, 0) * 1e6) / 1e6,
    },
    today: { calls: t.calls, usd: t.usd },
    reached: !costs.ok || t.usd >= cfg.dailyCap.usd || t.calls >= cfg.dailyCap.calls,
    ...(costs.ok ? {} : { unreadable: costs.problem }),
  }
}

export const usd = (x: number): string => `$${x.toFixed(x > 0 && x < 1 ? 4 : 2)}`

/** One line: what the reviewer is and what it may cost, for `init` and `doctor`. */
export function reviewerLine(s: ReviewerStatus): string {
  if (!s.on)
    return 'off (custodiet.reviewer.kind is "none" in config.json): custodiet runs its deterministic checks only, at no cost'
  return `on: ${s.reviewer} reviews the session in the background, a paid model call each; at most ${usd(s.cap.usd)} or ${s.cap.calls} calls a day, then off until the next day (custodiet.dailyCap in config.json; custodiet.reviewer.kind "none" turns it off)`
}
