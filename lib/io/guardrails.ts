// The rules in force: guardrails.json validated once and then read through its derived index, the packaged rules
// when the project has none, and a human's edit of the file.

import fs from 'node:fs'
import { type ActiveRule, BUILTIN_IDS, withBuiltins } from '../core/builtins'
import { fnv64 } from '../core/fingerprint'
import {
  type BucketedIndex,
  bucketedIndexHead,
  bucketedIndexText,
  bucketedRuleIndex,
  bucketedRules,
  fastIndexOf,
  type IndexSource,
  indexSource,
  indexSourceOfText,
  restampedIndexText,
} from '../core/bucketed-index'
import { compileRules, type RuleIndex, ruleLiterals } from '../core/rule-match'
import { decisionOf, type Guardrail, type Problem, validateGuardrails } from '../core/guardrails'
import { fastIndexStamped, statKey, writeFastIndex } from './fast-index'
import { fireCounts, foldFires } from './fires'
import type { FireCounts, Paths } from './registry'
import { createStateFrom, openRegular, readJson, readRegularFile, updateJson, writeFileAtomic } from './store'

export interface LoadedGuardrails {
  /**
   * Built-ins (as tuned) first, then the file's own rules, each with where it came from. With `slim`, only
   * the built-ins: the project's own rules stay in the index, read bucket by bucket (`ruleIndexOf`).
   */
  rules: ActiveRule[]
  /** Problems with the project's file, each naming file and field. */
  problems: string[]
  /** Which file the rules came from. */
  file: string
  /**
   * project: guardrails.json; last-good: it cannot be read or is not a list of rules, and the rules of the
   * last version that validated (the derived index) stay in force; packaged(-fallback): built-ins only.
   */
  origin: 'project' | 'last-good' | 'packaged' | 'packaged-fallback'
  /**
   * True when the project's rules come from the derived index (each rule as written but for its counters,
   * read bucket by bucket). Load again with `full` for the file as written.
   */
  slim?: boolean
  /** With `slim`: the index, whose header is read and whose buckets are read on demand (lib/core/guardrails.ts). */
  indexSource?: IndexSource
}

const fmt = (file: string, p: Problem) => `${file}: ${p.where}: ${p.message}`

/**
 * The rules in force. Validating 1,000 rules with zod takes ~30 ms in a fresh process, on every tool
 * call, so a file that validated cleanly gets a derived index (`.guardrails-index.json`) holding the
 * content hash of the file it was built from, and its size, mtime and inode. While that stat matches,
 * the hook reads the index, and only the buckets of it a call needs (matching fields and precomputed glob
 * literals only). When the stat changed, the file is hashed: the same content (a touch, a checkout) only
 * re-stamps the index; other content, or an index that was not built from this content (copied, forged,
 * stale), is ignored and the file validated afresh. Hashing costs ~3 ms for 1,000 rules (380 KB), so it is
 * paid only then. An index forged with the current stat and hash would still be believed: the state
 * folder's write protection (preflight-check) is what keeps the agent from writing one.
 */
export function loadGuardrails(paths: Paths, opts: { full?: boolean; fold?: boolean } = {}): LoadedGuardrails {
  // A full load by the CLI or a report is a human looking at the rules: counts first. The hooks load the
  // full texts too (a note needs them) but never fold: guardrails.json is the user's tracked file, and a
  // hook rewriting it would dirty the work tree after every fire, so the agent's next `git stash` would be
  // refused as an edit of Ratchet's rules and every broad add would list it as leaving.
  if (opts.full && opts.fold !== false) {
    try {
      foldFires(paths)
    } catch {
      /* a held lock or an unwritable folder: the counts wait for the next look */
    }
  }
  // The built-ins are always on: the file adds rules and tunes built-ins by id, never removes them.
  // (A slim load's `rules` are the tunings alone, which is all withBuiltins needs from the file.)
  const l = loadFile(paths, opts)
  const merged = withBuiltins(l.rules)
  // A full load shows how often each rule fired, from machine state (the file's own fields are history).
  const rules = opts.full ? withCounts(merged.rules, fireCounts(paths)) : merged.rules
  return { ...l, rules, problems: [...l.problems, ...merged.problems.map((p) => `${l.file}: ${p}`)] }
}

