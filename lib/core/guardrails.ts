// guardrails.json: the seed's format as-is (a bare array of {id, source, pattern, trigger, rule,
// severity, added, last_fired, fire_count}) plus optional machine matching (`match`) and an explicit
// `decision`. Validation returns problems as data; only the edges turn them into messages or exits.

import * as z from 'zod/mini'
import { Minimatch } from 'minimatch'
import path from 'node:path'
import { issueMessage } from './payloads'
import { isKnownPattern } from './patterns'
import type { Classification } from './classify'
import { addCommandGlobs, longestLiteral, wildcard, type FastIndex, type ToolProbe } from './rule-index'

export const DECISIONS = ['warn', 'check', 'ask', 'pause', 'deny'] as const
export type RuleDecision = (typeof DECISIONS)[number]
/** Strength order: a stronger decision wins when several rules fire. */
export const STRENGTH: Record<RuleDecision, number> = { warn: 1, check: 2, ask: 3, pause: 4, deny: 5 }

const guardrailSchema = () => {
  const globList = z.optional(z.array(z.string()))
  const match = z.strictObject({ tools: globList, command: globList, paths: globList, urls: globList })
  return z.looseObject({
    id: z.string().check(z.minLength(1)),
    source: z.optional(z.nullable(z.string())),
    pattern: z.string().check(z.minLength(1)),
    trigger: z.optional(z.nullable(z.string())),
    rule: z.string(),
    severity: z.enum(['hard', 'soft']),
    added: z.optional(z.nullable(z.string())),
    last_fired: z.optional(z.nullable(z.string())),
    fire_count: z.optional(z.nullable(z.number())),
    match: z.optional(match),
    decision: z.optional(z.enum(DECISIONS)),
    check: z.optional(z.string()),
    enabled: z.optional(z.boolean()),
  })
}
const tuningSchema = () =>
  z.looseObject({
    id: z.string().check(z.minLength(1)),
    decision: z.optional(z.enum(DECISIONS)),
    enabled: z.optional(z.boolean()),
    check: z.optional(z.string()),
    severity: z.optional(z.enum(['hard', 'soft'])),
    match: z.optional(z.strictObject({ tools: z.optional(z.array(z.string())), command: z.optional(z.array(z.string())), paths: z.optional(z.array(z.string())), urls: z.optional(z.array(z.string())) })),
  })
let tuning: ReturnType<typeof tuningSchema> | undefined
const TuningSchema = () => (tuning ??= tuningSchema())
let schema: ReturnType<typeof guardrailSchema> | undefined
/** The zod schema of one guardrail, built on first use (a hook whose file is already validated never needs it). */
export const GuardrailSchema = () => (schema ??= guardrailSchema())
export type Guardrail = z.infer<ReturnType<typeof guardrailSchema>>

export interface Problem {
  /** JSON path inside the file, e.g. `[2].severity`. */
  where: string
  message: string
}

export interface LoadedRules {
  rules: Guardrail[]
  problems: Problem[]
  /** True when the file could not be used at all (bad JSON, not an array). */
  fatal: boolean
}

/** Validates the parsed file entry by entry: one bad rule is reported and skipped, the rest still work. */
export function validateGuardrails(raw: unknown): LoadedRules {
  const list = Array.isArray(raw) ? raw : raw && typeof raw === 'object' && Array.isArray((raw as { guardrails?: unknown }).guardrails) ? (raw as { guardrails: unknown[] }).guardrails : null
  if (!list) return { rules: [], problems: [{ where: '(root)', message: 'expected an array of guardrails (or {"guardrails": [...]})' }], fatal: true }
  const rules: Guardrail[] = []
  const problems: Problem[] = []
  const ids = new Set<string>()
  list.forEach((entry, i) => {
    // An entry with neither `pattern` nor `rule` tunes a built-in by id (see builtins.ts).
    // Built-in ids are RG-*; tunings of an unknown RG- id are reported when the built-ins are merged.
    const tuning = entry && typeof entry === 'object' && /^RG-/.test(String((entry as { id?: unknown }).id)) && !('pattern' in entry) && !('rule' in entry)
    const r = (tuning ? TuningSchema() : GuardrailSchema()).safeParse(entry)
    if (!r.success) {
      for (const issue of r.error.issues.slice(0, 3)) problems.push({ where: `[${i}]${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`, message: issueMessage(issue) })
      return
    }
    const g = r.data as Guardrail
    if (ids.has(g.id)) problems.push({ where: `[${i}].id`, message: `duplicate id ${g.id}; the first one wins` })
    else {
      ids.add(g.id)
      rules.push(g)
    }
  })
  return { rules, problems, fatal: false }
}

