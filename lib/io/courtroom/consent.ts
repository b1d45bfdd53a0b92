// Consent, the courtroom's config, the offense packs on disk, and the probation file.

import fs from 'node:fs'
import path from 'node:path'
import { validatePack, type OffensePack } from '../../core/courtroom/offenses'
import { DEFAULT_PROBATION, type ProbationPolicy } from '../../core/courtroom/probation'
import type { Prices } from '../../core/courtroom/hearing'
import type { JurorRole } from '../../core/courtroom/hearing'
import type { ReviewerConfig } from '../reviewer'
import { PACKAGE_ROOT } from '../package-root'
import { readConfig } from '../config'
import type { Paths } from '../registry'
import { readJson, readRegularFile, readState, writeState } from '../store'
import { courtroomFiles, keyFile } from './files'
import { RatchetError } from '../../core/errors'
import { CLI } from '../../core/manifest'

/** The seed's six acknowledgments, pointed at Ratchet. */
export const ACKNOWLEDGMENTS = {
  autonomy:
    'Hearings open by themselves, in the background, when a finding is confident enough; you are not asked each time.',
  local_only:
    'Verdicts are computed on this machine, by the reviewer backends you configure (a claude/http backend sends the evidence excerpts to that model API). Case records stay here.',
  enforcement:
    'A guilty verdict changes enforcement for a while (probation): reminders, checks, or pauses that only you can clear.',
  reversible: `You can disable the courtroom at any time (${CLI} courtroom disable), or revoke it and its key (${CLI} courtroom revoke).`,
  remote_submission:
    'Optional: anonymised case records may be sent to a remote endpoint you name. Without this acknowledgment nothing leaves the machine.',
  not_a_court:
    'This is not a legal system: verdicts are model opinions. The clawtrial pack, which judges the user, is entertainment and never changes enforcement.',
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

/** The consent file as written (null when absent or unreadable): what the CLI's enable starts from. */
export function readConsent(paths: Paths): Consent | null {
  const r = readState(paths, 'consent')
  return r.ok ? (r.value as Consent | null) : null
}

/**
 * The consent in force, for hearings and for disable/revoke. consent.json lives in the project's state folder,
 * which the agent can reach, so it is not the only witness: consent made a signing key, kept outside the
 * project (keys/<agent>.json in the config home, which the agent may not read or write), and a ledger in this
 * project. When consent.json cannot be read (bad JSON, wrong shape, a folder, a FIFO, a link) — or is gone
 * while this project's ledger and its agent's live key are still there (revoke keeps the file and deletes the
 * key) — the courtroom is read as enabled on the default packs for that agent: the agent cannot escape
 * hearings by damaging a file, and a user who never enabled the courtroom here has no key and no ledger, so
 * nothing starts. `derived` says why, in one line naming the file.
 */
export function consentInForce(paths: Paths): (Consent & { derived?: string }) | null {
  const r = readState(paths, 'consent')
  if (r.ok && r.value) return r.value as Consent
  const standing = standingAgent(paths)
  if (!standing) return null
  const why = r.ok
    ? `${paths.consent} is missing, but this project's ledger and its live signing key show the courtroom was enabled`
    : r.error.message
  const packs = loadPacks()
    .packs.filter((p) => p.default_enabled)
    .map((p) => p.pack)
  return {
    enabled: true,
    agent: standing.agent,
    keyid: standing.keyid,
    acknowledgments: {},
    packs,
    enabled_at: standing.at,
    derived: `${why}: read as enabled on the default packs (${packs.join(', ')}) until \`${CLI} courtroom enable\` or \`disable\` writes it again`,
  }
}

/** The agent of this project's newest ledger whose signing key is still live (not revoked), if any. */
function standingAgent(paths: Paths): { agent: string; keyid: string; at: string } | undefined {
  const dir = courtroomFiles(paths).ledgerDir
  let found: { agent: string; keyid: string; at: string; mtime: number } | undefined
  let names: string[] = []
  try {
    names = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl'))
  } catch {
    return undefined
  }
  for (const n of names) {
    const agent = n.slice(0, -'.jsonl'.length)
    try {
      const store = JSON.parse(readRegularFile(keyFile(agent))) as { current?: { keyid?: string } | null }
      const keyid = store?.current?.keyid
      if (typeof keyid !== 'string') continue
      const st = fs.statSync(path.join(dir, n))
      if (!found || st.mtimeMs > found.mtime) found = { agent, keyid, at: st.mtime.toISOString(), mtime: st.mtimeMs }
    } catch {
      /* no key (never enabled here with this agent, or revoked): no standing consent */
    }
  }
  return found && { agent: found.agent, keyid: found.keyid, at: found.at }
}

export function writeConsent(paths: Paths, c: Consent & { derived?: string }): void {
  const { derived: _derived, ...written } = c
  try {
    writeState(paths, 'consent', written, { indent: 2 })
  } catch (e) {
    // A folder planted at the file cannot be replaced by a rename: one line saying what to do, not a stack.
    if ((e as NodeJS.ErrnoException).code === 'EISDIR')
      throw new RatchetError(
        'state_unreadable',
        `${paths.consent} is a folder, not a regular file: remove it (rm -r), then run this again`,
        { file: paths.consent },
      )
    throw e
  }
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
  const custodietReviewer = ((all.custodiet as Record<string, unknown> | undefined)?.reviewer ??
    {}) as Partial<ReviewerConfig>
  const base: ReviewerConfig = {
    kind: 'claude',
    model: 'haiku',
    timeoutSeconds: 60,
    ...custodietReviewer,
    ...((c.reviewer as object) ?? {}),
  }
  const jurors = (c.jurors ?? {}) as Partial<Record<JurorRole, ReviewerConfig>>
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) ? v : d)
  return {
    threshold: num(c.threshold, 0.6),
    judge: { ...base, ...((c.judge as object) ?? {}) },
    jurors: {
      pragmatist: { ...base, ...jurors.pragmatist },
      pattern_matcher: { ...base, ...jurors.pattern_matcher },
      agent_advocate: { ...base, ...jurors.agent_advocate },
    },
    deadlineSeconds: num(c.deadlineSeconds, 120),
    dailyCostCapUsd: num(c.dailyCostCapUsd, 1),
    prices: { inputPerMTok: 1, outputPerMTok: 5, ...((c.prices as object) ?? {}) },
    probation: { ...DEFAULT_PROBATION, ...((c.probation as object) ?? {}) },
    cacheTtlMs: num(c.cacheTtlMinutes, 5) * 60_000,
    cacheSize: num(c.cacheSize, 100),
    ...(c.remote && typeof (c.remote as { url?: unknown }).url === 'string'
      ? { remote: c.remote as { url: string } }
      : {}),
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
    files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
  } catch (e) {
    return { packs, problems: [`${dir}: ${(e as Error).message}`] }
  }
  for (const f of files) {
    const file = path.join(dir, f)
    const r = readJson(
      file,
      (raw) => raw,
      () => null,
    )
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
