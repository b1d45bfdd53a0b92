// The authority envelope (custodiet spec): what the user's request authorises. A cheap deterministic
// extraction from the prompt; the background reviewer refines it. Pure.
//
//   explicit scope     what the user asked for                   "fix the login bug"
//   implied scope      reasonable necessities                    reading the code, running tests
//   specified methods  how the user said to do it                "use the existing auth library"
//   constraints        what the user said not to do              "don't touch the database schema"

export interface Envelope {
  explicit: string
  implied: string[]
  methods: string[]
  constraints: string[]
  /** The prompts that built it, oldest first (the latest instruction wins on conflict). */
  prompts: string[]
  /** Words of the request, for cheap scope comparisons. */
  keywords: string[]
}

const STOP = new Set('a an the to of in on for and or but with without please can could would you i we it this that these those my our your me us is are be do does did just then also now some any all into from by at as so if its not no dont don t'.split(' '))

/** Verbs in a request and the work each reasonably implies. */
const IMPLIES: [RegExp, string[]][] = [
  [/\b(fix|debug|repair|solve|resolve)\b/i, ['investigate', 'read code', 'edit code', 'run tests', 'reproduce']],
  [/\b(add|implement|build|create|write|make)\b/i, ['read code', 'edit code', 'create files', 'run tests']],
  [/\b(test|tests|testing)\b/i, ['run tests', 'edit tests']],
  [/\b(refactor|clean ?up|restructure|reorganize)\b/i, ['refactor', 'edit code', 'run tests']],
  [/\b(document|docs|readme|documentation)\b/i, ['edit docs']],
  [/\b(explain|why|what|how|review|look at|check|investigate|find)\b/i, ['read code', 'investigate']],
  [/\b(try again|retry|rerun|run)\b/i, ['rerun the same action']],
  [/\b(push|publish|deploy|release|commit)\b/i, ['git', 'publish']],
  [/\b(search|look up|google|web|online|docs for|latest)\b/i, ['web search']],
  [/\b(install|upgrade|update)\b/i, ['install packages']],
]

function keywordsOf(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z][a-z0-9_.-]+/g) ?? []
  return [...new Set(words.filter((w) => !STOP.has(w) && w.length > 2))]
}

function clauses(prompt: string, re: RegExp): string[] {
  const out: string[] = []
  // Trailing punctuation trimmed by a loop: /[.;,]+$/ is quadratic on a long run of it.
  for (const m of prompt.matchAll(re)) {
    let end = m[0].length
    while (end > 0 && '.;,'.includes(m[0][end - 1])) end--
    out.push(m[0].slice(0, end).trim())
  }
  return out
}

const CONSTRAINT = /\b(?:don'?t|do not|never|no need to|without|avoid|leave|keep|must not|shouldn'?t|only)\b[^.;\n!?]*/gi
const METHOD = /\b(?:use|using|via|with the|through|by running|stick to)\b[^.;\n!?]*/gi
const CONTINUES = /^\s*(also|and|then|plus|additionally|next|after that|too)\b/i

export function extractEnvelope(prompt: string, previous?: Envelope): Envelope {
  const text = prompt.trim()
  const implied = new Set<string>(['read code'])
  for (const [re, adds] of IMPLIES) if (re.test(text)) for (const a of adds) implied.add(a)
  // Methods come from the request minus its constraints: "don't use npm" names no method.
  const constraints = clauses(text, CONSTRAINT)
  let allowed = text
  for (const c of constraints) allowed = allowed.split(c).join(' ')
  const fresh: Envelope = {
    explicit: text.length > 400 ? text.slice(0, 399) + '…' : text,
    implied: [...implied],
    methods: clauses(allowed, METHOD),
    constraints,
    prompts: [text],
    keywords: keywordsOf(text),
  }
  // A follow-up ("also update the changelog") extends; a new instruction replaces (the latest wins).
  if (previous && (CONTINUES.test(text) || text.split(/\s+/).length <= 3)) {
    return {
      explicit: `${previous.explicit} | ${fresh.explicit}`,
      implied: [...new Set([...previous.implied, ...fresh.implied])],
      methods: [...previous.methods, ...fresh.methods],
      constraints: [...previous.constraints, ...fresh.constraints],
      prompts: [...previous.prompts, text].slice(-10),
      keywords: [...new Set([...previous.keywords, ...fresh.keywords])],
    }
  }
  return previous ? { ...fresh, prompts: [...previous.prompts, text].slice(-10) } : fresh
}

