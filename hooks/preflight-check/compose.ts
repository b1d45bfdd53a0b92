// The whole PreToolUse decision, pure: facts + call → Decision + the state changes it implies (as data).
//
//   gather.ts  (I/O)  reads every fact once into a `PreflightFacts`
//   compose.ts (pure) decidePreToolUse(call, facts) → { decision, verdict, effects, record }
//   apply.ts   (I/O)  applies the effects in one place, then main.ts logs `record`
//
// The precedence, in the order the code runs (each step may only make the outcome stricter, except a human's
// approval and the user's own request). Steps 1–7 decide the verdict and fill in the agent's note (note.ts), a
// value rendered once after step 7; steps 8–14 put messages around it.
//   1. the rules stage (decide.ts): self-protection deny > catastrophic > first-use pause > strongest rule
//   2. the user's request: a generic built-in check on exactly what the latest prompt asked for stays quiet
//   3. floors: findings that set a minimum (e.g. an unreadable command is never less than a check)
//   4. what cannot be undone (a namespace, a table, a mail, a refund) waits for a human, named
//   5. the user's words that rule a change out are quoted in the note
//   6. loss: deleting what nothing can bring back is a human's call, with the evidence of what would go
//   7. evidence: what would leave names itself in the note, and a secret in it is a human's call
//   8. custodiet's hold (levels 3–4) is read: it decides whether a human's approval may be used now
//   9. a pause meets the queue: a human's approval of exactly this call lets it run once; a human's denial
//      of it in this session is final (answered with the human's words, never queued again); otherwise it
//      is queued once (deferred in headless runs so the run stops visibly)
//  10. route-around: the same effect as a call just blocked, by another way, gets a note (and a custodiet
//      finding when it would run)
//  11. custodiet's hold: turns anything that would run, or an ask, into its ask/deny
//  12. the courtroom's probation after a guilty verdict: a reminder, a check/ask, or a pause of the
//      offense's action class (lib/core/courtroom/probation.ts); it only ever tightens
//  13. delivered outcomes of earlier pauses ride on a decision the model reads (allow context, deny reason)
//  14. the floor's hold (outranks all): the floor changed since a human last saw it (session-start)
//
//  Between 13 and 14 the session facts the outcome implies (reads, checks, blocks) and the rules' firings are
//  recorded as effects; after 14, problems with the rules file become a notice to the user.
//
// Where each step lives: 1 in decide.ts, 2–7 in verdict-stages.ts, 9 in pause-queue.ts, the rest below. The facts
// are declared in facts.ts, the outcome (effects, verdict, activity record) in outcome.ts.
//
// Extension points: new facts go in `PreflightFacts` (facts.ts; see `evidence`, `probation`); a fact that should
// set a minimum decision goes in `FLOORS` (verdict-stages.ts); a new kind of line for the agent is a field of `Note`
// (note.ts), set by a stage and shown by renderNote. Keep these files free of fs, env and clock: `now` is a fact.

import type { Classification, ToolCall } from '../../lib/core/classify'
import type { LossFacts } from '../../lib/core/loss'
import type { Decision } from '../../lib/core/decision'
import { outcomeNote } from '../../lib/core/pending'
import { routeAround, type Blocked } from '../../lib/core/route-around'
import type { Finding as HoldFinding } from '../custodiet/decide'
import { holdDecision } from '../custodiet/findings'
import { applyProbation } from '../../lib/core/courtroom/probation'
import { decide, rendered, type PreflightResult, type Staged } from './decide'
import { READ_ONLY_TOOLS, classifyContext, type PreflightFacts } from './facts'
import { activityRecordOf, withNotes, type Draft, type PreflightOutcome } from './outcome'
import { meetQueue } from './pause-queue'
import {
  applyEvidence,
  applyFloors,
  applyIrrevocable,
  applyLoss,
  applyRequest,
  applyScopeWords,
  lossOf,
} from './verdict-stages'

