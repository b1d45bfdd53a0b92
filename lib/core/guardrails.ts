// guardrails.json: the seed's format as-is (a bare array of {id, source, pattern, trigger, rule,
// severity, added, last_fired, fire_count}) plus optional machine matching (`match`) and an explicit
// `decision`. Validation returns problems as data; only the edges turn them into messages or exits.

import * as z from 'zod/mini'
import { Minimatch } from 'minimatch'
import path from 'node:path'
import { issueMessage } from './payloads'
import { isKnownPattern } from './patterns'
import type { Classification } from './classify'
import { addCommandGlobs, addPathGlobs, commandGlob, longestLiteral, pathNames, wildcard, type FastIndex, type ToolProbe } from './rule-index'

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
  forTool(tool: string, commands: readonly string[], paths?: readonly string[]): readonly CompiledRule[]
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
    const w = wordOf(commandGlob(g))
    if (!w || /[*?]/.test(w)) return null
    words.add(w)
  }
  return words
}

// ---- the bucketed index ----------------------------------------------------------------------
// `.guardrails-index.json` (written by lib/io/guardrails.ts from rules it validated) holds each rule under every
// bucket compileRules would file it under. Its first line is a header: the stamp, the tunings of built-ins,
// and where each shard of the directory is (byte offset and length, counted from the second line); then one
// bucket per line, each a JSON array of [order, rule]; then the directory's shards, each an object of bucket
// name → [offset, length], a name in shard fnv1a(name) mod shards. A rule is as written (its words and
// source, which a note shows when it fires) but for its counters, with its decision and its globs' literals:
//
//   {"v":6,"key":…,"hash":…,"tunings":[…],"shards":[[91002,1210],…]
//   ,"k\u0000git_push":[[order,{rule}],…]               rules keyed by a pattern or class
//   ,"w\u0000Bash\u0000deploy-tool":[…]                 by tool and program word (`deploy-tool *`)
//   ,"p\u0000Bash\u0000release-":[…]                    by tool and the start of the word (`release-*`)
//   ,"s\u0000Write\u0000service-5":[…]                   by tool and a folder or file name every match holds
//                                                      (path globs, no command globs: `config/service-5/**`)
//   ,"r\u0000Bash":[…]                                  by tool, any command (`*deploy*`, or no command globs)
//   ,"a":[…]                                            tested on every call
//   ,"d\u00000":{"k\u0000git_push":[0,912],…}            a shard of the directory (~32 names)
//   }
//
// One JSON document (a human or a test can read it whole), but the hook reads the header and then only the
// bytes of the buckets a call names: reading 1,000 rules (430 KB) cost a fresh process ~1 ms before any
// parsing, and parsing and compiling them ~5 ms and a garbage collection; a call needs a few dozen at most.
// (v4: rules keep their words. v3 left them out and a fire read them from guardrails.json afterwards: 380 KB
// read and every rule matched twice, ~2 ms of every call that fired a rule. v5: path rules are filed by
// name, and the directory is sharded: a call reads the few shards its names fall in, where parsing, or even
// searching, one directory of every bucket cost each call up to a millisecond at 1,000 rules. v6: command
// globs are filed by their program's name, not the path it was typed with: `./deploy.sh *` under deploy.sh.)

const SEP = '\u0000'
const bucketName = (...parts: string[]) => parts.join(SEP)

/** The header line of the bucketed index: the stamp, the tunings, and where each shard of the directory is. */
export interface IndexHead {
  v: 6
  key: string
  hash: string
  tunings: Guardrail[]
  /** [byte offset from the second line, byte length] of each shard of the directory. */
  shards: [number, number][]
  /**
   * Per tool, the lengths of the word starts that have a `p` bucket (`release-*` → 8): a call looks up only
   * those starts of its program word, where trying every start cost a shard each (~0.5 ms for a 13-letter
   * word). Absent in an index written before it: every start is tried.
   */
  starts?: Record<string, number[]>
}

