// How often each rule fired: appended by the hooks, folded into fire-counts.json by the CLI and the heartbeat.

import fs from 'node:fs'
import path from 'node:path'
import { fileOf, type FireCounts, type FiresMark, type Paths } from './registry'
import { appendState, openRegular, readJson, readState, removeState, renameState, withLock, writeState } from './store'

// Firing a rule is on the hot path, so it only appends one short line to `fires.jsonl` (a single
// O_APPEND write: no lock, nothing lost however many hooks fire at once). The CLI, the heartbeat and
// any full load of the rules fold the log into `fire-counts.json` (machine state, untracked), under its
// lock, remembering how far they read (`fires.offset.json`), so each line counts once. guardrails.json is
// the user's tracked file and is never rewritten by a counter: counts written into it would dirty the
// work tree, and the `git stash` / `git restore .` / `git reset --hard` the user asked for would then be
// refused as an edit of Ratchet's rules. A full load shows the counts as the rules' fire_count / last_fired.

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
  const read = readJson(
    paths.guardrails,
    (raw) => raw,
    () => null,
  )
  const raw = read.ok ? (read.value as unknown) : null
  const list = Array.isArray(raw) ? raw : (raw as { guardrails?: unknown } | null)?.guardrails
  const out: FireCounts = Object.create(null)
  if (!Array.isArray(list)) return out
  for (const g of list) {
    const r = g as Record<string, unknown>
    if (r && typeof r === 'object' && typeof r.id === 'string' && typeof r.fire_count === 'number' && r.fire_count > 0)
      out[r.id] = { n: r.fire_count, last: typeof r.last_fired === 'string' ? r.last_fired : '' }
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
      if (renameState(paths, 'fires', 'firesRotated', { to: String(now) }))
        next = {
          ino: null,
          offset: 0,
          rotated: { file: path.basename(fileOf(paths, 'firesRotated', String(now))), offset: cur.end },
        }
    }
    writeState(paths, 'firesMark', JSON.stringify(next) + '\n')
    return counted
  })
}
