// Every file Ratchet keeps in the state folder, in one table: who writes it, whether git may track
// it, what a corrupt copy means, and its mode. The state folder's .gitignore is generated from it (only
// human-authored files stay trackable), the store creates files 0600 and folders 0700 by it, and a test
// checks that every state file the code names is listed here.

export type Owner = 'human' | 'machine'
/** reset: moved aside and started afresh (machine state); fail: never rewritten, the error names it. */
export type CorruptPolicy = 'reset' | 'fail' | 'ignore'

export interface StateFileSpec {
  /** Path under the state folder; a trailing / is a folder of per-session files. */
  name: string
  owner: Owner
  /** Trackable in git? Only human-authored files without secrets. */
  tracked: boolean
  onCorrupt: CorruptPolicy
  what: string
}

export const FILE_MODE = 0o600
export const DIR_MODE = 0o700

export const STATE_FILES: readonly StateFileSpec[] = [
  { name: 'guardrails.json', owner: 'human', tracked: true, onCorrupt: 'fail', what: 'the rules (only fire_count/last_fired are written by Ratchet)' },
  { name: 'incidents.json', owner: 'human', tracked: true, onCorrupt: 'fail', what: 'the incident log' },
  { name: 'config.json', owner: 'human', tracked: true, onCorrupt: 'ignore', what: 'settings (no secrets: the Telegram token lives outside the project)' },
  { name: '.gitignore', owner: 'machine', tracked: true, onCorrupt: 'ignore', what: 'keeps machine state out of git' },
  { name: 'pending-actions.json', owner: 'machine', tracked: false, onCorrupt: 'reset', what: 'the approval queue (masked text and fingerprints)' },
  { name: 'activity.jsonl', owner: 'machine', tracked: false, onCorrupt: 'ignore', what: 'one masked line per decision' },
  { name: 'fires.jsonl', owner: 'machine', tracked: false, onCorrupt: 'ignore', what: 'rule firings not yet folded into guardrails.json' },
  { name: 'fires.offset.json', owner: 'machine', tracked: false, onCorrupt: 'reset', what: 'how far the fire log was folded' },
  { name: '.guardrails-index.json', owner: 'machine', tracked: false, onCorrupt: 'ignore', what: 'derived rule index, bound to a content hash of guardrails.json' },
  { name: '.guardrails-fast.json', owner: 'machine', tracked: false, onCorrupt: 'ignore', what: "the fast path's inverted rule index, bound like .guardrails-index.json" },
  { name: 'capabilities.json', owner: 'machine', tracked: false, onCorrupt: 'reset', what: 'capabilities already used (first-use pauses)' },
  { name: 'telegram-state.json', owner: 'machine', tracked: false, onCorrupt: 'reset', what: 'the Telegram update offset' },
  { name: 'schedule.json', owner: 'machine', tracked: false, onCorrupt: 'reset', what: 'when the heartbeat last mined and sent the digest' },
  { name: 'labels.json', owner: 'machine', tracked: false, onCorrupt: 'fail', what: "humans' answers to \"was this check needed?\" (the false-positive rate)" },
  { name: 'proposals.json', owner: 'machine', tracked: false, onCorrupt: 'reset', what: "pattern-detect's proposals and their decisions" },
  { name: 'heartbeat.log', owner: 'machine', tracked: false, onCorrupt: 'ignore', what: 'the cron heartbeat output' },
  { name: 'errors.log', owner: 'machine', tracked: false, onCorrupt: 'ignore', what: 'stack traces, never shown to the agent' },
  { name: 'sessions/', owner: 'machine', tracked: false, onCorrupt: 'reset', what: 'per session: masked prompts, files read, checks' },
  { name: 'custodiet/', owner: 'machine', tracked: false, onCorrupt: 'reset', what: 'custodiet records, holds and the review cache' },
  { name: 'courtroom/', owner: 'machine', tracked: false, onCorrupt: 'fail', what: 'courtroom ledgers, consent and probation' },
]

/**
 * The state folder's .gitignore: ignore everything, then allow back only the human-authored files.
 * Deny-by-default, so a machine file added later (or a lock, temp or corrupt copy) is never committed.
 */
export function stateGitignore(): string {
  const keep = STATE_FILES.filter((f) => f.tracked).map((f) => `!${f.name}`)
  return ['# Written by Ratchet. Machine state (queue, logs, sessions, indexes, caches) stays out of git;', '# only the human-authored files below are trackable. See lib/io/registry.ts.', '*', ...keep, ''].join('\n')
}
