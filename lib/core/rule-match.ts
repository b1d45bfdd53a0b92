// Rules compiled for matching, and the match itself: which rules a classified call fires and why. Built once per
// process and cheap to build (no regex is compiled up front): rules are looked up by pattern name and by tool name,
// and a glob's longest literal part is tested with `includes` before its regex is ever built, so 1,000 rules cost
// microseconds per call. Two forms answer the lookup: compileRules (every rule at once) and the bucketed index
// (bucketed-index.ts, the hook's form).

import path from 'node:path'
import type { Classification } from './classify'
import { isKnownPattern } from './patterns'
import { decisionOf, type Guardrail, type RuleDecision } from './guardrails'
import { commandGlob, longestLiteral, wildcard } from './rule-index'
import { Minimatch } from 'minimatch'

export interface CompiledRule {
  rule: Guardrail
  decision: RuleDecision
  byPattern: boolean
  /** Position in the rules: candidates found through several keys are tested in this order. */
  order: number
  /** Built on the rule's first evaluation: most rules are never evaluated in a given call. */
  globs?: { tools?: Glob[]; command?: Glob[]; paths?: Glob[]; urls?: Glob[] }
}

function globsOf(c: CompiledRule): NonNullable<CompiledRule['globs']> {
  return (c.globs ??= {
    tools: globs(c.rule, 'tools'),
    command: globs(c.rule, 'command'),
    paths: globs(c.rule, 'paths'),
    urls: globs(c.rule, 'urls'),
  })
}

/**
 * The rules a call could match, looked up by what the call has instead of evaluated one by one. Two forms
 * answer it: `compileRules` (every rule compiled up front: the CLI, tests, a file without an index) and
 * `bucketedRuleIndex` (the hook's form: the derived index is read bucket by bucket, so a call with 1,000
 * rules parses and compiles only the few buckets its finding patterns and program words name).
 */
export interface RuleIndex {
  /** Rules keyed by the pattern or class name they name, in rule order. */
  forKey(key: string): readonly CompiledRule[]
  /**
   * Glob-only rules listing exactly `tool` that could match these commands, in rule order: per tool, the
   * rules whose command globs all start with a literal word are found under each such word (a Bash call
   * with 1,000 rules tests only the rules for the programs it runs), the others are always candidates.
   */
  forTool(tool: string, commands: readonly string[], paths?: readonly string[]): readonly CompiledRule[]
  /** Glob-only rules with no tool list or a wildcard in it: tested on every call. */
  anyTool(): readonly CompiledRule[]
}

/**
 * One glob, compiled on first use. `literal` is a substring every match must contain: testing it
 * with `includes` first means most rules never build a regex at all.
 */
class Glob {
  private matcher?: { test(v: string): boolean }
  private lit?: string
  constructor(
    readonly source: string,
    private readonly kind: 'wildcard' | 'caseless' | 'path',
    precomputed?: string,
  ) {
    this.lit = precomputed
  }

  private literal(): string {
    if (this.lit === undefined) {
      this.lit = longestLiteral(this.source, this.kind === 'path')
      if (this.kind === 'caseless') this.lit = this.lit.toLowerCase()
    }
    return this.lit
  }

  test(value: string): boolean {
    const lit = this.literal()
    if (lit && !(this.kind === 'caseless' ? value.toLowerCase() : value).includes(lit)) return false
    if (!this.matcher) {
      if (this.kind === 'path') {
        const mm = new Minimatch(this.source, { dot: true, matchBase: !this.source.includes('/') })
        this.matcher = { test: (v) => mm.match(v) }
      } else this.matcher = wildcard(this.source, this.kind === 'caseless' ? 'i' : '')
    }
    return this.matcher.test(value)
  }
}

type GlobField = 'tools' | 'command' | 'paths' | 'urls'
const KIND: Record<GlobField, 'wildcard' | 'caseless' | 'path'> = {
  tools: 'wildcard',
  command: 'wildcard',
  paths: 'path',
  urls: 'caseless',
}

/** The prefilter literal of each glob of a rule, as `compileRules` would compute it. */
export function ruleLiterals(match: Guardrail['match']): Partial<Record<GlobField, string[]>> {
  const out: Partial<Record<GlobField, string[]>> = {}
  for (const f of Object.keys(KIND) as GlobField[]) {
    const list = match?.[f]
    if (!list) continue
    out[f] = list.map((g) => {
      const lit = longestLiteral(f === 'command' ? commandGlob(g) : g, KIND[f] === 'path')
      return KIND[f] === 'caseless' ? lit.toLowerCase() : lit
    })
  }
  return out
}

