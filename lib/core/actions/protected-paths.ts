// What Ratchet's self-protection guards, as paths: its state, its rules, Claude Code's settings and its installed
// executables (protectedPath, protectedRemoval), the names a command may reach them by (the coarse screen's
// markers and globs), and an MCP tool that writes, moves or removes one of them.

import path from 'node:path'
import { EXECUTABLES, PACKAGE_NAME } from '../manifest'
import type { ClassifyContext, Sink } from './types'
import { mcpInputPaths } from './util'

// Ratchet's executables with a bin/ launcher (lib/core/manifest.ts); a launcher of one in the project's
// node_modules/.bin is protected.
// `ratchet-guard` is the package's own name for the CLI's launcher (package.json bin).
const RATCHET_BINS = new Set<string>([...EXECUTABLES.filter((e) => e.bin).map((e) => e.name), PACKAGE_NAME])

export const inside = (abs: string, dir: string) => abs === dir || abs.startsWith(dir.endsWith('/') ? dir : dir + '/')

interface Roots {
  /** Folders whose every file is protected. */
  dirs: string[]
  /** The `.claude` folders: their settings files are protected, and removing or moving them. */
  claude: string[]
}

function rootsOf(ctx: ClassifyContext): Roots {
  const { stateDir, projectDir, homeDir } = ctx
  const dirs = [
    stateDir,
    path.posix.join(projectDir, '.ratchet'),
    path.posix.join(homeDir, '.config', 'ratchet'),
    ...(ctx.configHome ? [ctx.configHome] : []),
    ...(ctx.warmDirs ?? []),
  ]
  // The installed package's executables and bundles (not the whole package: a checkout of Ratchet is also a project).
  if (ctx.packageDir) dirs.push(path.posix.join(ctx.packageDir, 'bin'), path.posix.join(ctx.packageDir, 'dist'))
  const claude = [path.posix.join(projectDir, '.claude'), path.posix.join(homeDir, '.claude')]
  for (const list of [dirs, claude])
    for (const d of [...list]) {
      const r = ctx.fs?.realpath(d)
      if (r && r !== d) list.push(r)
    }
  return { dirs: [...new Set(dirs)], claude: [...new Set(claude)] }
}

const roots = perContext(rootsOf)

function lexical(ctx: ClassifyContext, abs: string): boolean {
  const r = roots(ctx)
  if (r.dirs.some((d) => inside(abs, d))) return true
  const dir = path.posix.dirname(abs)
  const base = path.posix.basename(abs)
  if (r.claude.includes(dir) && /^settings[^/]*\.json$/.test(base)) return true
  if (dir === path.posix.join(ctx.projectDir, 'node_modules/.bin') && RATCHET_BINS.has(base)) return true
  return false
}

/** Whether writing `abs` changes something protected: the path itself or, through a link, where it leads. */
export function protectedPath(ctx: ClassifyContext, abs: string): boolean {
  if (lexical(ctx, abs)) return true
  const real = ctx.fs?.realpath(abs)
  return !!real && real !== abs && lexical(ctx, real)
}

/** Whether removing or moving `abs` (and everything under it) changes something protected. */
export function protectedRemoval(ctx: ClassifyContext, abs: string): boolean {
  if (protectedPath(ctx, abs)) return true
  // Removing the project itself takes Ratchet's state with it; removing a folder above the project (`/`, home)
  // is left to the catastrophic and scope checks, which say more than "Ratchet's configuration".
  const above = (q: string) => (q !== ctx.projectDir && inside(ctx.projectDir, q)) || inside(ctx.homeDir, q)
  if (above(abs)) return false
  const r = roots(ctx)
  return [...r.dirs, ...r.claude].some((d) => inside(d, abs))
}

/**
 * Lists made from the context alone, once per context (as roots are): a process that classifies many calls with one
 * context (pattern-detect over transcripts, the warm process) built them again for every invocation.
 */
export function perContext<T>(make: (ctx: ClassifyContext) => T): (ctx: ClassifyContext) => T {
  const cache = new WeakMap<ClassifyContext, T>()
  return (ctx) => {
    let v = cache.get(ctx)
    if (v === undefined) cache.set(ctx, (v = make(ctx)))
    return v
  }
}

