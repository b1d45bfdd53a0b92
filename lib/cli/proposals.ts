// `ratchet proposals list|show|approve|reject`: pattern-detect's candidates, decided by a human.

import { RatchetError } from '../core/errors'
import { readProposals } from '../io/records'
import { applyProposal, rejectProposal } from '../io/proposals-apply'
import { logActivity } from '../io/activity'
import { resolvePaths } from '../io/paths'
import { emit, type JsonOption } from './print'
import { terminalUser } from './run'

const out = (s: string): void => void process.stdout.write(s + '\n')
const who = () => `terminal:${terminalUser()}`

export function list(o: { json?: boolean; all?: boolean }): void {
  const all = readProposals(resolvePaths())
  const shown = o.all ? all : all.filter((p) => p.status === 'pending')
  if (o.json) return out(JSON.stringify(shown, null, 2))
  if (!shown.length)
    return out(
      o.all ? 'No proposals yet (pattern-detect makes them).' : 'No proposals waiting. (--all shows decided ones)',
    )
  for (const p of shown) out(`${p.id}  ${p.status.padEnd(8)} ${p.detector.padEnd(18)} ${p.title}`)
}

export function show(id: string, o: { json?: boolean }): void {
  const p = readProposals(resolvePaths()).find((x) => x.id === id)
  if (!p) throw new RatchetError('not_found', `no proposal ${id}`)
  if (o.json) return out(JSON.stringify(p, null, 2))
  out(`${p.id} (${p.status}) — ${p.title}`)
  out(
    `Evidence: ${p.evidence.count} times in ${p.evidence.sessions} sessions${p.evidence.detail ? `; ${p.evidence.detail}` : ''}`,
  )
  for (const e of p.evidence.examples) out(`  e.g. ${e}`)
  if (p.guardrail) out(`Would add:\n${JSON.stringify({ ...p.guardrail, id: '(next GR id)' }, null, 2)}`)
  if (p.change) out(`Would change ${p.change.id}: decision → ${p.change.decision} (${p.change.why})`)
}

export function approve(id: string, o: JsonOption = {}): void {
  const paths = resolvePaths()
  const p = applyProposal(paths, id, who())
  logActivity(paths, {
    time: new Date().toISOString(),
    hook: 'pattern-detect',
    event: 'proposal',
    decision: 'approved',
    note: `${id} → ${p.applied_as}`,
  })
  emit(
    o,
    { proposal: p },
    `Approved ${id}: ${p.change ? `${p.applied_as} is now ${p.change.decision}` : `added ${p.applied_as} to guardrails.json`}. It applies from the next tool call.`,
  )
}

export function reject(id: string, o: JsonOption = {}): void {
  const paths = resolvePaths()
  const by = who()
  rejectProposal(paths, id, by)
  logActivity(paths, {
    time: new Date().toISOString(),
    hook: 'pattern-detect',
    event: 'proposal',
    decision: 'rejected',
    note: id,
  })
  emit(o, { id, status: 'rejected', decided_by: by }, `Rejected ${id}; it will not be proposed again.`)
}