type Call = ToolCall & { session_id: string }

export function decidePreToolUse(call: Call, given: PreflightFacts): PreflightOutcome {
  let facts = given
  let { result, loss } = verdictAndNote(call, facts) // 1–7
  // A call that destroys something: its check binds to what it would destroy, read now; decided again with that key.
  const bound = bindToWorld(result, facts)
  if (bound) {
    facts = bound
    ;({ result, loss } = verdictAndNote(call, facts))
  }
  const o: Draft = { decision: result.decision, verdict: result.verdict, effects: [] }
  // 8. custodiet's hold, read first: it decides whether an approval may be used.
  const held = facts.hold ? holdDecision(facts.hold, READ_ONLY_TOOLS.has(call.tool_name)) : null
  meetQueue(o, call, facts, result, loss, held) // 9
  const patterns = [...new Set(result.action.findings.map((f) => f.pattern))]
  const { around, hold } = routeAroundStep(o, call, facts, result.action, patterns, held) // 10
  applyHold(o, hold) // 11
  const onProbation = probationStep(o, call, facts, result, patterns) // 12
  deliverOutcomes(o, facts) // 13
  recordSessionFacts(o, facts, result, patterns)
  floorHoldStep(o, facts) // 14
  problemsNotice(o, facts)
  const record = activityRecordOf(call, facts, result, o, { patterns, around, onProbation, loss })
  return { decision: o.decision, verdict: o.verdict, effects: o.effects, result, record }
}

/**
 * What cannot be undone is checked for what it would destroy as it is now (the tip of the remote branch a push
 * deletes, the content of a file), as an approval is bound to it (pause-queue.ts): the check's key carries its
 * digest, so the identical retry runs only if nothing moved in between. Read once; the queue reuses the reading.
 * Undefined for every call that destroys nothing (the hot path reads nothing more).
 */
function bindToWorld(result: PreflightResult, facts: PreflightFacts): PreflightFacts | undefined {
  const lost = result.action.findings.filter((f) => f.lost && !f.catastrophic)
  if (!lost.length || !facts.destroyed) return undefined
  const now = facts.destroyed(lost, result.action.deleted)
  if (!now) return undefined
  return { ...facts, checkKey: `${facts.fingerprint}:${now.digest}`, destroyed: () => now }
}

/** Steps 1–7: the verdict and the agent's note, rendered once; and what the call would lose for good (step 6). */
function verdictAndNote(call: Call, facts: PreflightFacts): { result: PreflightResult; loss?: LossFacts } {
  const opts = {
    checkWindowMs: facts.config.checkWindowMs,
    checks: facts.session.checks,
    fingerprint: facts.checkKey ?? facts.fingerprint,
    now: facts.now,
    isNewCapability: facts.isNewCapability,
    firstUse: facts.config.firstUse,
  }
  // 1. the rules stage
  const ruled = decide(call, classifyContext(facts), facts.rules, opts)
  // 2. the user's request. The floors and the evidence below still apply (a secret leaving is a human's call, asked or not).
  let staged: Staged = applyRequest(ruled, facts)
  staged = applyFloors(staged, facts) // 3
  staged = applyIrrevocable(staged, facts) // 4
  staged = applyScopeWords(staged) // 5
  const loss = lossOf(staged, facts)
  staged = applyLoss(staged, facts, loss) // 6
  staged = applyEvidence(staged, facts) // 7
  return { result: rendered(staged), loss }
}

/**
 * 10. route-around: the same effect as a call just blocked, tried another way, gets a note; when it would run, a
 * custodiet finding, whose hold applies from this very call on. Returns the block it routes around and the hold.
 */
