// Self-protection, now that the OS holds the line. With the floor on (docs/threat-model.md), Claude Code's sandbox
// keeps every command and everything it starts off Ratchet's state, Claude Code's settings and Ratchet's install, at
// the kernel; permission rules keep the file tools off them. What is left here is what no sandbox sees:
// - the tools that run outside it: Write/Edit (exact paths, defence in depth beside the permission rules) and MCP
//   tools (by the paths in their input);
// - Ratchet's own CLI and hooks run by name, refused with a message the agent can act on, in every mode;
// - a package.json edit that changes how Ratchet is installed: the user's next install, outside the sandbox, would
//   replace it (judged when it is planted);
// - in best-effort mode (no sandbox) and for commands the settings exclude from it: a coarse screen. A command that
//   names a guarded path and is not a plain read is refused; a spelling that hides the name gets past it, by design
//   (docs/residual-risk.md): proving from a command's text that it cannot touch Ratchet is a race a reader loses.

import path from 'node:path'
import type { CodeSnippet, Invocation } from '../commands'
import { EXECUTABLES, PACKAGE_NAME } from '../manifest'
import type { ClassifyContext, CodeScanner, Detector, FamilyMeta, InvocationFacts, Sink } from './types'
import { joinLiterals, mcpInputPaths } from './util'

export type { FsFacts } from './types'

export const meta: FamilyMeta = {
  id: 'ratchet-self',
  classes: ['self_protection'],
  patterns: ['ratchet_state_edit', 'ratchet_key_read'],
  description: "Changing Ratchet's state, rules, hook registrations or installed files, or deciding its pauses",
  examples: [
    'echo [] > .ratchet/guardrails.json',
    'ratchet pending approve pa-1',
    'cp settings.local.json .claude/',
    'rm -rf .claude',
  ],
}

// Ratchet's executables with a bin/ launcher (lib/core/manifest.ts); a launcher of one in the project's
// node_modules/.bin is protected.
// `ratchet-guard` is the package's own name for the CLI's launcher (package.json bin).
const RATCHET_BINS = new Set<string>([...EXECUTABLES.filter((e) => e.bin).map((e) => e.name), PACKAGE_NAME])
/**
 * The executables Claude Code runs with a hook payload on stdin. Run by hand, one would record the payload as
 * Claude Code's (a prompt the user never typed widens what the agent was asked for). Inside the sandbox it could not
 * write that record; the name is still refused, so the agent hears why.
 */
const HOOK_BINS = new Set<string>(EXECUTABLES.filter((e) => e.kind === 'hook').map((e) => e.name))

const inside = (abs: string, dir: string) => abs === dir || abs.startsWith(dir.endsWith('/') ? dir : dir + '/')

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

// ---- in every mode: Ratchet's own CLI and hooks, by name ------------------------------------

