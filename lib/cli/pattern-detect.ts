// pattern-detect — mines the activity log (streamed), the incident log and optionally Claude Code
// transcripts for recurring risk, proposes guardrails for a human to approve, and writes the weekly
// review. `pattern-detect --report weekly` prints the review; `ratchet heartbeat` runs both on schedule.

import { reviewerStatus } from '../io/custodiet-config'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { Command } from 'commander'
import { RatchetError } from '../core/errors'
import { humanOnly, runCli } from './run'
import { classify } from '../core/classify'
import { detectAll } from '../core/detectors'
import { openHearing } from '../io/courtroom/trigger'
import { addEvent, type Aggregate } from '../core/mining'
import { mergeCandidates, type Proposal } from '../core/proposals'
import { buildReport, reportText, type Report } from '../core/report'
import { reportHtml } from '../report/html'
import { writeUserFile } from './output'
import { loadGuardrails } from '../io/guardrails'
import { logActivity } from '../io/activity'
import { resolvePaths, homeDir } from '../io/paths'
import type { Paths } from '../io/registry'
import { mineActivity, readIncidents, readProposals, updateProposals } from '../io/records'
import { addLabel, readAsks, readLabels, updateAsks } from '../io/labels'
import {
  answerAsk,
  claimAsk,
  releaseAsk,
  toLabel,
  unanswerAsk,
  type FireSample,
  type LabelAnswer,
  type LabelValue,
} from '../core/labels'
import { processAlive, processTag } from '../io/store'
import type { Api } from 'node-telegram-bot-api'
import type { TelegramConfig } from '../io/telegram-config'
import { CLI } from '../core/manifest'

const out = (s: string): void => void process.stdout.write(s + '\n')

/** "7d", "24h", "30m" or an ISO date → ISO lower bound. */
export function sinceIso(since: string | undefined, now = Date.now()): string | undefined {
  if (!since) return undefined
  const m = /^(\d+)([dhm])$/.exec(since)
  if (m)
    return new Date(
      now - Number(m[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as 'd' | 'h' | 'm'],
    ).toISOString()
  if (!Number.isNaN(Date.parse(since))) return new Date(since).toISOString()
  throw new RatchetError('usage', `--since takes 7d, 24h, 30m or a date, not ${JSON.stringify(since)}`)
}

export function defaultTranscriptsDir(projectDir: string): string {
  return path.join(homeDir(), '.claude', 'projects', projectDir.replace(/[/.]/g, '-'))
}

/** Tool calls in transcripts (history from before Ratchet ran, or sessions without it), classified. */
async function mineTranscripts(dir: string, paths: Paths, agg: Aggregate, since?: string): Promise<number> {
  let files: string[] = []
  try {
    files = fs
      .readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => path.join(dir, f))
  } catch {
    return 0
  }
  const ctx = {
    projectDir: paths.projectDir,
    homeDir: homeDir(),
    stateDir: paths.stateDir,
    session: { reads: {}, prompts: [] },
    fileExists: () => false,
    currentBranch: () => undefined,
  }
  let calls = 0
  for (const file of files) {
    const rl = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })
    for await (const line of rl) {
      if (!line.includes('"tool_use"')) continue
      let j: {
        type?: string
        timestamp?: string
        sessionId?: string
        message?: { content?: { type: string; name?: string; input?: Record<string, unknown> }[] }
      }
      try {
        j = JSON.parse(line)
      } catch {
        continue
      }
      if (j.type !== 'assistant' || !Array.isArray(j.message?.content) || (since && j.timestamp && j.timestamp < since))
        continue
      for (const b of j.message!.content!) {
        if (b.type !== 'tool_use' || !b.name) continue
        calls++
        const c = classify({ tool_name: b.name, tool_input: b.input ?? {} }, ctx)
        if (!c.findings.length) continue
        addEvent(agg, {
          time: j.timestamp,
          hook: 'preflight-check',
          event: 'PreToolUse',
          session: j.sessionId,
          tool: b.name,
          action: c.summary,
          classes: [...new Set(c.findings.map((f) => f.class))],
          patterns: [...new Set(c.findings.map((f) => f.pattern))],
          guardrails: [],
          decision: 'transcript',
        })
      }
    }
  }
  return calls
}

export interface MineResult {
  agg: Aggregate
  added: Proposal[]
  found: number
  transcriptCalls?: number
}