export function describeEnvelope(e: Envelope): string {
  return [
    `Explicit scope: ${e.explicit}`,
    `Implied scope: ${e.implied.join(', ') || '(none)'}`,
    `Specified methods: ${e.methods.join('; ') || '(none)'}`,
    `Constraints: ${e.constraints.join('; ') || '(none)'}`,
  ].join('\n')
}

// ---- deterministic checks (used when the reviewer is slow or absent) ----------------------------

/** Work that goes beyond most requests unless the user named it: the seed's Type B examples. */
const EXPANSIONS: [RegExp, string, RegExp][] = [
  [/\b(refactor|restructure|rewrite|reorganize|clean ?up|modernize)\b/i, 'refactoring', /\b(refactor|restructure|rewrite|reorganize|clean ?up|modernize|tidy)\b/i],
  [/\b(add|write|create)\b.*\btests?\b|\b(test coverage|comprehensive tests|unit tests)\b/i, 'adding tests', /\btests?\b|\bcoverage\b/i],
  [/\b(update|write|add|improve)\b.*\b(docs?|documentation|readme|changelog)\b/i, 'documentation', /\b(docs?|documentation|readme|changelog)\b/i],
  [/\b(upgrade|bump|update)\b.*\b(dependenc|packages?|librar|version)/i, 'dependency upgrades', /\b(upgrade|bump|dependenc|packages?|version)\b/i],
  [/\b(optimi[sz]e|performance|speed up)\b/i, 'optimisation', /\b(optimi[sz]e|performance|faster|speed)\b/i],
  [/\b(rename|reformat|lint|style)\b/i, 'renaming or restyling', /\b(rename|reformat|format|lint|style)\b/i],
  [/\b(migrat|schema|database)\b/i, 'schema or data changes', /\b(migrat|schema|database|db)\b/i],
  [/\b(ci|pipeline|workflow|infrastructure|config(uration)?)\b/i, 'infrastructure or configuration', /\b(ci|pipeline|workflow|infra|config)/i],
]

export interface Todo {
  content: string
  status?: string
}

/** Todos that expand the request (Type B): each names the todo and the kind of work. */
export function scopeExpansions(todos: Todo[], env: Envelope): { todo: string; kind: string }[] {
  // What was asked, minus what was forbidden: "don't touch the schema" does not authorise schema work.
  let asked = env.prompts.join(' \n ')
  for (const c of env.constraints) asked = asked.split(c).join(' ')
  const out: { todo: string; kind: string }[] = []
  for (const t of todos) {
    if (t.status === 'completed') continue
    for (const [re, kind, authorised] of EXPANSIONS) {
      if (re.test(t.content) && !authorised.test(asked)) {
        out.push({ todo: t.content, kind })
        break
      }
    }
    for (const c of env.constraints) {
      const words = keywordsOf(c).filter((w) => !['dont', 'never', 'avoid', 'without', 'touch', 'change'].includes(w))
      if (words.length && words.every((w) => t.content.toLowerCase().includes(w))) out.push({ todo: t.content, kind: `against the constraint "${c}"` })
    }
  }
  return out
}

export interface ToolEvent {
  tool: string
  input: Record<string, unknown>
  error?: boolean
}

/**
 * Type A, reactive helpfulness: after a tool error, the agent investigates configuration, searches
 * the web or edits infrastructure that the request never mentioned.
 */
export function reactiveSignals(events: ToolEvent[], env: Envelope): string[] {
  const i = events.map((e) => !!e.error).lastIndexOf(true)
  if (i < 0) return []
  const asked = env.prompts.join(' ').toLowerCase()
  const out: string[] = []
  for (const e of events.slice(i + 1)) {
    const file = String(e.input.file_path ?? e.input.path ?? '')
    if ((e.tool === 'WebSearch' || e.tool === 'WebFetch') && !env.implied.includes('web search')) out.push(`${e.tool} ${String(e.input.query ?? e.input.url ?? '')} after an error`)
    else if (e.tool === 'Read' && /(config|settings|\.env|mcp\.json|credentials|\.ya?ml$|\.toml$|\.ini$)/i.test(file) && !asked.includes(file.split('/').pop()!.toLowerCase())) out.push(`reading configuration ${file} after an error`)
    else if ((e.tool === 'Edit' || e.tool === 'Write') && /(config|settings|\.env|ci|workflow|docker|infra)/i.test(file) && !asked.includes(file.split('/').pop()!.toLowerCase())) out.push(`editing infrastructure ${file} after an error`)
  }
  return out
}