function withCounts(rules: ActiveRule[], counts: FireCounts): ActiveRule[] {
  if (!Object.keys(counts).length) return rules
  return rules.map((r) => {
    const c = Object.hasOwn(counts, r.id) ? counts[r.id] : undefined
    return c ? { ...r, fire_count: c.n, last_fired: c.last || r.last_fired } : r
  })
}

/**
 * The rule index a hook matches with: bucket by bucket from the index (slim), else every rule compiled.
 * `full` loads every rule: if a bucket cannot be read or parsed (a damaged index whose header still looks
 * right), matching goes on from all the rules instead, so a broken index costs speed, never a rule and
 * never a hook error that would deny every call.
 */
export function ruleIndexOf(loaded: LoadedGuardrails, full?: () => readonly Guardrail[]): RuleIndex {
  if (!loaded.slim || !loaded.indexSource) return compileRules(loaded.rules)
  const index = bucketedRuleIndex(loaded.indexSource, loaded.rules, { origin: 'project' })
  if (!full) return index
  let all: RuleIndex | undefined
  const either = <T>(slim: (i: RuleIndex) => T): T => {
    if (all) return slim(all)
    try {
      return slim(index)
    } catch {
      all = compileRules(full())
      return slim(all)
    }
  }
  return {
    seen: index.seen,
    forKey: (k) => either((i) => i.forKey(k)),
    forTool: (t, c, p) => either((i) => i.forTool(t, c, p)),
    anyTool: () => either((i) => i.anyTool()),
  } as BucketedIndex
}

function loadFile(paths: Paths, opts: { full?: boolean }): Omit<LoadedGuardrails, 'rules'> & { rules: Guardrail[] } {
  const trusted = readIndexed(paths, !!opts.full)
  if (trusted)
    return {
      rules: trusted.rules,
      problems: [],
      file: paths.guardrails,
      origin: 'project',
      ...(trusted.slim ? { slim: true, indexSource: trusted.source } : {}),
    }
  const before = statKey(paths.guardrails)
  let text = ''
  const own = readJson(
    paths.guardrails,
    (raw) => validateGuardrails(raw),
    () => null,
    (t) => (text = t),
  )
  if (own.ok && own.value) {
    const v = own.value
    if (!v.fatal) {
      if (!v.problems.length && before && before === statKey(paths.guardrails)) writeIndex(paths, before, text, v.rules)
      return {
        rules: v.rules,
        problems: v.problems.map((p) => fmt(paths.guardrails, p)),
        file: paths.guardrails,
        origin: 'project',
      }
    }
    return brokenFile(
      paths,
      v.problems.map((p) => fmt(paths.guardrails, p)),
      !!opts.full,
    )
  }
  if (!own.ok) return brokenFile(paths, [own.error.message], !!opts.full)
  return packaged(paths)
}

/**
 * guardrails.json exists but cannot be read, or is not a list of rules (half an edit, a FIFO, a folder, a
 * bad byte): the rules of the last version that validated stay in force, from the derived index, and every
 * call says so. Dropping them until the file is fixed let any action the project's own rules stop run in
 * the meantime. With no index (it never validated), the built-ins alone, as before. A removed file is not
 * broken: its rules are gone by the user's hand.
 */
function brokenFile(
  paths: Paths,
  problems: string[],
  full: boolean,
): Omit<LoadedGuardrails, 'rules'> & { rules: Guardrail[] } {
  try {
    const src = indexOnDisk(paths, full)
    if (src) {
      const base = { problems, file: paths.guardrails, origin: 'last-good' as const }
      return full
        ? { ...base, rules: [...src.head.tunings, ...bucketedRules(src)] }
        : { ...base, rules: src.head.tunings, slim: true, indexSource: src }
    }
  } catch {
    /* no index to fall back on */
  }
  return { ...packaged(paths), problems, origin: 'packaged-fallback' }
}

