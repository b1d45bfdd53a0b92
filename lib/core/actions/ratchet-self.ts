// Self-protection, decided by effect: what would this call change, not how is it spelled. The agent may read
// Ratchet's state and queue a pause; it may never change the rules, approvals, log or hook registrations, remove
// or move `.claude/`, touch the installed package's files, or run Ratchet's CLI to decide or rewrite anything.
//
// Protected: the state folder (.ratchet/ or $RATCHET_DIR), `.claude/settings*.json` (project and ~/.claude),
// `.claude/` itself (removing or moving it), the installed package (ctx.packageDir) and the project's launchers
// of Ratchet's executables. Paths are resolved before they are judged: `..`, symlinks (realpath, including one
// made earlier in the same command), hard links (by inode), globs (matched against the protected paths), and
// variables assigned earlier in the same command (commands.ts puts them in). Redirects are judged wherever they
// appear; so are editors, archives (their listing when readable, else everything), patches (their targets when
// readable, else everything), git's discarding commands (what git status says they would touch), copies and
// moves (by the destination's file name), interpreter code (writes that name, or obscure, a protected path) and
// MCP tools (by their inputs). The facts come through ctx.fs; without them the lexical reading stands.

import path from 'node:path'
import { findRoots, type CodeSnippet, type Invocation } from '../commands'
import type { ClassifyContext, CodeScanner, Detector, FamilyMeta, InvocationFacts, Sink } from './types'
import { chmodWords, joinLiterals, mcpInputPaths, operandsAfter } from './util'

export type { FsFacts } from './types'

export const meta: FamilyMeta = {
  id: 'ratchet-self',
  classes: ['self_protection'],
  patterns: ['ratchet_state_edit', 'ratchet_key_read'],
  description: "Changing Ratchet's state, rules, hook registrations or installed files, or deciding its pauses",
  examples: ['echo [] > .ratchet/guardrails.json', 'ratchet pending approve pa-1', 'cp settings.local.json .claude/', 'rm -rf .claude'],
}

// Ratchet's executables (lib/core/manifest.ts); a launcher of one in the project's node_modules/.bin is protected.
const RATCHET_BINS = new Set(['ratchet', 'preflight-check', 'session-start', 'pause-and-ask', 'custodiet', 'pattern-detect'])
/**
 * The executables Claude Code runs with a hook payload on stdin. Run by hand, one writes the session's record
 * as if Claude Code had sent the payload (a prompt the user never typed widens what the agent was asked for;
 * a read or a check it never made), and it writes the code cache in the installed package.
 */
const HOOK_BINS = new Set(['preflight-check', 'session-start', 'custodiet'])
/**
 * `node dist/loader.cjs --warm preflight-check` is preflight-check's engine kept warm (lib/runtime/warm.cjs):
 * started by hand, it would decide calls with whatever the agent preloaded into it. Neither file has another use
 * as a script, so running either is running that hook.
 */
