// `custodiet review …` — the background reviewer, its own bundle (it loads execa and the model
// clients, which the hooks never should). Started detached by the hook, or by the TodoWrite gate
// with --print to get the verdict back within the gate's budget.

import fs from 'node:fs'
import path from 'node:path'
import { fnv64 } from '../../lib/core/fingerprint'
import { parseVerdict, type Verdict } from '../../lib/core/verdict'
import { PACKAGE_ROOT, logError, resolvePaths, type Paths } from '../../lib/io/state'
import { cacheGet, cachePut, readState, updateState } from '../../lib/io/custodiet-state'
import { transcriptExcerpt } from '../../lib/io/transcript'
import { runReviewer } from '../../lib/io/reviewer'
import { RatchetError } from '../../lib/core/errors'
import { addFinding, reviewPrompt, type CustodietState, type Trigger } from './decide'
import { logFinding } from './main'
import { custodietConfig, type CustodietConfig } from '../../lib/io/custodiet-config'

/** One review: excerpt → prompt → cache or reviewer → strict parse → recorded. */
export async function review1(paths: Paths, session: string, s: CustodietState, trigger: Trigger, extra: string, cfg: CustodietConfig, timeoutSeconds?: number, transcript?: string): Promise<Verdict | undefined> {
  const started = Date.now()
  const file = transcript || s.transcript_path
  let excerpt = file ? await transcriptExcerpt(file, cfg.tokenBudget * 4) : '(no transcript)'
  // The transcript lags: the hook's own record of the latest calls is always current.
  excerpt += '\n\nLatest tool calls seen by the hooks:\n' + s.events.slice(-10).map((e) => `- ${e.tool} ${JSON.stringify(e.input)}${e.error ? ' → ERROR' : ''}`).join('\n')
  const system = fs.readFileSync(path.join(PACKAGE_ROOT, 'agents', 'custodiet.md'), 'utf8')
  const template = fs.readFileSync(path.join(PACKAGE_ROOT, 'templates', `custodiet-${trigger}.md`), 'utf8')
  const prompt = reviewPrompt(template, s, trigger, excerpt, extra)
  const key = fnv64(`${trigger}\u0000${system}\u0000${prompt}`)
  let text = cacheGet(paths, key, cfg.cacheTtlMs, Date.now())
  const cached = text !== undefined
  let usage: { input_tokens?: number; output_tokens?: number } = {}
  if (!cached) {
    try {
      const out = await runReviewer({ ...cfg.reviewer, ...(timeoutSeconds ? { timeoutSeconds } : {}) }, system, prompt)
      text = out.text
      usage = out
    } catch (e) {
      const kind = e instanceof RatchetError && e.code === 'reviewer_timeout' ? 'timeout' : 'error'
      record(paths, session, { at: new Date().toISOString(), trigger, status: kind, ms: Date.now() - started, note: (e as Error).message })
      logFinding(paths, session, trigger, kind, (e as Error).message, 'reviewer')
      return undefined
    }
  }
  const parsed = parseVerdict(text!)
  if (!parsed.ok) {
    // Never taken as OK: logged with the reason, and the answer is not cached.
    record(paths, session, { at: new Date().toISOString(), trigger, status: 'unparseable', ms: Date.now() - started, note: parsed.error, ...usage })
    logFinding(paths, session, trigger, 'unparseable', `${parsed.error}: ${text!.slice(0, 120)}`, 'reviewer')
    return undefined
  }
  if (!cached) cachePut(paths, key, text!, cfg.cacheTtlMs, 200, Date.now())
  record(paths, session, { at: new Date().toISOString(), trigger, status: parsed.verdict.status, cached, ms: Date.now() - started, ...usage })
  logFinding(paths, session, trigger, parsed.verdict.status, parsed.verdict.status === 'ATTENTION' ? parsed.verdict.issue : '', 'reviewer')
  return parsed.verdict
}

function record(paths: Paths, session: string, r: CustodietState['reviews'][number]): void {
  updateState(paths, session, (s) => ({
    next: {
      ...s,
      reviews: [...s.reviews, r].slice(-50),
      cost: { calls: s.cost.calls + (r.cached || r.status === 'skipped' ? 0 : 1), input_tokens: s.cost.input_tokens + (r.input_tokens ?? 0), output_tokens: s.cost.output_tokens + (r.output_tokens ?? 0) },
    },
    result: undefined,
  }))
}

/**
 * `custodiet review --session ID --trigger T [--transcript F] [--message M] [--print] [--timeout S]`.
 * Without --print the verdict is recorded as a finding for the hook to deliver; with --print (the
 * TodoWrite gate) it is printed as JSON and the hook decides.
 */
async function reviewCommand(args: string[]): Promise<void> {
  const arg = (name: string) => {
    const i = args.indexOf(name)
    return i >= 0 ? args[i + 1] : undefined
  }
  const paths = resolvePaths()
  const session = arg('--session')
  const trigger = arg('--trigger') as Trigger | undefined
  const print = args.includes('--print')
  if (!session || !trigger || !['periodic', 'error', 'todo', 'subagent'].includes(trigger)) {
    process.stderr.write('usage: custodiet review --session ID --trigger periodic|error|todo|subagent [--transcript FILE] [--message TEXT] [--print] [--timeout S]\n')
    process.exitCode = 2
    return
  }
  const cfg = custodietConfig(paths)
  const timeout = arg('--timeout') ? Number(arg('--timeout')) : undefined
  try {
    const s = readState(paths, session)
    const verdict = await review1(paths, session, s, trigger, arg('--message') ?? '', cfg, timeout, arg('--transcript'))
    if (print) {
      if (verdict) process.stdout.write(JSON.stringify(verdict) + '\n')
      return
    }
    updateState(paths, session, (st) => {
      let next: CustodietState = { ...st, reviewing: undefined }
      if (verdict?.status === 'ATTENTION') next = addFinding(next, trigger, verdict, 'reviewer', cfg.policy, new Date())
      return { next, result: undefined }
    })
  } catch (e) {
    logError(paths, 'custodiet review', e)
    if (!print) updateState(paths, session, (st) => ({ next: { ...st, reviewing: undefined }, result: undefined }))
  }
}

export function main(argv = process.argv): Promise<void> {
  return reviewCommand(argv.slice(3))
}