export async function mine(paths: Paths, opts: { since?: string; transcripts?: string } = {}): Promise<MineResult> {
  const agg = await mineActivity(paths.activity, opts.since)
  const transcriptCalls = opts.transcripts ? await mineTranscripts(opts.transcripts, paths, agg, opts.since) : undefined
  const rules = loadGuardrails(paths, { full: true }).rules
  const found = detectAll({
    agg,
    rules,
    incidents: readIncidents(paths),
    labels: readLabels(paths),
    today: new Date().toISOString().slice(0, 10),
  })
  const added = updateProposals(paths, (list) => mergeCandidates(list, found, new Date().toISOString()))
  for (const p of added)
    logActivity(paths, {
      time: p.created,
      hook: 'pattern-detect',
      event: 'proposal',
      decision: 'proposed',
      note: `${p.id}: ${p.title}`,
      detector: p.detector,
    })
  // The courtroom's hook point: a newly found recurring incident class may open a hearing (if enabled).
  for (const p of added.filter((x) => x.detector === 'recurring-incident' && x.guardrail))
    openHearing(paths, {
      source: 'incident',
      signal: `incident:${p.guardrail!.pattern}`,
      summary: p.title,
      confidence: Math.min(1, 0.5 + 0.1 * p.evidence.count),
      evidence: p.evidence.examples,
      restrains: { classes: [p.guardrail!.pattern], patterns: [p.guardrail!.pattern] },
    })
  return { agg, added, found: found.length, transcriptCalls }
}

export async function weekly(paths: Paths, since?: string): Promise<Report> {
  return (await weeklyReview(paths, since)).report
}

/** The review and the fires to ask about over Telegram (not labelled, not asked before). */
export async function weeklyReview(
  paths: Paths,
  since?: string,
  askSize = LABEL_ASKS,
): Promise<{ report: Report; ask: FireSample[] }> {
  const agg = await mineActivity(paths.activity, since)
  const labels = readLabels(paths)
  const report = buildReport(
    agg,
    loadGuardrails(paths, { full: true }).rules,
    readIncidents(paths),
    readProposals(paths),
    labels,
  )
  const s = reviewerStatus(paths, { from: since ?? agg.first ?? new Date().toISOString() })
  report.reviewer = {
    on: s.on,
    reviewer: s.reviewer,
    cap: s.cap,
    days: s.days.map(({ day, calls, usd }) => ({ day, calls, usd })),
    total: s.total,
    ...(s.unreadable ? { unreadable: s.unreadable } : {}),
  }
  // Asked already (sent or answered) is skipped; an ask whose send failed is tried again.
  const asked = readAsks(paths).filter((a) => a.message_id !== undefined || a.answer)
  const ask = toLabel(
    agg.fireSample.map(({ rank: _rank, ...f }) => f),
    [...labels, ...asked],
    askSize,
  )
  return { report, ask }
}

/** How many fires one weekly review asks about over Telegram: a small sample, not a chore. */
export const LABEL_ASKS = 3

/**
 * The digest, then the label sample as messages with buttons. Each fire is claimed in label-asks.json
 * before its message goes out: parallel or repeated heartbeats never ask twice.
 */
export async function sendDigest(paths: Paths, r: Report, ask: FireSample[] = []): Promise<string | null> {
  const { configuredTelegram } = await import('../io/telegram-config')
  const cfg = configuredTelegram(paths)
  if (!cfg) return null
  const { client, sendNotice, describeError } = await import('../io/telegram')
  const top =
    r.rules
      .filter((x) => x.fires)
      .slice(0, 5)
      .map((x) => `${x.id} ×${x.fires}`)
      .join(', ') || 'none'
  const text = [
    `🔩 Ratchet weekly review (${r.period.from?.slice(0, 10) ?? '?'} → ${r.period.to?.slice(0, 10) ?? '?'})`,
    `Fires: ${top}`,
    `False positives (human labels): ${r.fpRate === null ? 'n/a — none labelled yet' : `${Math.round(r.fpRate * 100)}% of ${r.labelled}`} (target < 30%)`,
    `Never fired: ${r.stale.join(', ') || 'none'}${r.quiet.length ? ` · quiet (kept): ${r.quiet.join(', ')}` : ''}`,
    `Paused: ${r.pauses.paused}, denied ${r.pauses.denied}, timed out ${r.pauses.timeout}`,
    `Proposals waiting: ${r.proposals.pending}`,
    ...r.criteria.map((c) => `${c.met ? '✅' : '❌'} ${c.n}. ${c.text}: ${c.value}`),
  ].join('\n')
  const api = client(cfg)
  try {
    await sendNotice(api, cfg, text)
  } catch (e) {
    return describeError(e, cfg)
  }
  return sendLabelAsks(paths, cfg, api, ask)
}

