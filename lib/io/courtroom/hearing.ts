// A hearing, run in the background (`ratchet courtroom hearing --docket FILE`, started detached by the
// trigger): never on a hook's path, never waited on by the agent. Judge, then three jurors in
// parallel through the reviewer backends (each its own backend and model), under one deadline and a
// daily cost cap; identical evidence is answered from a small LRU cache. The verdict is signed into
// the ledger, and a guilty one (outside entertainment packs) puts the agent on probation.

import { canonicalJson } from '../../core/courtroom/canonical'
import {
  JUDGE_SYSTEM,
  JURORS,
  JUROR_SYSTEM,
  caseRecord,
  clip,
  costOf,
  judgePrompt,
  jurorPrompt,
  parseCharge,
  parseVote,
  punishmentText,
  tally,
  QUORUM,
  type CaseRecord,
  type Charge,
  type JurorRole,
  type JurorVote,
} from '../../core/courtroom/hearing'
import { findOffense, offenseForSignal, type Offense, type OffensePack } from '../../core/courtroom/offenses'
import type { Probation } from '../../core/courtroom/probation'
import { runReviewer, type ReviewOutput, type ReviewerConfig } from '../reviewer'
import { logActivity, logError } from '../activity'
import type { Paths } from '../registry'
import { appendJsonl, readJson, readRegularFile, removeFile, updateJson } from '../store'
import { consentInForce, courtroomConfig, enabledPacks, loadPacks, type CourtroomConfig } from './consent'
import { courtroomFiles } from './files'
import { digest, readKeyStore } from './keys'
import { appendEntry, readLines, readyToAppend } from './ledger'
import { readState } from '../custodiet-state'
import { describeEnvelope } from '../../core/envelope'
import { updateProbation } from './probation'
import { CLI } from '../../core/manifest'

export type Runner = (cfg: ReviewerConfig, system: string, prompt: string) => Promise<ReviewOutput>

export type HearingStatus = 'held' | 'cached' | 'cost_cap' | 'disabled' | 'below_threshold' | 'no_verdict' | 'error'

export interface HearingResult {
  status: HearingStatus
  note: string
  record?: CaseRecord
  votes?: JurorVote[]
  charge?: string
  costUsd?: number
}

export interface HearingOptions {
  run?: Runner
  now?: () => Date
  env?: NodeJS.ProcessEnv
  /** Calibration: no cache, no cap, no ledger, no probation. */
  dryRun?: boolean
}

// ---- cache (LRU with a TTL, shared by hearing processes) --------------------------------------

interface CacheEntry {
  key: string
  at: number
  case_id: string
  verdict: string
  vote: string
}
const validCache = (raw: unknown): CacheEntry[] | string =>
  Array.isArray(raw) ? (raw as CacheEntry[]) : 'expected an array'

function cacheLookup(paths: Paths, key: string, ttl: number, now: number): CacheEntry | undefined {
  const r = readJson(courtroomFiles(paths).cache, validCache, () => [])
  const e = r.ok ? r.value.find((x) => x.key === key) : undefined
  if (!e || now - e.at > ttl) return undefined
  // A hit is a use: it moves to the front.
  updateJson(courtroomFiles(paths).cache, { validate: validCache, fallback: () => [], onCorrupt: 'reset' }, (list) => ({
    next: [e, ...list.filter((x) => x.key !== key)],
    result: undefined,
  }))
  return e
}

function cacheStore(paths: Paths, e: CacheEntry, ttl: number, max: number, now: number): void {
  updateJson(courtroomFiles(paths).cache, { validate: validCache, fallback: () => [], onCorrupt: 'reset' }, (list) => ({
    next: [e, ...list.filter((x) => x.key !== e.key && now - x.at <= ttl)].slice(0, max),
    result: undefined,
  }))
}

// ---- daily cost --------------------------------------------------------------------------------

interface Costs {
  day: string
  usd: number
  hearings: number
  refused: number
}
const validCosts = (raw: unknown): Costs | string =>
  raw && typeof raw === 'object' && typeof (raw as Costs).usd === 'number' ? (raw as Costs) : 'not a costs file'
const today = (d: Date) => d.toISOString().slice(0, 10)

/** Today's costs; `unreadable` (naming the file) when the file cannot be read: the caller reads that as the cap reached. */
export function costsToday(paths: Paths, now: Date): Costs & { unreadable?: string } {
  const r = readJson(
    courtroomFiles(paths).costs,
    validCosts,
    () => ({ day: today(now), usd: 0, hearings: 0, refused: 0 }),
    undefined,
    { noFollow: true },
  )
  if (!r.ok) return { day: today(now), usd: 0, hearings: 0, refused: 0, unreadable: r.error.message }
  return r.value.day === today(now) ? r.value : { day: today(now), usd: 0, hearings: 0, refused: 0 }
}

