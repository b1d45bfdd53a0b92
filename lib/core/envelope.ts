// The authority envelope (custodiet spec): what the user's request authorises. A cheap deterministic
// reading of the prompt; the background reviewer sees the raw request too. Pure.
//
//   explicit scope     what the user asked for                   "fix the login bug"
//   implied scope      reasonable necessities                    reading the code, running tests
//   specified methods  how the user said to do it                "use the existing auth library"
//   constraints        what the user said not to do              "don't touch the database schema"
//
// The prompt is cut into clauses (sentences, then ", but", "without", "instead of" …) and each clause
// is one of: task, question, method, constraint (prompt-clauses.ts). A negated clause is a constraint, never
// scope; a constraint never swallows the request that shares its sentence. When the reading is unsure (no
// recognisable verb, an unknown language) `unsure` says why and the reviewer gets the raw request.

import {
  BEYOND_ASKED,
  LEAD,
  MAX_READ,
  METHOD_INLINE,
  NEGATION,
  ONLY,
  QUESTION_VERB,
  afterPolite,
  clauseKind,
  clausesOf,
  trimEnd,
  type ClauseKind,
} from './prompt-clauses'

export interface Envelope {
  explicit: string
  /** The request only asks something: answering is in scope, changing things is not. */
  question: boolean
  implied: string[]
  methods: string[]
  constraints: string[]
  /** What the constraints protect: file names and words ("schema", "migrations/"). */
  forbidden: string[]
  /** The prompts that built it, oldest first. */
  prompts: string[]
  /** Words of the request, for cheap scope comparisons. */
  keywords: string[]
  /** Why the deterministic reading may be wrong; the reviewer then judges from the raw request. */
  unsure?: string
  /**
   * The user's words that make the request read-only: a question, "only explain", "don't change any code yet",
   * "leave the code alone", a request to investigate and report. A change of state goes against them.
   */
  readOnly?: string
  /**
   * Actions a constraint forbids by name ("do not push or tag anything" → push, tag), with the constraint's words;
   * `beyondAsked`: only where the request did not name what it is done to ("do not push anything else").
   */
  forbiddenActions?: { action: string; constraint: string; beyondAsked?: true }[]
}

const STOP = new Set(
  'a an the to of in on for and or but with without please can could would you i we it this that these those my our your me us is are be do does did just then also now some any all into from by at as so if its not no dont don t only again there here what how why when where which who'.split(
    ' ',
  ),
)

// ---- how a prompt relates to the one before (English first, then the languages of prompt-clauses.ts) -----

const CONTINUES =
  /^\s*(?:also|and|then|plus|additionally|next|after that|too|oh,? and|one more thing|auch|außerdem|und|dann|aussi|et|puis|ensuite|también|y|además|e|anche|poi)\b/i
const CORRECTS =
  /^\s*(?:no\b|nope|not that|actually|sorry|wait|i meant|i mean|rather|instead|correction|scratch that|nein|eigentlich|ich meinte|non\b|en fait|plutôt|je voulais dire|no,|en realidad|quise decir|mejor)/i
