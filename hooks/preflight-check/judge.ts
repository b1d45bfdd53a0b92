// The one judgement of a PreToolUse call: every fact (gather.ts), what the call would send (evidence), the pure
// decision (compose.ts), and the redaction of what is written about it (redact.ts). The hook applies and logs
// what it returns; `ratchet guardrails explain` prints it, so explain says exactly what the hook would do.

import type { PayloadOf } from '../../lib/core/payloads'
import type { Recognizer } from '../../lib/core/known-secrets'
import { evidenceForCall } from '../../lib/io/evidence'
import { knownSecrets, sessionRemotes } from '../../lib/io/known-secrets'
import { homeDir } from '../../lib/io/paths'
import { logError } from '../../lib/io/activity'
import type { Paths } from '../../lib/io/registry'
import { decidePreToolUse } from './compose'
import type { PreflightFacts } from './facts'
import { gatherFacts } from './gather'
import { mayHoldSecret, redactOutcome } from './redact'

export interface Judgement {
  facts: PreflightFacts
  /** Decides on these facts (the hook decides again on changed facts when an approval it relied on was just used). */
  decide: (facts: PreflightFacts) => ReturnType<typeof decidePreToolUse>
}

/** Reads only: nothing is queued, counted or remembered here. `adjust` changes the gathered facts (explain: a first attempt). */
export async function judge(
  payload: PayloadOf<'PreToolUse'>,
  paths: Paths,
  adjust: (f: PreflightFacts) => PreflightFacts = (f) => f,
): Promise<Judgement> {
  // What the call would send or stage: only calls that push, stage broadly, publish or upload start any
  // process (bounded, DEFAULT_LIMITS.budgetMs); every other call returns at once.
  let known: Recognizer | undefined | null = null
  const secrets = () => {
    if (known !== null) return known
    try {
      return (known = knownSecrets({ ...paths, homeDir: homeDir() }, payload.session_id))
    } catch (e) {
      // Without them, what leaves is still scanned for the well-known shapes; the failure is logged, not fatal.
      logError(paths, 'preflight-check', e)
      return (known = undefined)
    }
  }
  const base = adjust(gatherFacts(payload, paths))
  // A push is judged against where the user's request left the remotes, and the prompts (a destination they named).
  const remotes = () => sessionRemotes(paths, payload.session_id)
  const evidence = await evidenceForCall(payload, paths.projectDir, homeDir(), {
    known: secrets,
    asked: { prompts: base.session.prompts, remotes },
  })
  // What is written about the call never holds a secret the session has seen (redact.ts).
  const decide = (facts: PreflightFacts) => {
    const o = decidePreToolUse(payload, facts)
    const r = evidence || mayHoldSecret(o.result.action.summary) ? secrets() : undefined
    return r ? redactOutcome(o, r) : o
  }
  return { facts: { ...base, evidence }, decide }
}
