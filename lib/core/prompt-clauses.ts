// The clause reader of the authority envelope (envelope.ts): a prompt cut into clauses, and each clause read as a
// task, a question, a method, a constraint or other, by the words it opens with. Pure.

// ---- languages -------------------------------------------------------------------------------------
// English first; German, French, Spanish, Portuguese and Italian for the common request shapes.

/** Imperative/task verbs (stem match at word start). */
const TASK_VERB =
  /^(?:please\s+|pls\s+|kindly\s+|now\s+|also\s+|and\s+|then\s+|just\s+|ok(?:ay)?,?\s+|so\s+|bitte\s+|s'il te plaît\s+|por favor\s+)?(?:(?:can|could|would|will)\s+)?(?:you\s+)?(?:please\s+)?(fix|debug|repair|solve|resolve|add|implement|build|create|write|make|test|run|rerun|retry|try|refactor|clean|restructure|rename|move|delete|remove|drop|update|upgrade|bump|install|deploy|publish|release|push|commit|merge|rebase|change|modify|edit|replace|convert|migrate|port|set ?up|configure|document|translate|format|lint|optimi[sz]e|speed|generate|send|email|post|open|close|revert|undo|rewrite|split|combine|extract|inline|bump|lower|raise|increase|decrease|reduce|handle|support|enable|disable|turn|switch|use|look|check|review|investigate|find|search|explain|describe|summari[sz]e|list|show|tell|compare|analy[sz]e|read|go|continue|proceed|finish|start|stop|do|get|give|put|keep|leave|mach|behebe|repariere|füge|erstelle|schreibe|teste|lösche|entferne|aktualisiere|ändere|benenne|erkläre|prüfe|suche|zeige|corrige|répare|ajoute|crée|écris|supprime|mets|change|renomme|explique|vérifie|cherche|montre|lance|arregla|corrige|repara|añade|agrega|crea|escribe|elimina|borra|actualiza|cambia|renombra|explica|revisa|busca|muestra|ejecuta|conserta|adiciona|cria|escreva|remova|atualize|explique|sistema|aggiungi|crea|scrivi|rimuovi|aggiorna|spiega)\w*/i

/** Question openers (the clause asks, it does not instruct). */
const QUESTION_OPENER =
  /^(?:what|why|how|where|when|which|who|whose|is|are|was|were|does|do|did|has|have|had|should|shall|am|isn['’]t|aren['’]t|doesn['’]t|don['’]t you think|warum|wieso|weshalb|wie|was|wo|wann|welche[rsmn]?|ist|sind|gibt es|hat|haben|soll|pourquoi|comment|qu'est-ce|quel(?:le)?s?|où|quand|est-ce|combien|por ?qué|cómo|qué|dónde|cuándo|cuál|hay|es|son|porque|como|o que|onde|quando|perché|come|cosa|dove|quando)\b/i

/** "can you …?" asks for work; "can I …?" / "can it …?" asks a question. */
const POLITE_REQUEST =
  /^(?:can|could|would|will)\s+(?:you|u)\b|^(?:kannst|könntest|würdest)\s+du\b|^(?:können|könnten)\s+sie\b|^(?:peux|pourrais)[- ]tu\b|^(?:pouvez|pourriez)[- ]vous\b|^(?:puedes|podrías|podría)\b|^(?:você pode|pode)\b|^(?:puoi|potresti)\b/i
/** A negative auxiliary opening a clause that ends in "?" asks ("Shouldn't we cache it?"); it forbids nothing. */
const NEGATIVE_QUESTION =
  /^(?:shouldn|wouldn|couldn|can|won|didn|wasn|weren|hasn|haven|hadn|isn|aren|doesn|don)['’]?t\b/i
export const QUESTION_VERB =
  /^(?:explain|describe|tell me|summari[sz]e|list|show me|walk me through|compare|erkläre|erklären|beschreibe|beschreiben|explique|expliquer|décris|décrire|explica|explicar|describe|describir|spiega|spiegare|explicar)\b/i

// (Bounded repeats: an unbounded `\S+`/`[^,.;]*` before a literal is quadratic on text that repeats the opener — redos test.)
export const NEGATION =
  /\b(?:don['’]?t|do not|does not|doesn['’]?t|never|no need to|without|avoid|must not|mustn['’]?t|shouldn['’]?t|should not|not to|(?:leave|leaving)\b(?:[^,.;]|\.(?=\S)){0,200}\balone|(?:keep|keeping|keeps)\b(?:[^,.;]|\.(?=\S)){0,200}\b(?:as is|as it is|unchanged|untouched|intact|the same|as they are)|stay away from|hands off|off[- ]limits|nicht|kein(?:e|en)?|ohne|niemals|ne\s+\S{1,40}\s+pas|n'\S{1,40}\s+pas|pas (?:de|le|la|les)|sans|jamais|no toques|no cambies|no modifiques|no\s+\w+(?:es|as)\b|sin|nunca|não|nao|senza|non)\b/i
export const ONLY =
  /\bonly\s+(?:change|touch|edit|modify|update)\b|\bnothing (?:else|more)\b|\bnur\b|\bseulement\b|\buniquement\b|\bsolo\b|\bsolamente\b|\bapenas\b/i
/**
 * What a constraint forbids only beyond the request: "do not push anything else", "don't touch any other file",
 * "nothing besides that". It leaves what the request names alone.
 */
export const BEYOND_ASKED =
  /\b(?:anything|something|everything|nothing)\s+(?:else|more)\b|\bany(?:thing)?\s+other\b|\bother than\b|\bbesides\b|\bbeyond (?:that|this|it)\b/i
const METHOD =
  /^(?:use|using|via|with the|through|by \w{1,30}ing|stick to|verwende|benutze|mit|utilise|en utilisant|avec|usa|usando|con|use o|utilizza)\b/i
export const METHOD_INLINE =
  /\b(?:using|via|with the|by \w{1,30}ing|stick to|use|en utilisant|usando|utilizzando|utilizando)\s+([^,.;!?]+)/i

/** Discourse markers that open a clause without changing what kind it is. */
export const LEAD =
  /^(?:no,\s*|(?:actually|nope|sorry|wait|ok(?:ay)?|well|so|if so|then|also|and|oh|hmm|please|pls|hey|hi|en fait|bon|eigentlich|also|bueno|pues)[,\s]+)+/i

/** Drops trailing characters in `chars` (by hand: a `[…]+$` regex is quadratic on long runs). */
export function trimEnd(s: string, chars: string): string {
  let end = s.length
  while (end > 0 && chars.includes(s[end - 1])) end--
  return s.slice(0, end)
}

/**
 * How much of a prompt the deterministic reading looks at: a request is stated in its first lines;
 * a pasted log after it is the reviewer's to read (it gets the raw prompt).
 */
export const MAX_READ = 4000

/** Cuts a prompt into clauses; the separators that start a constraint stay with it. */
export function clausesOf(prompt: string): string[] {
  const out: string[] = []
  for (const sentence of prompt.split(/(?<=[.!?;])\s+|\n+|;\s*/)) {
    const parts = sentence
      // Each whitespace alternative starts only after a non-space (`(?<=\S)`): a run of blanks is tried
      // from its start, not from every position in it (which was quadratic — redos test).
      .split(
        /,\s*(?=(?:but|and|then|just|only|not|aber|mais|pero|ma)\b)|(?<=\S)\s+(?=(?:but|aber|mais|pero|ma)\s)|(?<=\S)\s+(?=(?:without|ohne|sans|sin|senza|instead of|rather than|statt|au lieu de|en lugar de)\s)|,\s*(?=(?:don['’]?t|do not|never|leave|leaving|keep|keeping|avoid|no need)\b)|(?<=\S)\s+(?=and (?:don['’]?t|do not|never|leave|keep|avoid)\b)/i,
      )
      .map((s) => s.replace(/^(?:but|and|aber|mais|pero|ma)\s+/i, '').trim())
      .map((s) => trimEnd(s, ' \t\n\r.;,!'))
      .filter((s) => s.length > 0)
    out.push(...parts)
  }
  return out
}

/** "could you please explain …" → "explain …" (the polite opener and its pronoun removed). */
export const afterPolite = (c: string): string =>
  c.replace(POLITE_REQUEST, '').replace(/^\s*(?:please\s+|bitte\s+|por favor\s+|s'il (?:te|vous) plaît\s+)?/i, '')

export type ClauseKind = 'task' | 'question' | 'method' | 'constraint' | 'other'

export function clauseKind(clause: string): ClauseKind {
  const c = clause.trim().replace(LEAD, '')
  // "…, not the login page": a contrast clause forbids what it names.
  if (
    NEGATION.test(c) ||
    ONLY.test(c) ||
    /^not\s/i.test(c) ||
    /^(?:instead of|rather than|statt|au lieu de|en lugar de)\b/i.test(c)
  ) {
    // "why doesn't X work?" is a question about a negative, not a constraint.
    if ((QUESTION_OPENER.test(c) || NEGATIVE_QUESTION.test(c)) && /\?\s*$/.test(c) && !POLITE_REQUEST.test(c))
      return 'question'
    return 'constraint'
  }
  if (METHOD.test(c)) return 'method'
  if (POLITE_REQUEST.test(c)) return QUESTION_VERB.test(afterPolite(c)) ? 'question' : 'task'
  if (QUESTION_VERB.test(c)) return 'question'
  if (QUESTION_OPENER.test(c)) return 'question'
  if (/\?\s*$/.test(c) && !TASK_VERB.test(c)) return 'question'
  if (TASK_VERB.test(c)) return 'task'
  if (
    /^(?:i (?:want|need|would like)|i'd like|let's|we need|ich (?:möchte|will|brauche)|je (?:veux|voudrais)|quiero|necesito|vorrei)\b/i.test(
      c,
    )
  )
    return 'task'
  return 'other'
}
