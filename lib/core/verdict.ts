// The reviewer's verdict, in the custodiet spec's format, parsed strictly. Anything else is
// `unparseable` — logged, never taken as OK.
//
//   ## Compliance Check: OK
//   No issues detected. Continue current work.
//
//   ## Compliance Check: ATTENTION
//   **Issue**: [1 sentence description]
//   **Principle**: [axiom/heuristic number and name]
//   **Correction**: [what to do instead]

import { fail, ok, type Result } from './errors'

export type Verdict = { status: 'OK' } | { status: 'ATTENTION'; issue: string; principle: string; correction: string }

// The heading and the fields in the markdown variants models actually write: "## Compliance Check: OK",
// "**Compliance Check: ATTENTION**", "# Compliance check — attention"; "**Issue**: …", "**Issue:** …",
// "- Issue: …", "### Issue" with the text on the next line. Still strict where it matters: exactly one
// heading with exactly OK or ATTENTION, an OK that also names an issue is ambiguous, and an ATTENTION
// needs all three fields.
const HEAD = /^[ \t>*_#-]*(?:#+\s*)?[*_]*\s*compliance check\s*[*_]*\s*[:—–-]\s*[*_`]*\s*([A-Za-z]+)\s*[*_`]*\s*[.!]?\s*$/gim

function field(t: string, name: string): string | undefined {
  // Same line: "**Issue**: x", "**Issue:** x", "- Issue: x", "Issue — x".
  const inline = new RegExp(`^[ \\t>]*(?:[-*+]\\s+|\\d+\\.\\s+)?(?:#+\\s*)?[*_]*${name}[*_]*\\s*(?::|—|–|-)\\s*[*_]*\\s*(\\S.*)$`, 'im').exec(t)
  if (inline) return clean(inline[1])
  // Heading or bold label alone, text on the following non-empty line: "### Issue\nx".
  const block = new RegExp(`^[ \\t>]*(?:#+\\s*)?[*_]*${name}[*_]*:?[*_]*\\s*\\n+\\s*(?:[-*+]\\s+)?(\\S.*)$`, 'im').exec(t)
  return block ? clean(block[1]) : undefined
}
const clean = (s: string) => s.replace(/^[*_\s]+|[*_\s]+$/g, '').trim() || undefined

/** The verdict, or a `reviewer` error saying why the answer is not one (never taken as OK). */
export function parseVerdict(text: string): Result<Verdict> {
  const bad = (why: string) => fail('reviewer', why)
  const t = text.replace(/\r\n/g, '\n').trim()
  const heads = [...t.matchAll(HEAD)]
  if (!heads.length) return bad('no "## Compliance Check: OK|ATTENTION" heading')
  if (heads.length > 1) return bad('more than one verdict heading')
  const status = heads[0][1].toUpperCase()
  if (status !== 'OK' && status !== 'ATTENTION') return bad('no "## Compliance Check: OK|ATTENTION" heading')
  const issue = field(t, 'Issue')
  if (status === 'OK') return issue ? bad('OK that also names an issue (ambiguous)') : ok({ status: 'OK' })
  const principle = field(t, 'Principle')
  const correction = field(t, 'Correction')
  const missing = [!issue && 'Issue', !principle && 'Principle', !correction && 'Correction'].filter(Boolean)
  if (missing.length) return bad(`ATTENTION without ${missing.join(', ')}`)
  return ok({ status: 'ATTENTION', issue: issue!, principle: principle!, correction: correction! })
}

export function formatVerdict(v: Verdict): string {
  if (v.status === 'OK') return '## Compliance Check: OK\nNo issues detected. Continue current work.'
  return `## Compliance Check: ATTENTION\n\n**Issue**: ${v.issue}\n**Principle**: ${v.principle}\n**Correction**: ${v.correction}`
}