/** Why a rule can or cannot be matched by machine; shown by `guardrails list` and `explain`. */
export function matchability(g: Guardrail): 'pattern' | 'match' | 'pattern+match' | 'awareness' {
  const known = isKnownPattern(g.pattern)
  if (g.match && known) return 'pattern+match'
  if (g.match) return 'match'
  if (known) return 'pattern'
  return 'awareness'
}

export function decisionOf(g: Guardrail): RuleDecision {
  return g.decision ?? (g.severity === 'hard' ? 'deny' : 'check')
}

/** The next free `GR-NNN` id (after the highest in use). */
export function nextGuardrailId(ids: Iterable<string>): string {
  let n = 0
  const taken = new Set(ids)
  for (const id of taken) n = Math.max(n, Number(/^GR-(\d+)$/.exec(id)?.[1] ?? 0))
  let id = `GR-${String(++n).padStart(3, '0')}`
  while (taken.has(id)) id = `GR-${String(++n).padStart(3, '0')}`
  return id
}

export const citesIncident = (g: Guardrail) => /\bINC-\d+/i.test(g.source ?? '')

// ---------------------------------------------------------------------------------------------
// Compiled form, built once per process. Building it is cheap (no regex is compiled up front);
// matching looks rules up by pattern name and by tool name, and a glob's longest literal part is
// tested with `includes` before its regex is ever built. So 1,000 rules cost microseconds per call.

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
  return (c.globs ??= { tools: globs(c.rule, 'tools'), command: globs(c.rule, 'command'), paths: globs(c.rule, 'paths'), urls: globs(c.rule, 'urls') })
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
  forTool(tool: string, commands: readonly string[]): readonly CompiledRule[]
  /** Glob-only rules with no tool list or a wildcard in it: tested on every call. */
  anyTool(): readonly CompiledRule[]
}

export { longestLiteral }

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
const KIND: Record<GlobField, 'wildcard' | 'caseless' | 'path'> = { tools: 'wildcard', command: 'wildcard', paths: 'path', urls: 'caseless' }

/** The prefilter literal of each glob of a rule, as `compileRules` would compute it. */
export function ruleLiterals(match: Guardrail['match']): Partial<Record<GlobField, string[]>> {
  const out: Partial<Record<GlobField, string[]>> = {}
  for (const f of Object.keys(KIND) as GlobField[]) {
    const list = match?.[f]
    if (!list) continue
    out[f] = list.map((g) => {
      const lit = longestLiteral(f === 'command' ? g.trim() : g, KIND[f] === 'path')
      return KIND[f] === 'caseless' ? lit.toLowerCase() : lit
    })
  }
  return out
}

const globs = (rule: Guardrail & { literals?: Partial<Record<GlobField, string[]>> }, f: GlobField) =>
  rule.match?.[f]?.map((g, i) => new Glob(f === 'command' ? g.trim() : g, KIND[f], rule.literals?.[f]?.[i]))

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
      return inOrder(inv.rest, commands.map((cmd) => inv.words.get(wordOf(cmd)) ?? NONE))
    },
    anyTool: () => anyTool,
  }
}

