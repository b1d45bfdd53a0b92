// Ratchet's private files: the per-user config folder ($XDG_CONFIG_HOME/ratchet, else ~/.config/ratchet) holds the
// Telegram bot token, the key that seals Telegram buttons and the courtroom's signing keys. With any of them the
// agent could forge a human's decision or a signed case, so it may not read them at all (writing them is already
// self-protection, ratchet-self.ts). Decided by effect: a read tool or program naming a path inside the folder, a
// glob that could reach into it, a recursive read or archive of a folder above it, interpreter code naming it.
// Listing names (ls, stat, Glob) reveals nothing secret and stays allowed.

import path from 'node:path'
import type { Invocation } from '../commands'
import type { ClassifyContext, CodeScanner, InvocationFacts, Sink } from './types'
import { joinLiterals, mcpInputPaths } from './util'

const inside = (abs: string, dir: string) => abs === dir || abs.startsWith(dir + '/')
const above = (abs: string, dir: string) => dir.startsWith(abs.endsWith('/') ? abs : abs + '/')
const GLOB = /[*?[]/

/** The folders holding Ratchet's private files: the configured one and the default (the agent may not move it either). */
export function keyDirs(ctx: ClassifyContext): string[] {
  const dirs = [path.posix.join(ctx.homeDir, '.config', 'ratchet')]
  if (ctx.configHome) dirs.push(ctx.configHome)
  // Requests to the warm process pass through these (with the hook's environment): as private as the keys.
  dirs.push(...(ctx.warmDirs ?? []))
  for (const d of [...dirs]) {
    const r = ctx.fs?.realpath(d)
    if (r && r !== d) dirs.push(r)
  }
  return [...new Set(dirs)]
}

/**
 * Programs that only name, list, make or remove files: they read no contents (a removal or change of the folder is
 * ratchet-self.ts's, and `rm -rf ~` is catastrophic, not a read).
 */
const LISTERS = new Set(['ls', 'stat', 'du', 'test', '[', '[[', 'realpath', 'readlink', 'dirname', 'basename', 'echo', 'printf', 'tree', 'mkdir', 'cd', 'pushd', 'ratchet', 'find', 'rm', 'rmdir', 'unlink', 'shred', 'chmod', 'chown', 'chgrp', 'touch', 'ln', 'truncate', 'setfacl', 'mv'])
/** Programs that read a whole folder when given one, with or without a recursive flag. */
const TREE_READERS = new Set(['tar', 'bsdtar', 'zip', '7z', '7za', 'rsync', 'rclone', 'restic', 'borg', 'rg', 'ag', 'ack', 'duplicity'])
/** Programs that read a whole folder with a recursive flag. */
const RECURSIVE_READERS = new Set(['cp', 'scp', 'grep', 'egrep', 'fgrep', 'zip', 'diff', 'cat', 'sftp', 'gsutil', 'aws', 'rclone'])
// A short-option cluster holding r, R or a: two linear tests (`^-[a-zA-Z]*[rRa][a-zA-Z]*$` is quadratic — redos test).
const RECURSIVE = { test: (a: string) => (/^-[a-zA-Z]+$/.test(a) && /[rRa]/.test(a)) || /^--(recursive|archive|dereference-recursive)$/.test(a) }

/** Why reading `abs` reaches Ratchet's private files, or undefined. `tree`: the reader recurses into folders. */
function reaches(ctx: ClassifyContext, abs: string, tree: boolean, real?: (p: string) => string | undefined): string | undefined {
  for (const dir of keyDirs(ctx)) {
    if (inside(abs, dir)) return abs
    // `~/.config/rat*/telegram.json`, `~/.config/*/keys/*`: a glob that could name the folder or a file in it.
    if (GLOB.test(abs) && globReaches(abs, dir, tree)) return abs
    if (tree && above(abs, dir)) return `${abs} (holds ${dir})`
    const r = real?.(abs)
    if (r && r !== abs && (inside(r, dir) || (tree && above(r, dir)))) return `${abs} (a link to ${r})`
  }
  return undefined
}

/** One path segment of a glob as a regex (`*`, `?`, `[…]`; anything else literal). Segments are short: linear enough. */
function segment(glob: string): RegExp {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]
    const close = ch === '[' ? glob.indexOf(']', i + 2) : -1
    if (ch === '*') re += '[^/]*'
    else if (ch === '?') re += '[^/]'
    else if (close > 0) {
      re += '[' + glob.slice(i + 1, close).replace(/^!/, '^').replace(/[\\\]]/g, '\\$&') + ']'
      i = close
    } else re += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp('^' + re + '$')
}

/** Whether a glob path could be the folder or something in it (or, for a reader of trees, a folder above it). */
function globReaches(glob: string, dir: string, tree: boolean): boolean {
  const g = glob.split('/').filter(Boolean)
  const d = dir.split('/').filter(Boolean)
  if (g.length < d.length && !tree) return false
  for (let i = 0; i < Math.min(g.length, d.length); i++) {
    if (g[i] === '**') return true
    // Past a few stars a segment's regex could backtrack badly: assume it matches (the worst reading).
    if (g[i].split('*').length <= 7 && !segment(g[i]).test(d[i])) return false
  }
  return true
}

