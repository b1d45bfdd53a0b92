// Makefiles already on disk, read when `make` runs them (issue 9): which recipe lines `make [targets]` runs,
// with make variables put in. Pure: the makefile comes in as a string; reader/peelers/make.ts expands what this
// returns as if the lines had been typed in the command.

export interface RecipeLine {
  /** The command as the shell gets it (make variables put in, `@`/`-`/`+` prefixes taken off). */
  command: string
  line: number
  target: string
}

interface Rule {
  prereqs: string[]
  recipe: { text: string; line: number }[]
}

const MAX_TARGETS = 64
const MAX_RECIPE_LINES = 400

/**
 * The recipe lines `make [targets]` runs, prerequisites first (each target once), with simple variables put in
 * (`X = …`, `X := …`, `X ?= …`, `X += …`, and `X=v` on the command line). What make computes itself (`$(shell …)`,
 * `$(wildcard …)`) stays as written, so a command word built that way reads as computed (the worst reading).
 * `unknown`: a requested target with no rule (make would fail, or use a pattern rule this does not read).
 */
export function makeRecipes(
  text: string,
  targets: string[],
  overrides: Record<string, string> = {},
): { lines: RecipeLine[]; unknown: string[] } {
  const vars = new Map<string, string>(
    Object.entries({ MAKE: 'make', CC: 'cc', CXX: 'c++', RM: 'rm -f', SHELL: '/bin/sh', ...overrides }),
  )
  const { rules, first } = readRules(text, vars, overrides)
  const wanted = targets.length ? targets : first ? [first] : []
  return recipeLinesOf(rules, vars, wanted)
}

/** The rules of a makefile by target, and its first target (the default goal); `vars` takes its variables. */
function readRules(
  text: string,
  vars: Map<string, string>,
  overrides: Record<string, string>,
): { rules: Map<string, Rule>; first: string | undefined } {
  const rules = new Map<string, Rule>()
  let first: string | undefined
  // The rules the recipe lines that follow belong to.
  let current: Rule[] = []
  const raw = text.slice(0, 512 * 1024).split('\n')
  for (let n = 0; n < raw.length; n++) {
    let line = raw[n]!
    const at = n + 1
    // A recipe line: a tab first, after a rule.
    if (line.startsWith('\t') && current.length) {
      let body = line.slice(1)
      while (body.endsWith('\\') && n + 1 < raw.length) body = body.slice(0, -1) + ' ' + raw[++n]!.replace(/^\t/, '')
      for (const r of current) if (r.recipe.length < MAX_RECIPE_LINES) r.recipe.push({ text: body, line: at })
      continue
    }
    while (line.endsWith('\\') && n + 1 < raw.length) line = line.slice(0, -1) + ' ' + raw[++n]!
    const trimmed = line.replace(/^\s+/, '')
    if (!trimmed || trimmed.startsWith('#')) continue
    if (/^(ifeq|ifneq|ifdef|ifndef|else|endif|include|-include|sinclude|define|endef|vpath|unexport)\b/.test(trimmed)) {
      if (!trimmed.startsWith('else') && !trimmed.startsWith('endif')) current = []
      continue
    }
    const head = assigned(trimmed, vars, overrides) ? undefined : ruleHead(trimmed, vars)
    current = []
    if (!head) continue
    for (const t of head.names) {
      if (!rules.has(t)) rules.set(t, { prereqs: [], recipe: [] })
      const r = rules.get(t)!
      r.prereqs.push(...head.prereqs)
      if (head.inline !== undefined) r.recipe.push({ text: head.inline, line: at })
      current.push(r)
      if (first === undefined && !t.startsWith('.') && !t.includes('%')) first = t
    }
  }
  return { rules, first }
}

/** Whether the line is a variable assignment (`X = …`, `X := …`, `X ?= …`, `X += …`, `X != …`); puts it in `vars`. */
function assigned(trimmed: string, vars: Map<string, string>, overrides: Record<string, string>): boolean {
  const assign = /^(?:export[ \t]+|override[ \t]+)*([A-Za-z_][\w.-]*)[ \t]*(:::=|::=|:=|\?=|\+=|!=|=)[ \t]*(.*)$/.exec(
    trimmed,
  )
  if (!assign) return false
  // Every group of the pattern takes part in a match; the defaults only satisfy the type.
  const [, name = '', op = '', value = ''] = assign
  if (name in overrides) return true
  if (op === '?=' && vars.has(name)) return true
  if (op === '+=') vars.set(name, `${vars.get(name) ?? ''} ${value}`.trim())
  else if (op === '!=') vars.set(name, `$(shell ${value})`)
  else vars.set(name, op === '=' || op === '?=' ? value : expandMake(value, vars, {}))
  return true
}

