// Evidence of loss, gathered at the edge: for each path a call would delete or overwrite (Classification.deleted),
// what of it nothing can bring back — untracked files git does not ignore, uncommitted changes, ignored files that
// are not build output, files outside any repository — with file counts and sizes (lib/core/loss.ts renders them).
//
// Asked only for calls that delete something the classifier could not call recoverable, so the hot path never pays.
// Bounded: one time budget for the whole call (git status gets what is left), a bounded walk of folders, and only
// lstat/readdir — no file is opened, so a FIFO or device on the way cannot hang the hook. What could not be checked
// in time is reported as such (the caller treats it as lost).

import fs from 'node:fs'
import path from 'node:path'
import type { Deletion } from '../core/actions/types'
import { globMatch } from '../core/actions/util'
import { gitBefore, statusEntries } from './git'
import type { LossFacts, LossItem, LossWhy } from '../core/loss'

/** Build output and caches a build or install brings back (kept in step with lib/core/actions/util.ts), and tool caches in the home folder. */
const REGENERATED =
  /(^|\/)(node_modules|dist|build|out|target|coverage|\.next|\.nuxt|\.svelte-kit|\.turbo|\.parcel-cache|\.cache|\.gradle|__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache|\.tox|\.venv|venv|\.eggs|[^/]+\.egg-info|obj|_build|deps|\.dart_tool|\.angular|storybook-static|\.vite|\.eslintcache|tsconfig\.tsbuildinfo|\.npm|\.pnpm-store|\.yarn\/cache)(\/|$)|\.(pyc|pyo|o|obj|class|tsbuildinfo)$/

/** Compiler output, untracked or not. */
const COMPILED = /(^|\/)__pycache__\/|\.(pyc|pyo|o|obj|class|tsbuildinfo)$/

/** A folder's walk stops after this many entries (its count is then "at least"). */
const MAX_WALK = 5000
/** Files listed one by one per target; more are folded into one line for the target. */
const MAX_ITEMS_PER_TARGET = 20

export interface LossOptions {
  projectDir: string
  /** Paths the agent created in this session (and folders holding them): its own, not the user's. */
  created?: Record<string, number>
  budgetMs?: number
  /** Temporary folders: deleting there loses nothing of the user's. */
  tmpDirs?: string[]
  /** The user's home folder: what is in it is the user's even when the home folder itself sits under a temporary folder (a sandbox, a CI runner). */
  homeDir?: string
  /** Ratchet's state folder: its untracked and ignored files are Ratchet's machine state, not the user's data. */
  stateDir?: string
}

export function lossFacts(opts: LossOptions): (deleted: Deletion[]) => LossFacts | undefined {
  const cache = new Map<string, LossFacts | undefined>()
  return (deleted) => {
    const key = JSON.stringify(deleted)
    if (!cache.has(key)) cache.set(key, gather(deleted, opts))
    return cache.get(key)
  }
}

function gather(deleted: Deletion[], opts: LossOptions): LossFacts | undefined {
  const deadline = Date.now() + (opts.budgetMs ?? 1500)
  const tmps = opts.tmpDirs ?? [
    '/tmp',
    '/var/tmp',
    ...(process.env.TMPDIR ? [process.env.TMPDIR.replace(/\/+$/, '')] : []),
  ]
  const created = opts.created ?? {}
  const ownByAgent = (abs: string) => {
    for (let p = abs; p && p !== '/'; p = path.dirname(p)) if (p in created) return true
    return false
  }
  const items: LossItem[] = []
  let more = false
  for (const d of deleted.slice(0, 64)) {
    if (Date.now() >= deadline) {
      items.push({
        path: shown(d.path, opts.projectDir),
        why: 'unknown',
        bytes: 0,
        files: 0,
        note: 'not checked in time',
      })
      continue
    }
    const r = target(d, opts.projectDir, inHome(d.path, opts.homeDir) ? [] : tmps, ownByAgent, deadline, opts.stateDir)
    for (const i of r.items) items.push(i)
    if (r.more) more = true
  }
  if (deleted.length > 64) more = true
  // The same file named twice (`rm a a`, or a folder and a file in it) counts once.
  const seen = new Set<string>()
  const unique = items.filter((i) => (seen.has(i.path + i.why) ? false : (seen.add(i.path + i.why), true)))
  if (!unique.length) return undefined
  return {
    items: unique,
    files: unique.reduce((n, i) => n + i.files, 0),
    bytes: unique.reduce((n, i) => n + i.bytes, 0),
    more: more || unique.some((i) => i.more === true),
  }
}

