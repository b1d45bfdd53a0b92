// `custodiet review …` — the background reviewer, its own bundle (it loads node:child_process and the model
// clients, which the hooks never should). Started detached by the hook, or by the TodoWrite gate
// with --print to get the verdict back within the gate's budget.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { maskSecrets } from '../../lib/core/secrets'
import { fnv64 } from '../../lib/core/fingerprint'
import { parseVerdict, type Verdict } from '../../lib/core/verdict'
import { PACKAGE_ROOT } from '../../lib/io/package-root'
import { logError } from '../../lib/io/activity'
import { resolvePaths } from '../../lib/io/paths'
import type { Paths } from '../../lib/io/registry'
import { addDailyCost, cacheGet, cachePut, readState, updateState } from '../../lib/io/custodiet-state'
import { transcriptExcerpt } from '../../lib/io/transcript'
import { runReviewer } from '../../lib/io/reviewer'
import { RatchetError } from '../../lib/core/errors'
import { CATEGORY_OF, TRIGGERS, reviewPrompt, windowText, type CustodietState, type Trigger } from './decide'
import { addFinding } from './findings'
import { logFinding } from './record'
import { custodietConfig, overCap, type CustodietConfig } from '../../lib/io/custodiet-config'

/** One review: window + excerpt → prompt → cache or reviewer → strict parse → recorded (cost too). */
export async function review1(
  paths: Paths,
  session: string,
  s: CustodietState,
  trigger: Trigger,
  extra: string,
  cfg: CustodietConfig,
  o: { from?: number; timeoutSeconds?: number; transcript?: string; budgetMs?: number } = {},
): Promise<Verdict | undefined> {
  const started = Date.now()
  const late = () => (o.budgetMs !== undefined && Date.now() - started > o.budgetMs ? { late: true } : {})
  const run: ReviewRun = { paths, session, trigger, cfg, started, late }
  const { system, prompt } = await reviewInput(s, trigger, extra, cfg, o)
  const key = fnv64(`${trigger}\u0000${system}\u0000${prompt}`)
  const cachedText = cacheGet(paths, key, cfg.cacheTtlMs, Date.now())
  const answer =
    cachedText !== undefined
      ? { text: cachedText, usage: {} }
      : await askReviewer(run, system, prompt, o.timeoutSeconds)
  if (!answer) return undefined
  return recordAnswer(run, answer.text, cachedText !== undefined, answer.usage, key)
}

/** One review as it runs: where it is recorded, and since when (for `ms` and `late`). */
interface ReviewRun {
  paths: Paths
  session: string
  trigger: Trigger
  cfg: CustodietConfig
  started: number
  late: () => { late?: boolean }
}

type Usage = { input_tokens?: number; output_tokens?: number; usd?: number }

/** The reviewer's system prompt and the review's prompt: the calls under review and the transcript, secrets masked. */
async function reviewInput(
  s: CustodietState,
  trigger: Trigger,
  extra: string,
  cfg: CustodietConfig,
  o: { from?: number; transcript?: string },
): Promise<{ system: string; prompt: string }> {
  const from = o.from ?? Math.max(1, s.toolCount - 9)
  const file = o.transcript || s.transcript_path
  const excerpt = file ? await transcriptExcerpt(file, cfg.tokenBudget * 4) : '(no transcript)'
  // The transcript lags: the hooks' own record of the calls under review is always current.
  const window = windowText(s, from)
  const system = fs.readFileSync(path.join(PACKAGE_ROOT, 'agents', 'custodiet.md'), 'utf8')
  const template = fs.readFileSync(path.join(PACKAGE_ROOT, 'templates', `custodiet-${trigger}.md`), 'utf8')
  const prompt = maskSecrets(reviewPrompt(template, s, trigger, excerpt, extra, window)) // no secret leaves for the reviewer
  return { system, prompt }
}

/** The reviewer's answer and what it cost; undefined (recorded as skipped, a timeout or an error) when there is none. */
async function askReviewer(
  { paths, session, trigger, cfg, started, late }: ReviewRun,
  system: string,
  prompt: string,
  timeoutSeconds: number | undefined,
): Promise<{ text: string; usage: Usage } | undefined> {
  if (overCap(paths, cfg, new Date())) {
    record(
      paths,
      session,
      { at: new Date().toISOString(), trigger, status: 'skipped', note: 'daily reviewer cap reached' },
      cfg,
    )
    return undefined
  }
  try {
    const out = await runReviewer({ ...cfg.reviewer, ...(timeoutSeconds ? { timeoutSeconds } : {}) }, system, prompt)
    return {
      text: out.text,
      usage: {
        input_tokens: out.input_tokens,
        output_tokens: out.output_tokens,
        usd: out.usd ?? estimateUsd(out, cfg),
      },
    }
  } catch (e) {
    const kind = e instanceof RatchetError && e.code === 'reviewer_timeout' ? 'timeout' : 'error'
    record(
      paths,
      session,
      {
        at: new Date().toISOString(),
        trigger,
        status: kind,
        ms: Date.now() - started,
        note: (e as Error).message,
        ...late(),
      },
      cfg,
      true,
    )
    logFinding(paths, session, trigger, kind, (e as Error).message, 'reviewer')
    return undefined
  }
}