const globs = (rule: Guardrail & { literals?: Partial<Record<GlobField, string[]>> }, f: GlobField) =>
  rule.match?.[f]?.map((g, i) => new Glob(f === 'command' ? commandGlob(g) : g, KIND[f], rule.literals?.[f]?.[i]))

export function compileRules(rules: readonly Guardrail[]): RuleIndex {
  const byKey = new Map<string, CompiledRule[]>()
  const byProgram = new Map<string, { words: Map<string, CompiledRule[]>; rest: CompiledRule[] }>()
  const anyTool: CompiledRule[] = []
  let order = 0
  for (const rule of rules) {
    const place = placement(rule)
    if (!place) continue
    const c: CompiledRule = { rule, decision: decisionOf(rule), byPattern: place === 'key', order: order++ }
    if (place === 'key') push(byKey, rule.pattern, c)
    else if (place === 'any') anyTool.push(c)
    else
      for (const t of place) {
        let inv = byProgram.get(t)
        if (!inv) byProgram.set(t, (inv = { words: new Map(), rest: [] }))
        const words = programWords(rule.match?.command)
        if (words) for (const w of words) push(inv.words, w, c)
        else inv.rest.push(c)
      }
  }
  return {
    forKey: (key) => byKey.get(key) ?? NONE,
    forTool(tool, commands) {
      const inv = byProgram.get(tool)
      if (!inv) return NONE
      if (!inv.words.size) return inv.rest
      return inOrder(
        inv.rest,
        commands.map((cmd) => inv.words.get(wordOf(cmd)) ?? NONE),
      )
    },
    anyTool: () => anyTool,
  }
}

export const NONE: readonly CompiledRule[] = []
const push = <K>(map: Map<K, CompiledRule[]>, key: K, c: CompiledRule) => {
  const list = map.get(key)
  if (list) list.push(c)
  else map.set(key, [c])
}
export const wordOf = (cmd: string) => (cmd.includes(' ') ? cmd.slice(0, cmd.indexOf(' ')) : cmd)

/** `base` and the rules of `more`, each rule once (a rule found under two words is one rule), in rule order. */
export function inOrder(
  base: readonly CompiledRule[],
  more: readonly (readonly CompiledRule[])[],
): readonly CompiledRule[] {
  if (more.every((m) => !m.length)) return base
  const seen = new Map<number, CompiledRule>()
  for (const c of base) seen.set(c.order, c)
  for (const m of more) for (const c of m) if (!seen.has(c.order)) seen.set(c.order, c)
  return [...seen.values()].sort((a, b) => a.order - b.order)
}

/** The literal first words of a rule's command globs, or null when one has none (or there are no globs). */
function programWords(command: string[] | undefined): Set<string> | null {
  if (!command?.length) return null
  const words = new Set<string>()
  for (const g of command) {
    const w = wordOf(commandGlob(g))
    if (!w || /[*?]/.test(w)) return null
    words.add(w)
  }
  return words
}

export interface FiredRule {
  id: string
  rule: Guardrail
  decision: RuleDecision
  /** Human-readable reasons, e.g. `pattern git_push: git push origin main`. */
  because: string[]
}

/**
 * Which paths a rule's path globs are matched against. A rule that lists tools matches the paths a call
 * changes (written, moved, deleted), and for Read and NotebookRead the file read: a Bash rule on `build/**`
 * is about `rm -rf build`, not `cat build/log`. A rule that lists no tools matches every path the call
 * touches, read or changed, by any tool: `{"paths": ["secrets/**"]}` stops `cat secrets/x` too.
 */
export const READ_PATH_TOOLS = ['Read', 'NotebookRead']