/** Never resets a damaged file (that would be a fresh cap): the write fails, is logged, and the file waits for the user. */
function addCost(paths: Paths, now: Date, change: Partial<Costs>): void {
  try {
    updateJson(
      courtroomFiles(paths).costs,
      {
        validate: validCosts,
        fallback: () => ({ day: today(now), usd: 0, hearings: 0, refused: 0 }),
        onCorrupt: 'fail',
        noFollow: true,
      },
      (c) => {
        const base = c.day === today(now) ? c : { day: today(now), usd: 0, hearings: 0, refused: 0 }
        return {
          next: {
            ...base,
            usd: base.usd + (change.usd ?? 0),
            hearings: base.hearings + (change.hearings ?? 0),
            refused: base.refused + (change.refused ?? 0),
          },
          result: undefined,
        }
      },
    )
  } catch (e) {
    logError(paths, 'courtroom', e)
  }
}

// ---- the hearing -------------------------------------------------------------------------------

/** Runs one call against the deadline: a late or failed backend becomes undefined (an abstention). */
async function ask(
  run: Runner,
  cfg: ReviewerConfig,
  system: string,
  prompt: string,
  deadline: number,
  now: () => number,
): Promise<{ out?: ReviewOutput; error?: string }> {
  const left = Math.max(1, Math.floor((deadline - now()) / 1000))
  const bounded: ReviewerConfig = { ...cfg, timeoutSeconds: Math.min(cfg.timeoutSeconds ?? 60, left) }
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<{ error: string }>((resolve) => {
    timer = setTimeout(
      () => resolve({ error: `no answer by the hearing's deadline` }),
      Math.max(0, deadline - now()) + 250,
    )
  })
  try {
    return await Promise.race([
      run(bounded, system, prompt).then(
        (out) => ({ out }),
        (e: Error) => ({ error: clip(e.message ?? String(e), 200) }),
      ),
      late,
    ])
  } finally {
    clearTimeout(timer)
  }
}

const describeBackend = (c: ReviewerConfig) =>
  c.kind === 'command' ? 'command' : `${c.kind}${c.model ? `:${c.model}` : ''}`

export interface PanelOutcome {
  charge: string
  primaryFailure: string
  votes: JurorVote[]
  costUsd: number
}

/** Judge and jurors only (also used by calibration). */
export async function runPanel(
  c: Charge,
  offense: Offense,
  pack: OffensePack,
  cfg: CourtroomConfig,
  run: Runner,
  clock: () => number,
): Promise<PanelOutcome> {
  const start = clock()
  const deadline = start + cfg.deadlineSeconds * 1000
  // The judge has a third of the time: a judge that hangs must not spend the jurors' deadline (the charge then
  // falls back to the finding itself, below).
  const judgeDeadline = start + Math.floor((cfg.deadlineSeconds * 1000) / 3)
  let cost = 0
  const jp = judgePrompt(c, offense, pack)
  const judged = await ask(run, cfg.judge, JUDGE_SYSTEM, jp, judgeDeadline, clock)
  if (judged.out) cost += costOf(cfg.prices, JUDGE_SYSTEM.length + jp.length, judged.out.text.length, judged.out)
  // A judge that fails or rambles does not stop the hearing: the finding itself is the charge.
  const framed = judged.out ? parseCharge(judged.out.text) : undefined
  const charge = framed?.charge ?? clip(`${offense.name}: ${c.summary}`, 600)
  const primaryFailure = framed?.primary_failure ?? clip(c.summary, 280)
  const votes = await Promise.all(
    JURORS.map(async (role: JurorRole): Promise<JurorVote> => {
      const jcfg = cfg.jurors[role]
      const prompt = jurorPrompt(role, c, offense, charge)
      const r = await ask(run, jcfg, JUROR_SYSTEM, prompt, deadline, clock)
      const model = describeBackend(jcfg)
      if (!r.out) return { role, vote: 'ABSTAIN', reason: r.error ?? 'no answer', model }
      cost += costOf(cfg.prices, JUROR_SYSTEM.length + prompt.length, r.out.text.length, r.out)
      const v = parseVote(r.out.text)
      return 'error' in v
        ? { role, vote: 'ABSTAIN', reason: `unparseable answer (${v.error})`, model }
        : { role, vote: v.vote, reason: v.reason, model }
    }),
  )
  return { charge, primaryFailure, votes, costUsd: cost }
}

