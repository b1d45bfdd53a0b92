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
//
// Read line by line with anchored single-class strips (no regex here can backtrack: the reviewer's
// answer is untrusted text, and a quadratic pattern on a long whitespace run once stalled the parse —
// redos test), on at most MAX_VERDICT characters: a verdict is a few lines at the top.
const MAX_VERDICT = 16_000

/** The heading's status word ("OK", "attention", or another word), or undefined when the line is not a heading. */
function headingWord(line: string): string | undefined {
  const rest = line.replace(/^[\s>*_#-]*/, '')
  if (rest.slice(0, 16).toLowerCase() !== 'compliance check') return undefined
  const r = rest.slice(16).replace(/^[\s*_]*/, '')
  if (!/^[:—–-]/.test(r)) return undefined
  const after = r.slice(1).replace(/^[\s*_`]*/, '')
  const word = /^[A-Za-z]+/.exec(after)?.[0]
  return word && /^[\s*_`.!]*$/.test(after.slice(word.length)) ? word : undefined
}

function field(lines: string[], name: string): string | undefined {
  const label = (line: string, bullets: boolean): string | undefined => {
    let r = line.replace(/^[ \t>]*/, '')
    if (bullets) r = r.replace(/^(?:[-*+]\s|\d{1,4}\.\s)/, '').replace(/^\s*/, '')
    r = r
      .replace(/^#*/, '')
      .replace(/^\s*/, '')
      .replace(/^[*_]*/, '')
    return r.slice(0, name.length).toLowerCase() === name.toLowerCase() ? r.slice(name.length) : undefined
  }
  // Same line: "**Issue**: x", "**Issue:** x", "- Issue: x", "Issue — x".
  for (const line of lines) {
    const r = label(line, true)
      ?.replace(/^[*_]*/, '')
      .replace(/^\s*/, '')
    if (r && /^[:—–-]/.test(r)) {
      const v = clean(r.slice(1))
      if (v) return v
    }
  }
  // Heading or bold label alone, text on the following non-empty line: "### Issue\nx".
  for (let i = 0; i < lines.length; i++) {
    let r = label(lines[i], false)?.replace(/^[*_]*/, '')
    if (r?.startsWith(':')) r = r.slice(1)
    if (r === undefined || !/^[*_\s]*$/.test(r)) continue
    const next = lines.slice(i + 1).find((l) => l.trim())
    return next ? clean(next.replace(/^\s*/, '').replace(/^[-*+]\s/, '')) : undefined
  }
  return undefined
}

/** Trims markdown emphasis and whitespace from both ends (by hand: `[*_\s]+$` is quadratic). */
function clean(s: string): string | undefined {
  const junk = (c: string) => c === '*' || c === '_' || /\s/.test(c)
  let a = 0
  let b = s.length
  while (a < b && junk(s[a])) a++
  while (b > a && junk(s[b - 1])) b--
  return s.slice(a, b) || undefined
}

/** The verdict, or a `reviewer` error saying why the answer is not one (never taken as OK). */
export function parseVerdict(text: string): Result<Verdict> {
  const bad = (why: string) => fail('reviewer', why)
  const lines = text.slice(0, MAX_VERDICT).split(/\r?\n/)
  const heads = lines.map(headingWord).filter((w): w is string => w !== undefined)
  if (!heads.length) return bad('no "## Compliance Check: OK|ATTENTION" heading')
  if (heads.length > 1) return bad('more than one verdict heading')
  const status = heads[0].toUpperCase()
  if (status !== 'OK' && status !== 'ATTENTION') return bad('no "## Compliance Check: OK|ATTENTION" heading')
  const issue = field(lines, 'Issue')
  if (status === 'OK') return issue ? bad('OK that also names an issue (ambiguous)') : ok({ status: 'OK' })
  const principle = field(lines, 'Principle')
  const correction = field(lines, 'Correction')
  const missing = [!issue && 'Issue', !principle && 'Principle', !correction && 'Correction'].filter(Boolean)
  if (missing.length) return bad(`ATTENTION without ${missing.join(', ')}`)
  return ok({ status: 'ATTENTION', issue: issue!, principle: principle!, correction: correction! })
}

export function formatVerdict(v: Verdict): string {
  if (v.status === 'OK') return '## Compliance Check: OK\nNo issues detected. Continue current work.'
  return `## Compliance Check: ATTENTION\n\n**Issue**: ${v.issue}\n**Principle**: ${v.principle}\n**Correction**: ${v.correction}`
}