const inHome = (abs: string, home: string | undefined) =>
  !!home && home !== '/' && (abs === home || abs.startsWith(home + '/'))

function shown(abs: string, projectDir: string): string {
  return abs === projectDir ? '.' : abs.startsWith(projectDir + '/') ? abs.slice(projectDir.length + 1) : abs
}

function target(
  d: Deletion,
  projectDir: string,
  tmps: string[],
  ownByAgent: (abs: string) => boolean,
  deadline: number,
  stateDir?: string,
): { items: LossItem[]; more?: boolean } {
  const machine = (abs: string) => !!stateDir && (abs === stateDir || abs.startsWith(stateDir + '/'))
  const abs = d.path
  let st: fs.Stats
  try {
    st = fs.lstatSync(abs)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { items: [] }
    return {
      items: [
        {
          path: shown(abs, projectDir),
          why: 'unknown',
          bytes: 0,
          files: 0,
          note: (e as NodeJS.ErrnoException).code ?? 'unreadable',
        },
      ],
    }
  }
  if (ownByAgent(abs)) return { items: [] }
  if (st.isSymbolicLink()) {
    // `rm link` removes only the link; a link in a folder being removed, or a path through one, may lead anywhere.
    return {
      items: [
        {
          path: shown(abs, projectDir),
          why: 'unknown',
          bytes: 0,
          files: 0,
          note: 'a symbolic link: where it leads was not followed',
        },
      ],
    }
  }
  const root = repoRoot(abs)
  const named = d.names ? (name: string) => d.names!.some((g) => globMatch(g, name)) : undefined
  if (!root) {
    if (tmps.some((t) => abs === t || abs.startsWith(t + '/')) || REGENERATED.test(abs)) return { items: [] }
    if (d.lose === 'changes') return { items: [] }
    const w = walk(abs, st, deadline, MAX_WALK, named)
    if (!w.files && !w.more) return { items: [] }
    return {
      items: [
        {
          path: shown(abs, projectDir),
          why: 'unversioned',
          bytes: w.bytes,
          files: w.files,
          ...(w.more ? { more: true } : {}),
        },
      ],
    }
  }
  const rel = path.relative(root, abs) || '.'
  if (d.lose === 'all' && !named && (root === abs || root.startsWith(abs + '/') || /(^|\/)\.git(\/|$)/.test(rel))) {
    const w = walk(abs, st, deadline)
    return {
      items: [
        {
          path: shown(abs, projectDir),
          why: 'unknown',
          bytes: w.bytes,
          files: w.files,
          more: true,
          note: 'holds a git repository: its history would go too',
        },
      ],
    }
  }
  const out = gitBefore(
    ['status', '--porcelain=v1', '-z', '--ignored', '--untracked-files=all', '--', rel],
    root,
    deadline,
  )
  if (out === undefined)
    return {
      items: [{ path: shown(abs, projectDir), why: 'unknown', bytes: 0, files: 0, note: 'git could not say in time' }],
    }
  const found: { abs: string; why: LossWhy }[] = []
  for (const { code, path: file } of statusEntries(out)) {
    const fileAbs = path.join(root, file)
    if (ownByAgent(fileAbs.replace(/\/$/, ''))) continue
    let why: LossWhy | undefined
    // Compiled files are regenerated whether or not git ignores them (`find . -name '*.pyc' -delete`).
    // Ratchet's own untracked and ignored state (sessions, queue, caches) is not the user's data: `git clean -fdx`
    // names the .env, data and drafts it would destroy, not Ratchet's cache.
    if ((code === '??' || code === '!!') && machine(fileAbs.replace(/\/$/, ''))) continue
    if (code === '??') why = d.lose === 'changes' || COMPILED.test(file) ? undefined : 'untracked'
    else if (code === '!!')
      why = (d.lose === 'all' || d.lose === 'untracked+ignored') && !REGENERATED.test(file) ? 'ignored' : undefined
    else if (code[1] === 'D' || code === 'D ')
      why = undefined // already gone from the work tree
    else why = d.lose === 'untracked' || d.lose === 'untracked+ignored' ? undefined : 'changes'
    if (why) found.push({ abs: fileAbs.replace(/\/$/, ''), why })
  }
  if (!found.length) return { items: [] }
  const items: LossItem[] = []
  let budget = MAX_WALK
  let more = false
  for (const f of found) {
    let s: fs.Stats | undefined
    try {
      s = budget > 0 ? fs.lstatSync(f.abs) : undefined
    } catch {
      s = undefined
    }
    budget--
    // `find -name` deletes only files with those names: a folder git names whole (ignored) is walked for them.
    if (named && !s?.isDirectory() && !named(path.basename(f.abs))) continue
    const w = s
      ? s.isDirectory()
        ? walk(f.abs, s, deadline, Math.max(1, budget), named)
        : { files: 1, bytes: s.size, more: false }
      : { files: 1, bytes: 0, more: true }
    if (s?.isDirectory()) budget -= w.files
    if (named && !w.files && !w.more) continue
    if (w.more) more = true
    items.push({
      path: shown(f.abs, projectDir),
      why: f.why,
      bytes: w.bytes,
      files: w.files,
      ...(w.more ? { more: true } : {}),
    })
  }
  if (items.length <= MAX_ITEMS_PER_TARGET) return { items, more }
  // Many files: one line per folder just below the target (and kind); still too many, one line per kind.
  const fold = (key: (i: LossItem) => string) => {
    const groups = new Map<string, LossItem>()
    for (const i of items) {
      const k = key(i)
      const g = groups.get(`${k}\0${i.why}`) ?? { path: k, why: i.why, bytes: 0, files: 0 }
      g.bytes += i.bytes
      g.files += i.files
      if (i.more) g.more = true
      groups.set(`${k}\0${i.why}`, g)
    }
    return [...groups.values()]
  }
  const base = shown(abs, projectDir)
  const prefix = base === '.' ? '' : `${base}/`
  const below = fold((i) => {
    const rest = i.path.startsWith(prefix) ? i.path.slice(prefix.length) : i.path
    const slash = rest.indexOf('/')
    return slash < 0 ? i.path : `${prefix}${rest.slice(0, slash)}/`
  })
  return { items: below.length <= MAX_ITEMS_PER_TARGET ? below : fold(() => `${base}/`), more }
}