export function matchRules(index: RuleIndex, called: Classification, projectDir: string): FiredRule[] {
  const action =
    READ_PATH_TOOLS.includes(called.tool) && !called.paths.length ? { ...called, paths: called.reads } : called
  const relOf = (abs: string) => {
    const rel = path.posix.relative(projectDir, abs)
    return rel.startsWith('..') ? null : rel
  }
  const extra = called.reads.filter((r) => !action.paths.includes(r))
  // Every path the call touches, for the rules that list no tools.
  const touched = extra.length ? { ...action, paths: [...action.paths, ...extra] } : action

  const fired: FiredRule[] = []
  const keys = new Map<string, string>() // key → first detail that produced it
  for (const f of action.findings) {
    if (!keys.has(f.pattern)) keys.set(f.pattern, f.detail)
    if (!keys.has(f.class)) keys.set(f.class, f.detail)
    if (f.catastrophic && !keys.has('catastrophic')) keys.set('catastrophic', f.detail)
  }
  // An effect that can be undone keys only the rules that name its pattern, never its class's.
  for (const f of action.restorable ?? []) if (!keys.has(f.pattern)) keys.set(f.pattern, f.detail)
  const rels = action.paths.map(relOf)
  const touchedRels = extra.length ? [...rels, ...extra.map(relOf)] : rels
  const pathsFor = (c: CompiledRule): [Classification, (string | null)[]] =>
    c.rule.match?.tools ? [action, rels] : [touched, touchedRels]
  // Each rule sits under exactly one key, or under tools (one tool per call), or with anyTool: no rule
  // can be visited twice.
  for (const [key, detail] of keys) {
    // One reason for every rule of the key that has no globs of its own (at 1,000 rules, dozens fire at once).
    const why = `pattern ${key}: ${detail}`
    for (const c of index.forKey(key))
      if (!c.rule.match) fired.push({ id: c.rule.id, rule: c.rule, decision: c.decision, because: [why] })
      else {
        const [a, r] = pathsFor(c)
        if (globsMatch(c, a, r, false))
          fired.push({ id: c.rule.id, rule: c.rule, decision: c.decision, because: [why, ...describe(c, a, r)] })
      }
  }
  for (const c of index.forTool(action.tool, action.commands, action.paths))
    if (globsMatch(c, action, rels, true))
      fired.push({ id: c.rule.id, rule: c.rule, decision: c.decision, because: describe(c, action, rels) })
  for (const c of index.anyTool()) {
    const [a, r] = pathsFor(c)
    if (globsMatch(c, a, r, false))
      fired.push({ id: c.rule.id, rule: c.rule, decision: c.decision, because: describe(c, a, r) })
  }
  return fired
}

const anyHit = (globs: Glob[], values: string[]): string | undefined => {
  for (const v of values) for (const g of globs) if (g.test(v)) return v
  return undefined
}

/**
 * Relative globs match the project-relative path or the absolute one; absolute globs only the latter. A
 * negated glob (`!src/**`: anything outside src/) is tried on one path only, the project-relative one when
 * there is one: tried on both, it matched every path, since an absolute path is never under a relative `src/`.
 */
function pathHit(globs: Glob[], paths: string[], rels: (string | null)[]): string | undefined {
  for (let i = 0; i < paths.length; i++) {
    const abs = paths[i]
    const rel = rels[i]
    for (const g of globs) {
      // A folder stands for what is in it (`rm -rf data` deletes `data/**`): it is also tried as `data/`.
      const hit = g.source.startsWith('/')
        ? g.test(abs) || g.test(abs + '/')
        : g.source.startsWith('!')
          ? g.test(rel ?? abs)
          : (rel !== null && (g.test(rel) || g.test(rel + '/'))) || g.test(abs) || g.test(abs + '/')
      if (hit) return abs
    }
  }
  return undefined
}

/** Every given field must match at least one value. Allocation-free: it runs for every rule. */
function globsMatch(rule: CompiledRule, a: Classification, rels: (string | null)[], toolKnown: boolean): boolean {
  const c = globsOf(rule)
  if (c.tools && !toolKnown && anyHit(c.tools, [a.tool]) === undefined) return false
  if (c.command && anyHit(c.command, a.commands) === undefined) return false
  if (c.urls && anyHit(c.urls, a.urls) === undefined) return false
  if (c.paths && pathHit(c.paths, a.paths, rels) === undefined) return false
  return true
}

/** Why a rule that matched did so, for the note, `explain` and the log. */
function describe(rule: CompiledRule, a: Classification, rels: (string | null)[]): string[] {
  const c = globsOf(rule)
  const why: string[] = []
  if (c.tools) why.push(`tool ${a.tool}`)
  if (c.command)
    why.push(
      `command "${anyHit(c.command, a.commands)}" matches ${c.command.map((g) => JSON.stringify(g.source)).join(' or ')}`,
    )
  if (c.paths) why.push(`path ${pathHit(c.paths, a.paths, rels)}`)
  if (c.urls) why.push(`url ${anyHit(c.urls, a.urls)}`)
  return why
}

/**
 * Where a rule sits in the index: under its pattern ('key'), under each exact tool it lists, with the
 * rules tested on every call ('any'), or nowhere (disabled, or awareness only: shown at session start).
 */
export function placement(rule: Guardrail): 'key' | 'any' | string[] | null {
  if (rule.enabled === false) return null
  const m = rule.match
  if (isKnownPattern(rule.pattern)) return 'key'
  if (!m) return null
  if (m.tools?.length && m.tools.every((t) => !/[*?]/.test(t))) return [...new Set(m.tools)]
  return 'any'
}