/** The names in a command that point at what the floor guards (as written, not resolved: this is the coarse screen). */
export const markers = perContext(markersOf)
function markersOf(ctx: ClassifyContext): string[] {
  const rel = (p: string) => path.posix.relative(ctx.projectDir, p)
  const state = rel(ctx.stateDir)
  return [
    ...(state && !state.startsWith('..') ? [state] : [ctx.stateDir]),
    '.ratchet',
    '.claude',
    'disableAllHooks',
    'allowUnsandboxedCommands',
    'node_modules/ratchet',
    // Names only Ratchet's state and Claude Code's personal settings have: reached through an unknown variable too.
    'guardrails.json',
    'pending-actions.json',
    ...[...RATCHET_BINS].map((b) => `.bin/${b}`),
    ...(ctx.packageDir ? [ctx.packageDir] : []),
  ]
}

/**
 * A glob (resolved against the folder the command runs in) that can name a protected path, or a folder above one:
 * compared segment by segment, bash's way (a leading dot is matched only by a dot).
 */
export function globHits(ctx: ClassifyContext, abs: string): string | undefined {
  const pat = abs.split('/').filter(Boolean)
  if (pat.length > 64 || abs.length > 1024) return abs
  const r = roots(ctx)
  const candidates = [
    ...r.dirs,
    ...r.claude,
    ...r.claude.flatMap((c) => ['settings.json', 'settings.local.json'].map((n) => path.posix.join(c, n))),
  ]
  for (const cand of candidates) {
    const segs = cand.split('/').filter(Boolean)
    let ok = true
    for (let i = 0; i < Math.min(pat.length, segs.length) && ok; i++) ok = segmentMatches(pat[i], segs[i])
    // It names the path, something in it, or (shorter) a folder that holds it.
    if (ok) return cand
  }
  return undefined
}

function segmentMatches(glob: string, name: string): boolean {
  if (!/[*?[]/.test(glob)) return glob === name
  if (name.startsWith('.') && !glob.startsWith('.')) return false
  if (glob.split('*').length > 8) return true // past a few stars, the worst reading
  try {
    return new RegExp(
      '^' +
        glob
          .replace(/[.+^${}()|\\]/g, '\\$&')
          .replace(/\*/g, '.*')
          .replace(/\?/g, '.') +
        '$',
    ).test(name)
  } catch {
    return true // an unclosed class: the worst reading
  }
}

export const mentions = (text: string, names: string[]) => names.find((n) => text.includes(n))

const MCP_READS =
  /(^|_)(read|get|list|search|find|view|stat|info|tree|show|describe|query|fetch|head|tail|grep|glob|ls|cat|open_nodes|directory_tree)(_|$)/
const MCP_REMOVES = /(^|_)(delete|remove|rm|unlink|move|rename|mv|trash|purge|destroy)(_|$)/
const PATH_KEY =
  /^(path|paths|file|files|file_?path|filename|dir|directory|dest|destination|target|target_?path|source|source_?path|src|from|to|uri|new_?path|old_?path|output|out)$/i

/** An MCP tool that writes, moves or removes a protected path named in its input. */
export function mcpInputs(c: Sink, tool: string, input: Record<string, unknown>): void {
  const action = tool.split('__').slice(2).join('__').toLowerCase()
  if (
    MCP_READS.test(action) &&
    !MCP_REMOVES.test(action) &&
    !/write|edit|create|put|set|update|append|save|copy|patch|upload/.test(action)
  )
    return
  const removal = MCP_REMOVES.test(action)
  for (const p of mcpInputPaths(input, PATH_KEY)) {
    const abs = path.posix.resolve(c.ctx.projectDir, p.replace(/^~(?=\/|$)/, c.ctx.homeDir))
    if (removal ? protectedRemoval(c.ctx, abs) : protectedPath(c.ctx, abs)) {
      c.add('ratchet_state_edit', `${tool} ${p}`)
      return
    }
  }
}