/** The answer parsed strictly, recorded (cost too) and logged; cached only when it parsed. */
function recordAnswer(
  { paths, session, trigger, cfg, started, late }: ReviewRun,
  text: string,
  cached: boolean,
  usage: Usage,
  key: string,
): Verdict | undefined {
  const parsed = parseVerdict(text)
  if (!parsed.ok) {
    // Never taken as OK: logged with the reason, and the answer is not cached.
    record(
      paths,
      session,
      {
        at: new Date().toISOString(),
        trigger,
        status: 'unparseable',
        ms: Date.now() - started,
        note: parsed.error.message,
        ...usage,
        ...late(),
      },
      cfg,
    )
    logFinding(paths, session, trigger, 'unparseable', `${parsed.error.message}: ${text.slice(0, 120)}`, 'reviewer')
    return undefined
  }
  if (!cached) cachePut(paths, key, text, cfg.cacheTtlMs, 200, Date.now())
  record(
    paths,
    session,
    {
      at: new Date().toISOString(),
      trigger,
      status: parsed.value.status,
      cached,
      ms: Date.now() - started,
      ...usage,
      ...late(),
    },
    cfg,
  )
  logFinding(
    paths,
    session,
    trigger,
    parsed.value.status,
    parsed.value.status === 'ATTENTION' ? parsed.value.issue : '',
    'reviewer',
    undefined,
    CATEGORY_OF[trigger],
  )
  return parsed.value
}

const estimateUsd = (u: { input_tokens?: number; output_tokens?: number }, cfg: CustodietConfig) =>
  ((u.input_tokens ?? 0) * cfg.price.input + (u.output_tokens ?? 0) * cfg.price.output) / 1e6

/** The review, the session's cost and the day's cost, recorded together (a failed call still counts). */
function record(
  paths: Paths,
  session: string,
  r: CustodietState['reviews'][number],
  cfg: CustodietConfig,
  called = false,
): void {
  const paid = !r.cached && r.status !== 'skipped' && (called || r.status !== 'error')
  updateState(paths, session, (s) => ({
    next: {
      ...s,
      reviews: [...s.reviews, r].slice(-50),
      cost: {
        calls: s.cost.calls + (paid ? 1 : 0),
        input_tokens: s.cost.input_tokens + (r.input_tokens ?? 0),
        output_tokens: s.cost.output_tokens + (r.output_tokens ?? 0),
        usd: (s.cost.usd ?? 0) + (r.usd ?? 0),
      },
    },
    result: undefined,
  }))
  if (!paid) return
  try {
    addDailyCost(paths, r.at.slice(0, 10), {
      calls: 1,
      input_tokens: r.input_tokens ?? 0,
      output_tokens: r.output_tokens ?? 0,
      usd: r.usd ?? estimateUsd(r, cfg),
    })
  } catch (e) {
    // A cost file damaged while this review ran is not reset (its policy is 'fail'): the next review is refused as at the cap.
    logError(paths, 'custodiet', e)
  }
}

/**
 * `custodiet review --session ID --trigger T [--from N] [--transcript F] [--message M] [--print] [--timeout S] [--budget MS] [--claim C]`.
 * The verdict is recorded as a finding about the calls from N on (merged with any finding about the same
 * calls); with --print (the blocking gates) it is also printed first, as one line of JSON. With --claim (the
 * session's one background reviewer, claimed by the hook that started it) it clears the claim when done and
 * runs what was queued meanwhile.
 */
/** The lowest CPU priority for this process and what it starts (which inherit it). */
function lowerPriority(): void {
  try {
    os.setPriority(os.constants.priority.PRIORITY_LOW)
  } catch {
    // not allowed here: it runs at the priority it has
  }
}

