import fs from 'node:fs'
import path from 'node:path'
import { readRegularFile } from './store'

/** The checked-out branch of the repository containing `dir`, read from .git/HEAD (no git process). */
export function currentBranch(dir: string): string | undefined {
  let d = dir
  for (let i = 0; i < 40; i++) {
    const dotgit = path.join(d, '.git')
    try {
      let gitDir = dotgit
      if (fs.statSync(dotgit).isFile()) {
        const m = /^gitdir:\s*(.+)$/m.exec(readRegularFile(dotgit))
        if (!m) return undefined
        gitDir = path.resolve(d, m[1].trim())
      }
      // Never blocks: a FIFO planted at .git/HEAD is refused, not read (it hung every hook).
      const head = readRegularFile(path.join(gitDir, 'HEAD'))
      const ref = /^ref:\s*refs\/heads\/(.+)$/m.exec(head)
      return ref ? ref[1].trim() : undefined
    } catch {
      const up = path.dirname(d)
      if (up === d) return undefined
      d = up
    }
  }
  return undefined
}

type FileState = import('../core/actions/types').FileState

/** Build output and caches: ignored content a build or install brings back. Kept in step with lib/core/actions/util.ts. */
const BUILD_OUTPUT =
  /(^|\/)(node_modules|dist|build|out|target|coverage|\.next|\.nuxt|\.svelte-kit|\.turbo|\.parcel-cache|\.cache|\.gradle|__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache|\.tox|\.venv|venv|\.eggs|[^/]+\.egg-info|obj|_build|\.dart_tool|\.angular|storybook-static|\.vite|\.eslintcache|tsconfig\.tsbuildinfo)(\/|$)|\.(pyc|pyo|o|obj|class|tsbuildinfo)$/

function repoRoot(dir: string): string | undefined {
  let d = dir
  for (let i = 0; i < 40; i++) {
    if (fs.existsSync(path.join(d, '.git'))) return d
    const up = path.dirname(d)
    if (up === d) return undefined
    d = up
  }
  return undefined
}

/** `git status --porcelain=v1 -z` output as entries: the XY code and the path as git prints it (the original path that follows a rename or copy is skipped). */
export function statusEntries(raw: string): { code: string; path: string }[] {
  const out: { code: string; path: string }[] = []
  const parts = raw.split('\0')
  for (let i = 0; i < parts.length; i++) {
    const e = parts[i]
    if (e.length < 4) continue
    out.push({ code: e.slice(0, 2), path: e.slice(3) })
    if (e[0] === 'R' || e[0] === 'C') i++ // the original path follows
  }
  return out
}

/**
 * Runs git read-only (no optional locks) and returns its output, or `undefined` on any error or when `deadline`
 * (epoch ms) has passed or passes while it runs. child_process is loaded only when git is really run.
 */
export function gitBefore(args: string[], cwd: string, deadline: number): string | undefined {
  const left = deadline - Date.now()
  if (left <= 0) return undefined
  try {
    const { execFileSync } = require('node:child_process') as typeof import('node:child_process')
    return execFileSync('git', args, {
      cwd,
      timeout: left,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 16 << 20,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
    })
  } catch {
    return undefined
  }
}

/**
 * The fact provider behind "irreversible means unrecoverable" (ClassifyContext.fileState): what git can bring back
 * of a path. Costs nothing until asked — the classifier asks only when a call deletes or discards something — and
 * then runs `git status` / `git ls-files` (child_process required here, never at start-up), all calls of one
 * classification sharing one time budget. Timeout, error, no repository or a path holding the repository itself:
 * `undefined` or `outside`, which the classifier reads as unrecoverable.
 */
export function fileStates(projectDir: string, budgetMs = 1000): (abs: string) => FileState | undefined {
  let deadline: number | undefined
  let root: string | null | undefined
  const cache = new Map<string, FileState | undefined>()

  const git = (args: string[], cwd: string): string | undefined =>
    gitBefore(args, cwd, (deadline ??= Date.now() + budgetMs))

  const compute = (abs: string): FileState | undefined => {
    // A symbolic link on the way (`scratch/home -> ~`, then `rm -rf scratch/home/`) leads somewhere git and the
    // session know nothing about: no answer, the worst reading.
    if (throughLink(abs)) return undefined
    const glob = /[*?[]/.test(path.basename(abs))
    if (!glob) {
      try {
        fs.lstatSync(abs)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing'
        return undefined
      }
    }
    if (root === undefined) root = repoRoot(projectDir) ?? null
    const inProject = abs === projectDir || abs.startsWith(projectDir + '/')
    if (!root || !inProject) return 'outside'
    const rel = path.relative(root, abs) || '.'
    // The repository itself (its .git, or a folder holding it) is history git cannot restore.
    if (root === abs || root.startsWith(abs + '/') || /(^|\/)\.git(\/|$)/.test(rel)) return undefined
    const out = git(['status', '--porcelain=v1', '-z', '--ignored', '--untracked-files=normal', '--', rel], root)
    if (out === undefined) return undefined
    let modified = false
    let untracked = false
    let ignoredData = false
    for (const { code, path: file } of statusEntries(out)) {
      if (code === '??') untracked = true
      else if (code === '!!') {
        if (!BUILD_OUTPUT.test(file)) ignoredData = true
      } else modified = true
    }
    if (modified) return 'tracked-modified'
    if (untracked) return 'untracked'
    if (ignoredData) return 'ignored'
    if (glob) {
      const ls = git(['ls-files', '-z', '--', rel], root)
      if (ls === undefined) return undefined
      return ls ? 'tracked-clean' : 'missing'
    }
    return 'tracked-clean'
  }

  let realProject: string | undefined
  const throughLink = (abs: string): boolean => {
    try {
      if (fs.lstatSync(abs).isSymbolicLink()) return true
    } catch {
      // missing: its folder decides
    }
    let d = path.dirname(abs)
    while (!fs.existsSync(d) && d !== path.dirname(d)) d = path.dirname(d)
    try {
      const real = fs.realpathSync(d)
      if (real === d) return false
      // The project itself may sit under a linked folder (/tmp -> /private/tmp): that is not an escape.
      realProject ??= fs.realpathSync(projectDir)
      const inside = d === projectDir || d.startsWith(projectDir + '/')
      return !inside || real !== path.join(realProject, path.relative(projectDir, d))
    } catch {
      return true
    }
  }

  return (abs) => {
    if (!cache.has(abs)) cache.set(abs, compute(abs))
    return cache.get(abs)
  }
}
