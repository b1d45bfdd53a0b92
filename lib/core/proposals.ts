// Candidate guardrails from pattern-detect, never applied without a human. Pure transitions.

import type { Candidate } from './detectors'
import { nextGuardrailId, type Guardrail } from './guardrails'

export interface Proposal extends Candidate {
  id: string
  status: 'pending' | 'approved' | 'rejected'
  created: string
  decided_at?: string
  decided_by?: string
  /** The guardrail id it became, once approved. */
  applied_as?: string
  /** The pause-and-ask entry that carries it to Telegram, if any. */
  pending_id?: string
}

/** Adds new findings; a finding already proposed (whatever its status) is not proposed again. */
export function mergeCandidates(
  list: Proposal[],
  found: Candidate[],
  now: string,
): { next: Proposal[]; result: Proposal[] } {
  const known = new Set(list.map((p) => p.key))
  let n = list.reduce((m, p) => Math.max(m, Number(/^PD-(\d+)$/.exec(p.id)?.[1] ?? 0)), 0)
  const added: Proposal[] = []
  for (const c of found) {
    if (known.has(c.key)) continue
    known.add(c.key)
    added.push({ ...c, id: `PD-${String(++n).padStart(3, '0')}`, status: 'pending', created: now })
  }
  return { next: added.length ? [...list, ...added] : list, result: added }
}

/** The guardrail an approved proposal becomes, with `source` naming the finding. */
export function guardrailFor(p: Proposal, existing: { id: string }[]): Guardrail | null {
  if (!p.guardrail) return null
  return {
    ...p.guardrail,
    id: nextGuardrailId(existing.map((g) => g.id)),
    source: `${p.guardrail.source ?? ''} (${p.id})`.trim(),
  } as Guardrail
}

export function validateProposals(raw: unknown): Proposal[] | string {
  if (!Array.isArray(raw)) return 'expected an array of proposals'
  for (let i = 0; i < raw.length; i++)
    if (typeof (raw[i] as Proposal)?.id !== 'string' || typeof (raw[i] as Proposal)?.key !== 'string')
      return `[${i}]: expected a proposal with id and key`
  return raw as Proposal[]
}