const CONFIRMS =
  /^\s*(?:(?:y(?:es|ep|eah)?|ok(?:ay)?|sure|go(?: ahead| on)?|do it|continue|proceed|please(?: do)?|sounds good|lgtm|thanks|ja|oui|sí|si|sim|d'accord|weiter|mach(?: das)?|vas-y|dale|adelante|claro)\b[\s.,!]*)+$/i
/** "I meant X": the correction's replacement. */
const MEANT = /^(?:i meant|i mean|ich meinte|je voulais dire|quise decir|intendevo)\s+/i
/** Verbs in a request and the work each reasonably implies. */
const IMPLIES: [RegExp, string[]][] = [
  [
    /\b(fix|debug|repair|solve|resolve|behebe|repariere|corrige|répare|arregla|repara|conserta)/i,
    ['investigate', 'read code', 'edit code', 'run tests', 'reproduce'],
  ],
  [
    /\b(add|implement|build|create|write|make|füge|erstelle|schreibe|ajoute|crée|écris|añade|agrega|crea|escribe)/i,
    ['read code', 'edit code', 'create files', 'run tests'],
  ],
  [/\b(test|tests|testing|teste)\b/i, ['run tests', 'edit tests']],
  [/\b(refactor|clean ?up|restructure|reorganize)\b/i, ['refactor', 'edit code', 'run tests']],
  [/\b(document|docs|readme|documentation|changelog)\b/i, ['edit docs']],
  [
    /\b(explain|why|what|how|review|look at|check|investigate|find|debug|diagnose|warum|wie|pourquoi|comment|por qué|cómo)/i,
    ['read code', 'investigate'],
  ],
  [/\b(try again|retry|rerun|run|nochmal|réessaie|de nuevo|intenta)/i, ['rerun the same action']],
  [/\b(push|publish|deploy|release|commit)\b/i, ['git', 'publish']],
  [/\b(search|look up|google|web|online|docs for|latest)\b/i, ['web search']],
  [/\b(install|upgrade|update|set ?up|configure)\b/i, ['install packages']],
  [
    /\b(config|configuration|env|environment|setup|credentials?|token|auth|login|docker|path|settings|installation|mcp)\b/i,
    ['inspect environment'],
  ],
]

const VERBISH = new Set(
  'dont never avoid without touch change modify edit update alter leave alone keep unchanged intact same stay away from hands off limits must should not nicht kein keine ohne niemals pas sans jamais sin nunca toques cambies modifiques senza non ändern ändere anfassen touche modifie'.split(
    ' ',
  ),
)

function keywordsOf(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}][\p{L}0-9_./-]+/gu) ?? []
  return [...new Set(words.map((w) => trimEnd(w, '.,')).filter((w) => !STOP.has(w) && w.length > 2))]
}

/** The things a constraint protects: file-like tokens and nouns (`schema`, `migrations/`, `package.json`). */
export function forbiddenTargets(constraint: string): string[] {
  // "without asking" / "don't push without asking" forbid an action, not a target: nothing to match on paths.
  const words = keywordsOf(constraint).filter(
    (w) =>
      !VERBISH.has(w) &&
      !/^(?:asking|ask|confirm|permission|approval|anything|everything|else|more|yet|it|them|files?|code|stuff|thing)$/.test(
        w,
      ),
  )
  // Short words are mostly noise, but a short acronym written in capitals names a thing ("the CSS", "the API").
  const acronyms = new Set((constraint.match(/\b[A-Z][A-Z0-9]{1,3}\b/g) ?? []).map((w) => w.toLowerCase()))
  return words.filter((w) => w.length >= 4 || /[./]/.test(w) || acronyms.has(w))
}

// ---- read-only requests and forbidden actions (preflight-check's scope check reads these) ----------------

/** A constraint that forbids every change: "don't change any code yet", "no changes", "leave the code alone", "read-only". */
// "don't change any code yet" / "no changes please" / "leave the code alone", "keep the files as they are" / "read-only" / "I'll fix it myself"
const FREEZE =
  /^(?:please\s+)?(?:(?:don['’]?t|do not|never|no need to|without|not)\s+(?:\w+\s+){0,2}?(?:change|changing|modify|modifying|edit|editing|touch|touching|fix|fixing|write|writing|alter|altering|update|updating|implement|implementing)(?:\s+(?:any|anything|a thing|any code|the code|code|any files?|files|the files|a line|it|them|nothing))?(?:\s+(?:yet|for now|yourself|myself|just yet|right now|at all|please))*|(?:make\s+)?no\s+(?:code\s+)?(?:changes|edits|modifications|fixes)(?:\s+(?:yet|for now|please|at all))*|(?:just\s+)?(?:leave|leaving|keep)\s+(?:the\s+)?(?:code|files|codebase|repo|everything|it|things)\s+(?:alone|as (?:it is|they are|is))(?:\s+(?:for now|please|yet))*|read[- ]only(?:\s+please)?|(?:i['’]ll|i will|let me)\s+(?:fix|change|do|handle|implement|commit)\s+(?:it|them|that)\s+myself)$/i
/** "only explain", "just tell me": the request is to answer, not to act. */
const ONLY_ANSWER =
  /^(?:(?:please\s+)?(?:only|just)\s+(?:explain|tell|describe|answer|report|look|read|review|summari[sz]e|show|list|investigate|analy[sz]e|diagnose)\b)/i