async function reviewCommand(args: string[]): Promise<void> {
  const arg = (name: string) => {
    const i = args.indexOf(name)
    return i >= 0 ? args[i + 1] : undefined
  }
  const paths = resolvePaths()
  const session = arg('--session')
  const trigger = arg('--trigger') as Trigger | undefined
  const print = args.includes('--print')
  if (!session || !trigger || !TRIGGERS.includes(trigger)) {
    process.stderr.write(
      `usage: custodiet review --session ID --trigger ${TRIGGERS.join('|')} [--from N] [--transcript FILE] [--message TEXT] [--print] [--timeout S]\n`,
    )
    process.exitCode = 2
    return
  }
  // A background review is background work: its reviewer (a `claude -p` costs ~0.85 s of CPU to start, measured
  // in bench/reviewer-cpu.ts) gives way to the session it watches instead of competing with it for the same cores.
  // A gate's review (--print) is what the session is waiting for, so it keeps its priority.
  if (!print) lowerPriority()
  const cfg = custodietConfig(paths)
  const num = (v?: string) => (v !== undefined && Number.isFinite(Number(v)) ? Number(v) : undefined)
  const bound = ((num(arg('--timeout')) ?? cfg.reviewer.timeoutSeconds ?? 60) + 30) * 1000
  let claim = arg('--claim')
  // The hook claimed this review before starting it; the pid lets the next hook see whether it still runs.
  if (claim)
    updateState(paths, session, (st) => {
      const r = st.reviewing
      return {
        next: r && r.claim === claim && !r.pid ? { ...st, reviewing: { ...r, pid: process.pid } } : st,
        result: undefined,
      }
    })
  let job: { trigger: Trigger; from?: number } = { trigger, from: num(arg('--from')) }
  // The session's background reviewer (it holds the claim) also runs what was queued while it worked, one
  // review after another, each bounded as the first; past MAX_CHAIN it leaves the queue to the next end of a turn.
  for (let n = 0; ; n++) {
    // Now that the reviewer's own timeout is known: each run gets it plus a margin for reading and recording.
    watchdog(bound, paths, session, claim)
    const { trigger, from } = job
    let next: NextReview | undefined
    try {
      const s = readState(paths, session)
      const verdict = await review1(paths, session, s, trigger, n ? '' : (arg('--message') ?? ''), cfg, {
        from,
        timeoutSeconds: num(arg('--timeout')),
        transcript: n ? undefined : arg('--transcript'),
        budgetMs: num(arg('--budget')),
      })
      next = updateState(paths, session, (st) => afterReview(st, verdict, { trigger, from }, { claim, print, n }, cfg))
      // Printed after recording: a gate that reads the state on this line finds the finding there.
      if (print && verdict) process.stdout.write(JSON.stringify(verdict) + '\n')
    } catch (e) {
      logError(paths, 'custodiet review', e)
      if (claim) releaseClaim(paths, session, claim)
    }
    if (!next) break
    claim = next.claim
    job = { trigger: next.trigger, from: next.from }
  }
}

/** A claimed review that another is queued behind: the next one, claimed by this reviewer. */
type NextReview = { trigger: Trigger; from: number; claim: string }

/**
 * After one review: its verdict recorded as a finding about the calls from `from` on, this reviewer's claim
 * released, and (for the session's background reviewer, below MAX_CHAIN) the queued review claimed as the next.
 */
function afterReview(
  st: CustodietState,
  verdict: Verdict | undefined,
  { trigger, from }: { trigger: Trigger; from?: number },
  { claim, print, n }: { claim: string | undefined; print: boolean; n: number },
  cfg: CustodietConfig,
): { next: CustodietState; result: NextReview | undefined } {
  let s2: CustodietState = claim && st.reviewing?.claim === claim ? { ...st, reviewing: undefined } : st
  if (verdict?.status === 'ATTENTION') {
    const to = Math.max(st.toolCount, from ?? 0)
    const calls: [number, number] | undefined =
      from !== undefined ? [from, trigger === 'todo' ? from : Math.max(from, to)] : undefined
    s2 = addFinding(s2, trigger, verdict, 'reviewer', cfg.policy, new Date(), {
      calls,
      event: trigger === 'todo' && from !== undefined ? `todo@${from}` : undefined,
    })
  }
  if (!claim || print || s2.reviewing || !s2.queued || n + 1 >= MAX_CHAIN) return { next: s2, result: undefined }
  const c = `${process.pid}.${Date.now().toString(36)}.${n + 1}`
  return {
    next: {
      ...s2,
      queued: undefined,
      reviewing: {
        pid: process.pid,
        since: Date.now(),
        trigger: s2.queued.trigger,
        from: s2.queued.from,
        claim: c,
      },
    },
    result: { ...s2.queued, claim: c },
  }
}

/** How many reviews one background reviewer runs in a row (its first and what was queued meanwhile). */
const MAX_CHAIN = 5

/** The claim, if it is still this reviewer's: gone (a review that failed is recorded as such, not retried). */
function releaseClaim(paths: Paths, session: string, claim: string): void {
  updateState(paths, session, (st) =>
    st.reviewing?.claim === claim
      ? { next: { ...st, reviewing: undefined }, result: undefined }
      : { next: st, result: undefined },
  )
}

/** Before the configuration is read, the run is bounded by this (a detached review once hung 17–28 min on a FIFO). */
const HARD_CAP_MS = 10 * 60_000
let dog: NodeJS.Timeout | undefined

/**
 * A wall-clock bound over the whole run: past it the process records why and exits, whatever it was waiting
 * on (a read on the thread pool, a reviewer that ignored its signal). Unref'd: a finished run exits at once.
 */
function watchdog(ms: number, paths?: Paths, session?: string, claim?: string): void {
  if (dog) clearTimeout(dog)
  dog = setTimeout(() => {
    try {
      const p = paths ?? resolvePaths()
      logError(
        p,
        'custodiet review',
        new Error(`gave up after ${Math.round(ms / 1000)} s (the whole review run is bounded)`),
      )
      if (session && claim) releaseClaim(p, session, claim)
    } catch {
      /* exiting anyway */
    }
    process.exit(1)
  }, ms)
  dog.unref()
}

export function main(argv = process.argv): Promise<void> {
  watchdog(HARD_CAP_MS)
  return reviewCommand(argv.slice(3)).finally(() => dog && clearTimeout(dog))
}