const NONE: readonly CompiledRule[] = []
const push = <K>(map: Map<K, CompiledRule[]>, key: K, c: CompiledRule) => {
  const list = map.get(key)
  if (list) list.push(c)
  else map.set(key, [c])
}
const wordOf = (cmd: string) => (cmd.includes(' ') ? cmd.slice(0, cmd.indexOf(' ')) : cmd)

/** `base` and the rules of `more`, each rule once (a rule found under two words is one rule), in rule order. */
function inOrder(base: readonly CompiledRule[], more: readonly (readonly CompiledRule[])[]): readonly CompiledRule[] {
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
    const w = wordOf(g.trim())
    if (!w || /[*?]/.test(w)) return null
    words.add(w)
  }
  return words
}

// ---- the bucketed index ----------------------------------------------------------------------
// `.guardrails-index.json` (written by lib/io/state.ts from rules it validated) holds each rule under every
// bucket compileRules would file it under. Its first line is a header: the stamp, the tunings of built-ins,
// and a directory of the buckets (name → byte offset and length, counted from the second line); then one
// bucket per line, each a JSON array of [order, rule]. A rule is as written (its words and source, which a
// note shows when it fires) but for its counters, with its decision and its globs' literals worked out:
//
//   {"v":4,"key":…,"hash":…,"tunings":[…],"dir":{"k\u0000git_push":[0,912],…}
//   ,"k\u0000git_push":[[order,{rule}],…]               rules keyed by a pattern or class
//   ,"w\u0000Bash\u0000deploy-tool":[…]                 by tool and program word (`deploy-tool *`)
//   ,"p\u0000Bash\u0000release-":[…]                    by tool and the start of the word (`release-*`)
//   ,"r\u0000Bash":[…]                                  by tool, any command (`*deploy*`, or no command globs)
//   ,"a":[…]                                            tested on every call
//   }
//
// One JSON document (a human or a test can read it whole), but the hook reads the header and then only the
// bytes of the buckets a call names: reading 1,000 rules (430 KB) cost a fresh process ~1 ms before any
// parsing, and parsing and compiling them ~5 ms and a garbage collection; a call needs a few dozen at most.
// (v4: rules keep their words. v3 left them out and a fire read them from guardrails.json afterwards: 380 KB
// read and every rule matched twice, ~2 ms of every call that fired a rule.)

const SEP = '\u0000'
const bucketName = (...parts: string[]) => parts.join(SEP)

/** The header line of the bucketed index, with its directory: bucket name → [byte offset from the second line, byte length]. */
export interface IndexHead {
  v: 4
  key: string
  hash: string
  tunings: Guardrail[]
  /** Where a bucket is, or undefined when there is no such bucket. */
  locate(name: string): [number, number] | undefined
  /** Every bucket's name (a rare full read). */
  names(): string[]
}

/** Where a RuleIndex reads its buckets: the header, and the JSON text of one bucket (undefined: no such bucket). */
export interface IndexSource {
  head: IndexHead
  bucket(name: string): string | undefined
}

/**
 * What a rule's command globs say about the first word of any command they match: an exact word (`git
 * push *` → git), or a start (`release-*` → release-). Null when one glob says neither (`*deploy*`): the
 * rule is then a candidate for every command of its tools. `*` and `?` are the only wildcards (wildcard()).
 */
function commandKeys(command: string[] | undefined): { words: Set<string>; prefixes: Set<string> } | null {
  if (!command?.length) return null
  const words = new Set<string>()
  const prefixes = new Set<string>()
  for (const g of command) {
    const w = wordOf(g.trim())
    const wild = w.search(/[*?]/)
    if (wild < 0) {
      if (!w) return null
      words.add(w)
    } else if (wild === 0) return null
    // A match starts with this (it has no space), so the command's first word does.
    else prefixes.add(w.slice(0, wild))
  }
  return { words, prefixes }
}

