// `ratchet custodiet status | release | gate`: per session, what custodiet saw and did, which holds are
// active and how to lift them, and what the reviewer cost (per session and per day, against the cap); whether
// the end of a turn waits for its review.

import { RatchetError } from '../core/errors'
import { describeEnvelope } from '../core/envelope'
import { readDailyCosts, listSessions, readState, updateState } from '../io/custodiet-state'
import { readConfig } from '../io/config'
import { resolvePaths } from '../io/paths'
import { updateState as updateFile } from '../io/store'
import { hold, release as releaseHolds } from '../core/custodiet'
import { custodietConfig, stopGateLine, stopGateOf } from '../io/custodiet-config'
import { emit } from './print'
import { CLI } from '../core/manifest'

const out = (s: string): void => void process.stdout.write(s + '\n')
const safe = (id: string) => id.replace(/[^A-Za-z0-9_.-]/g, '_')
const usd = (x: number) => `$${x.toFixed(x < 1 ? 4 : 2)}`

export function status(o: { session?: string; json?: boolean }): void {
  const paths = resolvePaths()
  const all = listSessions(paths)
  if (o.session && !all.includes(safe(o.session)))
    throw new RatchetError('not_found', `custodiet has no record of session ${o.session}`)
  const sessions = o.session ? [safe(o.session)] : all
  const rows = sessions.map((id) => ({ session: id, ...readState(paths, id) }))
  const cfg = custodietConfig(paths)
  const costs = readDailyCosts(paths)
  const days = costs.ok ? costs.days : {}
  const today = new Date().toISOString().slice(0, 10)
  const holds = rows.flatMap((r) => {
    const h = hold(r)
    return h ? [{ session: r.session, finding: h }] : []
  })
  if (o.json)
    return out(
      JSON.stringify(
        {
          sessions: rows,
          holds,
          cost: { days, cap: cfg.dailyCap, ...(costs.ok ? {} : { unreadable: costs.problem }) },
        },
        null,
        2,
      ),
    )
  if (!rows.length) return out(`custodiet has not seen a session yet (is it registered? ${CLI} doctor)`)
  if (holds.length) {
    out('Active holds (the agent’s actions need the user — or are blocked — until lifted):')
    for (const h of holds)
      out(
        `  ${h.session}: level ${h.finding.level} since ${h.finding.at} — ${h.finding.verdict.issue}\n    lift: reply to the agent, or run \`${CLI} custodiet release --session ${h.session}\``,
      )
  } else out('No active holds.')
  const t = days[today] ?? { calls: 0, input_tokens: 0, output_tokens: 0, usd: 0 }
  if (!costs.ok)
    out(
      `Reviewer today: unknown — ${costs.problem}: reviews are off as if the daily cap were reached, deterministic checks go on (fix or remove the file)`,
    )
  else
    out(
      `Reviewer today: ${t.calls} calls, ${t.input_tokens} in / ${t.output_tokens} out tokens, ${usd(t.usd)} (daily cap ${usd(cfg.dailyCap.usd)} or ${cfg.dailyCap.calls} calls${t.usd >= cfg.dailyCap.usd || t.calls >= cfg.dailyCap.calls ? ' — REACHED: reviews are off until tomorrow, deterministic checks go on' : ''})`,
    )
  const recent = Object.keys(days).sort().slice(-7)
  if (recent.length > 1)
    out(`  Last days: ${recent.map((d) => `${d} ${days[d].calls} calls ${usd(days[d].usd)}`).join(' · ')}`)
  out('')
  for (const r of rows) {
    const verdicts = r.reviews.reduce<Record<string, number>>(
      (acc, x) => ((acc[x.status] = (acc[x.status] ?? 0) + 1), acc),
      {},
    )
    out(`Session ${r.session}`)
    out(r.envelope ? describeEnvelope(r.envelope).replace(/^/gm, '  ') : '  (no request recorded)')
    out(
      `  Tool calls: ${r.toolCount}   Reviews: ${r.reviews.length} ${JSON.stringify(verdicts)}   Reviewer cost: ${r.cost.calls} calls, ${r.cost.input_tokens} in / ${r.cost.output_tokens} out tokens, ${usd(r.cost.usd ?? 0)}`,
    )
    for (const f of r.findings)
      out(
        `  ${f.id} level ${f.level} ${f.category} (${f.source}${f.also?.length ? ` +${f.also.length} merged` : ''}${f.delivered ? ', delivered' : ', not yet heard by the agent'}${f.relayed_to ? `, told to session ${f.relayed_to}` : ''}${f.lifted ? `, lifted by ${f.lifted_by ?? 'user'}` : f.level >= 3 ? ', HOLDING' : ''}): ${f.verdict.issue}`,
      )
    if (r.reviewing) out(`  A review is running (pid ${r.reviewing.pid}, ${r.reviewing.trigger}).`)
    if (r.queued) out(`  A review waits for it (${r.queued.trigger}, calls from #${r.queued.from}).`)
  }
}