/** A rule line `targets: prereqs [; inline recipe]`, or undefined for any other line (a target-specific variable too). */
function ruleHead(
  trimmed: string,
  vars: Map<string, string>,
): { names: string[]; prereqs: string[]; inline: string | undefined } | undefined {
  const colon = ruleColon(trimmed)
  if (colon < 0) return undefined
  const names = expandMake(trimmed.slice(0, colon), vars, {}).split(/\s+/).filter(Boolean)
  let after = trimmed.slice(colon + 1).replace(/^:/, '')
  let inline: string | undefined
  const semi = after.indexOf(';')
  if (semi >= 0) {
    inline = after.slice(semi + 1)
    after = after.slice(0, semi)
  }
  // `target: VAR = value` (a target-specific variable): not a rule with a recipe.
  if (/^[ \t]*[A-Za-z_][\w.-]*[ \t]*[:?+]?=/.test(after)) return undefined
  const prereqs = expandMake(after.replace(/\|/g, ' '), vars, {}).split(/\s+/).filter(Boolean)
  return { names, prereqs, inline }
}

/** The recipe lines the wanted targets run, prerequisites first, each target once, with variables put in. */
function recipeLinesOf(
  rules: Map<string, Rule>,
  vars: Map<string, string>,
  wanted: string[],
): { lines: RecipeLine[]; unknown: string[] } {
  const lines: RecipeLine[] = []
  const unknown: string[] = []
  const seen = new Set<string>()
  const visit = (t: string, depth: number) => {
    if (seen.has(t) || seen.size >= MAX_TARGETS || depth > 16) return
    seen.add(t)
    const r = rules.get(t)
    if (!r) return
    for (const p of r.prereqs) visit(p, depth + 1)
    for (const { text: body, line } of r.recipe) {
      if (lines.length >= MAX_RECIPE_LINES) return
      const auto = {
        '@': t,
        '<': r.prereqs[0] ?? '',
        '^': [...new Set(r.prereqs)].join(' '),
        '+': r.prereqs.join(' '),
        '?': r.prereqs.join(' '),
        '*': t.replace(/\.[^./]*$/, ''),
      }
      const command = expandMake(body, vars, auto).replace(/^[ \t]*[@+-]+[ \t]*/, '')
      if (command.trim()) lines.push({ command, line, target: t })
    }
  }
  for (const t of wanted) {
    if (!rules.has(t)) unknown.push(t)
    visit(t, 0)
  }
  return { lines, unknown }
}

/** Where a rule's `:` is (not `:=`, not inside `$(…)`), or -1. */
function ruleColon(line: string): number {
  let depth = 0
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]
    if (ch === '$' && (line[i + 1] === '(' || line[i + 1] === '{')) {
      depth++
      i++
    } else if ((ch === ')' || ch === '}') && depth) depth--
    else if (ch === ':' && !depth) return line[i + 1] === '=' ? -1 : i
    else if (ch === '=' && !depth) return -1
  }
  return -1
}

/** Puts make variables into a text: `$(X)`, `${X}`, `$X`, `$@`…; `$$` is a literal `$`. Linear, depth-bounded. */
function expandMake(text: string, vars: Map<string, string>, auto: Record<string, string>, depth = 0): string {
  if (!text.includes('$') || depth > 8) return text
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (ch !== '$') {
      out += ch
      continue
    }
    const nx = text[i + 1]
    if (nx === '$') {
      out += '$'
      i++
    } else if (nx === '(' || nx === '{') {
      const close = nx === '(' ? ')' : '}'
      // The matching close, counting nested opens.
      let d = 0
      let j = i + 1
      for (; j < text.length; j++) {
        if (text[j] === nx) d++
        else if (text[j] === close && --d === 0) break
      }
      const inner = text.slice(i + 2, j)
      if (/^[\w.-]+$/.test(inner)) out += vars.has(inner) ? expandMake(vars.get(inner)!, vars, auto, depth + 1) : ''
      else if (/^[@<^+?*][DF]?$/.test(inner)) out += auto[inner.charAt(0)] ?? ''
      // A make function (`$(shell …)`, `$(wildcard …)`): computed by make; kept as a substitution the shell reader sees.
      else out += `$(${expandMake(inner, vars, auto, depth + 1)})`
      i = j
    } else if (nx !== undefined && '@<^+?*'.includes(nx)) {
      out += auto[nx] ?? ''
      i++
    } else if (nx !== undefined && /\w/.test(nx)) {
      out += vars.has(nx) ? expandMake(vars.get(nx)!, vars, auto, depth + 1) : ''
      i++
    } else out += ch
  }
  return out
}
