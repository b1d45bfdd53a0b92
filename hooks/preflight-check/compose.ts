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
// Extension points: new facts go in `PreflightFacts` (see `evidence`, `probation`); a fact that should set
// a minimum decision goes in `FLOORS`; a new kind of line for the agent is a field of `Note` (note.ts), set by a
// stage and shown by renderNote. Keep this file free of fs, env and clock: `now` is a fact.

import type { ClassifyContext, FileState, ToolCall } from '../../lib/core/classify'
import type { Deletion, Finding, FsFacts } from '../../lib/core/actions/types'
import { trimTrailingSlashes } from '../../lib/core/actions/util'
import { lossIrrecoverable, lossSummary, type LossFacts } from '../../lib/core/loss'
import type { Decision } from '../../lib/core/decision'
import {
  evidenceClean,
  evidenceFloor,
  evidenceLines,
  evidenceSummary,
  requestedByUser,
} from '../../lib/core/evidence/decision'
import type { EvidenceFacts } from '../../lib/core/evidence/gathered'
import { fnv64 } from '../../lib/core/fingerprint'
import { decisionRecord, type ActivityRecord } from '../../lib/core/activity'
import { STRENGTH, type RuleDecision } from '../../lib/core/guardrails'
import type { RuleIndex } from '../../lib/core/rule-match'
import {
  approvalCovers,
  outcomeNote,
  type DestroyedState,
  type NewAction,
  type PendingEntry,
  type Severity,
} from '../../lib/core/pending'
import { routeAround, type Blocked } from '../../lib/core/route-around'
import { maskSecrets } from '../../lib/core/secrets'
import { holdDecision, type Finding as HoldFinding } from '../custodiet/decide'
import { applyProbation, type Probation, type ProbationVerdict } from '../../lib/core/courtroom/probation'
import { askedFor, requestedBy } from './request'
import { checkAnswered as answered, decide, rendered, type PreflightResult, type Staged } from './decide'
import { because, naming, proceedFor, type Verdict } from './note'

/** Tools that only read: never held by custodiet, never denied when the hook itself fails. */
export const READ_ONLY_TOOLS = new Set([
  'Read',
  'Glob',
  'Grep',
  'LS',
  'NotebookRead',
  'TodoWrite',
  'TodoRead',
  'ToolSearch',
  'TaskList',
  'TaskGet',
  'TaskOutput',
])

/** The session facts the decision reads (a subset of the session file). */
export interface SessionFacts {
  reads: Record<string, number>
  prompts: string[]
  checks: Record<string, number>
  blocked?: Blocked[]
  created?: Record<string, number>
  secrets?: Record<string, number>
}

/** What the approval queue says about this call and this session (read once, without the lock). */
export interface QueueFacts {
  /** An approved, unused entry for exactly this call (fingerprint). */
  approved?: PendingEntry
  /** Every approved, unused entry for exactly this call: the one that covers the call as it is now is used (boundQueue). */
  approvals?: PendingEntry[]
  /** A pending entry for exactly this call: a retry does not queue a duplicate. */
  open?: PendingEntry
  /** Every pending entry for exactly this call (of any session, with any evidence). */
  opens?: PendingEntry[]
  /** The human's latest denial of exactly this call in this session. */
  denied?: PendingEntry
  /** Decided entries of this session the agent has not heard about yet. */
  undelivered: PendingEntry[]
}