async function sendLabelAsks(paths: Paths, cfg: TelegramConfig, api: Api, fires: FireSample[]): Promise<string | null> {
  const { sendLabelAsk, describeError } = await import('../io/telegram')
  const ruleText = ruleTexts(paths)
  const errors: string[] = []
  for (const fire of fires) {
    const a = updateAsks(paths, (list) => claimAsk(list, fire, randomHex(8), processTag(), new Date(), processAlive))
    if (!a) continue
    try {
      const messageId = await sendLabelAsk(api, cfg, a, ruleText)
      updateAsks(paths, (list) => releaseAsk(list, a.id, () => ({ message_id: messageId, last_error: null })))
    } catch (e) {
      updateAsks(paths, (list) =>
        releaseAsk(list, a.id, (x) => ({ attempts: (x.attempts ?? 0) + 1, last_error: describeError(e, cfg) })),
      )
      errors.push(`label ${a.id}: ${describeError(e, cfg)}`)
    }
  }
  return errors.length ? errors.join('; ') : null
}

const randomHex = (bytes: number): string =>
  (require('node:crypto') as typeof import('node:crypto')).randomBytes(bytes).toString('hex')

function ruleTexts(paths: Paths): (id: string) => string | undefined {
  let rules: { id: string; rule?: string }[] = []
  try {
    rules = loadGuardrails(paths, { full: true }).rules
  } catch {
    // The message still names the rule id.
  }
  return (id) => rules.find((r) => r.id === id)?.rule
}

/**
 * A press on a label button (from the configured chat; the heartbeat checked that). Answered once
 * under the asks lock, then recorded exactly as `ratchet report label` records it, with the presser
 * as `by`. Returns the text for the tap's toast.
 */
export async function answerLabel(
  paths: Paths,
  cfg: TelegramConfig,
  api: Api,
  press: { id: string; secret: string; answer: LabelAnswer; by: string },
): Promise<{ ok: boolean; text: string; error?: string }> {
  const now = new Date()
  const res = updateAsks(paths, (list) =>
    answerAsk(list, press.id, press.secret, press.answer, `telegram:${press.by}`, now),
  )
  if (!res.ok) {
    const prior = readAsks(paths).find((a) => a.id === press.id && a.secret === press.secret)
    return { ok: false, text: prior?.answer ? `Already answered (${prior.answer})` : 'This button is no longer valid.' }
  }
  const a = res.value
  if (a.answer !== 'skip') {
    try {
      addLabel(paths, { ...a.fire, label: a.answer as LabelValue, by: a.answered_by!, at: now.toISOString() })
    } catch (e) {
      updateAsks(paths, (list) => unanswerAsk(list, a.id))
      return { ok: false, text: 'Not recorded; try again later.', error: `label ${a.id}: ${(e as Error).message}` }
    }
  }
  logActivity(paths, {
    time: now.toISOString(),
    hook: 'pattern-detect',
    event: 'label',
    decision: a.answer!,
    note: `${a.id} ${a.fire.rules.join(',')} by ${a.answered_by}`,
  })
  const { showLabelAnswer, describeError } = await import('../io/telegram')
  let error: string | undefined
  await showLabelAnswer(api, cfg, a, ruleTexts(paths)).catch(
    (e) => (error = `edit label ${a.id}: ${describeError(e, cfg)}`),
  )
  return {
    ok: true,
    text: a.answer === 'skip' ? 'Skipped' : `Labelled: ${a.answer === 'needed' ? 'needed' : 'not needed'}`,
    error,
  }
}

