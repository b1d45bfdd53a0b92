// The activity record: one line per decision or event in .ratchet/activity.jsonl, masked before it is written
// (lib/io/activity.ts). One type for every writer (the hooks, the fast path, the CLI) and every reader (the report,
// pattern-detect's mining, the courtroom); a line read back from disk may be older or damaged, so readers take
// `Partial<ActivityRecord>`.

/** What preflight-check found about what a push or upload would send (lib/core/evidence/), in brief. */
export interface EvidenceSummary {
  status: string
  commits?: number
  files?: number
  scanned?: number
  /** Files that hold a secret, masked, at most 20. */
  private: string[]
}

export interface ActivityRecord {
  /** ISO time of the decision. */
  time: string
  /** The executable that wrote it: preflight-check, custodiet, session-start, pause-and-ask, pattern-detect, courtroom. */
  hook: string
  /** The hook event, or the kind of record (queue, proposal, label, verdict, relayed, hearing, consent…). */
  event: string
  decision: string
  session?: string
  tool?: string
  /** The call in brief, masked. */
  action?: string
  classes?: string[]
  patterns?: string[]
  guardrails?: string[]
  /** The built-in check that decided, when one did (self-protection, evidence, loss…). */
  builtin?: string
  pending_id?: string
  severity?: string
  signals?: string[]
  /** With the route_around signal: the call it came after. */
  after?: string
  probation?: string[]
  loss?: { files: number; bytes: number; paths: string[] }
  evidence?: EvidenceSummary
  /** The user's request named this action. */
  requested?: boolean
  /** The call's identity (tool, input, folder): an identical retry has the same one. */
  fingerprint?: string
  latency_ms?: number
  note?: string
  /** custodiet's verdicts: what started the review, where its finding came from, how strong. */
  trigger?: string
  source?: string
  level?: number
  category?: string
  /** pattern-detect's proposals: the detector that proposed. */
  detector?: string
  prior_incident_rules?: string[]
}

/** The fields every PreToolUse decision logs, whichever path decided it (the fast path or the full engine). */
export interface DecisionFields {
  now: number
  session: string
  tool: string
  action: string
  classes: string[]
  patterns: string[]
  guardrails: string[]
  decision: string
  fingerprint: string
}

/** A PreToolUse decision's record; `more` adds what only the full engine knows (builtin, evidence, loss…). */
export function decisionRecord(f: DecisionFields, more: Partial<ActivityRecord> = {}): ActivityRecord {
  const { requested, ...rest } = more
  return {
    time: new Date(f.now).toISOString(),
    hook: 'preflight-check',
    event: 'PreToolUse',
    session: f.session,
    tool: f.tool,
    action: f.action,
    classes: f.classes,
    patterns: f.patterns,
    guardrails: f.guardrails,
    ...rest,
    decision: f.decision,
    ...(requested ? { requested } : {}),
    fingerprint: f.fingerprint,
  }
}
