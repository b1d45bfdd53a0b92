// Steps 2–7 of preflight-check's precedence (compose.ts runs them in this order, after the rules stage): each
// takes the staged verdict and note and may only make the outcome stricter, except the user's own request.
//   2. applyRequest      the user's request answers a generic built-in check
//   3. applyFloors       findings that set a minimum (FLOORS)
//   4. applyIrrevocable  what cannot be undone waits for a human, named
//   5. applyScopeWords   the user's words that rule a change out are quoted
//   6. applyLoss         deleting what nothing can bring back is a human's call (lossOf reads what would go)
//   7. applyEvidence     what would leave names itself, and a secret in it is a human's call

import type { Finding } from '../../lib/core/actions/types'
import { lossIrrecoverable, type LossFacts } from '../../lib/core/loss'
import { evidenceClean, evidenceFloor, evidenceLines, requestedByUser } from '../../lib/core/evidence/decision'
import { STRENGTH, type RuleDecision } from '../../lib/core/guardrails'
import { askedFor, requestedBy } from './request'
import { checkAnswered as answered, type Staged } from './decide'
import { because, naming, proceedFor, type Verdict } from './note'
import type { PreflightFacts } from './facts'

/**
 * Findings that set a minimum decision whatever the rules say. A floor never weakens a decision.
 * Others add entries here (e.g. `unreadable` from the shell reader, a secret in the evidence).
 */
export const FLOORS: Record<string, { decision: RuleDecision; why: string }> = {
  unreadable: {
    decision: 'check',
    why: 'Ratchet could not read what this command runs, so it is judged by its worst reading; spell it out plainly if you can',
  },
  // Code from the network is unknowable from here: a human decides, unless the user's latest prompt named its source
  // (then it is the unreadable check; see floorOf).
  remote_code: {
    decision: 'pause',
    why: 'it runs code fetched from the network, which Ratchet cannot read: download it and read it first, or ask the user',
  },
  planted_authority: {
    decision: 'pause',
    why: 'only the user can give standing authority: write what the user actually said, or ask them',
  },
  planted_code: {
    decision: 'pause',
    why: 'code that runs later by itself, outside the sandbox, is the user’s call: say why it is needed, or ask the user',
  },
  sandbox_bypass: {
    decision: 'pause',
    why: 'it asks to run outside the OS sandbox, which is more authority than the user granted: run it sandboxed, or ask the user',
  },
}

/** The floor a finding demands here: code from a source the user named in the latest prompt is only checked. */
function floorOf(
  f: { pattern: string; detail: string },
  facts: PreflightFacts,
): { decision: RuleDecision; why: string } | undefined {
  const fl = FLOORS[f.pattern]
  if (f.pattern !== 'remote_code' || !fl) return fl
  const host = /fetched from (\S+),/.exec(f.detail)?.[1]
  const prompt = (facts.session.prompts[facts.session.prompts.length - 1] ?? '').toLowerCase()
  return host && prompt.includes(host) ? FLOORS.unreadable : fl
}

/** Generic built-ins: a request from the user answers their check. The project's own rules are not generic. */
const GENERIC_CHECKS = new Set(['RG-PUBLIC', 'RG-IRREVERSIBLE', 'RG-SCOPE'])

export function applyRequest(r: Staged, facts: PreflightFacts): Staged {
  if (r.verdict !== 'check' || r.builtin) return r
  if (
    !r.fired.every(
      (f) =>
        (f.decision !== 'check' && f.decision !== 'warn') ||
        (GENERIC_CHECKS.has(f.id) && (f.rule as { origin?: string }).origin === 'built-in'),
    )
  )
    return r
  if (r.fired.some((f) => STRENGTH[f.decision] > STRENGTH.check)) return r
  // Only what matters for the check: stale data, scope and self-protection findings are never "asked for".
  const findings = r.action.findings.filter((f) => f.class === 'public_surface' || f.class === 'irreversible')
  if (
    findings.length !==
    r.action.findings.filter((f) => f.class !== 'local_change' && f.class !== 'secret_access').length
  )
    return r
  const prompt = facts.session.prompts[facts.session.prompts.length - 1]
  if (!requestedBy(prompt, findings, r.action.paths)) return r
  return { ...r, verdict: 'allow', requested: true }
}