/** A human lifts the holds of one session (or all) without writing to the agent. */
export function release(o: { session?: string; all?: boolean; json?: boolean }): void {
  const paths = resolvePaths()
  if (!o.session && !o.all)
    throw new RatchetError('usage', `say which: --session <id> (see ${CLI} custodiet status), or --all`)
  const all = listSessions(paths)
  if (o.session && !all.includes(safe(o.session)))
    throw new RatchetError('not_found', `custodiet has no record of session ${o.session}`)
  const done: { session: string; finding: string; level: number; issue: string }[] = []
  for (const id of o.session ? [safe(o.session)] : all) {
    const released = updateState(paths, id, (s) => {
      const r = releaseHolds(s)
      return { next: r.state, result: r.released }
    })
    for (const f of released) done.push({ session: id, finding: f.id, level: f.level, issue: f.verdict.issue })
  }
  emit(
    o,
    { released: done },
    done.length
      ? done.map((d) => `Released ${d.session} ${d.finding} (level ${d.level}): ${d.issue}`)
      : 'No active holds.',
  )
}

/**
 * `ratchet custodiet gate [on|off]`: custodiet.stopGate in the project's config.json ("block" or absent). Human-only
 * when it changes anything (main.ts): the agent neither turns the wait off nor on.
 */
export function gate(value: string | undefined, o: { json?: boolean }): void {
  const paths = resolvePaths()
  if (value !== undefined && value !== 'on' && value !== 'off')
    throw new RatchetError('usage', `${CLI} custodiet gate takes on or off, not ${JSON.stringify(value)}`)
  const c = readConfig(paths)
  if (c.problem) throw new RatchetError('state_corrupt', `${c.problem}: fix it first (${CLI} doctor)`)
  if (value !== undefined)
    updateFile(
      paths,
      'config',
      (cur) => {
        const section = { ...(((cur as Record<string, unknown>).custodiet as Record<string, unknown>) ?? {}) }
        if (value === 'on') section.stopGate = 'block'
        else delete section.stopGate
        const next: Record<string, unknown> = { ...cur, custodiet: section }
        if (!Object.keys(section).length) delete next.custodiet
        return { next: next as typeof cur, result: undefined }
      },
      { indent: 2 },
    )
  const cfg = custodietConfig(paths)
  const problem = stopGateOf(
    ((readConfig(paths).config as Record<string, unknown>).custodiet ?? {}) as Record<string, unknown>,
  ).problem
  if (o.json)
    return out(JSON.stringify({ stopGate: cfg.stopGate, budgetMs: cfg.stopBudgetMs, ...(problem ? { problem } : {}) }))
  out(
    `End of turn: ${cfg.stopGate === 'block' ? 'gate on' : 'background (gate off)'} — ${stopGateLine(cfg.stopGate, cfg.stopBudgetMs)}`,
  )
  if (problem) out(problem)
}