/** Requests to find out, not to act. */
const INVESTIGATE =
  /^(?:please\s+)?(?:(?:can|could|would) you\s+)?(?:investigate|look into|find out|figure out|diagnose|analy[sz]e|audit|review|profile|check (?:why|whether|if|what|how)|explain|describe|tell me|report|summari[sz]e|trace|debug why|work out why|see why|point out)\b/i
/** Verbs that ask for a change; a request with one of them is not read-only. */
const CHANGE_VERB =
  /\b(?:fix|add|implement|build|create|write|make|change|modify|edit|update|upgrade|bump|remove|delete|drop|refactor|rename|move|replace|convert|migrate|install|commit|push|deploy|publish|release|merge|rebase|revert|format|clean|generate|set ?up|configure|patch|repair|resolve|apply|rewrite|translate|document|correct)\w*/i

const CHANGE_HEAD = new RegExp(`^${CHANGE_VERB.source.replace(/^\\b/, '')}`, 'i')

/** Action verbs a constraint may forbid, and the action each names (preflight-check's scope check maps calls to these). */
const ACTION_WORDS: [RegExp, string][] = [
  [/\bforce[- ]?push\w*/i, 'force-push'],
  [/\bpush\w*/i, 'push'],
  [/\btag(?:s|ging)?\b/i, 'tag'],
  [/\bcommit\w*/i, 'commit'],
  [/\bmerg\w*/i, 'merge'],
  [/\brebas\w*/i, 'rebase'],
  [/\bdeploy\w*/i, 'deploy'],
  [/\b(?:publish|release)\w*/i, 'publish'],
  [/\binstall\w*/i, 'install'],
  [/\b(?:upgrade|bump)\w*/i, 'upgrade'],
  [/\b(?:delete|remove|rm)\b\w*/i, 'delete'],
  [/\b(?:reformat|format)\w*/i, 'format'],
  [/\bmigrat\w*/i, 'migrate'],
  [/\b(?:e-?mail|send|post)\w*/i, 'send'],
]

function readOnlyOf(clauses: string[], kinds: ClauseKind[], question: boolean): string | undefined {
  const clip = (s: string) => (s.length > 160 ? s.slice(0, 159) + '…' : s)
  const bare = (c: string) => c.replace(LEAD, '').trim()
  // (Any clause: "Leave the code as it is" reads as a task to the clause reader; "read-only: audit X" has a colon.)
  const freeze = clauses.find((c) =>
    bare(c)
      .split(/[:,]\s*/)
      .some((part) => FREEZE.test(trimEnd(part.trim(), ' .!'))),
  )
  if (freeze) return clip(freeze)
  const only = clauses.find((c) => ONLY_ANSWER.test(bare(c)))
  if (only) return clip(only)
  // (A clause the reader could not place but that opens with an investigating verb — "Diagnose why …" — asks too.)
  const asks = clauses.filter(
    (c, i) =>
      kinds[i] === 'task' ||
      kinds[i] === 'question' ||
      (kinds[i] === 'other' && INVESTIGATE.test(afterPolite(bare(c)))),
  )
  // A question, when it plainly is one: a "?", a wh-word, or "explain/describe …". An auxiliary opener alone
  // ("Have a look at the project and bump the constant", "Do the release") is how requests start too.
  const plain = (c: string) =>
    /\?\s*$/.test(c) ||
    /^(?:what|why|how|where|when|which|who|whose)\b/i.test(bare(c)) ||
    QUESTION_VERB.test(afterPolite(bare(c)))
  const questions = clauses.filter((_, i) => kinds[i] === 'question')
  if (question && questions.some(plain)) return clip(questions.join('; '))
  // A request to investigate and report, with nothing in it that asks for a change.
  // ("Investigate X and fix it" asks for a change: each coordinated verb is weighed, not the nouns in between.)
  const heads = (c: string) =>
    afterPolite(bare(c))
      .split(/(?<=\S)\s+(?:and|then|&)\s+/i)
      .map((h) => h.replace(/^(?:please\s+|also\s+|then\s+)+/i, ''))
  if (
    asks.length &&
    asks.every(
      (c) => INVESTIGATE.test(afterPolite(bare(c))) || (kinds[clauses.indexOf(c)] === 'question' && plain(c)),
    ) &&
    !asks.some((c) => heads(c).some((h) => CHANGE_HEAD.test(h)))
  )
    return clip(asks.join('; '))
  return undefined
}