/** Raises the rules stage's result to the minimum a finding demands. */
export function applyFloors(r: Staged, facts: PreflightFacts): Staged {
  if (r.builtin === 'self-protection' || r.builtin === 'catastrophic') return r
  let floor: { decision: RuleDecision; why: string; pattern: string } | undefined
  for (const f of r.action.findings) {
    const fl = floorOf(f, facts)
    if (fl && (!floor || STRENGTH[fl.decision] > STRENGTH[floor.decision])) floor = { ...fl, pattern: f.pattern }
  }
  if (!floor) return r
  // Say exactly what was found (the findings' details: what could not be read, the claim quoted), so the agent can
  // act on it. (Code from the network also says what the reader could not read: the pipe, the substitution.)
  const details = [
    ...new Set(
      r.action.findings
        .filter((f) => f.pattern === floor!.pattern || (floor!.pattern === 'remote_code' && f.pattern === 'unreadable'))
        .map((f) => f.detail),
    ),
  ].slice(0, 3)
  if (details.length) floor = { ...floor, why: `${floor.why} (${details.join('; ')})` }
  const current = strengthOf(r.verdict)
  if (current && STRENGTH[current] >= STRENGTH[floor.decision]) {
    // A rule already stops it: the note still says what could not be read, so the agent can spell it out.
    return floor.pattern === 'unreadable' && stops(r.verdict) ? { ...r, note: because(r.note, floor.why) } : r
  }
  const note = {
    ...because(r.note, floor.why),
    proceed: proceedFor(floor.decision, r.fired, facts.config.checkWindowMs),
  }
  if (floor.decision === 'check' && checkAnswered(facts)) return { ...r, verdict: 'proceeded_after_check' }
  return { ...r, verdict: floor.decision, note }
}

const ASKED_CHECK = 'Is this exactly what the user named (below)? Nothing brings it back.'
const VERB: Record<string, string> = { destroys: 'Destroys', sends: 'Sends', pays: 'Pays' }

/** `Destroys: namespace prod and everything in it` — one line per thing that cannot be undone. */
export function lostLines(findings: readonly Finding[]): string[] {
  return [...new Set(findings.filter((f) => f.lost).map((f) => `${VERB[f.lost!.kind]}: ${f.lost!.what}`))].slice(0, 8)
}

/**
 * What cannot be undone — a cloud resource, a namespace, a table's rows, a published version, a remote branch, a
 * mail, a refund — waits for a human: a check whose identical retry passes is no guard for it. Unless the user's
 * latest message asked for exactly this (its verb and every name: "drop the sessions table"), and then it is a
 * check that names what goes; a local development resource the user asked to reset runs quietly. Every note says
 * what would be destroyed, sent or paid, never a bare "irreversible".
 */