export function program(): Command {
  return new Command('pattern-detect')
    .description(
      'Mine incidents and hook activity for recurring risk; propose guardrails (never applied without you); report.',
    )
    .option('--since <when>', 'only events since: 7d, 24h, or a date')
    .option('--transcripts [dir]', 'also mine Claude Code transcripts (default: ~/.claude/projects/<this project>)')
    .option('--report <period>', 'print the review instead of mining (weekly)')
    .option('--html <file>', 'with --report: also write a self-contained HTML page')
    .option('--telegram', 'with --report: send the digest over Telegram when configured')
    .option('--json', 'machine-readable output')
    .addHelpText('after', `\nThen: ${CLI} proposals list | show | approve | reject`)
    .action(async (o) => {
      const paths = resolvePaths()
      if (o.report) {
        if (o.report !== 'weekly') throw new RatchetError('usage', '--report takes: weekly')
        await printReport(paths, { since: o.since ?? '7d', html: o.html, json: o.json, telegram: o.telegram })
        return
      }
      const transcripts = o.transcripts === true ? defaultTranscriptsDir(paths.projectDir) : o.transcripts
      const started = process.hrtime.bigint()
      const r = await mine(paths, { since: sinceIso(o.since), transcripts })
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      if (o.json)
        return out(
          JSON.stringify(
            {
              events: r.agg.events,
              bad_lines: r.agg.badLines,
              transcript_calls: r.transcriptCalls ?? null,
              findings: r.found,
              proposed: r.added,
              ms: Math.round(ms),
            },
            null,
            2,
          ),
        )
      out(
        `Mined ${r.agg.events} events${r.agg.badLines ? ` (${r.agg.badLines} unreadable lines skipped)` : ''}${r.transcriptCalls !== undefined ? ` and ${r.transcriptCalls} transcript tool calls` : ''} in ${Math.round(ms)} ms.`,
      )
      out(
        r.added.length
          ? `New proposals (approve with: ${CLI} proposals approve <id>):`
          : `No new findings (${r.found} already proposed).`,
      )
      for (const p of r.added)
        out(
          `  ${p.id}  ${p.title}${p.evidence.examples.length ? `\n         e.g. ${p.evidence.examples.join(' | ')}` : ''}`,
        )
    })
}

export async function printReport(
  paths: Paths,
  o: { since?: string; html?: string; json?: boolean; telegram?: boolean },
): Promise<void> {
  const { report: r, ask } = await weeklyReview(paths, sinceIso(o.since))
  if (o.html) writeUserFile(paths, o.html, reportHtml(r), '--html')
  if (o.json) out(JSON.stringify(r, null, 2))
  else out(reportText(r) + (o.html ? `\n\nHTML: ${o.html}` : ''))
  if (o.telegram) {
    const err = await sendDigest(paths, r, ask)
    if (err) process.stderr.write(`pattern-detect: digest not sent: ${err}\n`)
  }
}

export async function main(argv = process.argv): Promise<void> {
  await runCli('pattern-detect', program(), argv)
}

/**
 * `ratchet report label [<fire-id> needed|needless] [--note]`: without arguments, the fires to label
 * (a small sample of this week's); with them, the human's answer. The agent cannot label: inside a
 * Claude Code session it is refused, and preflight treats it as an edit of Ratchet's own state.
 */
export async function label(
  paths: Paths,
  id: string | undefined,
  value: string | undefined,
  o: { note?: string; since?: string; json?: boolean; by?: string },
): Promise<void> {
  const r = await weekly(paths, sinceIso(o.since ?? '7d'))
  if (!id) {
    if (o.json) return out(JSON.stringify(r.toLabel, null, 2))
    if (!r.toLabel.length) return out(`Nothing to label: ${r.labelled} fires labelled this period, none waiting.`)
    out(`Was this check needed? Answer for each: ${CLI} report label <id> needed|needless [--note "why"]`)
    for (const f of r.toLabel) out(`  ${f.id}  ${f.rules.join(',')}  ${f.time?.slice(0, 16) ?? ''}  ${f.action ?? ''}`)
    return
  }
  // A label is the human's word on a check: the agent's own opinion of the checks it met is not one.
  humanOnly(`${CLI} report label`)
  if (value !== 'needed' && value !== 'needless')
    throw new RatchetError('usage', `say whether the check was needed: ${CLI} report label ${id} needed|needless`)
  const agg = await mineActivity(paths.activity)
  const fire = agg.fireSample.find((f) => f.id === id)
  if (!fire) throw new RatchetError('not_found', `no sampled fire ${id} (see ${CLI} report label)`)
  const { rank: _rank, ...f } = fire
  addLabel(paths, {
    ...f,
    label: value,
    ...(o.note ? { note: o.note } : {}),
    by: o.by ?? 'cli',
    at: new Date().toISOString(),
  })
  logActivity(paths, {
    time: new Date().toISOString(),
    hook: 'pattern-detect',
    event: 'label',
    decision: value,
    note: `${id} ${f.rules.join(',')}${o.note ? `: ${o.note}` : ''}`,
  })
  out(`Labelled ${id} (${f.rules.join(',')}) ${value}.`)
}