/**
 * What a constraint forbids is what follows its negation: in "delete notes.txt, I do not need it any more" the
 * negation governs "need", not "delete notes.txt". A clause that only says something is not needed ("I don't
 * need it", "no need to run the linter") forbids nothing, and "only change X" names what is allowed: neither
 * has a forbidden part.
 */
export function forbiddenPart(constraint: string): string {
  const c = constraint.replace(LEAD, '')
  if (
    /\b(?:don['’]?t|do not|does not|doesn['’]?t|no longer|not)\s+need\b|\bno need\b/i.test(c) ||
    (ONLY.test(c) && !NEGATION.test(c))
  )
    return ''
  // "without" forbids only an action ("without touching X", "without asking"); "items without a price" is a description.
  if (/^without\s+(?!\w+ing\b)/i.test(c) && !/\b(?:don['’]?t|do not|never|must not|avoid|leave|keep)\b/i.test(c))
    return ''
  const m = NEGATION.exec(c) ?? /^(?:not|instead of|rather than|statt|au lieu de|en lugar de)\b/i.exec(c)
  return m ? c.slice(m.index) : c
}

function forbiddenActionsOf(constraints: string[]): NonNullable<Envelope['forbiddenActions']> {
  const out: NonNullable<Envelope['forbiddenActions']> = []
  for (const c of constraints) {
    const part = forbiddenPart(c)
    const beyond = BEYOND_ASKED.test(part)
    for (const [re, action] of ACTION_WORDS)
      if (re.test(part) && !(action === 'push' && out.some((o) => o.action === 'force-push' && o.constraint === c)))
        out.push({ action, constraint: c, ...(beyond ? { beyondAsked: true as const } : {}) })
  }
  return out
}

function fromPrompt(text: string): Envelope {
  const clauses = clausesOf(text.slice(0, MAX_READ))
  const kinds = clauses.map(clauseKind)
  const tasks = clauses.filter((_, i) => kinds[i] === 'task')
  const questions = clauses.filter((_, i) => kinds[i] === 'question')
  const constraints = clauses.filter((_, i) => kinds[i] === 'constraint')
  const methods = clauses.filter((_, i) => kinds[i] === 'method')
  // A method named inside a task clause: "fix the login bug using the existing auth library".
  for (const t of tasks) {
    const m = METHOD_INLINE.exec(t)
    if (m && !/^use\b/i.test(t)) methods.push(t.slice(m.index).trim())
  }
  const positive = [
    ...tasks,
    ...questions,
    ...clauses.filter((_, i) => kinds[i] === 'other' || kinds[i] === 'method'),
  ].join(' ')
  const implied = new Set<string>(['read code'])
  // Implied work comes from what was asked, never from what was forbidden.
  for (const [re, adds] of IMPLIES) if (re.test(positive)) for (const a of adds) implied.add(a)
  const question = questions.length > 0 && tasks.length === 0
  if (question)
    for (const a of [
      'edit code',
      'create files',
      'edit tests',
      'edit docs',
      'refactor',
      'install packages',
      'publish',
      'git',
    ])
      implied.delete(a)
  let unsure: string | undefined
  if (!tasks.length && !questions.length)
    unsure =
      kinds.every((k) => k === 'constraint' || k === 'method') && clauses.length
        ? 'only constraints or methods, no task'
        : 'no recognisable request verb (another language, or a fragment)'
  else if (clauses.filter((_, i) => kinds[i] === 'other').length > tasks.length + questions.length)
    unsure = 'most of the request did not parse as task, question or constraint'
  const scope = [...tasks, ...questions].join('; ')
  const clip = (s: string) => (s.length > 400 ? s.slice(0, 399) + '…' : s)
  const readOnly = readOnlyOf(clauses, kinds, question)
  const forbiddenActions = forbiddenActionsOf(constraints)
  return {
    explicit: clip(unsure || !scope ? text : scope),
    question,
    implied: [...implied],
    methods: [...new Set(methods)],
    constraints,
    forbidden: [...new Set(constraints.map(forbiddenPart).flatMap(forbiddenTargets))],
    prompts: [text],
    keywords: keywordsOf(positive || text.slice(0, MAX_READ)),
    ...(unsure ? { unsure } : {}),
    ...(readOnly ? { readOnly } : {}),
    ...(forbiddenActions.length ? { forbiddenActions } : {}),
  }
}

export type PromptRelation = 'new' | 'follow-up' | 'correction' | 'confirmation'

export function relationOf(prompt: string, previous?: Envelope): PromptRelation {
  if (!previous) return 'new'
  if (CONFIRMS.test(prompt)) return 'confirmation'
  if (CORRECTS.test(prompt)) return 'correction'
  if (CONTINUES.test(prompt)) return 'follow-up'
  return 'new'
}

export function extractEnvelope(prompt: string, previous?: Envelope): Envelope {
  const text = prompt.trim()
  const fresh = fromPrompt(text)
  const rel = relationOf(text, previous)
  if (!previous || rel === 'new')
    return previous ? { ...fresh, prompts: [...previous.prompts, text].slice(-10) } : fresh
  // "yes, go ahead" after a question or a proposal: what was discussed is now the task.
  if (rel === 'confirmation') {
    const { readOnly: _answered, ...rest } = previous
    return {
      ...rest,
      question: false,
      explicit: `${previous.explicit} | confirmed: ${text}`,
      implied: [...new Set([...previous.implied, 'edit code', 'create files'])],
      prompts: [...previous.prompts, text].slice(-10),
    }
  }
  // A follow-up extends; a correction amends: the task stays, the correction's scope, methods and
  // constraints are added (and a correction that names a task makes the envelope a task again).
  const merged: Envelope = {
    explicit: `${previous.explicit} | ${rel === 'correction' ? 'correction: ' : ''}${fresh.unsure ? text : fresh.explicit}`,
    question: previous.question && fresh.question,
    implied: [...new Set([...previous.implied, ...fresh.implied])],
    methods: [...new Set([...previous.methods, ...fresh.methods])],
    constraints: [...previous.constraints, ...fresh.constraints],
    forbidden: [...new Set([...previous.forbidden, ...fresh.forbidden])],
    prompts: [...previous.prompts, text].slice(-10),
    keywords: [...new Set([...previous.keywords, ...fresh.keywords])],
  }
  // Still read-only unless the new words ask for a change ("also check the logs" stays a look; "now fix it" is a task).
  const stillReadOnly = fresh.readOnly ?? (previous.readOnly && !CHANGE_VERB.test(text) ? previous.readOnly : undefined)
  if (stillReadOnly) merged.readOnly = stillReadOnly
  const actions = [...(previous.forbiddenActions ?? []), ...(fresh.forbiddenActions ?? [])]
  if (actions.length) merged.forbiddenActions = actions
  if (!merged.question && (previous.question || fresh.question) && !fresh.question) {
    for (const a of ['edit code', 'create files']) if (!merged.implied.includes(a)) merged.implied.push(a)
  }
  // "use axios" then "sorry, I meant fetch, not axios": the correction forbids an earlier method, so that
  // method goes, and what the correction names instead ("I meant fetch", "fetch instead") takes its place.
  if (rel === 'correction' && fresh.forbidden.length) {
    const dropped = previous.methods.filter((m) =>
      fresh.forbidden.some((w) => m.toLowerCase().includes(w.toLowerCase())),
    )
    if (dropped.length) {
      const instead = clausesOf(text)
        .map((c) => c.replace(LEAD, '').replace(MEANT, '').trim())
        .filter((c, i, all) => c && clauseKind(all[i]) !== 'constraint')
      merged.methods = [...merged.methods.filter((m) => !dropped.includes(m)), ...instead]
    }
  }
  const unsure = previous.unsure ?? (fresh.unsure && rel === 'correction' ? fresh.unsure : undefined)
  return unsure ? { ...merged, unsure } : merged
}

export function describeEnvelope(e: Envelope): string {
  return [
    `Explicit scope: ${e.explicit}${e.question ? ' (a question: answer it; changing things was not asked)' : ''}`,
    `Implied scope: ${e.implied.join(', ') || '(none)'}`,
    `Specified methods: ${e.methods.join('; ') || '(none)'}`,
    `Constraints: ${e.constraints.join('; ') || '(none)'}`,
    ...(e.unsure
      ? [
          `Note: the deterministic reading is unsure (${e.unsure}); judge from the user's own words:`,
          ...e.prompts.slice(-3).map((p) => `  USER: ${p.length > 600 ? p.slice(0, 599) + '…' : p}`),
        ]
      : []),
  ].join('\n')
}
