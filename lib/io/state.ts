// Ratchet's state folder and the files in it. Where it lives: $RATCHET_DIR, else <project>/.ratchet, the project
// being $CLAUDE_PROJECT_DIR or the one found from the working folder as git finds a repository (lib/io/project.ts).
// The packaged guardrails.json is the default when the
// project has none.

import fs from 'node:fs'
import path from 'node:path'
import { appendLine, appendState, createStateFrom, openRegular, readJson, readRegularFile, readState, removeState, renameState, setStateRoot, updateJson, updateState, withLock, writeFileAtomic, writeState } from './store'
import { STATE, fileOf, pathsFor, type Config, type FireCounts, type FiresMark, type Paths, type SessionState } from './registry'
import { fnv64 } from '../core/fingerprint'
import { maskDeep, maskSecrets } from '../core/secrets'
import { RatchetError } from '../core/errors'
import { BUILTIN_IDS, withBuiltins, type ActiveRule } from '../core/builtins'
import { bucketedIndexHead, bucketedIndexText, bucketedRuleIndex, bucketedRules, compileRules, decisionOf, fastIndexOf, indexSource, indexSourceOfText, restampedIndexText, ruleLiterals, validateGuardrails, type BucketedIndex, type Guardrail, type IndexSource, type Problem, type RuleIndex } from '../core/guardrails'
import { findProject } from './project'
import { fastIndexStamped, statKey, writeFastIndex } from './fast-index'

/** The installed package's root (dist/ in the bundle, lib/io/ in the sources). */
export const PACKAGE_ROOT: string = (() => {
  let dir = __dirname
  for (let i = 0; i < 4; i++) {
    if (fs.existsSync(path.join(dir, STATE.guardrails.name)) && fs.existsSync(path.join(dir, 'package.json'))) return dir
    dir = path.dirname(dir)
  }
  return path.resolve(__dirname, '..')
})()

export type { Config, Paths, SessionState }

/** The state folder and every fixed file in it, from the registry (lib/io/registry.ts). */
export function resolvePaths(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Paths {
  const projectDir = findProject(cwd, env).dir
  const stateDir = path.resolve(env.RATCHET_DIR || path.join(projectDir, '.ratchet'))
  setStateRoot(stateDir)
  return pathsFor(projectDir, stateDir, PACKAGE_ROOT, configHomeOf(env))
}

export const homeDir = (): string => process.env.HOME || require('node:os').homedir()

/**
 * The folders in memory through which hooks hand requests to the warm decision process (as lib/runtime/warm.cjs
 * spoolFolder chooses them): the agent may neither read nor change them, like the config folder.
 */
export function warmSpools(env: NodeJS.ProcessEnv = process.env): string[] {
  return [...(env.XDG_RUNTIME_DIR ? [path.join(env.XDG_RUNTIME_DIR, 'ratchet-warm')] : []), `/dev/shm/ratchet-warm-${process.getuid?.() ?? 0}`]
}

/**
 * Asks the installed dist/warm.cjs about the warm process a hook in `projectDir` would use (`status`), or ends it
 * (`stop`): for `ratchet doctor` and `ratchet uninstall`. Throws when the install has no warm.cjs.
 */
export function warmProcess<A extends 'status' | 'stop'>(projectDir: string, act: A): A extends 'stop' ? boolean : { on: boolean; why?: string; running?: boolean; pid?: number; spool?: string } {
  return require(path.join(PACKAGE_ROOT, 'dist', 'warm.cjs'))[act]({ ...process.env, CLAUDE_PROJECT_DIR: path.resolve(projectDir) }, process.cwd())
}

/** The per-user folder outside every project: $XDG_CONFIG_HOME/ratchet, else ~/.config/ratchet. */
export function configHomeOf(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(env.HOME || homeDir(), '.config'), 'ratchet')
}

// ---- guardrails ------------------------------------------------------------------------------

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
  // hook rewriting it dirtied the work tree after every fire, so the agent's next `git stash` was refused
  // as an edit of Ratchet's rules (red team) and every broad add listed it as leaving.
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
  return { seen: index.seen, forKey: (k) => either((i) => i.forKey(k)), forTool: (t, c, p) => either((i) => i.forTool(t, c, p)), anyTool: () => either((i) => i.anyTool()) } as BucketedIndex
}