/** Where a RuleIndex reads its buckets. */
export interface IndexSource {
  head: IndexHead
  /** Where a bucket is ([byte offset from the second line, byte length]), or undefined when there is none. */
  locate(name: string): [number, number] | undefined
  /** Every bucket's name (a rare full read). */
  names(): string[]
  /** The JSON text of one bucket, or undefined when there is no such bucket. */
  bucket(name: string): string | undefined
}

/** The directory shard a bucket name is in: FNV-1a over its UTF-16 code units. */
function shardOf(name: string, shards: number): number {
  let h = 0x811c9dc5
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193)
  return (h >>> 0) % shards
}

const pairOf = (v: unknown): [number, number] | undefined => (Array.isArray(v) && v.length === 2 && v.every((n) => Number.isSafeInteger(n) && n >= 0) ? (v as [number, number]) : undefined)

/**
 * An index source over its header and a reader of the body (`read(offset, length)`: that span as text).
 * Shards are read and parsed when a name in them is first asked for; a damaged shard throws (the caller
 * then matches from all the rules: ruleIndexOf).
 */
export function indexSource(head: IndexHead, read: (offset: number, length: number) => string): IndexSource {
  const texts = new Map<number, string>()
  const shardText = (i: number) => {
    let text = texts.get(i)
    if (text === undefined) {
      text = read(head.shards[i][0], head.shards[i][1])
      if (text[0] !== '{' || text[text.length - 1] !== '}') throw new Error(`shard ${i} of the rule index is not a directory`)
      texts.set(i, text)
    }
    return text
  }
  // A name is found by its key in the shard's text, not by parsing the shard: a parse built ~32 entries
  // (~16 KB of young heap) to read one, and a call that fires many rules looks up a dozen names. The key is
  // the name as JSON.stringify wrote it; it counts only right after `{` or `,`, where a key starts (a quote
  // inside a key is escaped, and values are pairs of numbers, so nothing else can look like one).
  const locate = (name: string): [number, number] | undefined => {
    const text = shardText(shardOf(name, head.shards.length))
    const key = JSON.stringify(name) + ':['
    let at = text.indexOf(key)
    while (at > 0 && text[at - 1] !== '{' && text[at - 1] !== ',') at = text.indexOf(key, at + 1)
    if (at < 0) return undefined
    const m = /^(\d+),(\d+)\]/.exec(text.slice(at + key.length, at + key.length + 40))
    const pair = m ? pairOf([Number(m[1]), Number(m[2])]) : undefined
    if (!pair) throw new Error(`the rule index's entry for ${JSON.stringify(name)} is not a location`)
    return pair
  }
  const shard = (i: number) => {
    const got = JSON.parse(shardText(i)) as unknown
    if (!got || typeof got !== 'object' || Array.isArray(got)) throw new Error(`shard ${i} of the rule index is not a directory`)
    return got as Record<string, unknown>
  }
  return {
    head,
    locate,
    names: () => head.shards.flatMap((_, i) => Object.keys(shard(i))),
    bucket(name) {
      const at = locate(name)
      return at ? read(at[0], at[1]) : undefined
    },
  }
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
    const w = wordOf(commandGlob(g))
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

/** The folder and file names of the paths of a call, each once (what `s` buckets are looked up by). */
function namesOf(paths: readonly string[]): Set<string> {
  const out = new Set<string>()
  for (const p of paths) for (const s of p.split('/')) if (s) out.add(s)
  return out
}

