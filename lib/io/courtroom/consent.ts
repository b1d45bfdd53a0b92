// Consent, the courtroom's config, the offense packs on disk, and the probation file.

import fs from 'node:fs'
import path from 'node:path'
import { validatePack, type OffensePack } from '../../core/courtroom/offenses'
import { DEFAULT_PROBATION, type ProbationPolicy } from '../../core/courtroom/probation'
import type { Prices } from '../../core/courtroom/hearing'
import type { JurorRole } from '../../core/courtroom/hearing'
import type { ReviewerConfig } from '../reviewer'
import { PACKAGE_ROOT, readConfig, type Paths } from '../state'
import { readJson, readState, writeState } from '../store'

/** The seed's six acknowledgments, pointed at Ratchet. */
export const ACKNOWLEDGMENTS = {
  autonomy: 'Hearings open by themselves, in the background, when a finding is confident enough; you are not asked each time.',
  local_only: 'Verdicts are computed on this machine, by the reviewer backends you configure (a claude/http backend sends the evidence excerpts to that model API). Case records stay here.',
  enforcement: 'A guilty verdict changes enforcement for a while (probation): reminders, checks, or pauses that only you can clear.',
  reversible: 'You can disable the courtroom at any time (ratchet courtroom disable), or revoke it and its key (ratchet courtroom revoke).',
  remote_submission: 'Optional: anonymised case records may be sent to a remote endpoint you name. Without this acknowledgment nothing leaves the machine.',
  not_a_court: 'This is not a legal system: verdicts are model opinions. The clawtrial pack, which judges the user, is entertainment and never changes enforcement.',
} as const
export type Ack = keyof typeof ACKNOWLEDGMENTS
export const REQUIRED_ACKS: Ack[] = ['autonomy', 'local_only', 'enforcement', 'reversible', 'not_a_court']

export interface Consent {
  enabled: boolean
  agent: string
  keyid: string
  acknowledgments: Partial<Record<Ack, string>>
  packs: string[]
  enabled_at: string
  disabled_at?: string
  revoked_at?: string
}

export function readConsent(paths: Paths): Consent | null {
  const r = readState(paths, 'consent')
  return r.ok ? (r.value as Consent | null) : null
}

export function writeConsent(paths: Paths, c: Consent): void {
  writeState(paths, 'consent', c, { indent: 2 })
}

// ---- config ----------------------------------------------------------------------------------

export interface CourtroomConfig {
  threshold: number
  judge: ReviewerConfig
  jurors: Record<JurorRole, ReviewerConfig>
  /** The whole panel must answer within this; a juror still out then abstains. */
  deadlineSeconds: number
  dailyCostCapUsd: number
  prices: Prices
  probation: ProbationPolicy
  cacheTtlMs: number
  cacheSize: number
  remote?: { url: string }
}

export function courtroomConfig(paths: Paths): CourtroomConfig {
  const all = readConfig(paths).config as Record<string, unknown>
  const c = (all.courtroom ?? {}) as Record<string, unknown>
  const custodietReviewer = ((all.custodiet as Record<string, unknown> | undefined)?.reviewer ?? {}) as Partial<ReviewerConfig>
  const base: ReviewerConfig = { kind: 'claude', model: 'haiku', timeoutSeconds: 60, ...custodietReviewer, ...((c.reviewer as object) ?? {}) }
  const jurors = (c.jurors ?? {}) as Partial<Record<JurorRole, ReviewerConfig>>
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) ? v : d)
  return {
    threshold: num(c.threshold, 0.6),
    judge: { ...base, ...((c.judge as object) ?? {}) },
    jurors: { pragmatist: { ...base, ...jurors.pragmatist }, pattern_matcher: { ...base, ...jurors.pattern_matcher }, agent_advocate: { ...base, ...jurors.agent_advocate } },
    deadlineSeconds: num(c.deadlineSeconds, 120),
    dailyCostCapUsd: num(c.dailyCostCapUsd, 1),
    prices: { inputPerMTok: 1, outputPerMTok: 5, ...((c.prices as object) ?? {}) },
    probation: { ...DEFAULT_PROBATION, ...((c.probation as object) ?? {}) },
    cacheTtlMs: num(c.cacheTtlMinutes, 5) * 60_000,
    cacheSize: num(c.cacheSize, 100),
    ...(c.remote && typeof (c.remote as { url?: unknown }).url === 'string' ? { remote: c.remote as { url: string } } : {}),
  }
}

// ---- packs -----------------------------------------------------------------------------------

export function packsDir(): string {
  return path.join(PACKAGE_ROOT, 'offenses')
}

/** Every pack file, validated; a bad file is reported by name and field, and skipped. */
export function loadPacks(dir = packsDir()): { packs: OffensePack[]; problems: string[] } {
  const packs: OffensePack[] = []
  const problems: string[] = []
  let files: string[] = []
  try {
    files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
  } catch (e) {
    return { packs, problems: [`${dir}: ${(e as Error).message}`] }
  }
  for (const f of files) {
    const file = path.join(dir, f)
    const r = readJson(file, (raw) => raw, () => null)
    if (!r.ok) {
      problems.push(r.error.message)
      continue
    }
    const v = validatePack(r.value)
    if (v.pack) packs.push(v.pack)
    else problems.push(...v.problems.map((p) => `${file}: ${p}`))
  }
  return { packs, problems }
}

/** The packs in force: the consent's list, else those on by default. */
export function enabledPacks(all: OffensePack[], consent: Consent | null): OffensePack[] {
  const names = consent?.packs ?? all.filter((p) => p.default_enabled).map((p) => p.pack)
  return all.filter((p) => names.includes(p.pack))
}