function loadFile(paths: Paths, opts: { full?: boolean }): Omit<LoadedGuardrails, 'rules'> & { rules: Guardrail[] } {
  const trusted = readIndexed(paths, !!opts.full)
  if (trusted) return { rules: trusted.rules, problems: [], file: paths.guardrails, origin: 'project', ...(trusted.slim ? { slim: true, indexSource: trusted.source } : {}) }
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
      return { rules: v.rules, problems: v.problems.map((p) => fmt(paths.guardrails, p)), file: paths.guardrails, origin: 'project' }
    }
    return brokenFile(paths, v.problems.map((p) => fmt(paths.guardrails, p)), !!opts.full)
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
function brokenFile(paths: Paths, problems: string[], full: boolean): Omit<LoadedGuardrails, 'rules'> & { rules: Guardrail[] } {
  try {
    const src = indexOnDisk(paths, full)
    if (src) {
      const base = { problems, file: paths.guardrails, origin: 'last-good' as const }
      return full ? { ...base, rules: [...src.head.tunings, ...bucketedRules(src)] } : { ...base, rules: src.head.tunings, slim: true, indexSource: src }
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
function readIndexed(paths: Paths, full: boolean): { rules: Guardrail[]; slim: boolean; key: string; source?: IndexSource } | null {
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
    } else if (!full && !fastIndexStamped(paths.stateDir, key, src.head.hash)) writeFast(paths, key, src.head.hash, [...src.head.tunings, ...bucketedRules(src)])
    if (!full) return { rules: src.head.tunings, slim: true, key, source: src }
    const raw = JSON.parse(readRegularFile(paths.guardrails))
    if (statKey(paths.guardrails) !== key) return null
    const list = Array.isArray(raw) ? raw : raw?.guardrails
    return Array.isArray(list) ? { rules: list as Guardrail[], slim: false, key } : null
  } catch {
    return null
  }
}

/**
 * The index read as the hook needs it: its header line, then a bucket's bytes at a time (positioned reads on
 * the descriptor opened here, so every bucket comes from the same file even if a new index replaces it).
 * The descriptor stays open for the hook's short life.
 */
function openIndexSource(file: string): IndexSource | null {
  const fd = openRegular(file)
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
        : { id: r.id, pattern: r.pattern, severity: r.severity, decision: decisionOf(r), rule: r.rule, ...(r.source != null ? { source: r.source } : {}), ...(r.check !== undefined ? { check: r.check } : {}), ...(r.match ? { match: r.match, literals: ruleLiterals(r.match) } : {}) },
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
  const r = readJson(paths.packagedGuardrails, (raw) => validateGuardrails(raw), () => null)
  const rules = r.ok && r.value ? r.value.rules : []
  return { rules, problems: r.ok ? [] : [r.error.message], file: paths.packagedGuardrails, origin: 'packaged' }
}

// ---- fire counts ------------------------------------------------------------------------------
// Firing a rule is on the hot path, so it only appends one short line to `fires.jsonl` (a single
// O_APPEND write: no lock, nothing lost however many hooks fire at once). The CLI, the heartbeat and
// any full load of the rules fold the log into `fire-counts.json` (machine state, untracked), under its
// lock, remembering how far they read (`fires.offset.json`), so each line counts once. guardrails.json is
// the user's tracked file and is never rewritten by a counter: counts written into it dirtied the work
// tree, and the `git stash` / `git restore .` / `git reset --hard` the user asked for was then refused as
// an edit of Ratchet's rules. A full load shows the counts as the rules' fire_count / last_fired.

const firesFile = (paths: Paths) => paths.fires
const firesMark = (paths: Paths) => paths.firesMark
/** Past this size the log is rotated after a fold, so it stays small. */
const ROTATE_BYTES = 256 * 1024
/** A rotated log is read once more for late writers, then deleted after this long. */
const ROTATED_GRACE_MS = 10_000

export function recordFires(paths: Paths, ids: string[], nowIso: string): void {
  if (ids.length) appendState(paths, 'fires', { t: nowIso, ids })
}

type Tally = Map<string, { n: number; last: string }>

/** Counts the complete lines of `file` after `from`; returns where the next read starts. */
function tallyFrom(file: string, from: number, ino: number | null, into: Tally): { end: number; ino: number } | null {
  let fd: number
  try {
    fd = openRegular(file)
  } catch {
    return null
  }
  try {
    const st = fs.fstatSync(fd)
    // Replaced or truncated (by hand): start over from its beginning.
    if (ino !== null && st.ino !== ino) from = 0
    if (from > st.size) from = 0
    const buf = Buffer.alloc(st.size - from)
    const got = buf.length ? fs.readSync(fd, buf, 0, buf.length, from) : 0
    const lastNl = buf.subarray(0, got).lastIndexOf(10)
    if (lastNl < 0) return { end: from, ino: st.ino }
    for (const line of buf.subarray(0, lastNl).toString('utf8').split('\n')) {
      let rec: { t?: unknown; ids?: unknown }
      try {
        rec = JSON.parse(line)
      } catch {
        continue // a torn or foreign line: skip it, keep the rest
      }
      if (!Array.isArray(rec.ids) || typeof rec.t !== 'string') continue
      for (const id of rec.ids) {
        if (typeof id !== 'string') continue
        const c = into.get(id) ?? { n: 0, last: '' }
        c.n++
        if (rec.t > c.last) c.last = rec.t
        into.set(id, c)
      }
    }
    return { end: from + lastNl + 1, ino: st.ino }
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * The counts guardrails.json held before they moved to machine state (its old fire_count / last_fired): read
 * once, when fire-counts.json is first written, so no count is lost and the user's file is never touched.
 */
function countsInRules(paths: Paths): FireCounts {
  const read = readJson(paths.guardrails, (raw) => raw, () => null)
  const raw = read.ok ? (read.value as unknown) : null
  const list = Array.isArray(raw) ? raw : (raw as { guardrails?: unknown } | null)?.guardrails
  const out: FireCounts = Object.create(null)
  if (!Array.isArray(list)) return out
  for (const g of list) {
    const r = g as Record<string, unknown>
    if (r && typeof r === 'object' && typeof r.id === 'string' && typeof r.fire_count === 'number' && r.fire_count > 0) out[r.id] = { n: r.fire_count, last: typeof r.last_fired === 'string' ? r.last_fired : '' }
  }
  return out
}

/** The fire counts as they stand: fire-counts.json, or (never folded yet) what guardrails.json still holds. */
export function fireCounts(paths: Paths): FireCounts {
  if (!fs.existsSync(paths.fireCounts)) return countsInRules(paths)
  const r = readState(paths, 'fireCounts')
  return r.ok ? r.value : Object.create(null)
}

/**
 * Folds the fire log into fire-counts.json. Returns how many fires were counted.
 * If the process dies between writing the counts and the offset, that batch counts twice (never lost).
 */
export function foldFires(paths: Paths, now = Date.now()): number {
  if (!fs.existsSync(firesFile(paths)) && !fs.existsSync(firesMark(paths))) return 0
  return withLock(paths.fireCounts, () => {
    const m = readState(paths, 'firesMark')
    const mark: FiresMark = m.ok ? m.value : { ino: null, offset: 0 }
    const tally: Tally = new Map()
    // The rotated log's name is the registry's fires.<time>.jsonl; any other name in the mark (edited
    // by hand, or forged) is dropped rather than followed: the fold must never delete another file.
    const rotatedId = /^fires\.(\d+)\.jsonl$/.exec(mark.rotated?.file ?? '')?.[1]
    let rotated = rotatedId ? mark.rotated : undefined
    if (rotated && rotatedId) {
      const file = fileOf(paths, 'firesRotated', rotatedId)
      const r = tallyFrom(file, rotated.offset, null, tally)
      let old = true
      try {
        old = now - fs.statSync(file).mtimeMs > ROTATED_GRACE_MS
      } catch {
        /* gone */
      }
      if (!r || old) {
        removeState(paths, 'firesRotated', rotatedId)
        rotated = undefined
      } else rotated = { file: rotated.file, offset: r.end }
    }
    const cur = tallyFrom(firesFile(paths), mark.offset, mark.ino, tally)
    let next: FiresMark = { ino: cur?.ino ?? null, offset: cur?.end ?? 0, ...(rotated ? { rotated } : {}) }
    let counted = 0
    for (const c of tally.values()) counted += c.n
    if (counted) {
      const counts = { ...fireCounts(paths) }
      for (const [id, c] of tally) {
        const had = counts[id]
        counts[id] = { n: (had?.n ?? 0) + c.n, last: had && had.last > c.last ? had.last : c.last }
      }
      writeState(paths, 'fireCounts', JSON.stringify(counts, null, 2) + '\n')
    }
    if (!rotated && cur && cur.end >= ROTATE_BYTES) {
      // If the rename fails, it is read in place next time.
      if (renameState(paths, 'fires', 'firesRotated', { to: String(now) })) next = { ino: null, offset: 0, rotated: { file: path.basename(fileOf(paths, 'firesRotated', String(now))), offset: cur.end } }
    }
    writeState(paths, 'firesMark', JSON.stringify(next) + '\n')
    return counted
  })
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
export function editGuardrails<R>(paths: Paths, change: (list: Record<string, unknown>[]) => { next: Record<string, unknown>[]; result: R }): R {
  ensureProjectGuardrails(paths)
  return updateJson<Record<string, unknown>[], R>(
    paths.guardrails,
    {
      onCorrupt: 'fail',
      fallback: () => [],
      validate: (raw) => {
        const v = validateGuardrails(raw)
        if (v.fatal || v.problems.length) return `fix these first: ${v.problems.map((p) => `${p.where}: ${p.message}`).join('; ')}`
        return (Array.isArray(raw) ? raw : (raw as { guardrails: unknown[] }).guardrails) as Record<string, unknown>[]
      },
    },
    change,
  )
}

// ---- per-session facts -----------------------------------------------------------------------

const emptySession = (): SessionState => ({ reads: {}, prompts: [], checks: {} })

export function sessionFile(paths: Paths, sessionId: string): string {
  return fileOf(paths, 'session', sessionId)
}

/**
 * What an unreadable session file (bad JSON, wrong shape, a folder, a FIFO, mode 000, a link) is read as — and a
 * missing one, once the session has run a tool (see removedSession): a session that may have read a secret, with no
 * earlier check issued (no identical retry passes on its strength), nothing read and nothing created by the
 * agent. Its secrets entry names the file, so a later send off the machine is judged, and said, as after a
 * secret read (lib/core/actions/secrets.ts secretSends). Ordinary reads and edits stay as quiet as in a
 * session that did read a secret.
 */
export function damagedSession(paths: Paths, sessionId: string, now: number): SessionState {
  return { ...emptySession(), secrets: { [damagedMark(paths, sessionId)]: now } }
}

/** The secrets entry of a damaged session: what it may have read, named by the file that lost it. */
export const damagedMark = (paths: Paths, sessionId: string): string => `whatever it read before its record ${path.relative(paths.projectDir, sessionFile(paths, sessionId)) || sessionFile(paths, sessionId)} was lost (unreadable or removed)`

/**
 * A session file absent although the session has run a tool: custodiet has counted one, so the first prompt's
 * hooks had all finished, preflight-check's among them, which writes the session file. (Not mere existence of
 * custodiet's record: on the first prompt the two hooks run at once.) Read only when the session file is absent.
 */
function removedSession(paths: Paths, sessionId: string): boolean {
  try {
    const raw = JSON.parse(readRegularFile(fileOf(paths, 'custodietState', sessionId), { noFollow: true })) as { toolCount?: unknown }
    return typeof raw?.toolCount === 'number' && raw.toolCount > 0
  } catch {
    return false
  }
}

export function readSession(paths: Paths, sessionId: string): SessionState {
  const r = readState(paths, 'session', sessionId)
  if (!r.ok || (!r.exists && removedSession(paths, sessionId))) return damagedSession(paths, sessionId, Date.now())
  return r.value
}

export function updateSession<R = void>(paths: Paths, sessionId: string, change: (s: SessionState) => { next: SessionState; result: R }): R {
  // Prompts and blocked-call summaries are kept masked (secrets never at rest).
  return updateState(
    paths,
    'session',
    (s) => {
      const r = change(s)
      return r.next === s ? r : { next: maskDeep(r.next), result: r.result }
    },
    {
      id: sessionId,
      // The damaged copy is kept aside (by the store) and the new record carries the mark forward: what the
      // session may have read is never forgotten by starting afresh.
      afterReset: (error, aside) => {
        logError(paths, 'ratchet', `${error.message}; kept as ${aside}; the session now counts as having read a secret`)
        return damagedSession(paths, sessionId, Date.now())
      },
      fallback: () => {
        if (!removedSession(paths, sessionId)) return emptySession()
        logError(paths, 'ratchet', `${sessionFile(paths, sessionId)} was removed during the session; the session now counts as having read a secret`)
        return damagedSession(paths, sessionId, Date.now())
      },
    },
  )
}

// ---- activity log and errors -----------------------------------------------------------------

export interface ActivityRecord {
  time: string
  hook: string
  event: string
  session?: string
  tool?: string
  action?: string
  classes?: string[]
  guardrails?: string[]
  decision: string
  latency_ms?: number
  note?: string
  [extra: string]: unknown
}

/** One line per decision, masked: no token, password or key from a command or prompt is kept at rest. */
/**
 * Appends one masked record. A log that is not a regular file (a FIFO planted there) is not written, and
 * does not stop the hook: the problem goes to errors.log and is returned, for the hook to tell the user.
 */
export function logActivity(paths: Paths, record: ActivityRecord): string | undefined {
  try {
    appendState(paths, 'activity', maskDeep(record))
    return undefined
  } catch (e) {
    if (!(e instanceof RatchetError) || e.code !== 'state_unreadable') throw e
    logError(paths, String(record.hook ?? 'ratchet'), e)
    return e.message
  }
}

/** Full details (stacks) go here, never into the agent's context. */
export function logError(paths: Paths, hook: string, error: unknown): void {
  try {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error)
    appendLine(paths.errors, `${new Date().toISOString()} ${hook}: ${maskSecrets(text)}\n`)
  } catch {
    /* the error log is best effort */
  }
}

// ---- config ----------------------------------------------------------------------------------

export function readConfig(paths: Paths): { config: Config; problem?: string } {
  const r = readState(paths, 'config')
  return r.ok ? { config: r.value } : { config: {}, problem: r.error.message }
}

export function writeJsonFile(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n')
}