/** Ratchet's deciding commands (what humanOnly guards), by their words: `pending approve`, `uninstall`, `heartbeat`… */
const DECIDING: Record<string, RegExp | true> = {
  pending: /^(approve|deny)$/,
  proposals: /^(approve|reject)$/,
  custodiet: /^(release|gate)$/,
  courtroom: /^(enable|disable|revoke|rotate-key|clear|hear|calibrate)$/,
  guardrails: /^(add|remove|edit|enable|disable|set)$/,
  cases: /^submit$/,
  incident: /^close$/,
  floor: /^(confirm|allow)$/,
  report: /^label$/,
  keys: /^(add|revoke)$/, // `ratchet serve keys add|revoke`: who the team's record trusts
  uninstall: true,
  install: true,
  update: true,
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

/** Ratchet's CLI: `ratchet …`, `npx ratchet-guard …` (npx is peeled by the reader), `node <…>/bin/ratchet …`. */
function ratchetArgs(inv: Invocation): string[] | undefined {
  if (/^ratchet(-guard)?(@[^/]*)?$|^ratchet\.(c|m)?js$/.test(inv.name)) return inv.args
  if (/^(node|nodejs|bun|tsx)$/.test(inv.name)) {
    const i = inv.args.findIndex((a) => !a.startsWith('-'))
    if (i >= 0 && /(^|\/)(bin\/ratchet|dist\/ratchet\.cjs|lib\/cli\/main\.ts)$/.test(inv.args[i]))
      return inv.args.slice(i + 1)
  }
  return undefined
}

/** The hook a command runs by hand (`preflight-check`, `node …/dist/preflight-check.cjs`, the warm process), or undefined. */
function hookByHand(inv: Invocation): string | undefined {
  if (inv.args.some((a) => a === '--help' || a === '-h')) return undefined
  if (HOOK_BINS.has(inv.name)) return inv.name
  if (/^(node|nodejs|bun|tsx)$/.test(inv.name)) {
    const script = inv.args.find((a) => !a.startsWith('-')) ?? ''
    const m = /(?:^|\/)(?:bin|dist)\/(preflight-check|session-start|custodiet|loader)(?:\.(?:fast\.)?cjs)?$/.exec(
      script,
    )
    if (m) return m[1] === 'loader' ? 'preflight-check' : m[1]
  }
  return undefined
}

// ---- best-effort: the coarse screen ----------------------------------------------------------

/** Programs that only read, list or print (their write redirects are judged by path in fs-write.ts). */
const HARMLESS = new Set([
  'cat',
  'less',
  'more',
  'head',
  'tail',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'jq',
  'yq',
  'wc',
  'ls',
  'stat',
  'file',
  'diff',
  'cmp',
  'sha256sum',
  'sha1sum',
  'md5sum',
  'du',
  'tree',
  'realpath',
  'readlink',
  'basename',
  'dirname',
  'test',
  '[',
  '[[',
  'echo',
  'printf',
  'true',
  ':',
  'cd',
  'pushd',
  'popd',
  'pwd',
  'column',
  'sort',
  'uniq',
  'cut',
  'tr',
  'nl',
  'od',
  'xxd',
  'hexdump',
  'strings',
  'bat',
  'view',
])

/** git subcommands that change nothing on disk but the index and history (what they change is git's, not Ratchet's). */
const GIT_HARMLESS =
  /^(status|log|diff|show|blame|ls-files|ls-tree|rev-parse|cat-file|grep|add|commit|describe|shortlog|check-ignore)$/

function harmless(inv: Invocation): boolean {
  if (HARMLESS.has(inv.name)) return true
  if (/^(vi|vim|nvim|view)$/.test(inv.name)) return inv.args.includes('-R') || inv.name === 'view'
  if (inv.name === 'sed') return !inv.args.some((a) => /^-[a-zA-Z]*i|^--in-place/.test(a))
  if (inv.name === 'find') return !inv.args.some((a) => /^-(exec|execdir|ok|okdir|delete|fprint|fprintf|fls)/.test(a))
  if (inv.name === 'git') return GIT_HARMLESS.test(inv.args.find((a) => !a.startsWith('-')) ?? '')
  return false
}

/**
 * Lists made from the context alone, once per context (as roots are): a process that classifies many calls with one
 * context (pattern-detect over transcripts, the warm process) built them again for every invocation.
 */
function perContext<T>(make: (ctx: ClassifyContext) => T): (ctx: ClassifyContext) => T {
  const cache = new WeakMap<ClassifyContext, T>()
  return (ctx) => {
    let v = cache.get(ctx)
    if (v === undefined) cache.set(ctx, (v = make(ctx)))
    return v
  }
}

/** The names in a command that point at what the floor guards (as written, not resolved: this is the coarse screen). */
const markers = perContext(markersOf)
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
function globHits(ctx: ClassifyContext, abs: string): string | undefined {
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

const INTERPRETER = /^(python[\d.]*|node|nodejs|perl|ruby|php|bun|deno)$/

/** Interpreter code that can change files (its reads of Ratchet's files are allowed, as `cat` is). */
const CODE_WRITES =
  /\b(write\w*|touch|mkfifo|mknod|mkdir\w*|remove|unlink|rename|replace|rmtree|move|copy\w*|chmod|chown|truncate|mkdirs?|makedirs|symlink|link|system|popen|Popen|run|call|check_output|spawn\w*|exec\w*|appendFile\w*|writeFile\w*|rmSync|rmdirSync|cpSync|unpack_archive|extractall|extractAllTo|File\.(write|delete)|IO\.write)\b|\bopen\s*\([^)]*['"][wax+]|[>|]\s*['"]|`/

/** Where Ratchet's keys are, as a command could name them. */
const keyMarkers = perContext(keyMarkersOf)
function keyMarkersOf(ctx: ClassifyContext): string[] {
  return [
    '.config/ratchet',
    'ratchet-warm',
    'ratchet/warm',
    ...(ctx.configHome ? [ctx.configHome] : []),
    ...(ctx.warmDirs ?? []),
  ]
}

const mentions = (text: string, names: string[]) => names.find((n) => text.includes(n))

/** An install or removal that names Ratchet's package (`npm uninstall ratchet`, `npm i ratchet@0.0.1`, an alias to it). */
function namesOwnPackage(inv: Invocation): boolean {
  if (!/^(npm|pnpm|yarn|bun|cnpm)$/.test(inv.name)) return false
  const ops = inv.args.filter((a) => !a.startsWith('-'))
  if (!/^(install|i|add|update|up|upgrade|uninstall|remove|rm|r|un|unlink|link|ln|prune)$/.test(ops[0] ?? ''))
    return false
  return ops
    .slice(1)
    .some((s) =>
      /^(@[^/]+\/)?ratchet(-guard)?(@|$)|(^|\/)ratchet(-guard)?(-\d[^/]*)?\.t(ar\.)?gz$|@npm:ratchet(-guard)?\b/.test(
        s,
      ),
    )
}

/**
 * One invocation of a Bash call. Ratchet's CLI and hooks by name in every mode; the rest only where no sandbox
 * holds the line (best-effort mode, or a command the settings run outside it).
 */
export function selfProtection(c: Sink, inv: Invocation, f: InvocationFacts): void {
  const cli = ratchetArgs(inv)
  const deciding = cli ? decidingWords(cli) : undefined
  if (deciding)
    return c.add(
      'ratchet_state_edit',
      `${f.cmd} (Ratchet's CLI: \`${deciding}\` is the user's to run, in a terminal of their own)`,
    )
  const hook = hookByHand(inv)
  if (hook)
    return c.add(
      'ratchet_state_edit',
      `${f.cmd} (runs Ratchet's ${hook} hook by hand: it would record a payload Claude Code never sent)`,
    )
  // A deciding command spelled inside another's words (`node "$R" pending approve`, `$r uninstall` with a path to
  // Ratchet): the words say what it is, in every mode.
  const spelled = decidingWords(inv.args)
  if (spelled && [inv.name, ...inv.args].some((a) => /\bratchet\b/.test(a)))
    return c.add('ratchet_state_edit', `${f.cmd} (spells Ratchet's deciding command \`${spelled}\`)`)
  // A computed program or script given Ratchet's deciding words (`node $r pending approve`, `$R uninstall`).
  const script = INTERPRETER.test(inv.name) ? inv.args.find((a) => !a.startsWith('-')) : inv.name
  if (spelled && script && /[$`]/.test(script))
    return c.add(
      'ratchet_state_edit',
      `${f.cmd} (a program computed at run time, given Ratchet's deciding command \`${spelled}\`)`,
    )
  if (c.ctx.sandboxed) return
  // Interpreter code (`python3 -c …`, `node -e …`, a script on stdin) is judged as code, by scanCode below.
  if (INTERPRETER.test(inv.name) && inv.args.some((a) => /^(-c|-e|--eval|-p|--print|-)$/.test(a))) return
  // What a plain read or print writes through its redirects (`echo x 1<> …`, `> $(pwd)/.ratchet/…`) is still a write.
  const targets = inv.redirects
    .filter((r) => /[>]/.test(r.op) && r.target && !/^&?-?\d*$/.test(r.target))
    .map((r) => r.target!)
  const operands = harmless(inv) ? targets : [...inv.args.filter((a) => !a.startsWith('-')), ...targets]
  // A path it names, resolved where the command runs (`cd .ratchet && mkfifo config.json`), a glob that can name one
  // (`rm -rf .cl*`), or a mention in its text (`d=.claude; cp x $d/`, a variable the reader cannot see through).
  const hit =
    operands
      .map((w) =>
        /[*?[]/.test(w)
          ? globHits(c.ctx, f.at(w))
          : f.at(w) !== c.ctx.projectDir && protectedRemoval(c.ctx, f.at(w))
            ? w
            : undefined,
      )
      .find(Boolean) ??
    mentions(
      (harmless(inv) ? targets : [inv.name, ...inv.args, ...targets, inv.stdin ?? '']).join('\n'),
      markers(c.ctx),
    )
  if (hit)
    return c.add(
      'ratchet_state_edit',
      `${f.cmd} (names ${hit}: in best-effort mode Ratchet refuses any command that names its files and is not a plain read, since no sandbox holds them)`,
    )
  if (namesOwnPackage(inv)) c.add('ratchet_state_edit', `${f.cmd} (removes or replaces Ratchet's installed package)`)
}

/** Interpreter code, where no sandbox holds the line: code that names a guarded path is refused (joined literals too). */
const scanStateCode: CodeScanner = (c, s, detail) => {
  if (s.lang === 'sql') return
  const code = joinLiterals(s.code.slice(0, 65_536))
  // Loading Ratchet's own code runs it as its CLI, which could decide pauses or remove its hooks.
  if (
    /(^|[/'"])(node_modules\/ratchet\/(dist|bin|lib)|dist\/ratchet\.cjs|lib\/cli\/main)/.test(code) &&
    decidingWords(code.split(/[\s,()[\]]+/))
  )
    return c.add('ratchet_state_edit', `${detail} (runs Ratchet's CLI with a deciding command)`)
  if (c.ctx.sandboxed || !CODE_WRITES.test(code)) return
  const hit = mentions(code, markers(c.ctx))
  if (hit)
    c.add(
      'ratchet_state_edit',
      `${detail} (names ${hit} and can change files: in best-effort mode such code is refused)`,
    )
}

/** Programs whose effect on files the reader knows (worst readings of unreadable text try these). */
export const hasEffect = (name: string): boolean =>
  !harmless({ name, args: [], redirects: [], via: [], cwdChanges: [] }) && EFFECTFUL.has(name)
const EFFECTFUL = new Set([
  'chmod',
  'chown',
  'chgrp',
  'tee',
  'sponge',
  'touch',
  'shred',
  'mkdir',
  'truncate',
  'dd',
  'sed',
  'perl',
  'ruby',
  'awk',
  'gawk',
  'curl',
  'wget',
  'rm',
  'unlink',
  'rmdir',
  'srm',
  'trash',
  'rimraf',
  'find',
  'mv',
  'cp',
  'install',
  'ln',
  'rsync',
  'tar',
  'unzip',
  '7z',
  'patch',
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'git',
  'ratchet',
])

/** Programs that only name, list, make or remove files: they read no contents. */
const LISTERS =
  /^(ls|stat|du|test|\[|\[\[|realpath|readlink|dirname|basename|echo|printf|tree|mkdir|cd|pushd|ratchet|find|rm|rmdir|unlink|shred|chmod|chown|chgrp|touch|ln|truncate|setfacl|mv)$/
/** Programs that read a whole folder they are given, with or without a recursive flag. */
const TREE_READERS = /^(tar|bsdtar|zip|7z|7za|rsync|rclone|restic|borg|rg|ag|ack|duplicity)$/
const RECURSIVE_READERS = /^(cp|scp|grep|egrep|fgrep|zip|diff|cat|sftp|gsutil|aws|rclone)$/

/**
 * Ratchet's private files, read by a shell command where no sandbox hides them (best-effort): a word that is, or a
 * glob that can be, a path into the key folders, a recursive read of a folder holding them, or a mention in the text.
 */
export function keyMention(c: Sink, inv: Invocation, f: InvocationFacts): void {
  if (c.ctx.sandboxed || LISTERS.test(inv.name)) return
  const tree =
    TREE_READERS.test(inv.name) ||
    (RECURSIVE_READERS.test(inv.name) &&
      inv.args.some(
        (a) => (/^-[a-zA-Z]+$/.test(a) && /[rRa]/.test(a)) || /^--(recursive|archive|dereference-recursive)$/.test(a),
      ))
  const words = [
    ...inv.args.map((a) =>
      a.startsWith('-')
        ? a.includes('=')
          ? a.slice(a.indexOf('=') + 1)
          : ''
        : a.replace(/^[\w.-]*=/, '').replace(/^[@<]/, ''),
    ),
    ...inv.redirects.filter((r) => r.op === '<' || r.op === '<>').map((r) => r.target ?? ''),
  ]
  for (const w of words) {
    if (!w || /^[a-z][\w+.-]*:\/\//i.test(w)) continue
    const glob = w.search(/[*?[]/)
    // `~/.config/rat*/telegram.json`: a glob whose literal start is the start of a key folder's path can name it.
    const prefix = glob >= 0 ? f.at(w.slice(0, glob)) : ''
    const hit =
      glob >= 0
        ? keyDirs(c.ctx).find((d) => d.startsWith(prefix) && prefix.length >= path.posix.dirname(d).length)
        : reaches(c.ctx, f.at(w), tree)
    if (hit) return note(c, f.cmd, hit)
  }
  const named = mentions(
    [...inv.args, ...inv.redirects.map((r) => r.target ?? '')].join('\n').replace(/~(?=\/)/g, c.ctx.homeDir),
    keyMarkers(c.ctx),
  )
  if (named) note(c, f.cmd, named)
}

/** The same for interpreter code. */
const scanKeyCode: CodeScanner = (c, s, detail) => {
  if (c.ctx.sandboxed) return
  const hit = mentions(joinLiterals(s.code), keyMarkers(c.ctx))
  if (hit) c.add('ratchet_key_read', `${detail} (reads ${hit}: Ratchet's private keys and token)`)
}

/** Interpreter code that writes Ratchet's state, then code that reads its keys. */
export const scanCode: CodeScanner = (c, s, detail) => {
  scanStateCode(c, s, detail)
  scanKeyCode(c, s, detail)
}

// ---- the file tools and MCP: outside every sandbox, judged by their paths --------------------

const note = (c: Sink, detail: string, what: string) =>
  c.add('ratchet_key_read', `${detail} (reads ${what}: Ratchet's private keys and token)`)

const keyDirs = perContext(keyDirsOf)
function keyDirsOf(ctx: ClassifyContext): string[] {
  const dirs = [
    path.posix.join(ctx.homeDir, '.config', 'ratchet'),
    ...(ctx.configHome ? [ctx.configHome] : []),
    ...(ctx.warmDirs ?? []),
  ]
  for (const d of [...dirs]) {
    const r = ctx.fs?.realpath(d)
    if (r && r !== d) dirs.push(r)
  }
  return [...new Set(dirs)]
}

/** Why reading `abs` reaches Ratchet's private files, or undefined. `tree`: the reader recurses into folders. */
function reaches(ctx: ClassifyContext, abs: string, tree: boolean): string | undefined {
  const real = ctx.fs?.realpath(abs)
  for (const dir of keyDirs(ctx)) {
    if (inside(abs, dir) || (real && inside(real, dir))) return abs
    if (tree && (inside(dir, abs) || (real && inside(dir, real)))) return `${abs} (holds ${dir})`
  }
  return undefined
}

/** Read, NotebookRead and Grep (a search reads every file under its path). */
export function keyReadTool(
  c: Sink,
  tool: string,
  input: Record<string, unknown>,
  resolve: (p: string) => string,
): void {
  const str = (v: unknown) => (typeof v === 'string' ? v : '')
  const file = tool === 'Grep' ? str(input.path) : str(input.file_path) || str(input.notebook_path)
  if (!file) return
  const hit = reaches(c.ctx, resolve(file), tool === 'Grep')
  if (hit) note(c, `${tool} ${file}`, hit)
}

const MCP_PATH_KEY =
  /^(path|paths|file|files|file_?path|filename|dir|directory|source|source_?path|src|from|uri|root)$/i
/** Tools that only list names or sizes (`list_directory`, `directory_tree`, `get_file_info`): no contents. */
const MCP_LISTS = /(^|_)(list|tree|info|stat|ls)(_|$)/

/** An MCP tool (a filesystem server's read_file, search_files…) given a path into the folder. */
export function keyReadMcp(
  c: Sink,
  tool: string,
  input: Record<string, unknown>,
  resolve: (p: string) => string,
): void {
  const action = tool.split('__').slice(2).join('__').toLowerCase()
  if (MCP_LISTS.test(action)) return
  for (const p of mcpInputPaths(input, MCP_PATH_KEY)) {
    const hit = reaches(
      c.ctx,
      resolve(p.replace(/^~(?=\/|$)/, c.ctx.homeDir)),
      /search|grep|find|archive|zip|copy/.test(action),
    )
    if (hit) return note(c, `${tool} ${p}`, hit)
  }
}

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

// ---- a package.json edit that changes how Ratchet is installed (planted for the next install) ----

const DEP_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const

/** The names Ratchet's package goes by here: `ratchet-guard` (and `ratchet`, its name before 0.1.0 was published), and the folder it is installed in. */
function ratchetNames(ctx: ClassifyContext): Set<string> {
  const names = new Set(['ratchet', PACKAGE_NAME])
  if (ctx.packageDir) {
    const parts = ctx.packageDir.split('/')
    const i = parts.lastIndexOf('node_modules')
    if (i >= 0 && parts[i + 1])
      names.add(parts[i + 1].startsWith('@') ? `${parts[i + 1]}/${parts[i + 2] ?? ''}` : parts[i + 1])
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
    const edits =
      tool === 'MultiEdit' && Array.isArray(input.edits) ? (input.edits as Record<string, unknown>[]) : [input]
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
    const text = [
      input.old_string,
      input.new_string,
      ...(Array.isArray(input.edits)
        ? (input.edits as Record<string, unknown>[]).flatMap((x) => [x.old_string, x.new_string])
        : []),
    ]
      .map(str)
      .join('\n')
    if ([...names].some((n) => text.includes(`"${n}"`)))
      c.add(
        'ratchet_state_edit',
        `${tool} ${abs} (changes Ratchet's package entry in a package.json that cannot be read)`,
      )
    return
  }
  const now = packageSpecs(after, names)
  if (!was?.size) return
  for (const [name, spec] of was) {
    const next = now?.get(name)
    if (next !== spec)
      c.add(
        'ratchet_state_edit',
        `${tool} ${abs} (${next === undefined ? `removes ${name}` : `changes ${name} from ${spec} to ${next}`}: the next install would replace or remove Ratchet's package)`,
      )
  }
}

export const programs: Record<string, Detector> = {}

export type { CodeSnippet }

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [DECIDING, programs]) Object.setPrototypeOf(table, null)