export function applyIrrevocable(r: Staged, facts: PreflightFacts): Staged {
  if (r.builtin === 'self-protection' || r.builtin === 'catastrophic') return r
  const lost = r.action.findings.filter((f) => f.lost && !f.catastrophic)
  if (!lost.length) return r
  const prompt = facts.session.prompts[facts.session.prompts.length - 1]
  const unasked = lost.filter((f) => !askedFor(prompt, f.lost!))
  const current = strengthOf(r.verdict)
  const unreadable = r.action.findings.some((f) => f.pattern === 'unreadable')
  // What goes, as read now, when a check will cover it (compose.ts bindToWorld read it, and keyed the check to
  // it): the retry runs only on the same.
  const now = !unasked.length && facts.checkKey ? facts.destroyed?.(lost, r.action.deleted) : undefined
  const lines = [...lostLines(lost), ...(now?.seen.slice(0, 3).map((l) => `Now: ${l}`) ?? [])]
  if (unasked.length) {
    if (current && STRENGTH[current] >= STRENGTH.pause) return { ...r, note: naming(r.note, lines) }
    const note = because(r.note, "it cannot be undone, and the user's latest message did not ask for it by name")
    return {
      ...r,
      verdict: 'pause',
      requested: undefined,
      note: naming(
        {
          ...note,
          check: 'Tell the user exactly what would go (below) and let them decide; a retry will not run it.',
          proceed: proceedFor('pause', r.fired, facts.config.checkWindowMs),
        },
        lines,
      ),
    }
  }
  // Every one of them asked for. A local development resource with nothing else to weigh runs quietly.
  const others = r.action.findings.filter(
    (f) =>
      !f.lost && f.class !== 'local_change' && f.class !== 'secret_access' && !(f.pattern === 'unrequested_publish'),
  )
  const generic = r.fired.every(
    (f) => f.rule.source === 'built-in' && (f.decision === 'check' || f.decision === 'warn'),
  )
  if (
    lost.every((f) => f.lost!.local) &&
    !others.length &&
    !unreadable &&
    generic &&
    !r.builtin &&
    (r.verdict === 'check' || r.verdict === 'warn' || r.verdict === 'allow' || r.verdict === 'proceeded_after_check')
  )
    return { ...r, verdict: 'allow', requested: true }
  if (current && STRENGTH[current] >= STRENGTH.check)
    return { ...r, note: naming(r.verdict === 'check' ? { ...r.note, check: ASKED_CHECK } : r.note, lines) }
  // Asked for, but nothing stops it yet (a rule turned down, a request that answered the generic check): a check that names it.
  if (checkAnswered(facts)) return { ...r, verdict: 'proceeded_after_check' }
  const note = because(r.note, "it cannot be undone; the user's latest message asked for it")
  return {
    ...r,
    verdict: 'check',
    requested: undefined,
    note: naming(
      { ...note, check: ASKED_CHECK, proceed: proceedFor('check', r.fired, facts.config.checkWindowMs) },
      lines,
    ),
  }
}

const SCOPE_WORDS = new Set(['against_request', 'against_constraint', 'machine_change'])

/**
 * A change the user's words rule out (after a question, against "don't touch X", outside the project) is the
 * scope check RG-SCOPE gives; its note quotes those words, so the agent can act on them (stop, or ask).
 */
export function applyScopeWords(r: Staged): Staged {
  const lines = [
    ...new Set(r.action.findings.filter((f) => SCOPE_WORDS.has(f.pattern)).map((f) => `Scope: ${f.detail}`)),
  ].slice(0, 3)
  if (!lines.length || !stops(r.verdict)) return r
  const onlyScope = r.classes.every(
    (c) => c === 'scope_beyond_request' || c === 'local_change' || c === 'secret_access',
  )
  const note = onlyScope
    ? {
        ...r.note,
        check: "The user's words below rule this out. Do what they asked; if this change is needed, ask them first.",
      }
    : r.note
  return { ...r, note: naming(note, lines) }
}

/** What the call would lose for good, when it deletes something the classifier could not call recoverable. */
export function lossOf(r: Staged, facts: PreflightFacts): LossFacts | undefined {
  if (!facts.loss || !r.action.deleted.length || r.builtin === 'catastrophic') return undefined
  const l = facts.loss(r.action.deleted, facts.session.created ?? {})
  return lossIrrecoverable(l) ? l : undefined
}

/**
 * Deleting or overwriting user data nothing can bring back (untracked, uncommitted changes, ignored data, outside
 * any repository; the agent's own files and build output are not counted) pauses for a human, with the evidence of
 * what would go: a check whose identical retry passes is not a guard for an effect that cannot be undone (INC-003).
 * Except when the user's latest prompt plainly asked for it (the request stage answered the check, naming each
 * target): then it runs quietly — unless the command could not be read, whose worst reading is what is weighed.
 */
