// "The user's request counts" (issue 10 item 4): does the user's latest prompt explicitly ask for what this
// call does? Pure and deliberately narrow: a verb for each finding, in a clause that does not negate it.
// "don't push" is not a request to push; "push the branch" does not cover a force push (no "force" said)
// or anything catastrophic; "commit it" does not cover a push.

import type { Finding, Irrevocable } from '../../lib/core/actions/types'
import { BEYOND_ASKED } from '../../lib/core/prompt-clauses'

/** Per pattern, the words that ask for it. A finding without an entry is never covered by a request. */
const ASKS: Record<string, RegExp> = {
  git_push: /\bpush(?:es|ed|ing)?\b/i,
  commit_to_public_repo: /\b(?:push(?:es|ed|ing)?|commit(?:s|ted|ting)?)\b/i,
  container_push: /\bpush(?:es|ed|ing)?\b/i,
  package_publish: /\b(?:publish(?:es|ed|ing)?|release)\b/i,
  deploy: /\b(?:deploy(?:s|ed|ing)?|ship)\b/i,
  pr_or_issue_create: /\b(?:pr|pull request|merge request|open an issue|file an issue|create an issue|release)\b/i,
  email_send: /\b(?:e-?mail|send)\b/i,
  file_delete: /\b(?:delete|remove|rm|clean(?:\s*up)?|clear|wipe|purge|get rid of|tidy)\b/i,
  git_discard: /\b(?:reset|discard|throw away|revert|restore|clean)\b/i,
  git_ref_delete: /\b(?:delete|remove|prune)\b[^.;!?\n]*\b(?:branch|branches|tag|tags)\b/i,
  git_history_rewrite: /\bforce[- ]?push|\bpush\b[^.;!?\n]*--force|\b(?:rewrite|squash|rebase)\b/i,
  unrequested_publish: /$^/,
}
/** A force push needs the word "force" whatever else was said. */
const NEEDS: Record<string, RegExp> = { git_history_rewrite: /\bforce\b|\brewrite\b|\bsquash\b|\brebase\b/i }
const NEGATION = /\b(?:don'?t|do not|never|not|no|without|avoid|skip|stop|instead of)\b/i

/** Clauses of a prompt: a negation covers only its own clause ("don't push, but commit it"). */
function clauses(prompt: string): string[] {
  return prompt
    .split(/[.;!?\n]+|,|\bbut\b|\bthen\b|\band\b/i)
    .map((c) => c.trim())
    .filter(Boolean)
}

/**
 * Whether `prompt` explicitly asks for every finding of this call (none catastrophic). A deletion or a
 * discard is covered only when the prompt names each target (its file or folder name): "tidy up" does not
 * cover `rm notes.txt`, "delete notes.txt" does. (Ignored build output and files the agent created are not
 * irreversible in the first place: the catalogue does not flag them.)
 */
export function requestedBy(prompt: string | undefined, findings: Finding[], targets: string[] = []): boolean {
  if (!prompt || !findings.length || findings.some((f) => f.catastrophic)) return false
  if (findings.some((f) => f.pattern === 'file_delete' || f.pattern === 'git_discard')) {
    const words = prompt.toLowerCase()
    const named = (t: string) =>
      t
        .split('/')
        .filter(Boolean)
        .slice(-2)
        .some(
          (seg) =>
            seg.length > 1 &&
            new RegExp(`(^|[^\\w.-])${seg.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w-])`).test(
              words,
            ),
        )
    if (!targets.length || !targets.every(named)) return false
  }
  const parts = clauses(prompt)
  return findings.every((f) => {
    const ask = ASKS[f.pattern]
    if (!ask) return false
    if (NEEDS[f.pattern] && !NEEDS[f.pattern].test(prompt)) return false
    let asked = false
    for (const c of parts) {
      const m = ask.exec(c)
      if (!m) continue
      // Negated where it is asked ("don't push", "never delete", "push nothing"): not a request, and it vetoes;
      // unless it forbids only what goes beyond the request ("don't push anything else"), judged by scope.
      if (NEGATION.test(c.slice(0, m.index)) || /^\s*(?:nothing|no\b)/i.test(c.slice(m.index + m[0].length))) {
        if (BEYOND_ASKED.test(c)) continue
        return false
      }
      asked = true
    }
    return asked
  })
}

/** The verbs that ask for each kind of what cannot be undone. */
const UNDO_VERBS: Record<Irrevocable['kind'], RegExp> = {
  destroys:
    /\b(?:delete|destroy|drop|remove|force|overwrite|tear(?:ing)?\s*down|teardown|uninstall|truncate|wipe|purge|prune|erase|reset|roll\s*back|rollback|downgrade|unpublish|yank|nuke|empty|clear|clean|flush|revert|undo|terminate|cancel|rm)\w*/i,
  sends:
    /\b(?:send|e-?mail|mail|post|comment|reply|message|notify|announce|tweet|ping|dm|tell|let\s+\w+\s+know|ask)\w*/i,
  pays: /\b(?:refund|charge|pay|payout|transfer|capture|bill|invoice)\w*/i,
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** Whether the prompt names `name` as a word of its own (`prod` is not named by `production`; `#12` counts as `12`). */
export function namesWord(prompt: string, name: string): boolean {
  const n = name.trim().toLowerCase()
  if (n.length < 2) return false
  return new RegExp(`(^|[^\\w.-])${escapeRegExp(n)}($|[^\\w-]|\\.(?![\\w]))`).test(prompt.toLowerCase())
}

/**
 * Whether the user's latest prompt asked for exactly this: a verb of its kind in a clause that does not negate
 * it ("don't drop anything" vetoes), and every name it must use ("drop the users table" covers DROP TABLE users,
 * not DROP TABLE orders). Words like "tear down the stack" with no name of what goes do not cover it: a human decides.
 */
export function askedFor(prompt: string | undefined, lost: Irrevocable): boolean {
  if (!prompt) return false
  const verb = UNDO_VERBS[lost.kind]
  let asked = false
  // A question ("should we delete the prod namespace?") asks nothing to be done.
  const statements = prompt
    .slice(0, 8000)
    .split(/(?<=[.!?])\s+|\n+/)
    .filter((sentence) => !sentence.trimEnd().endsWith('?'))
    .join('\n')
  for (const c of clauses(statements)) {
    const m = verb.exec(c)
    if (!m) continue
    if (NEGATION.test(c.slice(0, m.index)) || /^\s*(?:nothing|no\b)/i.test(c.slice(m.index + m[0].length))) return false
    asked = true
  }
  return asked && lost.names.every((group) => group.some((n) => namesWord(statements, n)))
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [ASKS, NEEDS, UNDO_VERBS]) Object.setPrototypeOf(table, null)
