// The one call other parts of Ratchet make into the courtroom: a finding happened. Cheap on purpose
// (it runs inside hooks): one existsSync when the courtroom is off; when it is on and the finding is
// confident enough, a docket file and a detached `ratchet courtroom hearing`. Never throws.

import fs from 'node:fs'
import path from 'node:path'
import type { Charge } from '../../core/courtroom/hearing'
import { logError } from '../activity'
import { readConfig } from '../config'
import type { Paths } from '../registry'
import { spawnDetached } from '../spawn'
import { fileOf } from '../registry'
import { readState, writeState } from '../store'

export interface HearingRequest {
  source: Charge['source']
  /** What kind of finding: a custodiet category (reactive, scope_expansion, drift, route_around…) or incident:<class>. */
  signal: string
  summary: string
  confidence: number
  evidence?: string[]
  session?: string
  restrains?: Charge['restrains']
  /** Only for charges filed by hand: the pack and offense. */
  pack?: string
  offense_id?: string
}

/** Returns the docket id when a hearing was opened. */
export function openHearing(paths: Paths, f: HearingRequest): string | undefined {
  try {
    // Absent with no ledger here (the usual case: never enabled) or written off: no hearing. Unreadable, or gone
    // while a ledger is here: the hearing process decides from the ledger and the key outside the project
    // (consent.ts consentInForce), so damaging consent.json does not end hearings.
    const r = readState(paths, 'consent')
    const consent = r.ok ? (r.value as { enabled?: boolean } | null) : undefined
    if (consent ? !consent.enabled : r.ok && !fs.existsSync(path.dirname(fileOf(paths, 'ledger', 'x'))))
      return undefined
    const threshold =
      ((readConfig(paths).config as { courtroom?: { threshold?: unknown } }).courtroom?.threshold as
        | number
        | undefined) ?? 0.6
    if (!(f.confidence >= threshold)) return undefined
    const id = `d${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
    const charge: Charge = {
      source: f.source,
      signal: f.signal,
      pack: f.pack ?? 'agent',
      offense_id: f.offense_id ?? '',
      confidence: f.confidence,
      summary: f.summary,
      evidence: f.evidence ?? [f.summary],
      history: [],
      session: f.session,
      ...(f.restrains ? { restrains: f.restrains } : {}),
    }
    const file = fileOf(paths, 'docket', id)
    writeState(paths, 'docket', charge, { id })
    spawnDetached('ratchet', ['courtroom', 'hearing', '--docket', file])
    return id
  } catch (e) {
    logError(paths, 'courtroom', e)
    return undefined
  }
}