export interface PreflightFacts {
  now: number
  fingerprint: string
  projectDir: string
  homeDir: string
  stateDir: string
  rules: RuleIndex
  /** One line per problem with the rules or config file; shown to the user on every call until fixed. */
  problems: string[]
  /** The project's rules could not be used and the packaged ones stand in. */
  /** guardrails.json is broken: the last rules that validated are in force, or (none) the built-ins alone. */
  fallback: false | 'last-good' | 'packaged'
  session: SessionFacts
  queue: QueueFacts
  /** custodiet's standing hold on this session (level 3–4 finding), if any. */
  hold: HoldFinding | null
  /** The floor changed since a human last saw it (session-start): what changed. Every tool call waits for a human. */
  floorHold?: string[]
  /** This call's commands run inside the OS sandbox with the floor's rules (ClassifyContext.sandboxed). */
  sandboxed?: boolean
  config: {
    checkWindowMs: number
    /** Headless run (`claude -p`) with deferral on: a pause stops the run instead of failing the call. */
    defer: boolean
    /** Telegram is configured: pauses are sent there. */
    telegram: boolean
    /** RG-FIRST-USE's decision (default pause). */
    firstUse?: 'ask' | 'pause'
  }
  /** The world as classification needs it; functions so only the calls that need them pay. */
  fileExists(absPath: string): boolean
  currentBranch(dir: string): string | undefined
  /** Whether a local commit in `dir`'s repository can become public (see gather.ts isPublicRemote). */
  publicRemote?(dir: string): boolean
  /** What git can restore of a path (catalogue's fact provider, lib/io/git.ts); asked only for deletions and discards. */
  fileState?(absPath: string): FileState | undefined
  /** File-system facts for self-protection (realpath, hard links, archives, patches, git status), lazily read. */
  fs?: FsFacts
  /** The installed Ratchet package's folder, protected like the state folder. */
  packageDir?: string
  /** Ratchet's per-user config folder (token and keys: not the agent's to read), and the facts searches need. */
  configHome?: string
  warmDirs?: string[]
  secretFilesUnder?: ClassifyContext['secretFilesUnder']
  /** The agent's environment (where a database command connects: PGHOST, DATABASE_URL). */
  env?: ClassifyContext['env']
  fileMentions?: ClassifyContext['fileMentions']
  /** The level custodiet would give a route-around finding now (3 by default, escalating with earlier findings). */
  routeAroundLevel?: () => number
  /** Undefined when first-use pauses are off. */
  isNewCapability?: (pattern: string) => boolean
  // ---- slots for facts other helpers add ---------------------------------------------------
  /** What the call would send off the machine or stage (files, commits, secrets found): lib/io/evidence.ts. */
  evidence?: EvidenceFacts
  /**
   * What deleting or overwriting these paths would lose for good (lib/io/loss-facts.ts), the agent's own files
   * (`created`) left out; asked only when a call deletes something the classifier could not call recoverable.
   */
  loss?(deleted: Deletion[], created: Record<string, number>): LossFacts | undefined
  /** What a paused destructive call would destroy, read now (remote ref tips, file hashes): an approval binds to it. */
  destroyed?(findings: readonly Finding[], deleted: readonly Deletion[]): DestroyedState | undefined
  /** The courtroom's probation (only when its file exists: one existsSync on the hot path), from `courtroom`. */
  probation?: { list: Probation[]; moderate: 'check' | 'ask' }
}

/** A state change the decision implies, applied by apply.ts in this order. */
export type Effect =
  /** Use up a human's approval (under the queue lock; if it is gone, the shell decides again without it). */
  | { kind: 'consume-approval'; id: string; fingerprint: string; capabilities: string[] }
  /** Queue this call for a human, and notify Telegram in the background. */
  | { kind: 'enqueue'; entry: NewAction & { id: string }; notify: boolean }
  /** Mark these decided pauses as heard by the agent. */
  | { kind: 'deliver'; ids: string[] }
  /** Session facts: files read, a check issued or answered, a block remembered or forgiven. */
  | {
      kind: 'session'
      reads: string[]
      created?: string[]
      secrets?: string[]
      checkIssued?: string
      checkAnswered?: string
      block?: Blocked
      clearBlocks?: boolean
    }
  /** Count firings of these rules. */
  | { kind: 'fires'; ids: string[] }
  /** The same effect as a blocked call, tried another way and let through: a custodiet finding. */
  | { kind: 'route-around'; blocked: string; attempt: string }
  /** Probation actions used up, and probations that ended (re-applied under the probation file's lock). */
  | { kind: 'probation'; counted: string[]; lifted: string[] }