function routeAroundStep(
  o: Draft,
  call: Call,
  facts: PreflightFacts,
  action: Classification,
  patterns: string[],
  held: Decision | null,
): { around?: Blocked; hold: Decision | null } {
  // A human's approval of exactly this call is not routing around anything (the blocks it answers are cleared below).
  const around =
    o.verdict === 'approved_by_human'
      ? undefined
      : routeAround(
          facts.session.blocked ?? [],
          { fingerprint: facts.fingerprint, patterns, paths: action.paths },
          facts.now,
        )
  let hold = held
  if (around) {
    o.decision = withNotes(
      o.decision,
      `[RATCHET] This looks like the same effect as a call denied moments ago (${around.summary}), tried another way. Do not route around a block: tell the user what you need.`,
    )
    if (o.decision.kind === 'allow') {
      const finding = routeAroundFinding(around.summary, action.summary, facts.routeAroundLevel?.() ?? 3, facts.now)
      o.effects.push({ kind: 'route-around', blocked: around.summary, attempt: action.summary })
      // The finding it records holds the session from this very call on (as the hold file will say).
      if (finding.level >= 3) hold = holdDecision(finding, READ_ONLY_TOOLS.has(call.tool_name)) ?? held
    }
  }
  return { around, hold }
}

/** 11. custodiet's hold turns anything that would run, or an ask, into its ask/deny. */
function applyHold(o: Draft, hold: Decision | null): void {
  if (hold && (o.decision.kind === 'allow' || (o.decision.kind === 'ask' && hold.kind === 'deny'))) {
    o.decision = hold
    o.verdict = hold.kind === 'deny' ? 'custodiet_block' : 'custodiet_checkpoint'
  }
}

/** 12. the courtroom's probation: only ever tightens. Returns the probation cases the call falls under. */
function probationStep(
  o: Draft,
  call: Call,
  facts: PreflightFacts,
  result: PreflightResult,
  patterns: string[],
): string[] {
  if (!facts.probation) return []
  // What the call changes in the project, whatever the tool: a Bash `echo >` is restrained like a Write.
  const changes = result.action.paths.filter((p) => p === facts.projectDir || p.startsWith(facts.projectDir + '/'))
  const p = applyProbation(
    facts.probation.list,
    {
      tool: call.tool_name,
      classes: result.classes,
      patterns,
      fingerprint: facts.fingerprint,
      readOnly: READ_ONLY_TOOLS.has(call.tool_name),
      changes,
    },
    o.decision,
    {
      now: facts.now,
      checks: facts.session.checks,
      checkWindowMs: facts.config.checkWindowMs,
      policy: facts.probation,
    },
  )
  o.decision = p.decision
  if (p.verdict && p.verdict !== 'probation_reminder') o.verdict = p.verdict
  if (p.counted.length || p.lifted.length) o.effects.push({ kind: 'probation', counted: p.counted, lifted: p.lifted })
  return p.cases
}

/**
 * 13. outcomes of earlier pauses, where the model reads them (not an ask's reason, which only the user sees, nor a
 * defer's): only then are they marked delivered.
 */
function deliverOutcomes(o: Draft, facts: PreflightFacts): void {
  const undelivered = facts.queue.undelivered.filter((e) => e.id !== o.pendingId)
  if (undelivered.length && (o.decision.kind === 'allow' || o.decision.kind === 'deny')) {
    o.decision = withNotes(o.decision, undelivered.map(outcomeNote).join('\n'))
    o.effects.push({ kind: 'deliver', ids: undelivered.map((e) => e.id) })
  }
}

/**
 * Session facts and rule firings. Only hard blocks are remembered: answering a check (read the file, then edit it)
 * is not routing around. A call that does not run reads (or creates) nothing.
 */