const RUNS_HOOK: Record<string, string> = { loader: 'preflight-check', warm: 'preflight-check', ...Object.fromEntries([...HOOK_BINS].map((h) => [h, h])) }
const hookOf = (word: string) => {
  const name = path.posix.basename(word)
  const base = name.replace(/\.(c|m)?js$/, '')
  if (RUNS_HOOK[base]) return RUNS_HOOK[base]
  // A glob (`load?r.cjs`, `preflight-che[c]k`) runs whatever it matches: the hook, if it can match one.
  if (/[*?[]/.test(name)) for (const [file, hook] of Object.entries(RUNS_HOOK)) if (['', '.cjs', '.js'].some((ext) => fnmatch(name, file + ext, false))) return hook
  return undefined
}
const HELP = new Set(['--help', '-h'])
/** The program `yarn`/`bunx`/`bun` runs: the first word that is neither an option nor run, x or exec. */
const runs = (args: string[]) => args.find((a) => !a.startsWith('-') && !/^(run|x|exec)$/.test(a)) ?? ''

/**
 * find's glob (fnmatch: `*` and `?` match `/` too under -path, `[…]` is a class), as a regex. A pattern that is
 * not one (an unclosed `[`) is read as admitting anything: its worst reading, never an error of the hook.
 */
const fnmatch = (glob: string, value: string, caseless: boolean) => {
  const body = glob.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')
  try {
    return new RegExp(`^${body}$`, caseless ? 'i' : '').test(value)
  } catch {
    return true
  }
}

/**
 * The hook a `find … -exec {} …` (the found file as the program) could run: its name and path tests admit one
 * (none at all admit every file), and a root it searches could hold one (the project, node_modules, the package).
 */
function foundHook(args: string[], at: (p: string) => string, ctx: ClassifyContext): string | undefined {
  const x = args.findIndex((a) => /^-(exec|execdir|ok|okdir)$/.test(a))
  if (x < 0) return undefined
  // The found file as the program, or as the script an interpreter runs (`-exec node {} --warm \;`).
  const program = args[x + 1] ?? ''
  const byNode = /^(node|nodejs|bun|deno)$/.test(path.posix.basename(program)) && args.slice(x + 2).some((a) => a.includes('{}') && !a.startsWith('-'))
  if (!program.includes('{}') && !byNode) return undefined
  const roots = findRoots(args).map(at)
  const holds = (r: string) => inside(ctx.projectDir, r) || /(^|\/)node_modules(\/|$)/.test(r) || inside(r, path.posix.join(ctx.projectDir, 'node_modules')) || (!!ctx.packageDir && (inside(r, ctx.packageDir) || inside(ctx.packageDir, r)))
  if (!(roots.length ? roots : [at('.')]).some(holds)) return undefined
  // `-o`, `!` or `-not` among the tests: which files they admit is not worth reading here; any hook.
  if (args.slice(0, x).some((a) => /^(-o|-or|!|-not)$/.test(a))) return [...HOOK_BINS][0]
  const tests = args.flatMap((a, k) => (/^-(i?name|i?path|i?wholename)$/.test(a) && k < x ? [[a, args[k + 1] ?? ''] as const] : []))
  // What it could find and run: a launcher (node_modules/.bin, the package's bin/), or for node a file of dist/ too.
  const files = Object.entries(RUNS_HOOK).flatMap(([f, h]) => [...(HOOK_BINS.has(f) ? [[f, h, `bin/${f}`]] : []), ...(byNode ? [[`${f}.cjs`, h, `dist/${f}.cjs`]] : [])])
  return files.find(([name, , rel]) =>
    tests.every(([t, g]) => (/name$/.test(t) && !/wholename$/.test(t) ? [name] : [`./node_modules/.bin/${name}`, `node_modules/.bin/${name}`, `${ctx.projectDir}/node_modules/.bin/${name}`, `./node_modules/ratchet/${rel}`]).some((v) => fnmatch(g, v, t.startsWith('-i')))),
  )?.[1]
}
/** A path to one of the hooks' launchers or bundles: in the installed package, a node_modules folder, or the project's .bin. */
const launcherOf = (raw: string, abs: string, ctx: ClassifyContext) =>
  !raw.startsWith('-') && !!hookOf(raw) && (/(^|\/)node_modules\//.test(abs) || (!!ctx.packageDir && inside(abs, ctx.packageDir)))
/** Names that only Ratchet's state or Claude Code's settings have: a path to one through an unknown variable is judged as protected. */
const STATE_NAMES = /^(guardrails\.json|\.guardrails-index\.json|pending-actions\.json|activity\.jsonl|settings\.json|settings\.local\.json)$/

const inside = (abs: string, dir: string) => abs === dir || abs.startsWith(dir.endsWith('/') ? dir : dir + '/')

interface Roots {
  /** Folders whose every file is protected. */
  dirs: string[]
  /** The `.claude` folders: their settings files are protected, and removing or moving them. */
  claude: string[]
}

function rootsOf(ctx: ClassifyContext): Roots {
  const { stateDir, projectDir, homeDir } = ctx
  // The courtroom's signing keys and signed ledger heads live in ~/.config/ratchet (outside the project, by design).
  const dirs = [stateDir, path.posix.join(projectDir, '.ratchet'), path.posix.join(homeDir, '.config', 'ratchet'), ...(ctx.configHome ? [ctx.configHome] : []), ...(ctx.warmDirs ?? [])]
  // The installed package's executables and bundles (not the whole package: a checkout of Ratchet is also a project).
  if (ctx.packageDir) dirs.push(path.posix.join(ctx.packageDir, 'bin'), path.posix.join(ctx.packageDir, 'dist'))
  const claude = [path.posix.join(projectDir, '.claude'), path.posix.join(homeDir, '.claude')]
  const real = (p: string) => ctx.fs?.realpath(p)
  for (const d of [...dirs]) {
    const r = real(d)
    if (r && r !== d) dirs.push(r)
  }
  for (const d of [...claude]) {
    const r = real(d)
    if (r && r !== d) claude.push(r)
  }
  return { dirs: [...new Set(dirs)], claude: [...new Set(claude)] }
}

const rootsCache = new WeakMap<ClassifyContext, Roots>()
const roots = (ctx: ClassifyContext) => {
  let r = rootsCache.get(ctx)
  if (!r) rootsCache.set(ctx, (r = rootsOf(ctx)))
  return r
}

/** The lexical test, on a path already resolved. */
function lexical(ctx: ClassifyContext, abs: string): boolean {
  const r = roots(ctx)
  if (r.dirs.some((d) => inside(abs, d))) return true
  const dir = path.posix.dirname(abs)
  const base = path.posix.basename(abs)
  if (r.claude.includes(dir) && /^settings[^/]*\.json$/.test(base)) return true
  if (dir === path.posix.join(ctx.projectDir, 'node_modules/.bin') && RATCHET_BINS.has(base)) return true
  return false
}

const GLOB = /[*?[]/

/**
 * Whether writing `abs` changes something protected: the path itself, its realpath (a symlink, made earlier
 * in the session or in this command), a hard link to a protected file, or a glob that matches one.
 */
export function protectedPath(ctx: ClassifyContext, abs: string, links?: Map<string, string>): boolean {
  const p = throughLinks(abs, links)
  if (GLOB.test(p)) return globHits(ctx, p, false)
  if (lexical(ctx, p)) return true
  // `$D/guardrails.json` with D unknown: the worst reading of a name only Ratchet's state has.
  if (p.includes('$') && STATE_NAMES.test(path.posix.basename(p))) return true
  const fs = ctx.fs
  if (!fs) return false
  const real = fs.realpath(p)
  if (real && real !== p && lexical(ctx, real)) return true
  const id = fs.linkId(p)
  return id !== undefined && protectedLinkIds(ctx).has(id)
}

/** Whether removing or moving `abs` (and everything under it) changes something protected. */
export function protectedRemoval(ctx: ClassifyContext, abs: string, links?: Map<string, string>): boolean {
  const p = throughLinks(abs, links)
  if (GLOB.test(p)) return globHits(ctx, p, true)
  if (protectedPath(ctx, p, links)) return true
  // Removing the project itself takes Ratchet's state with it; removing a folder above the project (`/`, home)
  // is left to the catastrophic and scope checks, which say more than "Ratchet's configuration".
  const above = (q: string) => (q !== ctx.projectDir && inside(ctx.projectDir, q)) || inside(ctx.homeDir, q)
  if (above(p)) return false
  const r = roots(ctx)
  const all = [...r.dirs, ...r.claude]
  if (all.some((d) => inside(d, p))) return true
  const real = ctx.fs?.realpath(p)
  return !!real && real !== p && !above(real) && all.some((d) => inside(d, real))
}

/** Whether files of unknown names written under folder `abs` could land on something protected. */
function protectedInto(ctx: ClassifyContext, abs: string, links?: Map<string, string>): boolean {
  return protectedRemoval(ctx, abs, links)
}

function throughLinks(abs: string, links?: Map<string, string>): string {
  if (!links?.size) return abs
  for (const [link, target] of links) if (inside(abs, link)) return target + abs.slice(link.length)
  return abs
}

const linkIdsCache = new WeakMap<ClassifyContext, Set<string>>()

/** Link ids of the protected files that have more than one link (a hard link made to one of them). */
function protectedLinkIds(ctx: ClassifyContext): Set<string> {
  let ids = linkIdsCache.get(ctx)
  if (ids) return ids
  ids = new Set()
  const fs = ctx.fs
  if (fs) {
    const files: string[] = []
    for (const d of [ctx.stateDir, path.posix.join(ctx.projectDir, '.ratchet')]) for (const n of (fs.list(d) ?? []).slice(0, 200)) files.push(path.posix.join(d, n))
    for (const c of roots(ctx).claude) for (const n of fs.list(c) ?? []) if (/^settings[^/]*\.json$/.test(n)) files.push(path.posix.join(c, n))
    for (const f of files) {
      const id = fs.linkId(f)
      if (id) ids.add(id)
    }
  }
  linkIdsCache.set(ctx, ids)
  return ids
}

/** A glob against the protected paths, segment by segment (a leading dot is matched only by a dot, as bash does). */
function globHits(ctx: ClassifyContext, pattern: string, removal: boolean): boolean {
  const pat = pattern.split('/').filter(Boolean)
  const r = roots(ctx)
  const files = r.claude.flatMap((c) => ['settings.json', 'settings.local.json'].map((n) => path.posix.join(c, n)))
  const candidates: { path: string; dir: boolean; removeOnly?: boolean }[] = [...r.dirs.map((d) => ({ path: d, dir: true })), ...files.map((f) => ({ path: f, dir: false })), ...r.claude.map((c) => ({ path: c, dir: false, removeOnly: true }))]
  for (const c of candidates) {
    const segs = c.path.split('/').filter(Boolean)
    const n = Math.min(pat.length, segs.length)
    let ok = true
    for (let i = 0; i < n && ok; i++) ok = segmentMatch(pat[i], segs[i])
    if (!ok) continue
    if (pat.length === segs.length && !c.removeOnly) return true
    if (pat.length < segs.length && removal) return true // names an ancestor
    if (pat.length >= segs.length && c.removeOnly && removal) return true
    if (pat.length > segs.length && c.dir) return true // names something inside a protected folder
  }
  return false
}

/** Wildcard match of one path segment: `*`, `?`, `[…]`. Linear-time two-pointer match with one backtrack point. */
export function segmentMatch(pat: string, name: string): boolean {
  if (pat.length > 256 || name.length > 256) return false
  if (name.startsWith('.') && !pat.startsWith('.')) return false
  let p = 0
  let n = 0
  let star = -1
  let mark = 0
  while (n < name.length) {
    if (p < pat.length && pat[p] === '*') {
      star = p++
      mark = n
      continue
    }
    if (p < pat.length && pat[p] === '[') {
      const close = pat.indexOf(']', p + 2)
      if (close > 0) {
        let set = pat.slice(p + 1, close)
        const neg = set.startsWith('!') || set.startsWith('^')
        if (neg) set = set.slice(1)
        let hit = false
        for (let i = 0; i < set.length; i++) {
          if (set[i + 1] === '-' && i + 2 < set.length) {
            if (name[n] >= set[i] && name[n] <= set[i + 2]) hit = true
            i += 2
          } else if (set[i] === name[n]) hit = true
        }
        if (hit !== neg) {
          p = close + 1
          n++
          continue
        }
      }
    } else if (p < pat.length && (pat[p] === '?' || pat[p] === name[n])) {
      p++
      n++
      continue
    }
    if (star < 0) return false
    p = star + 1
    n = ++mark
  }
  while (p < pat.length && pat[p] === '*') p++
  return p === pat.length
}

// ---------------------------------------------------------------------------------------------
// Per invocation: everything the command would change.

/** Symlinks created earlier in the same command line (`ln -s .ratchet x && echo > x/guardrails.json`). */
const linksBySink = new WeakMap<Sink, Map<string, string>>()
const linksOf = (c: Sink) => {
  let m = linksBySink.get(c)
  if (!m) linksBySink.set(c, (m = new Map()))
  return m
}

const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&'])

/** A plain word with one `{a,b}` group (not quoted JSON): checked by a loop, not a regex with competing classes. */
const BRACE_WORD = {
  test(w: string): boolean {
    const open = w.indexOf('{')
    const close = w.indexOf('}')
    if (open < 0 || close < open || w.length > 4096) return false
    if (w.indexOf('{', open + 1) >= 0 || w.indexOf('}', close + 1) >= 0) return false
    return w.slice(open, close).includes(',') && !/[\s"':]/.test(w)
  },
}

export function selfProtection(c: Sink, inv: Invocation, f: InvocationFacts): void {
  const { ctx } = c
  const links = linksOf(c)
  const hits: string[] = []
  const write = (p: string, why = f.cmd) => {
    if (p && braces(p).some((q) => protectedPath(ctx, f.at(q), links))) hits.push(why)
  }
  const remove = (p: string, why = f.cmd) => {
    if (p && braces(p).some((q) => protectedRemoval(ctx, f.at(q), links))) hits.push(why)
  }
  const into = (dirAbs: string, why = f.cmd) => {
    if (protectedInto(ctx, dirAbs, links)) hits.push(why)
  }

  // `mv .claude{,.bak}`: brace expansion of plain words (not quoted JSON) before the operands are read.
  if (inv.args.some((a) => BRACE_WORD.test(a))) inv = { ...inv, args: inv.args.flatMap((a) => (BRACE_WORD.test(a) ? braces(a) : [a])) }
  for (const r of inv.redirects) {
    if (WRITE_OPS.has(r.op) && r.target && !/^&?-?\d*$/.test(r.target)) {
      write(r.target, `${f.cmd} ${r.op} ${r.target}`.trim())
    }
  }
  const name = inv.name
  const args = inv.args
  const ops = f.operands
  const rule = EFFECTS[name]
  if (rule) rule({ c, inv, f, write, remove, into, links, ctx })
  const byHand = (hook: string, rest: string[]) => {
    if (!rest.some((a) => HELP.has(a))) hits.push(`${f.cmd} (runs Ratchet's ${hook} hook by hand: it would record a payload Claude Code never sent, such as a prompt the user never typed)`)
  }
  if (isRatchetCli(inv, ctx)) ratchetCli(c, inv, f, hits)
  else if (HOOK_BINS.has(name)) byHand(name, args)
  else if (name === 'find') {
    // `find . -name preflight-check -exec {} \;` runs what it finds: one of the hooks, if the search can find it.
    const hook = foundHook(args, f.at, ctx)
    if (hook) hits.push(`${f.cmd} (runs the files find finds, which can be Ratchet's ${hook} hook: by hand it would record a payload Claude Code never sent)`)
  }
  // `yarn preflight-check`, `bunx custodiet` (npx, npm exec and pnpm exec name the program itself).
  else if (/^(yarn|bunx|bun)$/.test(name) && HOOK_BINS.has(runs(args))) byHand(runs(args), args)
  // `node $x --warm preflight-check`, `xargs node … --warm`: a script it cannot name, given the warm process's flag.
  else if (/^(node|nodejs|bun|deno|xargs)$/.test(name) && args.includes('--warm') && args.some((a) => !a.startsWith('-') && (/[$`*?[{]/.test(a) || /^(node|nodejs)$/.test(a)))) byHand('preflight-check', args)
  else if (/^(node|nodejs|bun|deno|tsx|ts-node)$/.test(name) && args.some((a) => launcherOf(a, f.at(a), ctx))) {
    // `node node_modules/ratchet/bin/preflight-check`, `node -r ./x.js …/dist/custodiet.cjs`: a hook's launcher or bundle.
    const at = args.findIndex((a) => launcherOf(a, f.at(a), ctx))
    byHand(hookOf(args[at])!, args.slice(at + 1))
  } else if (/^(node|nodejs|bun|deno|tsx|ts-node)$/.test(name)) {
    // `node <path>/bin/ratchet pending approve`, `node dist/ratchet.cjs uninstall`, `tsx lib/cli/main.ts …`
    const i = args.findIndex((a) => !a.startsWith('-') && a !== 'run')
    if (i >= 0 && isRatchetScript(args[i], f.at(args[i]), ctx)) ratchetCli(c, { ...inv, name: 'ratchet', args: args.slice(i + 1) }, f, hits)
    // `node $r uninstall`, `node "$(npm root)/x" pending approve …`: a script we cannot name, given the words of a
    // deciding Ratchet command, is judged as Ratchet's CLI (its worst reading).
    else if (i >= 0 && /[$`]/.test(args[i]) && DECIDING_NOUNS.has(args[i + 1] ?? '')) ratchetCli(c, { ...inv, name: 'ratchet', args: args.slice(i + 1) }, f, hits)
    // `node $r` with the deciding words later (`node $r --dir x pending approve`): the same worst reading (exfil).
    else if (i >= 0 && /[$`]/.test(args[i]) && decidingWords(args.slice(i + 1))) hits.push(`${f.cmd} (a computed script given Ratchet's deciding command ${decidingWords(args.slice(i + 1))})`)
    // A computed program word given a deciding command (`$r pending approve pa-1`).
  } else if (/[$`]/.test(name) && decidingWords(args)) hits.push(`${f.cmd} (a computed program given Ratchet's deciding command ${decidingWords(args)})`)
  void ops
  for (const h of [...new Set(hits)]) c.add('ratchet_state_edit', h)
}

/** Brace expansion of one word, bounded: `.claude{,.bak}` → `.claude`, `.claude.bak`. */
export function braces(word: string): string[] {
  const open = word.indexOf('{')
  if (open < 0) return [word]
  const close = word.indexOf('}', open)
  if (close < 0) return [word]
  const inner = word.slice(open + 1, close)
  if (!inner.includes(',') && !inner.includes('..')) return [word]
  const parts = inner.includes(',') ? inner.split(',') : [inner]
  const out: string[] = []
  for (const p of parts.slice(0, 16)) for (const rest of braces(word.slice(close + 1)).slice(0, 16)) out.push(word.slice(0, open) + p + rest)
  return out.slice(0, 64)
}

interface Effect {
  c: Sink
  inv: Invocation
  f: InvocationFacts
  ctx: ClassifyContext
  write(p: string, why?: string): void
  remove(p: string, why?: string): void
  into(dirAbs: string, why?: string): void
  links: Map<string, string>
}

const shortFlags = (args: string[]) => args.filter((a) => /^-[a-zA-Z]+$/.test(a)).join('')

function optValue(args: string[], short: string[], long: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (short.includes(a) || long.includes(a)) return args[i + 1]
    for (const l of long) if (a.startsWith(l + '=')) return a.slice(l.length + 1)
    for (const s of short) if (a.startsWith(s) && a.length > s.length && !a.startsWith('--')) return a.slice(s.length)
  }
  return undefined
}

/**
 * cp / mv / install / ln / rsync: where each source lands. Into a folder (a trailing slash, several sources,
 * `-t dir`, or an existing folder) the file keeps its name; a copied folder writes names we cannot see, unless
 * its listing is readable.
 */
function copyTargets(e: Effect, sources: string[], dest: string, targetDir: boolean, recursive: boolean): void {
  const { f, ctx } = e
  const destAbs = f.at(dest)
  const intoDir = targetDir || dest.endsWith('/') || sources.length > 1 || !!ctx.fs?.isDir(destAbs)
  for (const s of sources) {
    const srcAbs = f.at(s)
    const contents = s === '.' || s.endsWith('/.') || (s.endsWith('/') && e.inv.name === 'rsync')
    const srcIsDir = contents || s.endsWith('/') || !!ctx.fs?.isDir(srcAbs)
    const final = contents ? destAbs : intoDir ? path.posix.join(destAbs, path.posix.basename(srcAbs)) : destAbs
    if (!srcIsDir || !recursive) {
      if (protectedPath(ctx, final, e.links)) e.write(final)
      // The same file name under a `.claude` folder: judged by the name it will have there.
      continue
    }
    // A folder copied: what lands is its listing, if we can read it; otherwise anything under `final`.
    const names = ctx.fs?.list(srcAbs)
    if (names) {
      for (const n of names) {
        const t = path.posix.join(final, n)
        if (protectedPath(ctx, t, e.links) || (protectedRemoval(ctx, t, e.links) && ctx.fs?.isDir(path.posix.join(srcAbs, n)))) e.write(t)
      }
    } else e.into(final)
  }
}

const EFFECTS: Record<string, (e: Effect) => void> = Object.create(null)
/** Whether self-protection judges this program by what it changes (for the worst reading of an unreadable command). */
export const hasEffect = (name: string): boolean => name in EFFECTS || name === 'ratchet'
const on = (names: string[], fn: (e: Effect) => void) => {
  for (const n of names) EFFECTS[n] = fn
}

// Writers of their operands.
on(['chmod', 'chown', 'chgrp'], (e) => {
  // `chmod -x node_modules/ratchet/bin/preflight-check`: the mode looks like an option.
  for (const o of chmodWords(e.inv.args).files) e.write(o)
})
on(['tee', 'sponge', 'touch', 'chattr', 'setfacl', 'setfattr', 'shred'], (e) => {
  const ops = operandsAfter(e.inv.args, ['-a', '--append', '-r', '--reference', '-n', '-s', '-m', '-x', '-v', '--iterations', '--size'])
  const skip = /^(chattr|setfacl|setfattr)$/.test(e.inv.name) && !e.inv.args.some((a) => a.startsWith('--reference')) ? 1 : 0
  for (const o of ops.slice(skip)) e.write(o)
  if (e.inv.name === 'shred' && /u/.test(shortFlags(e.inv.args))) for (const o of ops) e.remove(o)
})
// A FIFO, socket or device node planted where a state file is hangs every later reader (issue 9, red team):
// making one under the state folder or .claude is an edit of it. So is a folder planted where a state file
// will be written (`mkdir -p .ratchet/custodiet/cost-daily.json` turns the reviewer's cost cap into "cap reached").
on(['mkfifo', 'mknod', 'mkdir'], (e) => {
  const ops = operandsAfter(e.inv.args, ['-m', '--mode', '--context'])
  for (const o of e.inv.name === 'mknod' ? ops.slice(0, 1) : ops) e.write(o)
})
on(['truncate'], (e) => {
  for (const o of operandsAfter(e.inv.args, ['-s', '--size', '-r', '--reference'])) e.write(o)
})
on(['dd'], (e) => {
  const of = e.inv.args.find((a) => a.startsWith('of='))
  if (of) e.write(of.slice(3))
})
on(['sed', 'perl', 'ruby'], (e) => {
  if (!e.inv.args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'))) return
  const ops = operandsAfter(e.inv.args, ['-e', '-f', '--expression', '--file', '-E', '-M', '-I', '-l', '-r'])
  const scripted = e.inv.args.some((a) => /^(-e|-f|--expression|--file|-E)$/.test(a) || /^-[a-zA-Z]*e$/.test(a))
  for (const o of scripted ? ops : ops.slice(1)) e.write(o)
})
on(['awk', 'gawk'], (e) => {
  if (e.inv.args.includes('inplace') || e.inv.args.includes('-i') && e.inv.args[e.inv.args.indexOf('-i') + 1] === 'inplace') for (const o of operandsAfter(e.inv.args, ['-f', '-v', '-i']).slice(1)) e.write(o)
})
// Editors: ed/ex read commands from stdin or -c/+cmd and write the file; any editor on a protected file is an edit.
on(['ed', 'red', 'ex', 'vi', 'vim', 'nvim', 'gvim', 'emacs', 'nano', 'pico', 'micro', 'joe', 'jed', 'kak', 'hx', 'helix', 'mcedit', 'ne'], (e) => {
  if (e.inv.args.includes('-R') || e.inv.args.includes('-M') || e.inv.args.includes('--view')) return
  const valued = e.inv.name === 'ed' || e.inv.name === 'red' ? ['-p'] : ['-c', '-s', '-S', '-u', '-U', '-i', '-w', '-W', '-T', '--cmd', '-l', '--eval', '--load', '-p']
  for (const o of operandsAfter(e.inv.args, valued)) if (!o.startsWith('+')) e.write(o)
})
on(['sort', 'shuf'], (e) => {
  const o = optValue(e.inv.args, ['-o'], ['--output'])
  if (o) e.write(o)
})
on(['curl'], (e) => {
  const o = optValue(e.inv.args, ['-o'], ['--output'])
  if (o) e.write(o)
  const dir = optValue(e.inv.args, [], ['--output-dir'])
  if (dir && (e.inv.args.includes('-O') || e.inv.args.includes('--remote-name'))) e.into(e.f.at(dir))
})
on(['wget'], (e) => {
  const o = optValue(e.inv.args, ['-O'], ['--output-document'])
  if (o && o !== '-') e.write(o)
  const dir = optValue(e.inv.args, ['-P'], ['--directory-prefix'])
  if (dir) e.into(e.f.at(dir))
})
// Removers.
on(['rm', 'unlink', 'rmdir', 'srm', 'trash', 'trash-put', 'rimraf', 'del-cli', 'trash-cli'], (e) => {
  for (const o of operandsAfter(e.inv.args, [])) e.remove(o)
})
on(['gio'], (e) => {
  if (e.inv.args[0] === 'trash' || e.inv.args[0] === 'remove' || e.inv.args[0] === 'move') for (const o of operandsAfter(e.inv.args.slice(1), [])) e.remove(o)
})
on(['find'], (e) => {
  const a = e.inv.args
  const rootsArg = findRoots(a)
  for (let i = 0; i < a.length; i++) if (/^-(fprint|fprint0|fprintf|fls)$/.test(a[i]) && a[i + 1]) e.write(a[i + 1])
  const changes = a.includes('-delete') || a.some((x) => /^-(exec|execdir|ok|okdir)$/.test(x))
  if (!changes) return
  // Which protected files could the expression select? -name/-iname/-path filters are tried on them.
  const names = a.flatMap((x, i) => (/^-i?name$/.test(x) && a[i + 1] ? [{ pat: a[i + 1], ci: x === '-iname' }] : []))
  for (const r of rootsArg.length ? rootsArg : ['.']) {
    const abs = e.f.at(r)
    if (!protectedRemoval(e.ctx, abs, e.links)) continue
    if (!names.length) {
      e.remove(r)
      continue
    }
    const candidates = protectedNames(e.ctx)
    if (candidates.some((n) => names.some((p) => segmentMatch(p.ci ? p.pat.toLowerCase() : p.pat, p.ci ? n.toLowerCase() : n) || segmentMatch(p.ci ? p.pat.toLowerCase() : p.pat, '.' + n)))) e.remove(r)
  }
})
on(['mv'], (e) => {
  const a = e.inv.args
  const t = optValue(a, ['-t'], ['--target-directory'])
  const ops = operandsAfter(a, ['-t', '--target-directory', '-S', '--suffix'])
  const sources = t ? ops : ops.slice(0, -1)
  const dest = t ?? ops[ops.length - 1]
  for (const s of sources) e.remove(s)
  if (dest !== undefined && sources.length) copyTargets(e, sources, dest, !!t, true)
})
on(['cp', 'install', 'ditto'], (e) => {
  const a = e.inv.args
  const t = optValue(a, ['-t'], ['--target-directory'])
  const ops = operandsAfter(a, ['-t', '--target-directory', '-S', '--suffix', '-m', '--mode', '-o', '--owner', '-g', '--group'])
  const sources = t ? ops : ops.slice(0, -1)
  const dest = t ?? ops[ops.length - 1]
  if (e.inv.name === 'install' && /d/.test(shortFlags(a))) return // install -d makes folders
  if (dest === undefined || !sources.length) return
  copyTargets(e, sources, dest, !!t, /[rRa]/.test(shortFlags(a)) || a.includes('--recursive') || a.includes('--archive') || e.inv.name === 'ditto')
})
on(['ln'], (e) => {
  const a = e.inv.args
  const t = optValue(a, ['-t'], ['--target-directory'])
  const ops = operandsAfter(a, ['-t', '--target-directory', '-S', '--suffix'])
  const targets = t ? ops : ops.length === 1 ? ops : ops.slice(0, -1)
  const dest = t ?? (ops.length === 1 ? '.' : ops[ops.length - 1])
  if (!targets.length || dest === undefined) return
  const destAbs = e.f.at(dest)
  const intoDir = !!t || ops.length === 1 || targets.length > 1 || dest.endsWith('/') || !!e.ctx.fs?.isDir(destAbs)
  for (const tg of targets) {
    const linkAbs = intoDir ? path.posix.join(destAbs, path.posix.basename(tg)) : destAbs
    e.write(linkAbs)
    // Remembered for the rest of the command: `ln -s .ratchet x && echo > x/guardrails.json`.
    if (a.includes('-s') || /s/.test(shortFlags(a)) || a.includes('--symbolic')) e.links.set(linkAbs, path.posix.resolve(path.posix.dirname(linkAbs), tg))
    else e.links.set(linkAbs, e.f.at(tg))
  }
})
on(['rsync'], (e) => {
  const a = e.inv.args
  const ops = operandsAfter(a, ['-e', '--rsh', '--exclude', '--include', '--filter', '-f', '--files-from', '--partial-dir', '--backup-dir', '--suffix', '--chmod', '--log-file', '-T', '--temp-dir'])
  const dest = ops[ops.length - 1]
  const sources = ops.slice(0, -1)
  if (!dest || /^[^/]*:/.test(dest) || dest.startsWith('rsync://')) return
  copyTargets(e, sources.filter((s) => !/^[^/]*:/.test(s)), dest, true, true)
  if (a.some((x) => x.startsWith('--delete'))) e.into(e.f.at(dest))
  if (a.includes('--remove-source-files')) for (const s of sources) e.remove(s)
})
// Archives: tar x / unzip / 7z x / cpio -i / bsdtar / ar x / jar x / pax -r.
on(['tar', 'bsdtar', 'gtar'], (e) => {
  const a = e.inv.args
  const first = a[0] ?? ''
  const bundle = !first.startsWith('-') ? first : ''
  const mode = (long: string, letter: string) => a.includes(`--${long}`) || bundle.replace(/^-/, '').includes(letter) || a.some((y) => /^-[a-zA-Z]+$/.test(y) && y.includes(letter))
  const extract = mode('extract', 'x') || a.includes('--get')
  const create = !extract && (mode('create', 'c') || mode('append', 'r') || mode('update', 'u'))
  let file = optValue(a, ['-f'], ['--file'])
  if (!file && bundle.includes('f')) file = a[1]
  if (!file) {
    const fb = a.find((y) => /^-[a-zA-Z]*f$/.test(y))
    if (fb) file = a[a.indexOf(fb) + 1]
  }
  if (create) {
    if (file && file !== '-') e.write(file)
    return
  }
  if (!extract) return
  const dir = e.f.at(optValue(a, ['-C'], ['--directory']) ?? '.')
  extractInto(e, file && file !== '-' ? e.f.at(file) : undefined, dir, Number(optValue(a, [], ['--strip-components']) ?? 0), a.some((y) => y.startsWith('--transform') || y.startsWith('--xform') || y === '-s' || y === '-P' || y === '--absolute-names'))
})
on(['unzip'], (e) => {
  const a = e.inv.args
  if (a.some((y) => /^-[a-zA-Z]*[lvtZ]/.test(y))) return // list / test only
  const d = optValue(a, ['-d'], [])
  const ops = operandsAfter(a, ['-d', '-x', '-P'])
  extractInto(e, ops[0] ? e.f.at(ops[0]) : undefined, e.f.at(d ?? '.'), 0, false)
})
// `python -m zipfile -e x.zip .`, `python -m tarfile -e x.tgz dest` (commands.ts peels `python -m`).
on(['zipfile', 'tarfile'], (e) => {
  const a = e.inv.args
  const k = a.findIndex((y) => y === '-e' || y === '--extract')
  if (k < 0) return
  extractInto(e, a[k + 1] ? e.f.at(a[k + 1]) : undefined, e.f.at(a[k + 2] ?? '.'), 0, false)
})
on(['7z', '7za', '7zr'], (e) => {
  const a = e.inv.args
  if (a[0] !== 'x' && a[0] !== 'e') return
  const o = a.find((y) => y.startsWith('-o'))
  extractInto(e, a[1] ? e.f.at(a[1]) : undefined, e.f.at(o ? o.slice(2) : '.'), 0, false)
})
on(['cpio', 'pax', 'ar', 'jar'], (e) => {
  const a = e.inv.args
  const extract = e.inv.name === 'cpio' ? a.some((y) => /^-[a-zA-Z]*i/.test(y) || y === '--extract') : e.inv.name === 'pax' ? a.some((y) => /^-[a-zA-Z]*r/.test(y)) : /x/.test(a[0] ?? '')
  if (extract) e.into(e.f.at(optValue(a, ['-D'], ['--directory']) ?? '.'))
})
on(['gunzip', 'gzip', 'bunzip2', 'bzip2', 'xz', 'unxz', 'zstd', 'unzstd', 'lz4', 'brotli'], (e) => {
  const a = e.inv.args
  if (a.some((y) => /^-[a-zA-Z]*[ctl]/.test(y) || y === '--stdout' || y === '--list' || y === '--test')) return
  const decompress = /^un|gunzip/.test(e.inv.name) || a.some((y) => /^-[a-zA-Z]*d/.test(y) || y === '--decompress')
  for (const o of operandsAfter(a, ['-S', '--suffix', '-o'])) {
    e.remove(o) // the input is replaced
    if (decompress) e.write(o.replace(/\.(gz|bz2|xz|zst|lz4|br|z)$/i, ''))
    else e.write(`${o}.x`)
  }
})
// Patches.
on(['patch'], (e) => {
  const a = e.inv.args
  const dir = e.f.at(optValue(a, ['-d'], ['--directory']) ?? '.')
  const strip = Number(optValue(a, ['-p'], ['--strip']) ?? NaN)
  const ops = operandsAfter(a, ['-p', '--strip', '-d', '--directory', '-i', '--input', '-o', '--output', '-r', '--reject-file', '-B', '--prefix', '-D', '--ifdef', '-F', '--fuzz', '-z', '--suffix', '-V', '--version-control'])
  const out = optValue(a, ['-o'], ['--output'])
  if (out && out !== '-') e.write(out)
  if (ops[0]) {
    e.write(ops[0]) // `patch file [patchfile]`: the file named is the one changed
    return
  }
  const input = optValue(a, ['-i'], ['--input']) ?? e.inv.redirects.find((r) => r.op === '<')?.target
  patchInto(e, input !== undefined ? e.ctx.fs?.readText(e.f.at(input)) : e.inv.stdin, dir, Number.isNaN(strip) ? undefined : strip)
})

/** Entries of an archive, resolved under the extraction folder; an unreadable listing is "anything under it". */
function extractInto(e: Effect, archive: string | undefined, dir: string, strip: number, renames: boolean): void {
  const entries = archive && !renames ? e.ctx.fs?.archiveEntries(archive) : undefined
  if (!entries) {
    e.into(dir, `${e.f.cmd} (an archive whose listing cannot be read extracts anything under ${dir})`)
    return
  }
  for (const entry of entries) {
    const parts = entry.split('/').filter(Boolean).slice(strip)
    if (!parts.length) continue
    const abs = path.posix.resolve(dir, parts.join('/'))
    if (protectedPath(e.ctx, abs, e.links) || (entry.endsWith('/') && protectedRemoval(e.ctx, abs, e.links))) e.write(abs, `${e.f.cmd} (extracts ${entry})`)
  }
}

/** The files a unified or git diff changes, under `dir` (both strip levels when not given). */
export function patchTargets(text: string): string[] {
  const out: string[] = []
  for (const line of text.split('\n').slice(0, 20_000)) {
    let m = /^(?:\+\+\+|---) (\S+)/.exec(line)
    if (m && m[1] !== '/dev/null') out.push(m[1])
    m = /^diff --git (\S+) (\S+)/.exec(line)
    if (m) out.push(m[1], m[2])
    m = /^(?:rename|copy) (?:from|to) (.+)$/.exec(line)
    if (m) out.push(m[1])
  }
  return [...new Set(out)]
}

function patchInto(e: Effect, text: string | undefined, dir: string, strip?: number): void {
  if (text === undefined) {
    e.into(dir, `${e.f.cmd} (a patch that cannot be read may change anything under ${dir})`)
    return
  }
  for (const t of patchTargets(text)) {
    const parts = t.split('/')
    for (const s of strip === undefined ? [0, 1] : [strip]) {
      const rel = parts.slice(s).join('/')
      if (rel && protectedPath(e.ctx, path.posix.resolve(dir, rel), e.links)) e.write(path.posix.resolve(dir, rel), `${e.f.cmd} (patches ${t})`)
    }
  }
}

// Package managers: removing or replacing Ratchet's own package takes its hooks away (`npm uninstall ratchet`,
// `npm install ratchet@0.0.1`, `npm install ./other-ratchet.tgz`). A plain `npm install` or `npm ci` reinstalls
// what the lockfile says and stays quiet.
/** What removing or replacing the package changes: its bin/ (installed), else the project's launcher of preflight-check. */
const ownPackage = (ctx: ClassifyContext) => (ctx.packageDir ? path.posix.join(ctx.packageDir, 'bin') : path.posix.join(ctx.projectDir, 'node_modules/.bin/preflight-check'))
const PM_REMOVE = new Set(['uninstall', 'remove', 'rm', 'r', 'un', 'unlink', 'prune'])
const PM_ADD = new Set(['install', 'i', 'add', 'update', 'up', 'upgrade', 'isntall', 'in', 'link', 'ln'])
on(['npm', 'pnpm', 'yarn', 'bun', 'cnpm'], (e) => {
  const ops = operandsAfter(e.inv.args, ['--prefix', '-C', '--dir', '--cwd', '-w', '--workspace', '--filter', '--registry'])
  const verb = ops[0] ?? ''
  const names = new Set(['ratchet', ...(e.ctx.packageDir ? [path.posix.basename(e.ctx.packageDir)] : [])])
  const ours = (spec: string) => {
    // `ratchet`, `ratchet@1.2`, `@scope/ratchet`, a tarball or folder named after it, an alias `ratchet@npm:x`.
    // (The version cut by hand: /@.*$/ is quadratic on ('@a')×5000 — redos test.)
    const unscoped = spec.replace(/^@[^/]+\//, '')
    const bare = unscoped.includes('@') ? unscoped.slice(0, unscoped.indexOf('@')) : unscoped
    let file = path.posix.basename(spec)
    const ext = ['.tgz', '.tar.gz'].find((x) => file.endsWith(x))
    if (ext) {
      file = file.slice(0, -ext.length)
      const v = /-\d/.exec(file) // `ratchet-0.1.0.tgz`: the name before the version
      if (v) file = file.slice(0, v.index)
    }
    return names.has(bare) || names.has(file) || spec.startsWith('ratchet@')
  }
  const pkg = (verb === 'pkg' && (ops[1] === 'set' || ops[1] === 'delete')) ? ops.slice(2).find((x) => /^(dev|optional|peer)?[dD]ependencies[.[]["']?ratchet\b/.test(x) || /^bin[.[]/.test(x)) : undefined
  if ((PM_REMOVE.has(verb) || PM_ADD.has(verb)) && ops.slice(1).some(ours)) e.write(ownPackage(e.ctx), `${e.f.cmd} (removes or replaces Ratchet's installed package)`)
  else if (pkg) e.write(ownPackage(e.ctx), `${e.f.cmd} (changes how Ratchet's package is installed)`)
  else if (e.inv.name === 'npm' && (PM_ADD.has(verb) || verb === '')) {
    // `npm install` after package.json was edited in an earlier call: the spec npm would install for Ratchet's
    // package, against the one the lockfile recorded when it was installed. Changed or removed: it replaces it.
    const dir = optValue(e.inv.args, ['-C'], ['--prefix']) ?? '.'
    const pj = e.ctx.fs?.readText(e.f.at(path.posix.join(dir, 'package.json')))
    const lock = e.ctx.fs?.readText(e.f.at(path.posix.join(dir, 'package-lock.json')))
    if (pj === undefined || lock === undefined) return
    const was = lockedSpecs(lock, ratchetNames(e.ctx))
    const now = packageSpecs(pj, ratchetNames(e.ctx))
    if (!was || !now) return
    for (const [name, spec] of was) if (now.get(name) !== spec) e.write(ownPackage(e.ctx), `${e.f.cmd} (package.json now ${now.has(name) ? `asks for ${name}@${now.get(name)}` : `has no ${name}`}; the installed one is ${name}@${spec}: it would replace Ratchet's package)`)
  }
})

const DEP_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const

/** The names Ratchet's package goes by here: `ratchet`, and the folder it is installed in. */
function ratchetNames(ctx: ClassifyContext): Set<string> {
  const names = new Set(['ratchet'])
  if (ctx.packageDir) {
    const parts = ctx.packageDir.split('/')
    const i = parts.lastIndexOf('node_modules')
    if (i >= 0 && parts[i + 1]) names.add(parts[i + 1].startsWith('@') ? `${parts[i + 1]}/${parts[i + 2] ?? ''}` : parts[i + 1])
  }
  return names
}

/** A package.json's specs for these names (dependencies of every kind, and overrides/resolutions); undefined when it is not JSON. */
function packageSpecs(text: string, names: Set<string>): Map<string, string> | undefined {
  let pkg: Record<string, unknown>
  try {
    pkg = JSON.parse(text) as Record<string, unknown>
  } catch {
    return undefined
  }
  if (!pkg || typeof pkg !== 'object') return undefined
  const out = new Map<string, string>()
  const pnpm = (pkg.pnpm as { overrides?: unknown } | undefined)?.overrides
  for (const field of [...DEP_FIELDS, 'overrides', 'resolutions'] as const) {
    const deps = (field === 'overrides' && !pkg.overrides ? pnpm : pkg[field]) as Record<string, unknown> | undefined
    if (!deps || typeof deps !== 'object') continue
    for (const n of names) if (typeof deps[n] === 'string' && !out.has(n)) out.set(n, deps[n] as string)
  }
  return out
}

/** What package-lock.json recorded for the project's own specs of these names (lockfile v2/v3 `packages[""]`, v1 `dependencies`). */
function lockedSpecs(text: string, names: Set<string>): Map<string, string> | undefined {
  let lock: { packages?: Record<string, Record<string, unknown>>; dependencies?: Record<string, { version?: string }> }
  try {
    lock = JSON.parse(text)
  } catch {
    return undefined
  }
  const root = lock?.packages?.['']
  if (!root) return undefined
  const out = new Map<string, string>()
  for (const field of DEP_FIELDS) {
    const deps = root[field] as Record<string, unknown> | undefined
    if (deps && typeof deps === 'object') for (const n of names) if (typeof deps[n] === 'string' && !out.has(n)) out.set(n, deps[n] as string)
  }
  return out
}

/**
 * Write/Edit of a package.json that changes how Ratchet's package is installed (its spec changed, or removed,
 * or overridden): the next `npm install` replaces or removes Ratchet. Adding an ordinary dependency stays quiet.
 */
export function packageJsonChange(c: Sink, abs: string, tool: string, input: Record<string, unknown>): void {
  if (path.posix.basename(abs) !== 'package.json' || abs.includes('/node_modules/')) return
  const names = ratchetNames(c.ctx)
  const before = c.ctx.fs?.readText(abs)
  const str = (v: unknown) => (typeof v === 'string' ? v : '')
  let after: string | undefined
  if (tool === 'Write') after = str(input.content)
  else if (before !== undefined) {
    const edits = tool === 'MultiEdit' && Array.isArray(input.edits) ? (input.edits as Record<string, unknown>[]) : [input]
    after = before
    for (const ed of edits) {
      const o = str(ed.old_string)
      if (!o) continue
      after = ed.replace_all ? after.split(o).join(str(ed.new_string)) : after.replace(o, () => str(ed.new_string))
    }
  }
  const was = before === undefined ? undefined : packageSpecs(before, names)
  if (after === undefined) {
    // The file cannot be read: an edit that names Ratchet's package is taken at its worst.
    const text = [input.old_string, input.new_string, ...(Array.isArray(input.edits) ? (input.edits as Record<string, unknown>[]).flatMap((x) => [x.old_string, x.new_string]) : [])].map(str).join('\n')
    if ([...names].some((n) => text.includes(`"${n}"`))) c.add('ratchet_state_edit', `${tool} ${abs} (changes Ratchet's package entry in a package.json that cannot be read)`)
    return
  }
  const now = packageSpecs(after, names)
  if (!was?.size) return
  for (const [name, spec] of was) {
    const next = now?.get(name)
    if (next !== spec) c.add('ratchet_state_edit', `${tool} ${abs} (${next === undefined ? `removes ${name}` : `changes ${name} from ${spec} to ${next}`}: the next install would replace or remove Ratchet's package)`)
  }
}

// git: the commands that write the work tree.
on(['git'], (e) => {
  const a = e.inv.args
  let i = 0
  let dir = e.f.base
  while (i < a.length && a[i].startsWith('-')) {
    if (a[i] === '-C') dir = path.posix.resolve(dir, a[i + 1] ?? '.')
    i += a[i] === '-C' || a[i] === '-c' || a[i] === '--git-dir' || a[i] === '--work-tree' || a[i] === '--namespace' ? 2 : 1
  }
  const sub = a[i] ?? ''
  const rest = a.slice(i + 1)
  const flags = shortFlags(rest)
  const dd = rest.indexOf('--')
  const at = (p: string) => path.posix.resolve(dir, p.replace(/^:\(top\)|^:\//, ''))
  const pathspecs = (list: string[]) => list.filter((x) => !x.startsWith('-'))
  const status = (codes: (code: string) => boolean, specs: string[]) => {
    // What git status says is there, under the pathspecs (or everywhere), in the protected paths.
    const r = roots(e.ctx)
    const scope = specs.length ? specs.map(at) : [dir]
    for (const root of [...r.dirs, ...r.claude]) {
      if (!scope.some((s) => inside(root, s) || inside(s, root))) continue
      const st = e.ctx.fs?.gitStatus?.(root)
      if (!st) continue
      const hit = st.find((x) => codes(x.code) && (lexical(e.ctx, x.path) || (r.claude.some((c) => inside(x.path, c)) && /\/settings[^/]*\.json$/.test(x.path))) && scope.some((s) => inside(x.path, s)))
      if (hit) e.write(hit.path, `${e.f.cmd} (would change ${hit.path})`)
    }
  }
  const modified = (code: string) => code !== '??' && code !== '!!'
  /**
   * Moving the work tree to `ref` (null: an orphan branch, an emptied index) changes the files that differ
   * there: `git checkout HEAD~1` before Ratchet was added removes .claude/settings.json. Asked of git, only
   * under the protected folders (and the given paths).
   */
  const tree = (ref: string | null, specs: string[] = []) => {
    const changes = e.ctx.fs?.gitTreeChanges
    if (!changes) return
    const r = roots(e.ctx)
    const scope = specs.map(at)
    const ask = [...r.dirs, ...r.claude].flatMap((root) => (!scope.length ? [root] : scope.filter((s) => inside(s, root)).concat(scope.some((s) => inside(root, s)) ? [root] : [])))
    if (!ask.length) return
    if (ref !== null && /[$`]/.test(ref)) {
      // `git checkout $(git rev-list --max-parents=0 HEAD)`: a commit named at run time. When Ratchet's files are
      // tracked, any commit may lack them: the worst reading is that they go.
      const tracked = changes(dir, null, ask)
      if (tracked === undefined || tracked.length) e.write(tracked?.[0] ?? path.posix.join(e.ctx.projectDir, '.claude/settings.json'), `${e.f.cmd} (moves the work tree to a commit named at run time, which may not hold Ratchet's files: name the commit)`)
      return
    }
    const changed = changes(dir, ref, ask) ?? []
    const hit = changed.find((x) => (lexical(e.ctx, x) || (r.claude.some((c) => inside(x, c)) && /\/settings[^/]*\.json$/.test(x))) && (!scope.length || scope.some((s) => inside(x, s))))
    if (hit) e.write(hit, `${e.f.cmd} (would change ${hit})`)
  }
  const refOf = (x: string | undefined) => (x === '-' ? '@{-1}' : x)
  /**
   * An operation that brings in another tree (merge, pull, cherry-pick, revert, stash pop/apply): the protected
   * files it would change, asked of git without running it. When git cannot say and Ratchet's files are tracked,
   * the worst reading is that it changes them (a commit named at run time, an unknown ref): a check, not a deny.
   */
  const brings = (op: 'merge' | 'pick' | 'stash', ref: string, missingIsQuiet = false) => {
    const ask = [...roots(e.ctx).dirs, ...roots(e.ctx).claude]
    const changes = e.ctx.fs?.gitOpChanges
    if (!changes || !ask.length) return
    const r = roots(e.ctx)
    const protectedHit = (x: string) => lexical(e.ctx, x) || (r.claude.some((c) => inside(x, c)) && /\/settings[^/]*\.json$/.test(x))
    const changed = /[$`]/.test(ref) ? undefined : changes(dir, op, ref, ask)
    if (changed === undefined) {
      if (missingIsQuiet) return
      const tracked = e.ctx.fs?.gitTreeChanges?.(dir, null, ask)
      if (tracked === undefined || tracked.some(protectedHit)) e.c.add('unreadable', `${e.f.cmd} (git cannot say what ${ref} would bring into Ratchet's tracked files; name a commit git knows)`)
      return
    }
    const hit = changed.find(protectedHit)
    if (hit) e.write(hit, `${e.f.cmd} (would bring in a different ${path.posix.relative(e.ctx.projectDir, hit) || hit})`)
  }
  switch (sub) {
    case 'merge': {
      if (rest.some((x) => /^--(abort|quit|continue|skip)$/.test(x))) return
      const refs = pathspecs(rest.filter((_x, k) => !/^(-m|--message|-F|--file|-s|--strategy|-X|--strategy-option|--into-name|--cleanup)$/.test(rest[k - 1] ?? '')))
      for (const ref of refs.length ? refs : ['@{upstream}']) brings('merge', ref)
      return
    }
    case 'pull': {
      // Against the upstream as last fetched: what the fetch itself brings is not here before it runs.
      const ops = pathspecs(rest.filter((_x, k) => !/^(-s|--strategy|-X|--strategy-option|--depth|--deepen|--shallow-since|--shallow-exclude|-j|--jobs|--upload-pack)$/.test(rest[k - 1] ?? '')))
      const remote = ops[0]
      const refs = ops.slice(1).map((b) => `refs/remotes/${remote}/${b.replace(/^\+/, '').split(':')[0]}`)
      for (const ref of refs.length ? refs : remote ? [`${remote}/HEAD`] : ['@{upstream}']) brings('merge', ref)
      return
    }
    case 'cherry-pick':
    case 'revert': {
      if (rest.some((x) => /^--(abort|quit|continue|skip)$/.test(x))) return
      for (const ref of pathspecs(rest.filter((_x, k) => !/^(-m|--mainline|-X|--strategy-option|--strategy|-S)$/.test(rest[k - 1] ?? ''))).slice(0, 16)) brings('pick', ref)
      return
    }
    case 'worktree': {
      // `git worktree add <path> [<commit>]`: a new checkout whose .claude/settings.json decides its hooks; a
      // session started there runs under whatever that commit holds.
      if (pathspecs(rest)[0] !== 'add') return
      const ops = pathspecs(rest.slice(rest.indexOf('add') + 1).filter((_x, k, arr) => !/^(-b|-B|--reason)$/.test(arr[k - 1] ?? '')))
      if (ops[1]) tree(ops[1])
      return
    }
    case 'update-ref':
    case 'symbolic-ref':
      return
    case 'rm':
    case 'mv':
      for (const p of pathspecs(rest)) e.remove(at(p))
      return
    case 'apply':
    case 'am': {
      if (rest.some((x) => x === '--check' || x === '--stat' || x === '--numstat' || x === '--summary') && !rest.includes('--apply')) return
      const files = pathspecs(rest)
      const strip = Number(optValue(rest, ['-p'], []) ?? NaN)
      const d = optValue(rest, [], ['--directory'])
      const base = d ? path.posix.resolve(dir, d) : dir
      if (!files.length) patchInto(e, e.inv.stdin, base, Number.isNaN(strip) ? 1 : strip)
      for (const file of files) patchInto(e, file === '-' ? e.inv.stdin : e.ctx.fs?.readText(at(file)), base, Number.isNaN(strip) ? 1 : strip)
      return
    }
    case 'checkout':
    case 'restore': {
      if (sub === 'restore' && (rest.includes('--staged') || flags.includes('S')) && !(rest.includes('--worktree') || flags.includes('W'))) return
      const valued = rest.filter((_x, k) => k === 0 || !/^(--source|-s|--conflict|-b|-B|--orphan)$/.test(rest[k - 1]))
      // `git checkout <ref> <paths>` or `git checkout <paths>`: the first operand is a path if it looks like one.
      const ops = pathspecs(valued)
      const looksLikePath = (x: string) => x === '.' || x.startsWith('./') || x.includes('/') || GLOB.test(x) || e.ctx.fileExists(at(x))
      const specs = dd >= 0 ? pathspecs(rest.slice(dd + 1)) : sub === 'restore' || (ops[0] !== undefined && looksLikePath(ops[0])) ? ops : ops.slice(1)
      for (const s of specs) if (protectedPath(e.ctx, at(s), e.links) || (GLOB.test(s) && globHits(e.ctx, at(s), true))) e.write(at(s), e.f.cmd)
      if (specs.length || flags.includes('f') || rest.includes('--force')) status(modified, specs)
      // The tree (or the paths) taken from another commit: `git checkout HEAD~1`, `git checkout v1 -- .`,
      // `git restore --source=v1 .`, `git checkout -b x v1`. `--orphan` keeps the files as they are.
      const vdd = valued.indexOf('--')
      const source = sub === 'restore' ? optValue(rest, ['-s'], ['--source']) : vdd >= 0 ? pathspecs(valued.slice(0, vdd))[0] : specs.length ? (specs === ops ? undefined : ops[0]) : rest.includes('--orphan') ? undefined : ops[0]
      if (source && source !== 'HEAD') tree(refOf(source) ?? source, specs)
      return
    }
    case 'switch': {
      // `git switch x`, `-d v1`, `-c new v1`, `--orphan x` (which empties the tree of tracked files).
      if (rest.includes('--orphan')) return tree(null)
      const ops = pathspecs(rest.filter((_x, k) => !/^(-c|-C|--create|--force-create|--conflict)$/.test(rest[k - 1] ?? '')))
      if (ops[0] && ops[0] !== 'HEAD') tree(refOf(ops[0]) ?? ops[0])
      return
    }
    case 'rebase': {
      // `git rebase --onto HEAD~1 HEAD` leaves the tree of HEAD~1 (plus the commits replayed, none here).
      const onto = optValue(rest, [], ['--onto'])
      if (onto) tree(onto)
      return
    }
    case 'read-tree': {
      if (!(rest.includes('-u') || flags.includes('u'))) return
      if (rest.includes('--empty')) return tree(null)
      const ops = pathspecs(rest.filter((_x, k) => !/^(--prefix|--index-output|--exclude-per-directory)$/.test(rest[k - 1] ?? '')))
      const target = ops[ops.length - 1]
      if (target) tree(target)
      return
    }
    case 'reset':
      if (rest.includes('--hard') || rest.includes('--merge') || rest.includes('--keep')) {
        status(modified, dd >= 0 ? pathspecs(rest.slice(dd + 1)) : [])
        const target = pathspecs(dd >= 0 ? rest.slice(0, dd) : rest)[0]
        if (target && target !== 'HEAD') tree(target)
        // `git update-ref HEAD <c> && git reset --hard`: HEAD was moved earlier in this line, so the reset
        // brings in <c>'s tree (`branch -f`, `symbolic-ref HEAD` alike).
        else for (const moved of movedHead(e.f.earlier ?? [])) tree(moved)
      }
      return
    case 'stash': {
      const verb = pathspecs(rest)[0] ?? 'push'
      if (verb === 'pop' || verb === 'apply' || verb === 'branch') {
        const ops = pathspecs(rest).slice(verb === 'branch' ? 2 : 1)
        const given = ops[0] ?? 'stash@{0}'
        const ref = /^\d+$/.test(given) ? `stash@{${given}}` : given
        // `git stash && git stash pop`: the stash popped is the one this line just made, and making it was judged
        // above (stashing Ratchet's changed files is a change to them); it brings back only what it took. Older
        // stashes moved one place down: stash@{1} is today's stash@{0}.
        const made = (e.f.earlier ?? []).filter(stashPush).length
        const n = /^stash@\{(\d+)\}$/.exec(ref)
        // (If nothing was there to stash, the line pops an older stash after all: that one, if it exists, is judged.)
        if (made && n) return Number(n[1]) < made ? brings('stash', ref, true) : brings('stash', `stash@{${Number(n[1]) - made}}`)
        return brings('stash', ref)
      }
      if (verb !== 'push' && verb !== 'save' && !(rest.length && rest[0].startsWith('-'))) return
      const all = rest.includes('-a') || rest.includes('--all')
      const untracked = all || rest.includes('-u') || rest.includes('--include-untracked')
      status((code) => modified(code) || (untracked && code === '??') || (all && code === '!!'), dd >= 0 ? pathspecs(rest.slice(dd + 1)) : [])
      return
    }
    case 'clean': {
      if (!(flags.includes('f') || rest.includes('--force')) || flags.includes('n') || rest.includes('--dry-run')) return
      const specs = dd >= 0 ? pathspecs(rest.slice(dd + 1)) : pathspecs(rest)
      const x = flags.includes('x')
      const X = flags.includes('X')
      for (const s of specs) if (protectedRemoval(e.ctx, at(s), e.links) && lexical(e.ctx, at(s))) e.write(at(s), e.f.cmd)
      status((code) => (X ? code === '!!' : code === '??' || (x && code === '!!')), specs)
      return
    }
  }
})

/** `git [global options] stash [push|save] …`: an invocation that makes a new stash@{0}. */
function stashPush(inv: Invocation): boolean {
  if (inv.name !== 'git') return false
  const i = inv.args.indexOf('stash')
  if (i < 0) return false
  const verb = inv.args.slice(i + 1).find((a) => !a.startsWith('-'))
  return verb === undefined || verb === 'push' || verb === 'save'
}

/** Where earlier commands in the same line moved HEAD to (`git update-ref HEAD c`, `branch -f <b> c`, `symbolic-ref HEAD refs/heads/b`). */
function movedHead(earlier: Invocation[]): string[] {
  const out: string[] = []
  for (const inv of earlier) {
    if (inv.name !== 'git') continue
    const ops = inv.args.filter((x, k) => !x.startsWith('-') && !/^(-m|-C|-c)$/.test(inv.args[k - 1] ?? ''))
    if (ops[0] === 'update-ref' && ops[1] && ops[2] && (ops[1] === 'HEAD' || ops[1].startsWith('refs/heads/'))) out.push(ops[2])
    else if (ops[0] === 'branch' && (inv.args.includes('-f') || inv.args.includes('--force')) && ops[2]) out.push(ops[2])
    else if (ops[0] === 'symbolic-ref' && ops[1] === 'HEAD' && ops[2]) out.push(ops[2])
    else if (ops[0] === 'reset' && inv.args.includes('--soft') && ops[1]) out.push(ops[1])
  }
  return out.slice(0, 8)
}

/** File names that live in the protected folders (for `find -name` filters). */
function protectedNames(ctx: ClassifyContext): string[] {
  const names = new Set(['.ratchet', '.claude', 'guardrails.json', '.guardrails-index.json', 'config.json', 'pending-actions.json', 'activity.jsonl', 'settings.json', 'settings.local.json', 'sessions', 'custodiet'])
  for (const d of [ctx.stateDir, path.posix.join(ctx.projectDir, '.ratchet')]) for (const n of (ctx.fs?.list(d) ?? []).slice(0, 200)) names.add(n)
  return [...names]
}

// ---------------------------------------------------------------------------------------------
// Ratchet's CLI, however it is invoked.

/** What the agent may run: reading and explaining. Everything else changes rules, approvals or registrations. */
const READ_VERBS: Record<string, Set<string>> = {
  guardrails: new Set(['list', 'explain', 'patterns', 'show', 'help']),
  pending: new Set(['list', 'show', 'help']),
  proposals: new Set(['list', 'show', 'help']),
  incident: new Set(['list', 'show', 'add', 'help']),
  cases: new Set(['list', 'show', 'verify', 'export', 'help']),
  courtroom: new Set(['status', 'help', 'calibrate']),
  custodiet: new Set(['status', 'help']),
}
// Not `heartbeat`: it takes the humans' decisions from Telegram, whose address the agent could point elsewhere (exfil).
const READ_NOUNS = new Set(['doctor', 'log', 'report', 'help', 'status'])
/** First words of Ratchet's CLI commands that change something (with READ_VERBS deciding for the nouns with verbs). */
const DECIDING_NOUNS = new Set(['uninstall', 'init', 'install', 'pending', 'guardrails', 'proposals', 'custodiet', 'courtroom', 'config', 'telegram', 'enable', 'disable', 'report', 'heartbeat'])

/** Ratchet's deciding commands (what humanOnly guards), by their words: `pending approve`, `uninstall`, `heartbeat`… */
const DECIDING: Record<string, RegExp | true> = {
  pending: /^(approve|deny)$/,
  proposals: /^(approve|reject)$/,
  custodiet: /^release$/,
  courtroom: /^(enable|disable|revoke|rotate-key|clear)$/,
  guardrails: /^(add|remove|edit|enable|disable|set)$/,
  cases: /^submit$/,
  uninstall: true,
  init: true,
  heartbeat: true,
}

/** `pending approve` (as words of a command line, or quoted items of code), or undefined. */
function decidingWords(words: string[]): string | undefined {
  const w = words.map((x) => x.replace(/^['"]|['"],?$/g, '')).filter((x) => x && !x.startsWith('-'))
  for (let i = 0; i < w.length; i++) {
    const d = DECIDING[w[i]]
    if (d === true && !(w[i] === 'heartbeat' && words.includes('--cron-line'))) return w[i]
    if (d && d !== true && d.test(w[i + 1] ?? '')) return `${w[i]} ${w[i + 1]}`
  }
  return undefined
}

function isRatchetCli(inv: Invocation, ctx: ClassifyContext): boolean {
  const n = inv.name
  if (n === 'ratchet' || /^ratchet(@[^/]*)?$/.test(n) || /^ratchet\.(c|m)?js$/.test(n)) return true
  return false
  void ctx
}

function isRatchetScript(raw: string, abs: string, ctx: ClassifyContext): boolean {
  const base = path.posix.basename(raw)
  if (/^ratchet(\.(c|m)?js|\.ts)?$/.test(base)) return true
  if (ctx.packageDir && inside(abs, ctx.packageDir) && /(^|\/)(dist\/ratchet\.cjs|bin\/ratchet|lib\/cli\/main\.ts)$/.test(abs)) return true
  return /(^|\/)lib\/cli\/main\.ts$/.test(raw)
}

function ratchetCli(c: Sink, inv: Invocation, f: InvocationFacts, hits: string[]): void {
  const args = inv.args
  // Global options before the noun (`ratchet --dir x pending approve`) take no part in the decision.
  const words = args.filter((a, i) => !a.startsWith('-') && !/^--?(dir|project|state-dir|config)$/.test(args[i - 1] ?? ''))
  const [noun, verb] = words
  if (!noun) return
  if (args.some((a) => a === '--help' || a === '-h' || a === '--version' || a === '-V') && !['approve', 'deny'].includes(verb ?? '')) return
  // Labelling a check as needless (custodiet's `report label`) is the human's call, like lifting a hold.
  if (noun === 'report' && verb === 'label') {
    hits.push(`${f.cmd} (Ratchet's CLI: report label is the human's judgement of a check)`)
    return
  }
  if (READ_NOUNS.has(noun)) return
  if (noun === 'heartbeat' && args.includes('--cron-line')) return // prints a crontab line
  const reads = READ_VERBS[noun]
  if (reads && verb !== undefined && reads.has(verb)) return
  if (reads && verb === undefined && noun !== 'pending' && noun !== 'proposals') return
  if (reads && verb === undefined) return // `ratchet pending` lists
  hits.push(`${f.cmd} (Ratchet's CLI: ${[noun, verb].filter(Boolean).join(' ')} changes its rules, approvals or registrations)`)
  void c
}

/** @deprecated kept for the catalogue's table of programs: Ratchet's CLI is judged in selfProtection. */
export const programs: Record<string, Detector> = {}

// ---------------------------------------------------------------------------------------------
// Interpreter code.

/** Calls that write, move or remove files, in the languages the snippets come in (qualified, so `list.remove(x)` is not one). */
const WRITERS = /(?:\b(os\.(?:remove|unlink|rename|replace|rmdir|removedirs|link|symlink|truncate|chmod|chown|mkfifo|mknod|mkdir|makedirs)|POSIX::mkfifo|shutil\.(?:rmtree|move|copy|copy2|copyfile|copytree)|fs\.(?:promises\.)?(?:writeFile|appendFile|rm|rmdir|unlink|rename|copyFile|cp|symlink|link|truncate|chmod|open|mkdir)|mkdirSync|writeFileSync|appendFileSync|createWriteStream|copyFileSync|cpSync|renameSync|unlinkSync|rmSync|rmdirSync|symlinkSync|linkSync|truncateSync|chmodSync|openSync|open|fopen|file_put_contents|unlink|rmdir|rename|File\.(?:write|open|delete|unlink|rename|symlink)|IO\.write|FileUtils\.\w+)|\.(write_text|write_bytes|unlink|touch|mkdir|rename|symlink_to|hardlink_to|rmdir))\s*\(/g

/** Ways code hides a path: character codes, decoding, reversing, escapes, eval. */
const OBSCURED = /\bchr\s*\(|fromCharCode|b64decode|\batob\s*\(|['"]base64['"]|unhexlify|fromhex|codecs\.decode|rot_?13|\[::-1\]|\.reverse\(\)|\\x[0-9a-fA-F]{2}|\\u00[0-9a-fA-F]{2}|\\[0-7]{3}|\beval\s*\(|\bexec\s*\(|__import__|getattr\s*\(|\.pack\(|\bsprintf\s*\(\s*['"]%c/

const WRITE_FNS = 'writeFile|writeFileSync|appendFile|appendFileSync|rename|renameSync|unlink|unlinkSync|rm|rmSync|rmdir|rmdirSync|copyFile|copyFileSync|cp|cpSync|symlink|symlinkSync|link|linkSync|truncate|truncateSync|chmod|chmodSync|openSync|mkdir|mkdirSync|createWriteStream'
const PY_WRITE_FNS = 'remove|unlink|rename|replace|rmdir|removedirs|rmtree|move|copy|copy2|copyfile|copytree|symlink|truncate|chmod'
/**
 * The names a write function is taken under (`const { writeFileSync: put } = fs`, `const w = fs.renameSync`,
 * `import { rmSync as rm } from 'fs'`, `from os import remove as rm`, `from shutil import rmtree`): their calls
 * are writes that WRITERS cannot see by name.
 */
const RENAMED = new RegExp(`\\b(?:${WRITE_FNS})\\s*(?::|\\bas\\b)\\s*([A-Za-z_$][\\w$]*)`, 'g')
const JS_TAKEN = new RegExp(`\\b([A-Za-z_$][\\w$]*)\\s*=\\s*(?:fs|fsp|require\\(\\s*['"](?:node:)?fs(?:/promises)?['"]\\s*\\))(?:\\.promises)?\\.(?:${WRITE_FNS})\\b(?!\\s*\\()`, 'g')
const PY_TAKEN = new RegExp(`\\b([A-Za-z_]\\w*)\\s*=\\s*(?:os|shutil)\\.(?:${PY_WRITE_FNS})\\b(?!\\s*\\()`, 'g')
const PY_FN = new RegExp(`^(?:${PY_WRITE_FNS})$`)
function writerAliases(code: string): string[] {
  const out: string[] = []
  const text = code.slice(0, 65_536)
  for (const re of [RENAMED, JS_TAKEN, PY_TAKEN]) for (const m of text.matchAll(re)) out.push(m[1])
  for (const m of text.matchAll(/\bfrom\s+(?:os|shutil)\s+import\s+([^\n;]+)/g))
    for (const part of m[1].replace(/[()]/g, '').split(',')) {
      const [fn, , as] = part.trim().split(/\s+/)
      if (PY_FN.test(fn ?? '')) out.push(as ?? fn)
    }
  return [...new Set(out)].filter((n) => !/^(fs|os|shutil|path|require|open|true|false|null|undefined|this|new|function)$/.test(n))
}

const WRITE_WORDS = /\b(unlink|rename|rmtree|remove_tree|rm_rf|rm_r|truncate|symlink|syswrite|File\.write|write|delete|mkfifo|mknod|mkdir|makedirs)\b|['"][+]?>{1,2}/

const MENTIONS = /\.ratchet\b|\.config\/ratchet\b|\bratchet\/warm\b|\bratchet-warm\b|--warm\b|\.claude\b|guardrails\.json|pending-actions\.json|\bRATCHET_DIR\b|\bsettings(\.local)?\.json\b/

/** Archive extraction from interpreter code: zipfile/tarfile extractall, shutil.unpack_archive, AdmZip, node-tar. */
const EXTRACTS = /\b(extractall|extractAllTo|unpack_archive|extract_all)\s*\(|\btar\.(?:x|extract)\s*\(/g
const ARCHIVE_NAME = /(['"])([^'"\n]{1,1024}\.(?:zip|tar|tgz|tar\.gz|tar\.bz2|tar\.xz|whl|jar|tbz2|txz))\1/

/** Loading Ratchet's bundles or launchers from code (`require('./node_modules/ratchet/dist/loader.cjs')`). */
const LOADS = /\b(?:require|import)\s*\(\s*(['"`])([^'"`\n]{1,1024})\1|\bfrom\s+(['"])([^'"\n]{1,1024})\3/g

export const scanCode: CodeScanner = (c, s, detail) => {
  const code = s.code
  if (s.lang === 'sql') return
  const base = (s.cwdChanges ?? []).reduce((b, d) => path.posix.resolve(b, d.replace(/^~(?=\/|$)/, c.ctx.homeDir)), c.ctx.projectDir)
  // Running Ratchet's own code: as its CLI, with arguments we cannot see (deciding commands are the agent's to not run).
  for (const m of code.slice(0, 65_536).matchAll(LOADS)) {
    const spec = m[2] ?? m[4]
    const abs = spec.startsWith('.') || spec.startsWith('/') ? path.posix.resolve(base, spec) : path.posix.join(c.ctx.projectDir, 'node_modules', spec)
    if (/(^|\/)node_modules\/ratchet\/(dist|bin|lib)(\/|$)/.test(abs) || (!!c.ctx.packageDir && ['dist', 'bin'].some((d) => inside(abs, path.posix.join(c.ctx.packageDir!, d))))) {
      c.add('ratchet_state_edit', `${detail} (loads Ratchet's own code, which runs as its CLI: it could decide pauses or remove its hooks)`)
      return
    }
  }
  // Starting the warm decision process (`subprocess.Popen(['node', d + '/loader.cjs', '--warm', …])`).
  const joined = joinLiterals(code)
  if (/--warm\b/.test(joined) && /load|\bdist\b|ratchet/i.test(joined)) {
    c.add('ratchet_state_edit', `${detail} (starts Ratchet's warm decision process: it would decide calls with whatever this code gives it)`)
    return
  }
  // Extracting an archive: its listing when readable, else anything under the folder it extracts into.
  for (const m of code.slice(0, 65_536).matchAll(EXTRACTS)) {
    const args = firstArgument(code, m.index! + m[0].length)
    const lit = /^\s*(?:path\s*=\s*)?[rbfu]{0,2}(['"])([^'"\\]{0,1024})\1/.exec(m[1] === 'unpack_archive' ? args.replace(/^\s*[rbfu]{0,2}(['"])[^'"]*\1\s*,?/, '') : args)
    const dest = path.posix.resolve(base, (lit?.[2] || '.').replace(/^~(?=\/|$)/, c.ctx.homeDir))
    const arch = ARCHIVE_NAME.exec(code)?.[2]
    const entries = arch ? c.ctx.fs?.archiveEntries(path.posix.resolve(base, arch.replace(/^~(?=\/|$)/, c.ctx.homeDir))) : undefined
    if (entries) {
      const hit = entries.find((en) => {
        const abs = path.posix.resolve(dest, en)
        return protectedPath(c.ctx, abs) || (en.endsWith('/') && protectedRemoval(c.ctx, abs))
      })
      if (hit) {
        c.add('ratchet_state_edit', `${detail} (extracts ${hit})`)
        return
      }
    } else if (protectedInto(c.ctx, dest)) {
      c.add('ratchet_state_edit', `${detail} (an archive whose listing cannot be read extracts anything under ${dest})`)
      return
    }
  }
  const { stateDir, projectDir } = c.ctx
  const aliases = writerAliases(code)
  // Calls through a write function's other name count as that function's (their first argument is the target).
  const aliasCalls = aliases.length ? [...code.slice(0, 65_536).matchAll(new RegExp(`(?<![\\w$.])(${aliases.map((a) => a.replace(/\$/g, '\\$')).join('|')})\\s*\\(`, 'g'))] : []
  const writes = [...[...code.matchAll(WRITERS)].filter((m) => isWriteCall(code, m)), ...aliasCalls]
  const names = MENTIONS.test(joined) || joined.includes(stateDir) || (!!projectDir && joined.includes(path.posix.join(projectDir, '.claude'))) || (!!c.ctx.packageDir && joined.includes(path.posix.join(c.ctx.packageDir, 'dist')))
  // perl/ruby/php write without parentheses (`unlink ".ratchet/x"`, `open F, ">f"`): a protected name next to a writing word.
  if (names && (writes.length || WRITE_WORDS.test(code))) {
    c.add('ratchet_state_edit', detail)
    return
  }
  if (!writes.length) return // reading Ratchet's files is allowed
  if (names) {
    c.add('ratchet_state_edit', detail)
    return
  }
  if (OBSCURED.test(code)) {
    c.add('ratchet_state_edit', `${detail} (writes files through a path it obscures: Ratchet cannot tell it is not its own state)`)
    return
  }
  // A literal target is judged as the path it is (a symlink into a protected folder counts); a computed one is unreadable.
  let computed = false
  for (const m of writes) {
    if (m[2]) {
      // A method (`Path('x').write_text(…)`): its target is the receiver; judged by the Path literals in the code.
      const lits = [...code.matchAll(/Path\(\s*[rbfu]{0,2}(['"])([^'"\\]{0,1024})\1\s*\)/g)].map((x) => x[2])
      if (!lits.length) computed = true
      for (const l of lits) if (protectedPath(c.ctx, path.posix.resolve(c.ctx.projectDir, l.replace(/^~(?=\/|$)/, c.ctx.homeDir)))) {
        c.add('ratchet_state_edit', detail)
        return
      }
      continue
    }
    const arg = firstArgument(code, m.index! + m[0].length)
    const lit = /^\s*(?:[rbfu]{0,2})(['"`])([^'"`\\]*)\1\s*$/.exec(arg)
    if (lit) {
      const abs = path.posix.resolve(c.ctx.projectDir, lit[2].replace(/^~(?=\/|$)/, c.ctx.homeDir))
      if (protectedPath(c.ctx, abs)) {
        c.add('ratchet_state_edit', detail)
        return
      }
    } else if (arg.trim()) computed = true
  }
  if (computed) c.add('unreadable', `${s.via[s.via.length - 1]} writes to a path computed at run time`)
}

/** `open(p)` reads; `open(p, 'w')` writes. Other writer calls always write. */
function isWriteCall(code: string, m: RegExpMatchArray): boolean {
  const name = m[1] ?? ''
  if (/^(open|fopen|File\.open|fs\.open|openSync)$/.test(name)) {
    const args = code.slice(m.index! + m[0].length, m.index! + m[0].length + 400)
    const mode = /^[^)]*?,\s*(?:mode\s*=\s*)?['"]([^'"]{1,8})['"]/.exec(args)
    return !!mode && /[wax+>]/.test(mode[1])
  }
  return true
}

/** The text of a call's first argument (up to a top-level comma or the closing parenthesis), bounded. */
function firstArgument(code: string, start: number): string {
  let depth = 0
  let q = ''
  for (let i = start; i < code.length && i < start + 1024; i++) {
    const ch = code[i]
    if (q) {
      if (ch === '\\') i++
      else if (ch === q) q = ''
      continue
    }
    if (ch === '"' || ch === "'" || ch === '`') q = ch
    else if (ch === '(' || ch === '[' || ch === '{') depth++
    else if (ch === ')' || ch === ']' || ch === '}') {
      if (depth === 0) return code.slice(start, i)
      depth--
    } else if (ch === ',' && depth === 0) return code.slice(start, i)
  }
  return code.slice(start, start + 1024)
}

// ---------------------------------------------------------------------------------------------
// MCP tools, by their inputs.

const MCP_READS = /(^|_)(read|get|list|search|find|view|stat|info|tree|show|describe|query|fetch|head|tail|grep|glob|ls|cat|open_nodes|directory_tree)(_|$)/
const MCP_REMOVES = /(^|_)(delete|remove|rm|unlink|move|rename|mv|trash|purge|destroy)(_|$)/
const PATH_KEY = /^(path|paths|file|files|file_?path|filename|dir|directory|dest|destination|target|target_?path|source|source_?path|src|from|to|uri|new_?path|old_?path|output|out)$/i

/** An MCP tool that writes, moves or removes a protected path named in its input. */
export function mcpInputs(c: Sink, tool: string, input: Record<string, unknown>): void {
  const action = tool.split('__').slice(2).join('__').toLowerCase()
  if (MCP_READS.test(action) && !MCP_REMOVES.test(action) && !/write|edit|create|put|set|update|append|save|copy|patch|upload/.test(action)) return
  const removal = MCP_REMOVES.test(action)
  for (const p of mcpInputPaths(input, PATH_KEY)) {
    const abs = path.posix.resolve(c.ctx.projectDir, p.replace(/^~(?=\/|$)/, c.ctx.homeDir))
    if (removal ? protectedRemoval(c.ctx, abs) : protectedPath(c.ctx, abs)) {
      c.add('ratchet_state_edit', `${tool} ${p}`)
      return
    }
  }
}

export type { CodeSnippet }

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [READ_VERBS, DECIDING, programs]) Object.setPrototypeOf(table, null)
