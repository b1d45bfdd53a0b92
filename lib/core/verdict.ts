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

export type Verdict = { status: 'OK' } | { status: 'ATTENTION'; issue: string; principle: string; correction: string }
export type ParsedVerdict = { ok: true; verdict: Verdict } | { ok: false; error: string }

export function parseVerdict(text: string): ParsedVerdict {
  const t = text.replace(/\r\n/g, '\n').trim()
  const head = /^##\s*Compliance Check:\s*(OK|ATTENTION)\s*$/m.exec(t)
  if (!head) return { ok: false, error: 'no "## Compliance Check: OK|ATTENTION" heading' }
  const heads = t.match(/^##\s*Compliance Check:/gm) ?? []
  if (heads.length > 1) return { ok: false, error: 'more than one verdict heading' }
  if (head[1] === 'OK') return { ok: true, verdict: { status: 'OK' } }
  const field = (name: string) => new RegExp(`^\\*\\*${name}\\*\\*:\\s*(.+)$`, 'mi').exec(t)?.[1].trim()
  const issue = field('Issue')
  const principle = field('Principle')
  const correction = field('Correction')
  const missing = [!issue && 'Issue', !principle && 'Principle', !correction && 'Correction'].filter(Boolean)
  if (missing.length) return { ok: false, error: `ATTENTION without ${missing.join(', ')}` }
  return { ok: true, verdict: { status: 'ATTENTION', issue: issue!, principle: principle!, correction: correction! } }
}

export function formatVerdict(v: Verdict): string {
  if (v.status === 'OK') return '## Compliance Check: OK\nNo issues detected. Continue current work.'
  return `## Compliance Check: ATTENTION\n\n**Issue**: ${v.issue}\n**Principle**: ${v.principle}\n**Correction**: ${v.correction}`
}