const indexFile = (paths: Paths) => paths.ruleIndex

/**
 * The trusted index: slim, its source (header read, buckets read on demand) and the tunings of built-ins;
 * full, every entry of guardrails.json as written. Null when it cannot be trusted.
 */
function readIndexed(
  paths: Paths,
  full: boolean,
): { rules: Guardrail[]; slim: boolean; key: string; source?: IndexSource } | null {
  try {
    const key = statKey(paths.guardrails)
    if (!key) return null
    let src = indexOnDisk(paths, full)
    if (!src) return null
    if (src.head.key !== key) {
      // Touched, restored by a checkout, or an index that was never built from this file: hash to tell.
      const hash = src.head.hash
      if (fnv64(readRegularFile(paths.guardrails)) !== hash || statKey(paths.guardrails) !== key) return null
      const text = restampedIndexText(readRegularFile(indexFile(paths)), key)
      src = indexSourceOfText(text)
      if (!src || src.head.hash !== hash) return null
      writeIndexText(paths, text)
      writeFast(paths, key, hash, [...src.head.tunings, ...bucketedRules(src)])
    } else if (!full && !fastIndexStamped(paths.stateDir, key, src.head.hash))
      writeFast(paths, key, src.head.hash, [...src.head.tunings, ...bucketedRules(src)])
    if (!full) return { rules: src.head.tunings, slim: true, key, source: src }
    const raw = JSON.parse(readRegularFile(paths.guardrails))
    if (statKey(paths.guardrails) !== key) return null
    const list = Array.isArray(raw) ? raw : raw?.guardrails
    return Array.isArray(list) ? { rules: list as Guardrail[], slim: false, key } : null
  } catch {
    return null
  }
}

/** Index descriptors open for the call being decided (see openIndexSource). */
const openIndexes = new Set<number>()

/**
 * Closes the index descriptors the call opened. A hook process ends with its call anyway; a resident one (the
 * warm process, the decision service) calls `main` again and again, and kept one descriptor per call until it
 * could open no more files (measured: 20,000 after 20,000 calls, when new connections failed).
 */
export function closeIndexSources(): void {
  for (const fd of openIndexes) {
    try {
      fs.closeSync(fd)
    } catch {}
  }
  openIndexes.clear()
}

/**
 * The index read as the hook needs it: its header line, then a bucket's bytes at a time (positioned reads on
 * the descriptor opened here, so every bucket comes from the same file even if a new index replaces it).
 * The descriptor stays open until the call ends (closeIndexSources).
 */
function openIndexSource(file: string): IndexSource | null {
  const fd = openRegular(file)
  openIndexes.add(fd)
  const readAt = (length: number, position: number): Buffer => {
    const buf = Buffer.allocUnsafe(length)
    let got = 0
    while (got < length) {
      const n = fs.readSync(fd, buf, got, length - got, position + got)
      if (n === 0) throw new Error(`${file} ends early`)
      got += n
    }
    return buf
  }
  const parts: Buffer[] = []
  let size = 0
  let nl = -1
  for (let chunk = 16384; nl < 0; chunk *= 2) {
    const buf = Buffer.allocUnsafe(chunk)
    const n = fs.readSync(fd, buf, 0, chunk, size)
    if (n === 0) break
    const i = buf.subarray(0, n).indexOf(10)
    if (i >= 0) nl = size + i
    parts.push(buf.subarray(0, n))
    size += n
  }
  const head = nl < 0 ? null : bucketedIndexHead(Buffer.concat(parts, size).toString('utf8', 0, nl))
  if (!head) {
    fs.closeSync(fd)
    openIndexes.delete(fd)
    return null
  }
  const body = nl + 1
  return indexSource(head, (offset, length) => readAt(length, body + offset).toString('utf8'))
}