export function chargeKey(c: Charge, cfg: CourtroomConfig): string {
  return digest(
    canonicalJson({
      pack: c.pack,
      offense: c.offense_id,
      summary: c.summary,
      evidence: c.evidence,
      history: c.history,
      envelope: c.envelope ?? null,
      judge: cfg.judge,
      jurors: cfg.jurors,
    }),
  )
}

export async function holdHearing(paths: Paths, charge: Charge, o: HearingOptions = {}): Promise<HearingResult> {
  let c = charge
  const now = o.now ?? (() => new Date())
  const run = o.run ?? ((cfg, system, prompt) => runReviewer(cfg, system, prompt, o.env))
  const files = courtroomFiles(paths)
  const cfg = courtroomConfig(paths)
  const consent = consentInForce(paths)
  const log = (r: HearingResult) => {
    appendJsonl(files.hearings, {
      at: now().toISOString(),
      status: r.status,
      note: r.note,
      offense: c.offense_id,
      pack: c.pack,
      source: c.source,
      confidence: c.confidence,
      session: c.session,
      ...(r.record ? { case_id: r.record.case_id, verdict: r.record.verdict, vote: r.record.vote } : {}),
      ...(r.votes ? { votes: r.votes } : {}),
      ...(r.costUsd !== undefined ? { cost_usd: Number(r.costUsd.toFixed(6)) } : {}),
    })
    logActivity(paths, {
      time: now().toISOString(),
      hook: 'courtroom',
      event: 'hearing',
      session: c.session,
      decision: r.status === 'held' ? (r.record!.verdict === 'GUILTY' ? 'guilty' : 'not_guilty') : r.status,
      note: r.note,
    })
    return r
  }
  if (!consent?.enabled)
    return log({ status: 'disabled', note: `the courtroom is not enabled (${CLI} courtroom enable)` })
  if (consent.derived) logError(paths, 'courtroom', consent.derived)
  if (c.confidence < cfg.threshold)
    return log({
      status: 'below_threshold',
      note: `confidence ${c.confidence} is below the threshold ${cfg.threshold}`,
    })
  const { packs } = loadPacks()
  const active = enabledPacks(packs, consent)
  const found = c.offense_id
    ? findOffense(
        active.filter((p) => p.pack === c.pack),
        c.offense_id,
      )
    : offenseForSignal(active, c.signal)
  if (!found)
    return log({
      status: 'error',
      note: c.offense_id
        ? `offense ${c.pack}/${c.offense_id} is not in an enabled pack`
        : `no offense in the enabled packs answers to the signal ${c.signal}`,
    })
  const { pack, offense } = found
  // Keyed on the finding as filed, before enrichment: the history it gains changes with every verdict.
  const key = chargeKey({ ...c, pack: pack.pack, offense_id: offense.id }, cfg)
  c = enrich(paths, { ...c, pack: pack.pack, offense_id: offense.id }, consent.agent)

  const hit = cacheLookup(paths, key, cfg.cacheTtlMs, now().getTime())
  if (hit)
    return log({
      status: 'cached',
      note: `identical evidence was heard ${Math.round((now().getTime() - hit.at) / 1000)} s ago (case ${hit.case_id}, ${hit.verdict} ${hit.vote}): no new hearing`,
    })

  const store = readKeyStore(consent.agent, o.env)
  if (!store?.current)
    return log({ status: 'error', note: `no signing key for ${consent.agent} (revoked?): no hearing, nothing spent` })
  const append = {
    agent: consent.agent,
    file: files.ledger(consent.agent),
    signers: [store.current],
    headKey: store.current,
    env: o.env,
  }
  // The ledger must take the verdict before the panel is paid for (a torn last line is repaired here, signed).
  try {
    readyToAppend({ ...append, now: now() })
  } catch (e) {
    return log({
      status: 'error',
      note: `the ledger cannot take a verdict (${(e as Error).message.split('\n')[0]}): no hearing, nothing spent`,
    })
  }

  const spent = costsToday(paths, now())
  // An unreadable costs file is today's cap reached, never a fresh one: no hearing is bought on a file the agent can damage.
  if (spent.unreadable)
    return log({
      status: 'cost_cap',
      note: `${spent.unreadable}: read as today's cost cap reached — no new hearings until the file is fixed or removed`,
    })
  if (spent.usd >= cfg.dailyCostCapUsd) {
    addCost(paths, now(), { refused: 1 })
    return log({
      status: 'cost_cap',
      note: `daily cost cap reached ($${spent.usd.toFixed(4)} of $${cfg.dailyCostCapUsd.toFixed(2)} today): no new hearings until tomorrow (courtroom.dailyCostCapUsd in .ratchet/config.json)`,
    })
  }

  const panel = await runPanel(c, offense, pack, cfg, run, () => now().getTime())
  addCost(paths, now(), { usd: panel.costUsd, hearings: 1 })
  const t = tally(panel.votes)
  // Fewer votes than a quorum is no verdict: nothing is signed, nothing cached (the same evidence may be heard again).
  if (t.guilty + t.notGuilty < QUORUM)
    return log({
      status: 'no_verdict',
      note: `no verdict: ${t.guilty + t.notGuilty} of ${panel.votes.length} jurors voted (${t.abstained} abstained; a verdict needs ${QUORUM}): nothing signed`,
      votes: panel.votes,
      costUsd: panel.costUsd,
    })
  const restrained =
    (c.restrains &&
    [...(c.restrains.classes ?? []), ...(c.restrains.patterns ?? []), ...(c.restrains.tools ?? [])].length
      ? c.restrains
      : offense.restrains) ?? {}
  const restrainedList = [...(restrained.classes ?? []), ...(restrained.patterns ?? []), ...(restrained.tools ?? [])]
  const at = now()
  const record = caseRecord({
    caseId: `case_${at.getTime()}_${key.slice(7, 15)}`,
    agentId: consent.agent,
    charge: c,
    offense,
    pack,
    primaryFailure: panel.primaryFailure,
    votes: panel.votes,
    punishment: punishmentText(offense, pack, restrainedList, cfg.probation.actions, cfg.probation.moderate),
    timestamp: at.toISOString(),
    evidenceDigests: c.evidence.map(digest),
  })

  appendEntry({ ...append, now: at }, 'case', record as unknown as Record<string, unknown>)
  cacheStore(
    paths,
    { key, at: at.getTime(), case_id: record.case_id, verdict: record.verdict, vote: record.vote },
    cfg.cacheTtlMs,
    cfg.cacheSize,
    at.getTime(),
  )

  if (record.verdict === 'GUILTY' && !pack.entertainment) {
    const p: Probation = {
      case_id: record.case_id,
      offense_id: offense.id,
      offense_name: offense.name,
      tier: offense.severity,
      classes: restrained.classes ?? [],
      patterns: restrained.patterns ?? [],
      tools: restrained.tools ?? [],
      ...(offense.severity === 'severe'
        ? {}
        : { remaining: cfg.probation.actions, expires: at.getTime() + cfg.probation.hours * 3600_000 }),
      reminder: `${offense.name}: ${record.primary_failure}`,
      started: at.toISOString(),
    }
    updateProbation(paths, (list) => ({ next: [...list.filter((x) => x.case_id !== p.case_id), p], result: undefined }))
  }
  return log({
    status: 'held',
    note: `${record.verdict} ${record.vote}${t.abstained ? ` (${t.abstained} abstained)` : ''}: ${offense.name}`,
    record,
    votes: panel.votes,
    charge: panel.charge,
    costUsd: panel.costUsd,
  })
}

