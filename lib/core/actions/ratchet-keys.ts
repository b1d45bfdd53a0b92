// Reading Ratchet's private keys and token (the key folders under ~/.config/ratchet, the warm process's folders):
// by a shell command or interpreter code where no sandbox hides them, and by the file tools and MCP tools, which
// run outside every sandbox.

import path from 'node:path'
import type { Invocation } from '../commands'
import { joinLiterals, mcpInputPaths } from './util'
import { inside, mentions, perContext } from './protected-paths'
import type { ClassifyContext, CodeScanner, InvocationFacts, Sink } from './types'

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
export const scanKeyCode: CodeScanner = (c, s, detail) => {
  if (c.ctx.sandboxed) return
  const hit = mentions(joinLiterals(s.code), keyMarkers(c.ctx))
  if (hit) c.add('ratchet_key_read', `${detail} (reads ${hit}: Ratchet's private keys and token)`)
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