/** The index text for these rules (tunings of built-ins apart, kept as written), stamped with `stamp`. */
export function bucketedIndexText(stamp: { key: string; hash: string }, tunings: readonly Guardrail[], own: readonly Guardrail[]): string {
  const buckets = new Map<string, string[]>()
  const starts: Record<string, number[]> = Object.create(null)
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
        // Path globs and no command globs: under each name the globs need (a candidate only for a path holding one).
        const segments = keys ? null : pathNames(rule.match?.paths)
        if (segments) for (const s of segments) add(bucketName('s', t, s), entry)
        else if (!keys) add(bucketName('r', t), entry)
        else {
          for (const w of keys.words) add(bucketName('w', t, w), entry)
          for (const p of keys.prefixes) {
            add(bucketName('p', t, p), entry)
            if (!(starts[t] ??= []).includes(p.length)) starts[t].push(p.length)
          }
        }
      }
  })
  const body: string[] = []
  let at = 0
  const line = (name: string, value: string): [number, number] => {
    const prefix = `,${JSON.stringify(name)}:`
    const start = at + utf8Length(prefix)
    const length = utf8Length(value)
    body.push(prefix + value + '\n')
    at = start + length + 1
    return [start, length]
  }
  // About 32 names a shard: a call reads two or three small shards, whatever the number of rules.
  const count = Math.max(1, Math.ceil(buckets.size / 32))
  const dirs: Record<string, [number, number]>[] = Array.from({ length: count }, () => Object.create(null) as Record<string, [number, number]>)
  for (const [name, entries] of buckets) dirs[shardOf(name, count)][name] = line(name, `[${entries.join(',')}]`)
  const shards = dirs.map((d, i) => line(`d${SEP}${i}`, JSON.stringify(d)))
  for (const t in starts) starts[t].sort((a, b) => a - b)
  return JSON.stringify({ v: 6, key: stamp.key, hash: stamp.hash, tunings, shards, starts }).slice(0, -1) + '\n' + body.join('') + '}\n'
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

/** The header of an index, from its first line; null when it is not one. */
export function bucketedIndexHead(firstLine: string): IndexHead | null {
  const head = JSON.parse(firstLine + '}') as Partial<IndexHead> | null
  if (head?.v !== 6 || typeof head.key !== 'string' || typeof head.hash !== 'string' || !Array.isArray(head.tunings) || !Array.isArray(head.shards) || !head.shards.length || !head.shards.every((x) => pairOf(x))) return null
  if (head.starts !== undefined && !validStarts(head.starts)) return null
  return head as IndexHead
}

const validStarts = (v: unknown): boolean =>
  !!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((l) => Array.isArray(l) && l.every((n) => Number.isSafeInteger(n) && n > 0))