const note = (c: Sink, detail: string, what: string) => c.add('ratchet_key_read', `${detail} (reads ${what}: Ratchet's private keys and token)`)

/** Read, NotebookRead and Grep (a search reads every file under its path). */
export function keyReadTool(c: Sink, tool: string, input: Record<string, unknown>, resolve: (p: string) => string): void {
  const str = (v: unknown) => (typeof v === 'string' ? v : '')
  const file = tool === 'Grep' ? str(input.path) : str(input.file_path) || str(input.notebook_path)
  if (!file) return
  const hit = reaches(c.ctx, resolve(file), tool === 'Grep', (p) => c.ctx.fs?.realpath(p))
  if (hit) note(c, `${tool} ${file}`, hit)
}

/** A shell invocation: any operand, `x=file`/`@file` value or input redirect that reaches the folder. */
export function keyReads(c: Sink, inv: Invocation, f: InvocationFacts): void {
  // A link to the folder reads nothing itself, but anything read through it later in the command reads the folder.
  if (inv.name === 'ln') {
    for (const w of inv.args.filter((a) => !a.startsWith('-'))) {
      const hit = reaches(c.ctx, f.at(w), true, (p) => c.ctx.fs?.realpath(p))
      if (hit) return note(c, f.cmd, `${hit} (through a link)`)
    }
    return
  }
  if (LISTERS.has(inv.name)) return
  const tree = TREE_READERS.has(inv.name) || (RECURSIVE_READERS.has(inv.name) && inv.args.some((a) => RECURSIVE.test(a)))
  const words = [...inv.args.map((a) => (a.startsWith('-') ? (a.includes('=') ? a.slice(a.indexOf('=') + 1) : '') : a.replace(/^[\w.-]*=/, '').replace(/^[@<]/, ''))), ...inv.redirects.filter((r) => r.op === '<' || r.op === '<>').map((r) => r.target ?? '')]
  for (const w of words) {
    if (!w || /^[a-z][\w+.-]*:\/\//i.test(w)) continue
    // `find <folder> … -exec cat {} +` reaches here as `cat <folder>/{}` (commands.ts): any file found under it.
    const found = w.indexOf('{}')
    const hit = found >= 0 ? reaches(c.ctx, f.at(w.slice(0, found) || '.'), true, (p) => c.ctx.fs?.realpath(p)) : reaches(c.ctx, f.at(w), tree, (p) => c.ctx.fs?.realpath(p))
    if (hit) return note(c, f.cmd, hit)
  }
}

/** A quoted absolute or home path in code, after joining split literals (a glob, such as the spool's files, included). */
const CODE_PATH = /(['"`])([~/][^'"`\n]{0,1024})\1/g

/**
 * Interpreter code that names the folder (`open(os.path.expanduser('~/.config/ratchet/telegram.json'))`), also
 * split into pieces (`'/dev/shm/rat' + 'chet-warm-0'`) or as a glob that could reach it (`glob('~/.config/rat*')`).
 */
export const scanKeyCode: CodeScanner = (c, s, detail) => {
  const dirs = keyDirs(c.ctx)
  const code = joinLiterals(s.code)
  if (/\.config\/ratchet\b|\bratchet-warm\b|\bratchet\/warm\b/.test(code) || dirs.some((d) => code.includes(d))) return note(c, detail, dirs[dirs.length - 1])
  // A path built from the config folder's variable and Ratchet's name, or a glob of it (`XDG_CONFIG_HOME + '/rat*'`).
  if (/XDG_CONFIG_HOME|XDG_RUNTIME_DIR|\.config\b|\/dev\/shm\b/.test(code) && /(?<![.\w])ratchet\b|\brat[*?[]|\brat\w{0,3}[*?[]/i.test(code)) return note(c, detail, dirs[dirs.length - 1])
  for (const m of code.matchAll(CODE_PATH)) {
    const hit = reaches(c.ctx, m[2].replace(/^~(?=\/|$)/, c.ctx.homeDir), false)
    if (hit) return note(c, detail, hit)
  }
}

const MCP_PATH_KEY = /^(path|paths|file|files|file_?path|filename|dir|directory|source|source_?path|src|from|uri|root)$/i
/** Tools that only list names or sizes (`list_directory`, `directory_tree`, `get_file_info`): no contents. */
const MCP_LISTS = /(^|_)(list|tree|info|stat|ls)(_|$)/

/** An MCP tool (a filesystem server's read_file, read_multiple_files, search_files…) given a path into the folder. */
export function keyReadMcp(c: Sink, tool: string, input: Record<string, unknown>, resolve: (p: string) => string): void {
  const action = tool.split('__').slice(2).join('__').toLowerCase()
  if (MCP_LISTS.test(action)) return
  for (const p of mcpInputPaths(input, MCP_PATH_KEY)) {
    const hit = reaches(c.ctx, resolve(p.replace(/^~(?=\/|$)/, c.ctx.homeDir)), /search|grep|find|archive|zip|copy/.test(action), (x) => c.ctx.fs?.realpath(x))
    if (hit) return note(c, `${tool} ${p}`, hit)
  }
}