export type FinalVerdict =
  | Verdict
  | 'approved_by_human'
  | 'denied_by_human'
  | 'custodiet_block'
  | 'custodiet_checkpoint'
  | 'floor_hold'
  | ProbationVerdict

export interface PreflightOutcome {
  decision: Decision
  verdict: FinalVerdict
  effects: Effect[]
  /** The rules stage's result (classification, fired rules, classes). */
  result: PreflightResult
  /** The activity-log record, minus timing. */
  record: ActivityRecord
}

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

export function classifyContext(f: PreflightFacts): ClassifyContext {
  return {
    projectDir: f.projectDir,
    homeDir: f.homeDir,
    stateDir: f.stateDir,
    session: f.session,
    fileExists: f.fileExists,
    currentBranch: f.currentBranch,
    fileState: f.fileState,
    fs: f.fs,
    packageDir: f.packageDir,
    sandboxed: f.sandboxed,
    configHome: f.configHome,
    warmDirs: f.warmDirs,
    secretFilesUnder: f.secretFilesUnder,
    fileMentions: f.fileMentions,
    env: f.env,
    ...(f.publicRemote ? { publicRemote: f.publicRemote } : {}),
  }
}

export function decidePreToolUse(call: ToolCall & { session_id: string }, facts: PreflightFacts): PreflightOutcome {
  const fp = facts.fingerprint
  const now = facts.now
  const opts = {
    checkWindowMs: facts.config.checkWindowMs,
    checks: facts.session.checks,
    fingerprint: fp,
    now,
    isNewCapability: facts.isNewCapability,
    firstUse: facts.config.firstUse,
  }
  const ctx = classifyContext(facts)
  // 1. the rules stage
  const ruled = decide(call, ctx, facts.rules, opts)
  // 2. the user's request. The floors and the evidence below still apply (a secret leaving is a human's call, asked or not).
  let staged: Staged = applyRequest(ruled, facts)
  staged = applyFloors(staged, facts) // 3
  staged = applyIrrevocable(staged, facts) // 4
  staged = applyScopeWords(staged) // 5
  const loss = lossOf(staged, facts)
  staged = applyLoss(staged, facts, loss) // 6
  staged = applyEvidence(staged, facts) // 7
  const result = rendered(staged)

  const { action } = result
  const effects: Effect[] = []
  let decision = result.decision
  let verdict: FinalVerdict = result.verdict
  let pendingId: string | undefined

  // 8. custodiet's hold, read first: it decides whether an approval may be used.
  const held = facts.hold ? holdDecision(facts.hold, READ_ONLY_TOOLS.has(call.tool_name)) : null

  // 9. a pause meets the queue (an approval counts only if it covers the call as it is now: session, evidence)
  if (result.verdict === 'pause') {
    const destroys = facts.destroyed?.(action.findings, action.deleted)
    const q = boundQueue(facts.queue, call.session_id, facts.evidence, now, destroys)
    if (q.approved && held) {
      // The hold stops the call, so the approval is not used up: it is kept for when the hold is lifted.
      pendingId = q.approved.id
      decision = held
      verdict = held.kind === 'deny' ? 'custodiet_block' : 'custodiet_checkpoint'
    } else if (q.approved) {
      const a = q.approved
      effects.push({
        kind: 'consume-approval',
        id: a.id,
        fingerprint: fp,
        capabilities: action.findings.map((f) => f.pattern),
      })
      const left =
        a.scope === 'project'
          ? `It stays approved for this project until ${a.expires_at}, while what it affects is what the human saw.`
          : 'The approval is now used up.'
      decision = {
        kind: 'allow',
        context: `[RATCHET] Running ${a.id}, approved by ${a.decided_by}${a.reply ? ` ("${a.reply}")` : ''}. ${left}`,
      }
      verdict = 'approved_by_human'
      pendingId = a.id
    } else if (q.denied && !q.open) {
      // A human said no to exactly this call: that is the answer, with their words; nothing is queued again.
      decision = {
        kind: 'deny',
        reason: `${outcomeNote(q.denied)}\n\n${'reason' in decision ? decision.reason : ''}`.trim(),
      }
      verdict = 'denied_by_human'
      pendingId = q.denied.id
      if (q.denied.delivered === false) effects.push({ kind: 'deliver', ids: [q.denied.id] })
    } else {
      const entry = q.open ?? newPause(call, result, fp, now, facts.evidence, facts.projectDir, loss, q.stale, destroys)
      if (!q.open)
        effects.push({ kind: 'enqueue', entry: entry as NewAction & { id: string }, notify: facts.config.telegram })
      pendingId = entry.id
      decision = pauseDecision(call, entry as { id: string; severity: Severity }, decision, facts)
      if (q.stale)
        decision = withNotes(
          decision,
          `[RATCHET] The human's approval does not cover this call as it is now: ${q.stale}. They are asked again, with the difference.`,
        )
    }
  }

  // 10. route-around
  const patterns = [...new Set(action.findings.map((f) => f.pattern))]
  // A human's approval of exactly this call is not routing around anything (the blocks it answers are cleared below).
  const around =
    verdict === 'approved_by_human'
      ? undefined
      : routeAround(facts.session.blocked ?? [], { fingerprint: fp, patterns, paths: action.paths }, now)
  let hold = held
  if (around) {
    decision = withNotes(
      decision,
      `[RATCHET] This looks like the same effect as a call denied moments ago (${around.summary}), tried another way. Do not route around a block: tell the user what you need.`,
    )
    if (decision.kind === 'allow') {
      const finding = routeAroundFinding(around.summary, action.summary, facts.routeAroundLevel?.() ?? 3, now)
      effects.push({ kind: 'route-around', blocked: around.summary, attempt: action.summary })
      // The finding it records holds the session from this very call on (as the hold file will say).
      if (finding.level >= 3) hold = holdDecision(finding, READ_ONLY_TOOLS.has(call.tool_name)) ?? held
    }
  }

  // 11. custodiet's hold
  if (hold && (decision.kind === 'allow' || (decision.kind === 'ask' && hold.kind === 'deny'))) {
    decision = hold
    verdict = hold.kind === 'deny' ? 'custodiet_block' : 'custodiet_checkpoint'
  }

  // 12. probation
  let onProbation: string[] = []
  if (facts.probation) {
    // What the call changes in the project, whatever the tool: a Bash `echo >` is restrained like a Write.
    const changes = action.paths.filter((p) => p === facts.projectDir || p.startsWith(facts.projectDir + '/'))
    const p = applyProbation(
      facts.probation.list,
      {
        tool: call.tool_name,
        classes: result.classes,
        patterns,
        fingerprint: fp,
        readOnly: READ_ONLY_TOOLS.has(call.tool_name),
        changes,
      },
      decision,
      { now, checks: facts.session.checks, checkWindowMs: facts.config.checkWindowMs, policy: facts.probation },
    )
    decision = p.decision
    if (p.verdict && p.verdict !== 'probation_reminder') verdict = p.verdict
    onProbation = p.cases
    if (p.counted.length || p.lifted.length) effects.push({ kind: 'probation', counted: p.counted, lifted: p.lifted })
  }

  // 13. outcomes of earlier pauses, where the model reads them (not an ask's reason, which only the user
  //     sees, nor a defer's): only then are they marked delivered.
  const undelivered = facts.queue.undelivered.filter((e) => e.id !== pendingId)
  if (undelivered.length && (decision.kind === 'allow' || decision.kind === 'deny')) {
    decision = withNotes(decision, undelivered.map(outcomeNote).join('\n'))
    effects.push({ kind: 'deliver', ids: undelivered.map((e) => e.id) })
  }

  // Session facts. Only hard blocks are remembered: answering a check (read the file, then edit it) is not
  // routing around. A call that does not run reads (or creates) nothing.
  const blockedNow =
    verdict === 'deny' ||
    verdict === 'pause' ||
    verdict === 'custodiet_block' ||
    verdict === 'denied_by_human' ||
    verdict === 'probation_pause'
  const runs = decision.kind === 'allow'
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
    effects.push({
      kind: 'session',
      reads,
      ...(created.length ? { created } : {}),
      ...(secrets.length ? { secrets } : {}),
      ...(checkIssued ? { checkIssued: fp } : {}),
      ...(checkAnswered ? { checkAnswered: fp } : {}),
      ...(blockedNow
        ? { block: { at: now, fingerprint: fp, patterns, paths: action.paths, summary: action.summary } }
        : {}),
      // A human's approval supersedes earlier blocks in the session.
      ...(verdict === 'approved_by_human' ? { clearBlocks: true } : {}),
    })
  // A proceed-after-check is the same action again: it was counted when the check fired.
  if (verdict !== 'proceeded_after_check' && result.fired.length)
    effects.push({ kind: 'fires', ids: result.fired.map((f) => f.id) })

  // 14. the floor's hold outranks everything, a human's approval included: the authority that approval was given
  //    under may be gone. Nothing runs and nothing is recorded as done until a human confirms the floor.
  if (facts.floorHold) {
    const h = facts.floorHold
    decision = {
      kind: 'deny',
      reason: `[RATCHET] Held: Ratchet's floor does not hold as a human last saw it (${h[0]}${h.length > 1 ? `; and ${h.length - 1} more` : ''}). No tool call runs until the user, in a terminal, sets it up again with \`npx ratchet-guard init\` or accepts the change with \`npx ratchet-guard floor confirm\` (\`npx ratchet-guard floor status\` shows what changed). Tell the user and stop; do not try other ways.`,
    }
    verdict = 'floor_hold'
    effects.length = 0
  }

  if (facts.problems.length) {
    const p = facts.problems
    const notice = `Ratchet: ${p[0]}${p.length > 1 ? ` (+${p.length - 1} more)` : ''}${facts.fallback === 'last-good' ? ' — the last rules that were valid stay in force until it is fixed' : facts.fallback ? ' — using the packaged default rules until it is fixed' : ''}`
    decision = { ...decision, notice: decision.notice ? `${notice}\n${decision.notice}` : notice }
  }

  const record = decisionRecord(
    {
      now,
      session: call.session_id,
      tool: call.tool_name,
      action: maskSecrets(action.summary),
      classes: result.classes,
      patterns,
      guardrails: result.fired.map((f) => f.id),
      decision: verdict,
      fingerprint: fp,
    },
    {
      ...(result.builtin ? { builtin: result.builtin } : {}),
      ...(pendingId ? { pending_id: pendingId } : {}),
      ...(around ? { signals: ['route_around'], after: around.summary } : {}),
      ...(onProbation.length ? { probation: onProbation } : {}),
      ...(loss
        ? {
            loss: {
              files: loss.files,
              bytes: loss.bytes,
              paths: loss.items.slice(0, 20).map((i) => maskSecrets(i.path)),
            },
          }
        : {}),
      ...(facts.evidence
        ? {
            evidence: {
              status: facts.evidence.status,
              commits: facts.evidence.commits,
              files: facts.evidence.files,
              scanned: facts.evidence.scanned,
              private: [...new Set(facts.evidence.hazards.map((h) => h.path))].slice(0, 20),
            },
          }
        : {}),
      ...(result.requested ? { requested: true } : {}),
    },
  )
  return { decision, verdict, effects, result, record }
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

/** Generic built-ins: a request from the user answers their check. The project's own rules are not generic. */
const GENERIC_CHECKS = new Set(['RG-PUBLIC', 'RG-IRREVERSIBLE', 'RG-SCOPE'])

function applyRequest(r: Staged, facts: PreflightFacts): Staged {
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
function applyIrrevocable(r: Staged, facts: PreflightFacts): Staged {
  if (r.builtin === 'self-protection' || r.builtin === 'catastrophic') return r
  const lost = r.action.findings.filter((f) => f.lost && !f.catastrophic)
  if (!lost.length) return r
  const prompt = facts.session.prompts[facts.session.prompts.length - 1]
  const unasked = lost.filter((f) => !askedFor(prompt, f.lost!))
  const lines = lostLines(lost)
  const current = strengthOf(r.verdict)
  const unreadable = r.action.findings.some((f) => f.pattern === 'unreadable')
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
function applyScopeWords(r: Staged): Staged {
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
function lossOf(r: Staged, facts: PreflightFacts): LossFacts | undefined {
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
function applyLoss(r: Staged, facts: PreflightFacts, loss: LossFacts | undefined): Staged {
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

/** Raises the rules stage's result to the minimum a finding demands. */
function applyFloors(r: Staged, facts: PreflightFacts): Staged {
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

/**
 * The evidence (lib/core/evidence.ts) sets a minimum and names what would leave:
 * - a secret or private file would leave → pause: a human decides; retrying the call changes nothing;
 * - it would only be staged → check, naming the files; gathering could not finish → pause;
 * - otherwise the note, if there is one, gains the Evidence lines (commit count, files) and nothing else changes.
 * Self-protection and catastrophic denials stay as they are.
 */
function applyEvidence(r: Staged, facts: PreflightFacts): Staged {
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
    fingerprint: facts.fingerprint,
    now: facts.now,
    checkWindowMs: facts.config.checkWindowMs,
  })

/**
 * The queue as it bears on this call now: an approval only if it covers the call (given in this session or for the
 * project, and the evidence is what the human saw; pending.ts approvalCovers), an open entry only if it asks about
 * this session's call with this evidence. `stale`: why an approval of the same call does not cover it.
 */
function boundQueue(
  q: QueueFacts,
  session: string,
  evidence: EvidenceFacts | undefined,
  now: number,
  destroys?: DestroyedState,
): QueueFacts & { stale?: string } {
  const bound = evidence && { digest: evidence.digest, signature: evidence.signature, seen: evidence.seen }
  const approvals = q.approvals ?? (q.approved ? [q.approved] : [])
  const why: string[] = []
  let approved: PendingEntry | undefined
  for (const a of approvals) {
    const c = approvalCovers(a, { session, evidence: bound, destroys }, now)
    if (c.ok) {
      approved = a
      break
    }
    // What changed since an approval that could have applied says more than another session's approval.
    if (a.scope === 'project' || a.session_id === session) why.unshift(c.why)
    else why.push(c.why)
  }
  const stale = why[0]
  const opens = q.opens ?? (q.open ? [q.open] : [])
  const open = opens.find(
    (e) =>
      (!e.session_id || e.session_id === session) &&
      (e.evidence?.digest ?? '') === (bound?.digest ?? '') &&
      (e.destroys?.digest ?? '') === (destroys?.digest ?? ''),
  )
  return { ...q, approved, open, ...(stale && !approved ? { stale } : {}) }
}

/** A new queue entry for exactly this call. Holds masked text and the fingerprint, never the raw input. */
function newPause(
  call: ToolCall & { session_id: string; cwd?: string },
  r: PreflightResult,
  fp: string,
  now: number,
  evidence: EvidenceFacts | undefined,
  projectDir: string,
  loss?: LossFacts,
  stale?: string,
  destroys?: DestroyedState,
): NewAction & { id: string } {
  const severity: Severity =
    r.builtin === 'catastrophic' || r.classes.includes('irreversible') || loss ? 'destructive' : 'time-sensitive'
  const why = [
    r.builtin === 'first-use' ? 'first use of a new capability' : '',
    ...r.fired.map((f) => `${f.id}${f.rule.source && f.rule.source !== 'built-in' ? ` (${f.rule.source})` : ''}`),
  ]
    .filter(Boolean)
    .join(', ')
  return {
    // Derived from the call and the clock, so the decision stays pure; unique per call and moment.
    id: `pa-${fnv64(`${call.session_id}\u0000${fp}\u0000${now}`).slice(0, 8)}`,
    // The folder, when it is not the project: the human approves the action where it runs (the fingerprint binds it there).
    action: maskSecrets(
      `${call.tool_name === 'Bash' ? 'run' : 'use ' + call.tool_name + ':'} ${r.action.summary.replace(/^(Write|Edit|MultiEdit|NotebookEdit) /, '')}${call.cwd && trimTrailingSlashes(call.cwd) !== trimTrailingSlashes(projectDir) ? ` (in ${call.cwd})` : ''}`,
    ),
    trigger: `${r.classes.join(' + ') || 'guardrail'}${why ? ` — ${why}` : ''}`,
    // What the human needs to decide: the evidence when it is the reason (which files, why), else the rule; and,
    // when an earlier approval of the same call no longer covers it, what changed since.
    context: maskSecrets(
      [
        stale ? `Asked again: ${stale}.` : '',
        destroys ? `Now: ${destroys.seen.slice(0, 3).join('; ')}.` : '',
        (evidence && evidenceFloor(evidence)?.decision === 'pause' ? evidenceSummary(evidence) : '') ||
          (loss ? lossSummary(loss) : '') ||
          lostLines(r.action.findings).join('; ') ||
          r.fired[0]?.rule.rule ||
          'Ratchet pauses the first use of a capability for a human to confirm.',
      ]
        .filter(Boolean)
        .join(' '),
    ),
    // What the human is shown of what would leave: an approval covers the call only while this stays the same.
    ...(evidence ? { evidence: { digest: evidence.digest, signature: evidence.signature, seen: evidence.seen } } : {}),
    // What would be destroyed as the human is shown it (a remote ref's tip, a file's hash): the same binding.
    ...(destroys ? { destroys } : {}),
    severity,
    fingerprint: fp,
    session_id: call.session_id,
    tool: call.tool_name,
  }
}

function pauseDecision(
  call: ToolCall & { session_id: string },
  entry: { id: string; severity: Severity },
  d: Decision,
  facts: PreflightFacts,
): Decision {
  const where = facts.config.telegram
    ? 'on Telegram'
    : `at the terminal (\`npx ratchet-guard pending approve ${entry.id}\` or \`npx ratchet-guard pending deny ${entry.id} --note "…"\`)`
  const note = 'reason' in d ? d.reason : ''
  if (facts.config.defer) {
    const reason = `${note}\nPending: ${entry.id} (${entry.severity}) — deferred until the human decides ${where}; resume with: claude -p --resume ${call.session_id}`
    return {
      kind: 'defer',
      reason,
      notice: `Ratchet paused ${entry.id}: ${firstLine(note).replace(/^\[PRE-FLIGHT\] Action: /, '')}. Decide with \`npx ratchet-guard pending approve ${entry.id}\` or \`npx ratchet-guard pending deny ${entry.id} --note "…"\`, then resume with: claude -p --resume ${call.session_id}`,
    }
  }
  const reason = `${note}\nPending: ${entry.id} (${entry.severity}) — the human has been asked ${where}. You will be told the outcome at a later step; an approval lets exactly this call through once.`
  return { kind: 'deny', reason }
}

/** Outcomes and notes go first: in a deny's reason, or as context on an allow. */
export function withNotes(d: Decision, notes: string): Decision {
  if (d.kind === 'allow') return { ...d, context: d.context ? `${notes}\n${d.context}` : notes }
  if ('reason' in d) return { ...d, reason: `${notes}\n\n${d.reason}` }
  return d
}

const firstLine = (s: string) => s.split('\n')[0]

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [FLOORS, VERB]) Object.setPrototypeOf(table, null)