function writeIndex(paths: Paths, key: string, text: string, rules: Guardrail[]): void {
  const hash = fnv64(text)
  // Entries naming a built-in are tunings: kept as written (a disabled one must stay disabled). The others
  // keep what matching and a note use (words, source, own check), not their counters (folding counts must
  // not make the index stale) nor what only a human reads (trigger, added): every call that names a bucket
  // parses all of it.
  const slim = rules
    .filter((r) => r.enabled !== false || BUILTIN_IDS.has(r.id))
    .map((r) =>
      BUILTIN_IDS.has(r.id)
        ? r
        : {
            id: r.id,
            pattern: r.pattern,
            severity: r.severity,
            decision: decisionOf(r),
            rule: r.rule,
            ...(r.source != null ? { source: r.source } : {}),
            ...(r.check !== undefined ? { check: r.check } : {}),
            ...(r.match ? { match: r.match, literals: ruleLiterals(r.match) } : {}),
          },
    ) as Guardrail[]
  writeIndexText(
    paths,
    bucketedIndexText(
      { key, hash },
      slim.filter((r) => BUILTIN_IDS.has(r.id)),
      slim.filter((r) => !BUILTIN_IDS.has(r.id)),
    ),
  )
  writeFast(paths, key, hash, slim)
}

/** The fast path's inverted index (lib/io/fast-index.ts), derived from the same rules the index holds. */
function writeFast(paths: Paths, key: string, hash: string, rules: Guardrail[]): void {
  const merged = withBuiltins(rules)
  writeFastIndex(paths.stateDir, fastIndexOf(merged.rules, merged.problems.length, key, hash))
}

/**
 * The index as it is on disk (any stamp), null when it is not one; throws when it cannot be read. `whole`: read
 * it all (every rule is wanted), else the header and then the buckets asked for (a hook's call).
 */
function indexOnDisk(paths: Paths, whole: boolean): IndexSource | null {
  return whole ? indexSourceOfText(readRegularFile(indexFile(paths))) : openIndexSource(indexFile(paths))
}

function writeIndexText(paths: Paths, text: string): void {
  try {
    writeFileAtomic(indexFile(paths), text)
  } catch {
    /* only a speed-up */
  }
}

function packaged(paths: Paths): Omit<LoadedGuardrails, 'rules'> & { rules: Guardrail[] } {
  const r = readJson(
    paths.packagedGuardrails,
    (raw) => validateGuardrails(raw),
    () => null,
  )
  const rules = r.ok && r.value ? r.value.rules : []
  return { rules, problems: r.ok ? [] : [r.error.message], file: paths.packagedGuardrails, origin: 'packaged' }
}

/** The project gets its own copy of the packaged rules the first time anything writes to them. */
export function ensureProjectGuardrails(paths: Paths): void {
  if (fs.existsSync(paths.guardrails)) return
  createStateFrom(paths, 'guardrails', paths.packagedGuardrails)
}

/**
 * A human's edit of guardrails.json (add a rule, apply a proposal, derive one from an incident):
 * locked, and refused while the file has problems, so a broken file is never rewritten.
 */
export function editGuardrails<R>(
  paths: Paths,
  change: (list: Record<string, unknown>[]) => { next: Record<string, unknown>[]; result: R },
): R {
  ensureProjectGuardrails(paths)
  return updateJson<Record<string, unknown>[], R>(
    paths.guardrails,
    {
      onCorrupt: 'fail',
      fallback: () => [],
      validate: (raw) => {
        const v = validateGuardrails(raw)
        if (v.fatal || v.problems.length)
          return `fix these first: ${v.problems.map((p) => `${p.where}: ${p.message}`).join('; ')}`
        return (Array.isArray(raw) ? raw : (raw as { guardrails: unknown[] }).guardrails) as Record<string, unknown>[]
      },
    },
    change,
  )
}
