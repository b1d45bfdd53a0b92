// `.guardrails-index.json`: the rules filed under every bucket compileRules would file them under, read by the hook
// a bucket at a time (the layout is described below). Written by lib/io/guardrails.ts from rules it validated.

import { decisionOf, type Guardrail } from './guardrails'
import {
  addCommandGlobs,
  addPathGlobs,
  commandGlob,
  type FastIndex,
  pathNames,
  type ToolProbe,
  wildcard,
} from './rule-index'
import {
  type CompiledRule,
  compileRules,
  inOrder,
  NONE,
  placement,
  READ_PATH_TOOLS,
  type RuleIndex,
  wordOf,
} from './rule-match'

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

const pairOf = (v: unknown): [number, number] | undefined =>
  Array.isArray(v) && v.length === 2 && v.every((n) => Number.isSafeInteger(n) && n >= 0)
    ? (v as [number, number])
    : undefined

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
      if (text[0] !== '{' || text[text.length - 1] !== '}')
        throw new Error(`shard ${i} of the rule index is not a directory`)
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
    if (!got || typeof got !== 'object' || Array.isArray(got))
      throw new Error(`shard ${i} of the rule index is not a directory`)
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
export function bucketedIndexText(
  stamp: { key: string; hash: string },
  tunings: readonly Guardrail[],
  own: readonly Guardrail[],
): string {
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
  const dirs: Record<string, [number, number]>[] = Array.from(
    { length: count },
    () => Object.create(null) as Record<string, [number, number]>,
  )
  for (const [name, entries] of buckets) dirs[shardOf(name, count)][name] = line(name, `[${entries.join(',')}]`)
  const shards = dirs.map((d, i) => line(`d${SEP}${i}`, JSON.stringify(d)))
  for (const t in starts) starts[t].sort((a, b) => a - b)
  return (
    JSON.stringify({ v: 6, key: stamp.key, hash: stamp.hash, tunings, shards, starts }).slice(0, -1) +
    '\n' +
    body.join('') +
    '}\n'
  )
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
  if (
    head?.v !== 6 ||
    typeof head.key !== 'string' ||
    typeof head.hash !== 'string' ||
    !Array.isArray(head.tunings) ||
    !Array.isArray(head.shards) ||
    !head.shards.length ||
    !head.shards.every((x) => pairOf(x))
  )
    return null
  if (head.starts !== undefined && !validStarts(head.starts)) return null
  return head as IndexHead
}

const validStarts = (v: unknown): boolean =>
  !!v &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  Object.values(v).every((l) => Array.isArray(l) && l.every((n) => Number.isSafeInteger(n) && n > 0))

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
  for (const name of src.names())
    for (const [o, r] of JSON.parse(src.bucket(name)!) as [number, Guardrail][]) all.set(o, r)
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
export function bucketedRuleIndex(
  src: IndexSource,
  builtins: readonly Guardrail[],
  extra: { origin?: string } = {},
): BucketedIndex {
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
      const startLengths = (n: number) =>
        known ? known.filter((k) => k <= n) : Array.from({ length: n }, (_, i) => i + 1)
      const lists = [bucket(bucketName('r', tool))]
      for (const name of namesOf(paths)) lists.push(bucket(bucketName('s', tool, name)))
      for (const w of new Set(commands.map(wordOf))) {
        lists.push(bucket(bucketName('w', tool, w)))
        // Every start of the word that has a bucket (`release-*` for release-7).
        for (const k of startLengths(w.length))
          if (has(bucketName('p', tool, w.slice(0, k)))) lists.push(bucket(bucketName('p', tool, w.slice(0, k))))
      }
      return inOrder(base.forTool(tool, commands), lists)
    },
    anyTool: () => inOrder(base.anyTool(), [bucket('a')]),
  }
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
      const tools = rule.match!.tools
        ? READ_PATH_TOOLS.filter((r) => rule.match!.tools!.some((g) => wildcard(g).test(r)))
        : null
      if (place === 'any' && (tools === null || tools.length)) {
        const p: FastIndex['wild'][number] = { t: tools }
        addPathGlobs(p, rule.match!.paths)
        index.wild.push(p)
      } else if (place !== 'any')
        for (const t of place)
          if (READ_PATH_TOOLS.includes(t))
            addPathGlobs((index.tools[t] ??= Object.create(null) as ToolProbe), rule.match!.paths)
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