export function applyLoss(r: Staged, facts: PreflightFacts, loss: LossFacts | undefined): Staged {
  if (!loss) return r
  // Denied for touching Ratchet's files: the note leads with the user's data it would destroy, which is what matters.
  if (r.builtin === 'self-protection') return { ...r, note: { ...r.note, loss } }
  const unreadable = r.action.findings.some((f) => f.pattern === 'unreadable')
  if (r.requested && !unreadable) return r
  const current = strengthOf(r.verdict)
  if (current && STRENGTH[current] >= STRENGTH.pause) return { ...r, note: { ...r.note, loss } }
  // The reasons earlier stages gave stay in the note (an unreadable command's: the agent can spell it out).
  const note = because(
    r.note,
    `it would lose ${loss.more ? 'at least ' : ''}${loss.files} file${loss.files === 1 ? '' : 's'} of the user's that nothing can bring back`,
  )
  return {
    ...r,
    verdict: 'pause',
    requested: undefined,
    note: { ...note, loss, proceed: proceedFor('pause', r.fired, facts.config.checkWindowMs) },
  }
}

/**
 * The evidence (lib/core/evidence/decision.ts) sets a minimum and names what would leave:
 * - a secret or private file would leave → pause: a human decides; retrying the call changes nothing;
 * - it would only be staged → check, naming the files; gathering could not finish → pause;
 * - otherwise the note, if there is one, gains the Evidence lines (commit count, files) and nothing else changes.
 * Self-protection and catastrophic denials stay as they are.
 */
export function applyEvidence(r: Staged, facts: PreflightFacts): Staged {
  const e = facts.evidence
  if (!e || r.builtin === 'self-protection' || r.builtin === 'catastrophic') return r
  // The user asked for exactly this kind of leaving, and the evidence shows nothing private: the generic
  // built-in check has nothing to add. Only the built-in soft check, only public-surface findings (no
  // force push, no scope finding; a local commit on the way is fine); a user’s own rule, a first use or anything stronger still stands.
  if (
    evidenceClean(e) &&
    r.verdict === 'check' &&
    !r.builtin &&
    r.fired.every((f) => f.rule.source === 'built-in' && f.decision === 'check') &&
    r.action.findings.every((f) => (f.class === 'public_surface' || f.class === 'local_change') && !f.lost) &&
    requestedByUser(facts.session.prompts[facts.session.prompts.length - 1], e.kinds, e.unnamed)
  )
    return { ...r, verdict: 'allow' }
  const floor = evidenceFloor(e)
  const current = strengthOf(r.verdict)
  if (!floor || (current && STRENGTH[current] >= STRENGTH[floor.decision]))
    return { ...r, note: { ...r.note, evidence: evidenceLines(e) } }
  if (floor.decision === 'check' && checkAnswered(facts)) return { ...r, verdict: 'proceeded_after_check' }
  const note = {
    ...because(r.note, floor.why),
    proceed: proceedFor(floor.decision, r.fired, facts.config.checkWindowMs),
  }
  return { ...r, verdict: floor.decision, note: { ...note, evidence: evidenceLines(e) } }
}

/** The decision a verdict stands for, as strong as a rule's (a retry after a check is still a check). */
function strengthOf(v: Verdict): RuleDecision | undefined {
  return v === 'allow' ? undefined : v === 'proceeded_after_check' ? 'check' : v
}

/** The verdict stops the call with the note (a warn's note rides on an allowed call). */
const stops = (v: Verdict) => v === 'check' || v === 'ask' || v === 'pause' || v === 'deny'

/** An identical call was checked within the window, so this retry answers the check. */
const checkAnswered = (facts: PreflightFacts) =>
  answered({
    checks: facts.session.checks,
    fingerprint: facts.checkKey ?? facts.fingerprint,
    now: facts.now,
    checkWindowMs: facts.config.checkWindowMs,
  })

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [FLOORS, VERB]) Object.setPrototypeOf(table, null)
