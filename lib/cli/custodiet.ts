// `ratchet custodiet status`: per session, what custodiet saw and did, and what it cost.

import { RatchetError } from '../core/errors'
import { describeEnvelope } from '../core/envelope'
import { listSessions, readState } from '../io/custodiet-state'
import { resolvePaths } from '../io/state'

const out = (s: string): void => void process.stdout.write(s + '\n')

export function status(o: { session?: string; json?: boolean }): void {
  const paths = resolvePaths()
  const sessions = o.session ? [o.session] : listSessions(paths)
  if (o.session && !listSessions(paths).includes(o.session.replace(/[^A-Za-z0-9_.-]/g, '_'))) throw new RatchetError('not_found', `custodiet has no record of session ${o.session}`)
  const rows = sessions.map((id) => ({ session: id, ...readState(paths, id) }))
  if (o.json) return out(JSON.stringify(rows, null, 2))
  if (!rows.length) return out('custodiet has not seen a session yet (is it registered? ratchet doctor)')
  for (const r of rows) {
    const verdicts = r.reviews.reduce<Record<string, number>>((acc, x) => ((acc[x.status] = (acc[x.status] ?? 0) + 1), acc), {})
    out(`Session ${r.session}`)
    out(r.envelope ? describeEnvelope(r.envelope).replace(/^/gm, '  ') : '  (no request recorded)')
    out(`  Tool calls: ${r.toolCount}   Reviews: ${r.reviews.length} ${JSON.stringify(verdicts)}   Reviewer cost: ${r.cost.calls} calls, ${r.cost.input_tokens} in / ${r.cost.output_tokens} out tokens`)
    for (const f of r.findings) out(`  ${f.id} level ${f.level} ${f.category} (${f.source}${f.delivered ? ', delivered' : ''}${f.lifted ? ', lifted' : ''}): ${f.verdict.issue}`)
    if (r.reviewing) out(`  A review is running (pid ${r.reviewing.pid}, ${r.reviewing.trigger}).`)
  }
}