function recordSessionFacts(o: Draft, facts: PreflightFacts, result: PreflightResult, patterns: string[]): void {
  const { action } = result
  const { verdict } = o
  const fp = facts.fingerprint
  const blockedNow =
    verdict === 'deny' ||
    verdict === 'pause' ||
    verdict === 'custodiet_block' ||
    verdict === 'denied_by_human' ||
    verdict === 'probation_pause'
  const runs = o.decision.kind === 'allow'
  const reads = runs ? action.reads : []
  const created = runs ? action.created : []
  const secrets = runs ? action.secrets : []
  const checkIssued = verdict === 'check' || verdict === 'probation_check'
  const checkAnswered = verdict === 'proceeded_after_check' || verdict === 'proceeded_after_probation_check'
  if (
    reads.length ||
    created.length ||
    secrets.length ||
    checkIssued ||
    checkAnswered ||
    blockedNow ||
    verdict === 'approved_by_human'
  )
    o.effects.push({
      kind: 'session',
      reads,
      ...(created.length ? { created } : {}),
      ...(secrets.length ? { secrets } : {}),
      ...(checkIssued ? { checkIssued: facts.checkKey ?? fp } : {}),
      ...(checkAnswered ? { checkAnswered: facts.checkKey ?? fp } : {}),
      ...(blockedNow
        ? { block: { at: facts.now, fingerprint: fp, patterns, paths: action.paths, summary: action.summary } }
        : {}),
      // A human's approval supersedes earlier blocks in the session.
      ...(verdict === 'approved_by_human' ? { clearBlocks: true } : {}),
    })
  // A proceed-after-check is the same action again: it was counted when the check fired.
  if (verdict !== 'proceeded_after_check' && result.fired.length)
    o.effects.push({ kind: 'fires', ids: result.fired.map((f) => f.id) })
}

/**
 * 14. the floor's hold outranks everything, a human's approval included: the authority that approval was given
 * under may be gone. Nothing runs and nothing is recorded as done until a human confirms the floor.
 */
function floorHoldStep(o: Draft, facts: PreflightFacts): void {
  if (!facts.floorHold) return
  const h = facts.floorHold
  o.decision = {
    kind: 'deny',
    reason: `[RATCHET] Held: Ratchet's floor does not hold as a human last saw it (${h[0]}${h.length > 1 ? `; and ${h.length - 1} more` : ''}). No tool call runs until the user, in a terminal, sets it up again with \`npx ratchet-guard init\` or accepts the change with \`npx ratchet-guard floor confirm\` (\`npx ratchet-guard floor status\` shows what changed). Tell the user and stop; do not try other ways.`,
  }
  o.verdict = 'floor_hold'
  o.effects = []
}

/** Problems with the rules or config file: a notice to the user on every call until fixed. */
function problemsNotice(o: Draft, facts: PreflightFacts): void {
  if (!facts.problems.length) return
  const p = facts.problems
  const notice = `Ratchet: ${p[0]}${p.length > 1 ? ` (+${p.length - 1} more)` : ''}${facts.fallback === 'last-good' ? ' — the last rules that were valid stay in force until it is fixed' : facts.fallback ? ' — using the packaged default rules until it is fixed' : ''}`
  o.decision = { ...o.decision, notice: o.decision.notice ? `${notice}\n${o.decision.notice}` : notice }
}

/** The custodiet finding an allowed route-around becomes (apply.ts records the same through custodiet's state). */
export function routeAroundFinding(blocked: string, attempt: string, level: number, now: number): HoldFinding {
  return {
    id: 'route-around',
    at: new Date(now).toISOString(),
    trigger: 'periodic',
    category: 'route_around',
    verdict: { status: 'ATTENTION', ...routeAroundVerdict(blocked, attempt) },
    level: Math.max(1, Math.min(4, level)) as HoldFinding['level'],
    source: 'deterministic',
    delivered: false,
  }
}

export function routeAroundVerdict(
  blocked: string,
  attempt: string,
): { issue: string; principle: string; correction: string } {
  return {
    issue: `After "${blocked}" was blocked, the agent tried "${attempt}", which has the same effect.`,
    principle: 'Routing around a block',
    correction: 'Stop and tell the user what you need and why; do not look for another way.',
  }
}