/** An index source over the whole text (tests, and the rare paths that read every rule). */
export function indexSourceOfText(text: string): IndexSource | null {
  const nl = text.indexOf('\n')
  const head = nl < 0 ? null : bucketedIndexHead(text.slice(0, nl))
  if (!head) return null
  const bodyBytes = new TextEncoder().encode(text.slice(nl + 1))
  const decoder = new TextDecoder()
  return indexSource(head, (offset, length) => decoder.decode(bodyBytes.subarray(offset, offset + length)))
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
  for (const name of src.names()) for (const [o, r] of JSON.parse(src.bucket(name)!) as [number, Guardrail][]) all.set(o, r)
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
    if (yes === undefined) located.set(name, (yes = src.locate(name) !== undefined))
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
            // Parsed for this call alone: marked in place rather than copied.
            const rule = (extra.origin ? Object.assign(entry, { origin: extra.origin }) : entry) as Guardrail
            return { rule, decision: decisionOf(rule), byPattern: name.startsWith('k' + SEP), order: offset + o }
          })
    cache.set(name, list)
    return list
  }
  return {
    seen,
    forKey: (key) => inOrder(base.forKey(key), [bucket(bucketName('k', key))]),
    forTool(tool, commands, paths = []) {
      const known = src.head.starts && (Object.hasOwn(src.head.starts, tool) ? src.head.starts[tool] : [])
      const startLengths = (n: number) => (known ? known.filter((k) => k <= n) : Array.from({ length: n }, (_, i) => i + 1))
      const lists = [bucket(bucketName('r', tool))]
      for (const name of namesOf(paths)) lists.push(bucket(bucketName('s', tool, name)))
      for (const w of new Set(commands.map(wordOf))) {
        lists.push(bucket(bucketName('w', tool, w)))
        // Every start of the word that has a bucket (`release-*` for release-7).
        for (const k of startLengths(w.length)) if (has(bucketName('p', tool, w.slice(0, k)))) lists.push(bucket(bucketName('p', tool, w.slice(0, k))))
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
  const index: FastIndex = { v: 2, key, hash, problems, tools: Object.create(null), wild: [] }
  for (const rule of rules) {
    const place = placement(rule)
    // Pattern-keyed rules fire only with a finding; URL globs need a URL; path globs need a path, which of
    // the calls the fast path settles only a Read or NotebookRead names (the file it reads: see matchRules).
    if (!place || place === 'key' || rule.match!.urls) continue
    if (rule.match!.paths) {
      if (rule.match!.command) continue
      // No tool list: any call that touches a path (a `cat` too); a tool list: only a Read of one.
      const tools = rule.match!.tools ? READ_PATH_TOOLS.filter((r) => rule.match!.tools!.some((g) => wildcard(g).test(r))) : null
      if (place === 'any' && (tools === null || tools.length)) {
        const p: FastIndex['wild'][number] = { t: tools }
        addPathGlobs(p, rule.match!.paths)
        index.wild.push(p)
      } else if (place !== 'any') for (const t of place) if (READ_PATH_TOOLS.includes(t)) addPathGlobs((index.tools[t] ??= Object.create(null) as ToolProbe), rule.match!.paths)
      continue
    }
    const add = (p: ToolProbe) => {
      if (rule.match!.command) addCommandGlobs(p, rule.match!.command.map(commandGlob))
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

/**
 * Which paths a rule's path globs are matched against. A rule that lists tools matches the paths a call
 * changes (written, moved, deleted), and for Read and NotebookRead the file read: a Bash rule on `build/**`
 * is about `rm -rf build`, not `cat build/log`. A rule that lists no tools matches every path the call
 * touches, read or changed, by any tool: `{"paths": ["secrets/**"]}` stops `cat secrets/x` too.
 */
const READ_PATH_TOOLS = ['Read', 'NotebookRead']

export function matchRules(index: RuleIndex, called: Classification, projectDir: string): FiredRule[] {
  const action = READ_PATH_TOOLS.includes(called.tool) && !called.paths.length ? { ...called, paths: called.reads } : called
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
  const pathsFor = (c: CompiledRule): [Classification, (string | null)[]] => (c.rule.match?.tools ? [action, rels] : [touched, touchedRels])
  // Each rule sits under exactly one key, or under tools (one tool per call), or with anyTool: no rule
  // can be visited twice.
  for (const [key, detail] of keys) {
    // One reason for every rule of the key that has no globs of its own (at 1,000 rules, dozens fire at once).
    const why = `pattern ${key}: ${detail}`
    for (const c of index.forKey(key))
      if (!c.rule.match) fired.push({ id: c.rule.id, rule: c.rule, decision: c.decision, because: [why] })
      else {
        const [a, r] = pathsFor(c)
        if (globsMatch(c, a, r, false)) fired.push({ id: c.rule.id, rule: c.rule, decision: c.decision, because: [why, ...describe(c, a, r)] })
      }
  }
  for (const c of index.forTool(action.tool, action.commands, action.paths)) if (globsMatch(c, action, rels, true)) fired.push({ id: c.rule.id, rule: c.rule, decision: c.decision, because: describe(c, action, rels) })
  for (const c of index.anyTool()) {
    const [a, r] = pathsFor(c)
    if (globsMatch(c, a, r, false)) fired.push({ id: c.rule.id, rule: c.rule, decision: c.decision, because: describe(c, a, r) })
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
      const hit = g.source.startsWith('/') ? g.test(abs) || g.test(abs + '/') : g.source.startsWith('!') ? g.test(rel ?? abs) : (rel !== null && (g.test(rel) || g.test(rel + '/'))) || g.test(abs) || g.test(abs + '/')
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
  if (c.command) why.push(`command "${anyHit(c.command, a.commands)}" matches ${c.command.map((g) => JSON.stringify(g.source)).join(' or ')}`)
  if (c.paths) why.push(`path ${pathHit(c.paths, a.paths, rels)}`)
  if (c.urls) why.push(`url ${anyHit(c.urls, a.urls)}`)
  return why
}