/** Files and bytes under `abs` (lstat only, never following links or opening files), at most `max` entries. */
function walk(
  abs: string,
  st: fs.Stats,
  deadline: number,
  max = MAX_WALK,
  named?: (name: string) => boolean,
): { files: number; bytes: number; more: boolean } {
  if (!st.isDirectory())
    return named && !named(path.basename(abs))
      ? { files: 0, bytes: 0, more: false }
      : { files: 1, bytes: st.size, more: false }
  let files = 0
  let bytes = 0
  let seen = 0
  const stack = [abs]
  while (stack.length) {
    if (seen >= max || Date.now() >= deadline) return { files, bytes, more: true }
    const dir = stack.pop()!
    let names: string[]
    try {
      names = fs.readdirSync(dir)
    } catch {
      continue
    }
    for (const n of names) {
      if (seen++ >= max) return { files, bytes, more: true }
      const p = path.join(dir, n)
      try {
        const s = fs.lstatSync(p)
        if (s.isDirectory()) stack.push(p)
        else if (!named || named(n)) {
          files++
          bytes += s.size
        }
      } catch {
        // gone meanwhile
      }
    }
  }
  return { files, bytes, more: false }
}

function repoRoot(abs: string): string | undefined {
  let d = abs
  for (let i = 0; i < 64; i++) {
    try {
      fs.lstatSync(path.join(d, '.git'))
      return d
    } catch {
      const up = path.dirname(d)
      if (up === d) return undefined
      d = up
    }
  }
  return undefined
}
