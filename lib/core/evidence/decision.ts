// What the decision does with the facts: the least it gets (a floor), the note's lines, the pause's summary, and
// whether the user's request asked for this leaving.

import { repoIdentity } from './assess'
import type { EvidenceFacts, LeaveKind } from './gathered'

export interface EvidenceFloor {
  /** The least the call gets: a human decides (pause), or the agent is told once (check). */
  decision: 'pause' | 'check'
  /** For the note's Trigger line. */
  why: string
}

/**
 * The minimum decision the evidence demands, whatever the rules and the user's request say:
 * - a secret or private file would leave: a human decides (the agent cannot approve itself by retrying);
 * - it would only be staged (a broad `git add` alone): the agent is told once, naming the files;
 * - what would leave could not be fully checked: a human decides.
 * Clean evidence demands nothing (and is what lets a requested push pass quietly).
 */
export function evidenceFloor(e: EvidenceFacts): EvidenceFloor | undefined {
  if (e.status === 'hazard' && e.hazards.every((h) => h.kind === 'destination'))
    return { decision: 'pause', why: 'the evidence shows the push going somewhere the user did not ask for' }
  if (e.status === 'hazard')
    return e.local
      ? { decision: 'check', why: 'the evidence shows private files or secrets being staged' }
      : { decision: 'pause', why: 'the evidence shows private files or secrets leaving the machine' }
  if (e.status === 'incomplete' && !e.local)
    return { decision: 'pause', why: 'Ratchet could not finish checking what would leave' }
  return undefined
}

/**
 * True when something would leave, all of it was gathered and scanned, and nothing private was found.
 * "Nothing to send" (no repository, nothing new) is not clean evidence: it shows nothing either way.
 */
export function evidenceClean(e: EvidenceFacts | undefined): boolean {
  return !!e && e.status === 'clean' && !e.local && (e.files > 0 || e.commits > 0)
}

/** The evidence lines of a PRE-FLIGHT note (hooks/preflight-check/note.ts), with what to do about them. */
export function evidenceLines(e: EvidenceFacts): string[] {
  const lines = [...e.lines]
  if (e.status === 'hazard' && e.hazards.every((h) => h.kind === 'destination'))
    lines.push(
      'Do: push only where the user asked (`git remote -v` shows where each remote goes); tell the user where this would go. A human decides on this call as it is.',
    )
  else if (e.status === 'hazard')
    lines.push(
      e.local
        ? 'Do: leave these out (stage the files you changed by name; add private files to .gitignore). If you retry the identical call it runs.'
        : 'Do: do not send these. If the request does not need them, leave them out (commit only the files you changed; add private files to .gitignore) and tell the user; a human decides on this call as it is.',
    )
  return lines
}

/** One line for the pause queue and the human: which files and why (no secret values). */
export function evidenceSummary(e: EvidenceFacts): string {
  if (e.status === 'hazard' && e.hazards.every((h) => h.kind === 'destination'))
    return `Would push somewhere the user did not ask for: ${[...new Set(e.hazards.map((h) => h.why))].join('; ')}.`
  if (e.status === 'hazard') {
    const byPath = new Map<string, string[]>()
    for (const h of e.hazards) byPath.set(h.path, [...(byPath.get(h.path) ?? []), h.why])
    const parts = [...byPath].slice(0, 5).map(([p, whys]) => `${p} (${whys.join('; ')})`)
    return `Would ${e.local ? 'stage' : 'send'} private files: ${parts.join(', ')}${byPath.size > 5 ? ` and ${byPath.size - 5} more` : ''}.`
  }
  if (e.status === 'incomplete') return `Could not check what would leave: ${e.incomplete.join('; ')}.`
  return e.lines[0] ?? ''
}

const ASKED: Record<LeaveKind, RegExp> = {
  push: /\b(push(ed|es|ing)?|ship it)\b/i,
  publish: /\b(publish(ed|ing)?|release)\b/i,
  upload: /\b(upload(ed|ing)?|send|share|post|gist|paste)\b/i,
}
const REFUSED =
  /\b(don'?t|do not|never|without|no|not yet)\s+(\w+\s+){0,2}(push|publish|release|upload|send|share|post)/i

/**
 * Did the user's latest request ask for this kind of leaving ("fix the typo and push")? A request that
 * says not to ("commit but don't push") does not count. Used only together with clean evidence: a
 * request never excuses a secret.
 */
export function requestedByUser(prompt: string | undefined, kinds: LeaveKind[], unnamed: string[] = []): boolean {
  if (!prompt || !kinds.length || REFUSED.test(prompt)) return false
  // A push to a URL that is not one of the repository's remotes goes where the user said only if they named it.
  if (unnamed.some((u) => !named(u, prompt))) return false
  return kinds.every((k) => ASKED[k].test(prompt))
}

/** Whether a prompt names a destination: its URL, or its repository (`owner/repo`, the last path part). */
function named(url: string, prompt: string): boolean {
  const p = prompt.toLowerCase()
  const id = repoIdentity(url).toLowerCase()
  const parts = id.split('/').filter(Boolean)
  return (
    p.includes(url.toLowerCase()) ||
    p.includes(id) ||
    (parts.length >= 2 && p.includes(parts.slice(-2).join('/'))) ||
    (parts.length > 0 &&
      new RegExp(`\\b${parts[parts.length - 1].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(p) &&
      parts[parts.length - 1].length >= 4)
  )
}