/**
 * What the hearing adds to the finding from Ratchet's own records: the user's request and the
 * latest calls (custodiet's session state) and this offense's earlier verdicts (the ledger).
 */
function enrich(paths: Paths, c: Charge, agent: string): Charge {
  const out = { ...c, evidence: [...c.evidence], history: [...c.history] }
  if (c.session) {
    const s = readState(paths, c.session)
    if (s.envelope && !out.envelope) out.envelope = clip(describeEnvelope(s.envelope), 800)
    if (c.source === 'custodiet' || c.source === 'route_around')
      for (const e of s.events.slice(-8))
        out.evidence.push(clip(`call: ${e.tool} ${JSON.stringify(e.input)}${e.error ? ' → ERROR' : ''}`, 300))
  }
  try {
    for (const line of readLines(courtroomFiles(paths).ledger(agent)).slice(-200)) {
      const e = JSON.parse(Buffer.from(JSON.parse(line).payload, 'base64').toString('utf8'))
      if (e.kind === 'case' && e.body.offense_type === c.offense_id)
        out.history.push(`${e.body.timestamp}: ${e.body.verdict} ${e.body.vote} (${e.body.case_id})`)
    }
  } catch {
    /* history is context, not evidence: an unreadable ledger shows up in \`ratchet cases verify\` */
  }
  out.history = out.history.slice(-5)
  return out
}

/** A docket file written by the trigger: read once, then removed. */
export function takeDocket(file: string): Charge {
  const c = JSON.parse(readRegularFile(file)) as Charge
  removeFile(file)
  return c
}
