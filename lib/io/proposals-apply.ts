// Turning an approved proposal into a rule: append the guardrail (or change a rule's decision) in
// guardrails.json, then mark the proposal approved. Shared by the terminal and the Telegram path.

import { RatchetError } from '../core/errors'
import { guardrailFor, type Proposal } from '../core/proposals'
import { readProposals, updateProposals } from './records'
import { editGuardrails } from './guardrails'
import type { Paths } from './registry'

export function applyProposal(paths: Paths, id: string, by: string): Proposal {
  const p = readProposals(paths).find((x) => x.id === id)
  if (!p) throw new RatchetError('not_found', `no proposal ${id}`)
  if (p.status !== 'pending') throw new RatchetError('conflict', `${id} is already ${p.status}`)
  let appliedAs = ''
  editGuardrails(paths, (list) => {
    const rules = list as { id: string; decision?: string }[]
    if (p.change) {
      if (!rules.some((r) => r.id === p.change!.id))
        throw new RatchetError('conflict', `${p.id} changes ${p.change.id}, which is no longer in guardrails.json`)
      appliedAs = p.change.id
      return {
        next: rules.map((r) =>
          r.id === p.change!.id
            ? { ...r, decision: p.change!.decision, decision_changed_by: `${p.id}: ${p.change!.why}` }
            : r,
        ),
        result: undefined,
      }
    }
    const g = guardrailFor(p, rules)
    if (!g) throw new RatchetError('conflict', `${p.id} has nothing to apply`)
    appliedAs = g.id
    return { next: [...rules, g as unknown as Record<string, unknown>], result: undefined }
  })
  return updateProposals(paths, (list) => {
    const next = list.map((x) =>
      x.id === id
        ? {
            ...x,
            status: 'approved' as const,
            decided_at: new Date().toISOString(),
            decided_by: by,
            applied_as: appliedAs,
          }
        : x,
    )
    return { next, result: next.find((x) => x.id === id)! }
  })
}

export function rejectProposal(paths: Paths, id: string, by: string): Proposal {
  return updateProposals(paths, (list) => {
    const p = list.find((x) => x.id === id)
    if (!p) throw new RatchetError('not_found', `no proposal ${id}`)
    if (p.status !== 'pending') throw new RatchetError('conflict', `${id} is already ${p.status}`)
    const next = list.map((x) =>
      x.id === id ? { ...x, status: 'rejected' as const, decided_at: new Date().toISOString(), decided_by: by } : x,
    )
    return { next, result: next.find((x) => x.id === id)! }
  })
}