/** The index text for these rules (tunings of built-ins apart, kept as written), stamped with `stamp`. */
export function bucketedIndexText(stamp: { key: string; hash: string }, tunings: readonly Guardrail[], own: readonly Guardrail[]): string {
  const buckets = new Map<string, string[]>()
  const add = (name: string, entry: string) => {
    const list = buckets.get(name)
    if (list) list.push(entry)
    else buckets.set(name, [entry])
  }
  own.forEach((rule, o) => {
    const place = placement(rule)
    if (!place) return
    const entry = `[${o},${JSON.stringify(rule)}]`
    if (place === 'key') add(bucketName('k', rule.pattern), entry)
    else if (place === 'any') add('a', entry)
    else
      for (const t of place) {
        const keys = commandKeys(rule.match?.command)
        if (!keys) add(bucketName('r', t), entry)
        else {
          for (const w of keys.words) add(bucketName('w', t, w), entry)
          for (const p of keys.prefixes) add(bucketName('p', t, p), entry)
        }
      }
  })
  const dir: Record<string, [number, number]> = Object.create(null)
  const body: string[] = []
  let at = 0
  for (const [name, entries] of buckets) {
    const prefix = `,${JSON.stringify(name)}:`
    const value = `[${entries.join(',')}]`
    const start = at + utf8Length(prefix)
    const length = utf8Length(value)
    dir[name] = [start, length]
    body.push(prefix + value + '\n')
    at = start + length + 1
  }
  return JSON.stringify({ v: 4, key: stamp.key, hash: stamp.hash, tunings, dir }).slice(0, -1) + '\n' + body.join('') + '}\n'
}

