// The weekly review as one self-contained HTML page: no scripts, no external assets, charts as SVG.

import { reviewerText, type Report } from '../core/report'
import { CLI } from '../core/manifest'

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed']

function firesChart(r: Report): string {
  const top = r.rules.filter((x) => x.fires).slice(0, 5)
  const days = [...new Set(top.flatMap((x) => x.byDay.map(([d]) => d)))].sort()
  if (!days.length) return '<p>No guardrail fired in this period.</p>'
  const W = 640
  const H = 220
  const P = 30
  const max = Math.max(1, ...top.flatMap((x) => x.byDay.map(([, n]) => n)))
  const xAt = (i: number) => P + (days.length === 1 ? (W - 2 * P) / 2 : (i * (W - 2 * P)) / (days.length - 1))
  const yAt = (n: number) => H - P - (n / max) * (H - 2 * P)
  const lines = top.map((x, k) => {
    const m = new Map(x.byDay)
    const pts = days.map((d, i) => `${xAt(i).toFixed(1)},${yAt(m.get(d) ?? 0).toFixed(1)}`).join(' ')
    // A dot on every day: one day (a first day) draws a line of one point, which is nothing without them.
    const dots = days
      .map(
        (d, i) =>
          `<circle cx="${xAt(i).toFixed(1)}" cy="${yAt(m.get(d) ?? 0).toFixed(1)}" r="4" fill="${COLORS[k]}"><title>${esc(x.id)} ${esc(d)}: ${m.get(d) ?? 0}</title></circle>`,
      )
      .join('')
    return `<polyline fill="none" stroke="${COLORS[k]}" stroke-width="2" points="${pts}"><title>${esc(x.id)}</title></polyline>${dots}`
  })
  const legend = top.map((x, k) => `<tspan fill="${COLORS[k]}" dx="12">■ ${esc(x.id)}</tspan>`).join('')
  return `<svg role="img" aria-label="Guardrail fires per day" viewBox="0 0 ${W} ${H + 20}" width="${W}" height="${H + 20}">
<line x1="${P}" y1="${H - P}" x2="${W - P}" y2="${H - P}" stroke="#999"/><line x1="${P}" y1="${P}" x2="${P}" y2="${H - P}" stroke="#999"/>
<text x="4" y="${P}" font-size="11">${max}</text><text x="${P}" y="${H - 10}" font-size="11">${esc(days[0])}</text><text x="${W - P - 60}" y="${H - 10}" font-size="11">${esc(days[days.length - 1])}</text>
${lines.join('\n')}<text x="0" y="${H + 14}" font-size="12">${legend}</text></svg>`
}

function fpChart(r: Report): string {
  const rows = r.rules.filter((x) => x.fpRate !== null)
  // The rate comes from human labels only: no labels, no rate (the agent's retries are not evidence).
  if (!rows.length)
    return `<p>No fires labelled yet, so no false-positive rate: run <code>${CLI} report label</code>.</p>`
  const W = 640
  const bar = 22
  const H = rows.length * (bar + 6) + 30
  const x0 = 170
  const span = W - x0 - 60
  const target = x0 + 0.3 * span
  const bars = rows.map((x, i) => {
    const y = 10 + i * (bar + 6)
    const w = Math.max(1, x.fpRate! * span)
    return `<text x="0" y="${y + 15}" font-size="12">${esc(x.id)}</text><rect x="${x0}" y="${y}" width="${w.toFixed(1)}" height="${bar}" fill="${x.fpRate! >= 0.3 ? '#dc2626' : '#16a34a'}"><title>${esc(x.id)}: ${Math.round(x.fpRate! * 100)}% of ${x.labelled} labelled</title></rect><text x="${x0 + w + 4}" y="${y + 15}" font-size="12">${Math.round(x.fpRate! * 100)}%</text>`
  })
  return `<svg role="img" aria-label="False-positive rate per guardrail" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}">${bars.join('\n')}<line x1="${target}" y1="0" x2="${target}" y2="${H - 20}" stroke="#555" stroke-dasharray="4 3"/><text x="${target + 4}" y="${H - 6}" font-size="11">30% target</text></svg>`
}

export function reportHtml(r: Report): string {
  const pct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 100)}%`)
  const rows = r.rules
    .map(
      (x) =>
        `<tr${x.stale ? ' class="stale"' : ''}><td>${esc(x.id)}</td><td>${esc(x.severity)}</td><td>${x.fires}</td><td>${x.overrides}</td><td>${x.approvals}</td><td>${pct(x.fpRate)}</td><td>${esc(x.lastFired ?? 'never')}</td><td>${esc(x.source ?? '')}</td></tr>`,
    )
    .join('\n')
  const crit = r.criteria
    .map(
      (c) =>
        `<li class="${c.met ? 'met' : 'unmet'}">${c.met ? '✓' : '✗'} ${c.n}. ${esc(c.text)} — <b>${esc(c.value)}</b></li>`,
    )
    .join('\n')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ratchet weekly review</title>
<style>body{font:14px/1.5 system-ui,sans-serif;max-width:760px;margin:2em auto;color:#111}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 6px;text-align:left}tr.stale td{color:#999}.met{color:#166534}.unmet{color:#991b1b}h2{margin-top:1.6em}</style></head><body>
<h1>Ratchet weekly review</h1>
<p>${esc(r.period.from?.slice(0, 10) ?? '?')} to ${esc(r.period.to?.slice(0, 10) ?? '?')} · ${r.period.events} events · false-positive rate ${pct(r.fpRate)} from ${r.labelled} human labels (target &lt; 30%)</p>
<h2>Success criteria</h2><ul>${crit}</ul>
<h2>Fires over time</h2>${firesChart(r)}
<h2>False-positive rate per rule</h2>${fpChart(r)}
<h2>Guardrails</h2><table><thead><tr><th>id</th><th>severity</th><th>fires</th><th>overridden</th><th>approved</th><th>FP rate</th><th>last fired</th><th>source</th></tr></thead><tbody>${rows}</tbody></table>
<p>Never fired (grey; candidates for removal): ${esc(r.stale.join(', ') || 'none')}</p>
<p>Quiet (never fired; guarding public, irreversible or catastrophic actions — kept): ${esc(r.quiet.join(', ') || 'none')}</p>
<h2>Paused actions</h2><p>${r.pauses.paused} paused · ${r.pauses.approved} approved · ${r.pauses.denied} denied · ${r.pauses.timeout} timed out · ${r.pauses.consumed} ran after approval</p>
<h2>custodiet</h2><p>${esc(r.custodiet.map((c) => `${c.trigger}: ${c.attention} attention, ${c.ok} ok`).join('; ') || 'no verdicts')}</p>${r.reviewer ? `<p>${esc(reviewerText(r.reviewer))}</p>` : ''}
<h2>Incidents and proposals</h2><p>${r.incidents.open} open, ${r.incidents.closed} closed incidents; repeated class within a session: ${esc(r.repeatedInSession.map((x) => `${x.cls} ×${x.times}`).join(', ') || 'none')}. Proposals: ${r.proposals.pending} pending, ${r.proposals.approved} approved, ${r.proposals.rejected} rejected.</p>
</body></html>
`
}