/** UTF-8 byte length without Buffer (this module is pure and runs in tests as well as bundles). */
function utf8Length(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

/**
 * The header of an index, from its first line; null when it is not one. The directory (some 700 names at
 * 1,000 rules, the last member of the line) is searched, not parsed: parsing it cost every cold hook ~0.6 ms.
 * A directory entry is found by its key, `,"name":[` or `{"name":[`: inside a JSON string a quote is always
 * escaped, so that text can only be the start of a key, and the values are pairs of numbers.
 */
export function bucketedIndexHead(firstLine: string): IndexHead | null {
  const DIR = ',"dir":'
  const at = firstLine.lastIndexOf(DIR + '{')
  if (at < 0 || !firstLine.endsWith('}')) return null
  const head = JSON.parse(firstLine.slice(0, at) + '}') as Partial<IndexHead> | null
  if (!head || head.v !== 4 || typeof head.key !== 'string' || typeof head.hash !== 'string' || !Array.isArray(head.tunings)) return null
  const dir = firstLine.slice(at + DIR.length)
  const locate = (name: string): [number, number] | undefined => {
    const needle = JSON.stringify(name) + ':['
    let i = dir.indexOf(needle)
    while (i > 0 && dir[i - 1] !== '{' && dir[i - 1] !== ',') i = dir.indexOf(needle, i + 1)
    if (i <= 0) return undefined
    const from = i + needle.length
    const pair = dir.slice(from, dir.indexOf(']', from)).split(',')
    const start = Number(pair[0])
    const length = Number(pair[1])
    return pair.length === 2 && Number.isSafeInteger(start) && Number.isSafeInteger(length) && start >= 0 && length >= 0 ? [start, length] : undefined
  }
  const names = () => Object.keys(JSON.parse(dir) as Record<string, unknown>)
  return { v: 4, key: head.key, hash: head.hash, tunings: head.tunings, locate, names }
}

/** An index source over the whole text (tests, and the rare paths that read every rule). */
export function indexSourceOfText(text: string): IndexSource | null {
  const nl = text.indexOf('\n')
  const head = nl < 0 ? null : bucketedIndexHead(text.slice(0, nl))
  if (!head) return null
  const bodyBytes = new TextEncoder().encode(text.slice(nl + 1))
  const decoder = new TextDecoder()
  return {
    head,
    bucket(name) {
      const at = head.locate(name)
      return at ? decoder.decode(bodyBytes.subarray(at[0], at[0] + at[1])) : undefined
    },
  }
}

/** The index text with another stat key (same content: a touch, a checkout). Offsets count from the body. */
export function restampedIndexText(text: string, key: string): string {
  const nl = text.indexOf('\n')
  const head = JSON.parse(text.slice(0, nl) + '}') as Record<string, unknown>
  return JSON.stringify({ ...head, key }).slice(0, -1) + text.slice(nl)
}

/** Every project rule of an index, in order (a rare full read: re-deriving the fast index, re-keying). */
export function bucketedRules(src: IndexSource): Guardrail[] {
  const all = new Map<number, Guardrail>()
  for (const name of src.head.names()) for (const [o, r] of JSON.parse(src.bucket(name)!) as [number, Guardrail][]) all.set(o, r)
  return [...all.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r)
}

export interface BucketedIndex extends RuleIndex {
  /** The project rules read so far, by id (which buckets a call cost: tests). */
  readonly seen: ReadonlyMap<string, Guardrail>
}

/**
 * A RuleIndex over an index: the built-ins (as tuned) compiled up front, the project's rules read and parsed
 * one bucket at a time when a call asks for it. `origin` is set on each project rule, as withBuiltins sets it. Matching is exactly compileRules' over
 * [...builtins, ...own]: the same placement, the same order.
 */
export function bucketedRuleIndex(src: IndexSource, builtins: readonly Guardrail[], extra: { origin?: string } = {}): BucketedIndex {
  const base = compileRules(builtins)
  const offset = builtins.length
  const cache = new Map<string, readonly CompiledRule[]>()
  const seen = new Map<string, Guardrail>()
  const located = new Map<string, boolean>()
  const has = (name: string) => {
    let yes = located.get(name)
    if (yes === undefined) located.set(name, (yes = src.head.locate(name) !== undefined))
    return yes
  }
  const bucket = (name: string): readonly CompiledRule[] => {
    let list = cache.get(name)
    if (list) return list
    const text = has(name) ? src.bucket(name) : undefined
    list =
      text === undefined
        ? NONE
        : (JSON.parse(text) as [number, Guardrail][]).map(([o, entry]) => {
            seen.set(entry.id, entry)
            const rule = (extra.origin ? { ...entry, origin: extra.origin } : entry) as Guardrail
            return { rule, decision: decisionOf(rule), byPattern: name.startsWith('k' + SEP), order: offset + o }
          })
    cache.set(name, list)
    return list
  }
  return {
    seen,
    forKey: (key) => inOrder(base.forKey(key), [bucket(bucketName('k', key))]),
    forTool(tool, commands) {
      const lists = [bucket(bucketName('r', tool))]
      for (const w of new Set(commands.map(wordOf))) {
        lists.push(bucket(bucketName('w', tool, w)))
        // Every start of the word that has a bucket (`release-*` for release-7).
        for (let k = 1; k <= w.length; k++) if (has(bucketName('p', tool, w.slice(0, k)))) lists.push(bucket(bucketName('p', tool, w.slice(0, k))))
      }
      return inOrder(base.forTool(tool, commands), lists)
    },
    anyTool: () => inOrder(base.anyTool(), [bucket('a')]),
  }
}

/**
 * Where a rule sits in the index: under its pattern ('key'), under each exact tool it lists, with the
 * rules tested on every call ('any'), or nowhere (disabled, or awareness only: shown at session start).
 */
function placement(rule: Guardrail): 'key' | 'any' | string[] | null {
  if (rule.enabled === false) return null
  const m = rule.match
  if (isKnownPattern(rule.pattern)) return 'key'
  if (!m) return null
  if (m.tools?.length && m.tools.every((t) => !/[*?]/.test(t))) return [...new Set(m.tools)]
  return 'any'
}

/**
 * The inverted index preflight-check's fast path reads (lib/core/rule-index.ts): for each tool, what
 * could make a rule match a call with no finding, path or URL. Built from the rules in force, with the
 * placement compileRules uses, so the two never disagree about which rules are candidates.
 */
export function fastIndexOf(rules: readonly Guardrail[], problems: number, key: string, hash: string): FastIndex {
  // Null-prototype maps: a tool or program named like an Object.prototype key is a key like any other.
  const index: FastIndex = { v: 1, key, hash, problems, tools: Object.create(null), wild: [] }
  for (const rule of rules) {
    const place = placement(rule)
    // Pattern-keyed rules fire only with a finding; path and URL globs need a path or URL (see matchRules).
    if (!place || place === 'key' || rule.match!.paths || rule.match!.urls) continue
    const add = (p: ToolProbe) => {
      if (rule.match!.command) addCommandGlobs(p, rule.match!.command.map((g) => g.trim()))
      else p.all = true
    }
    if (place === 'any') {
      const p: FastIndex['wild'][number] = { t: rule.match!.tools ?? null }
      add(p)
      index.wild.push(p)
    } else for (const t of place) add((index.tools[t] ??= Object.create(null) as ToolProbe))
  }
  return index
}

export interface FiredRule {
  id: string
  rule: Guardrail
  decision: RuleDecision
  /** Human-readable reasons, e.g. `pattern git_push: git push origin main`. */
  because: string[]
}

export function matchRules(index: RuleIndex, action: Classification, projectDir: string): FiredRule[] {
  const fired: FiredRule[] = []
  const keys = new Map<string, string>() // key → first detail that produced it
  for (const f of action.findings) {
    if (!keys.has(f.pattern)) keys.set(f.pattern, f.detail)
    if (!keys.has(f.class)) keys.set(f.class, f.detail)
    if (f.catastrophic && !keys.has('catastrophic')) keys.set('catastrophic', f.detail)
  }
  const rels = action.paths.map((abs) => {
    const rel = path.posix.relative(projectDir, abs)
    return rel.startsWith('..') ? null : rel
  })
  // Each rule sits under exactly one key, or under tools (one tool per call), or with anyTool: no rule
  // can be visited twice.
  for (const [key, detail] of keys)
    for (const c of index.forKey(key))
      if (!c.rule.match || globsMatch(c, action, rels, false))
        fired.push({ id: c.rule.id, rule: c.rule, decision: c.decision, because: [`pattern ${key}: ${detail}`, ...describe(c, action, rels)] })
  for (const c of index.forTool(action.tool, action.commands)) if (globsMatch(c, action, rels, true)) fired.push({ id: c.rule.id, rule: c.rule, decision: c.decision, because: describe(c, action, rels) })
  for (const c of index.anyTool()) if (globsMatch(c, action, rels, false)) fired.push({ id: c.rule.id, rule: c.rule, decision: c.decision, because: describe(c, action, rels) })
  return fired
}

const anyHit = (globs: Glob[], values: string[]): string | undefined => {
  for (const v of values) for (const g of globs) if (g.test(v)) return v
  return undefined
}

/** Relative globs match the project-relative path or the absolute one; absolute globs only the latter. */
function pathHit(globs: Glob[], paths: string[], rels: (string | null)[]): string | undefined {
  for (let i = 0; i < paths.length; i++) {
    const abs = paths[i]
    const rel = rels[i]
    for (const g of globs) if (g.source.startsWith('/') ? g.test(abs) : (rel !== null && g.test(rel)) || g.test(abs)) return abs
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
  if (c.command) why.push(`command "${anyHit(c.command, a.commands)}" matches ${c.command.map((g) => JSON.stringify(g.source)).join(' or ')}`)
  if (c.paths) why.push(`path ${pathHit(c.paths, a.paths, rels)}`)
  if (c.urls) why.push(`url ${anyHit(c.urls, a.urls)}`)
  return why
}
