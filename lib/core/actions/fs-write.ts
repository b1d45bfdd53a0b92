// Changing files: Write/Edit tools, shell redirections, and the programs that write in place. A change to an
// existing file the agent has not read in this context is stale data; outside the project it is out of scope.

import type { Invocation } from '../commands'
import { protectedPath } from './protected-paths'
import path from 'node:path'
import type { CodeScanner, Detector, FamilyMeta, InvocationFacts, Sink } from './types'
import { chmodWords, isBuildOutput, outsideProject, recoverableDeletion, removesAccess, writtenText } from './util'
import { gitFileWrite } from './git-config'
import { gitStoreWrite } from './git/push'
import { plantedWrite } from './planted'
import { catastrophicTarget } from './fs-delete'

export const meta: FamilyMeta = {
  id: 'fs-write',
  classes: ['stale_data', 'scope_beyond_request'],
  patterns: ['stale_write', 'outside_project'],
  description: 'Changing files: a file not read in this context (stale data), or outside the project folder',
  examples: ['Edit src/app.ts (never read)', "sed -i 's/a/b/' config.yml", 'echo x > ~/.bashrc'],
}

/** A file is about to change through a Write/Edit tool: self-protection, stale data, scope. */
export function fileChange(c: Sink, abs: string, how: string): void {
  c.paths.add(abs)
  if (protectedPath(c.ctx, abs)) {
    c.add('ratchet_state_edit', `${how} ${abs}`)
    return
  }
  if (outsideProject(c.ctx, abs)) c.add('outside_project', `${how} ${abs}`)
  if (how === 'Write' && !c.ctx.fileExists(abs)) {
    c.reads.add(abs) // created in this context: later edits are not stale
    c.created.add(abs)
    return
  }
  if (!(abs in c.ctx.session.reads) && c.ctx.fileExists(abs))
    c.add('stale_write', `${how} ${abs} (not read since the session started or was compacted)`)
}

/**
 * `> file`, `>> file`, `&> file`: the shell writes the target. `>` over an existing file the agent has not read
 * replaces content it never saw (`cat > f <<EOF`, `echo > f`, `: > f`): stale data, like a Write of an unread file.
 */
export function redirects(c: Sink, inv: Invocation, f: InvocationFacts): void {
  for (const r of inv.redirects) {
    if (/^(>|>>|>\||&>|&>>|<>|>&)$/.test(r.op) && r.target && !/^&?-?\d*$/.test(r.target)) {
      const how = `${f.cmd} ${r.op} ${r.target}`.trim()
      // What the write carries, when visible: `echo '[core] fsmonitor = …' >> .git/config` and `cat > .git/hooks/x
      // <<EOF` are code git runs later; a CLAUDE.md line claiming the user's approval is authority planted for later.
      const text = writtenText(inv, c.ctx, f.at)
      gitFileWrite(c, f.at(r.target), text, how)
      gitStoreWrite(c, f.at(r.target), how)
      if (text !== undefined) plantedWrite(c, f.at(r.target), text, how)
    }
    if (/^(>|>>|>\||&>|&>>)$/.test(r.op) && r.target && !/^&?\d$/.test(r.target)) {
      const abs = f.at(r.target)
      if (protectedPath(c.ctx, abs)) c.add('ratchet_state_edit', `${f.cmd} ${r.op} ${r.target}`)
      else {
        c.paths.add(abs)
        if (outsideProject(c.ctx, abs)) c.add('outside_project', `${f.cmd} ${r.op} ${r.target}`)
        overwrite(c, abs, `${f.cmd} ${r.op} ${r.target}`, r.target, !r.op.includes('>>'))
        if (!r.op.includes('>>')) replacesUnread(c, abs, r.target, f)
      }
    }
  }
}

/** A write that replaces (`replaces`) or extends a file: stale if it existed unread; remembered as created if new. */
export function overwrite(c: Sink, abs: string, detail: string, shown: string, replaces: boolean): void {
  if (/^\/(dev|proc|sys)\//.test(abs)) return
  if (!c.ctx.fileExists(abs)) {
    c.created.add(abs)
    if (replaces) c.reads.add(abs) // its whole content comes from the agent: later edits are not stale
    return
  }
  if (!replaces || abs in c.ctx.session.reads || c.reads.has(abs)) return
  // Emptying an ignored log or build output loses nothing anyone reads back (`> app.log`, `truncate -s0 dist/x`).
  if (disposable(c, abs)) return
  c.add('stale_write', `${detail} (${shown} not read since the session started or was compacted)`)
}

export function writesTo(c: Sink, f: InvocationFacts, targets: string[], stale: boolean): void {
  for (const t of targets) {
    const abs = f.at(t)
    if (protectedPath(c.ctx, abs)) {
      c.add('ratchet_state_edit', f.cmd)
      continue
    }
    c.paths.add(abs)
    if (outsideProject(c.ctx, abs)) c.add('outside_project', f.cmd)
    gitStoreWrite(c, abs, f.cmd)
    if (stale) overwrite(c, abs, f.cmd, t, true)
  }
}

/** Records new files and folders as the agent's own (touch, mkdir, cp to a new name). */
function creates(c: Sink, f: InvocationFacts, targets: string[]): void {
  for (const t of targets) {
    const abs = f.at(t)
    if (!/[*?$`]/.test(t) && !c.ctx.fileExists(abs)) c.created.add(abs)
  }
}

const appends = (args: string[]) => args.some((a) => a === '-a' || a === '--append')

export const programs: Record<string, Detector> = {
  // The size operand (`-s 0`) is not a file; `-s0` is one word.
  truncate: (c, inv, f) => {
    const files = inv.args.filter(
      (a, i) => !a.startsWith('-') && !/^(-s|--size|-r|--reference)$/.test(inv.args[i - 1] ?? ''),
    )
    writesTo(c, f, files, true)
    for (const t of files) replacesUnread(c, f.at(t), t, f)
  },
  sed: (c, inv, f) => {
    if (!inv.args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'))) return
    // The first operand is the script unless -e/-f gave it.
    const files: string[] = []
    let scriptGiven = false
    for (let i = 0; i < inv.args.length; i++) {
      const a = inv.args[i]
      if (a === '-e' || a === '-f' || a === '--expression' || a === '--file') {
        scriptGiven = true
        i++
      } else if (!a.startsWith('-')) files.push(a)
    }
    writesTo(c, f, scriptGiven ? files : files.slice(1), true)
  },
  perl: (c, inv, f) => {
    if (inv.args.some((a) => /^-[a-zA-Z]*i/.test(a))) writesTo(c, f, f.operands.slice(1), true)
  },
  tee: (c, inv, f) => {
    writesTo(c, f, f.operands, !appends(inv.args))
    for (const t of f.operands) {
      gitFileWrite(c, f.at(t), inv.stdin, f.cmd)
      if (inv.stdin !== undefined) plantedWrite(c, f.at(t), inv.stdin, f.cmd)
    }
  },
  sponge: (c, inv, f) => writesTo(c, f, f.operands, !appends(inv.args)),
  touch: (c, _inv, f) => {
    writesTo(c, f, f.operands, false)
    creates(c, f, f.operands)
  },
  mkdir: (c, _inv, f) => creates(c, f, f.operands),
  chmod: (c, inv, f) => {
    const { mode, files, recursive } = chmodWords(inv.args)
    writesTo(c, f, files, false)
    // `chmod -R 000 ~`: a tree nobody can read any more is as good as deleted (catastrophic for home or /).
    if (recursive && mode && removesAccess(mode))
      for (const t of files) {
        const abs = f.at(t)
        if (!recoverableDeletion(c, t, abs, f.earlier) || catastrophicTarget(c, t, abs))
          c.add(
            'file_delete',
            `${f.cmd} (takes read access away from everything under ${t})`,
            catastrophicTarget(c, t, abs),
          )
      }
  },
  chown: (c, inv, f) => writesTo(c, f, chmodWords(inv.args).files, false),
  ln: (c, _inv, f) => writesTo(c, f, f.operands.slice(-1), false),
  install: (c, _inv, f) => writesTo(c, f, f.operands.slice(-1), false),
  // `cp /dev/null f` empties f; other copies onto an existing name may target a folder, so only new names count.
  cp: (c, inv, f) => {
    writesTo(c, f, f.operands.slice(-1), f.operands.length === 2 && f.operands[0] === '/dev/null')
    if (f.operands.length === 2 && f.operands[0] === '/dev/null')
      replacesUnread(c, f.at(f.operands[1]), f.operands[1], f)
    if (f.operands.length === 2) {
      replaces(c, inv, f)
      creates(c, f, f.operands.slice(-1))
    }
  },
  mv: (c, inv, f) => {
    writesTo(c, f, f.operands, false)
    replaces(c, inv, f)
  },
  // Moving to the desktop trash is recoverable: only scope and self-protection apply.
  trash: (c, _inv, f) => writesTo(c, f, f.operands, false),
}

/** File writes from interpreter code: `open('f', 'w')`, `Path('f').write_text`, `fs.writeFileSync('f', …)`, `File.write`. */
export const scanCode: CodeScanner = (c, s, detail) => {
  const writes = [
    /\bopen\(\s*(['"])([^'"]+)\1\s*,\s*(?:mode\s*=\s*)?['"][wx]b?\+?['"]/g,
    /\bPath\(\s*(['"])([^'"]+)\1\s*\)\.write_(?:text|bytes)\(/g,
    /\b(?:writeFileSync|writeFile|outputFile(?:Sync)?)\(\s*(['"`])([^'"`]+)\1/g,
    /\bFile\.write\(\s*(['"])([^'"]+)\1/g,
    /\bopen\s*(?:\(\s*)?(?:my\s+)?\$?\w+\s*,\s*(['"])>\1\s*,\s*(['"])([^'"]+)\2/g,
  ]
  for (const re of writes)
    for (const m of s.code.matchAll(re)) {
      const raw = m[m.length - 1]
      const abs = raw.startsWith('~/') ? c.ctx.homeDir + raw.slice(1) : path.posix.resolve(c.ctx.projectDir, raw)
      if (protectedPath(c.ctx, abs)) continue // ratchet-self names it
      c.paths.add(abs)
      if (outsideProject(c.ctx, abs)) c.add('outside_project', detail)
      overwrite(c, abs, detail, raw, true)
    }
}

/**
 * `mv notes.txt.new notes.txt`, `cp .env.example .env`: a file that exists is replaced, and what it held is gone
 * unless git (or the agent, who made it) can bring it back. `-n`, `-i`, `-b`, `-t` and a folder destination replace nothing.
 */
function replaces(c: Sink, inv: Invocation, f: InvocationFacts): void {
  const ops = f.operands
  if (
    ops.length !== 2 ||
    inv.args.some((a) => /^-[a-zA-Z]*[nibt]/.test(a) || /^--(no-clobber|interactive|backup|target-directory)/.test(a))
  )
    return
  const dest = ops[1]
  const abs = f.at(dest)
  if (
    dest.endsWith('/') ||
    /[*?$`]/.test(dest) ||
    !c.ctx.fileExists(abs) ||
    c.ctx.fs?.isDir(abs) ||
    f.at(ops[0]) === abs
  )
    return
  if (protectedPath(c.ctx, abs) || recoverableDeletion(c, dest, abs, f.earlier)) return
  c.deleted.set(abs, { lose: 'all' })
  c.add('file_delete', `${f.cmd} (replaces ${dest}, whose content git cannot bring back)`)
}

/**
 * `> notes.txt`, `truncate -s0 notes.txt`, `cp /dev/null notes.txt`: the content of a file the agent has not read
 * is replaced, and unless git (or the agent, who made it) can bring it back it is gone: weighed as a deletion by
 * preflight-check's loss stage. A file read in this context is being rewritten knowingly (as with Write).
 */
function replacesUnread(c: Sink, abs: string, raw: string, f: InvocationFacts): void {
  if (/^\/(dev|proc|sys)\//.test(abs) || /[$`*?]/.test(raw) || protectedPath(c.ctx, abs)) return
  if (
    !c.ctx.fileExists(abs) ||
    abs in c.ctx.session.reads ||
    c.reads.has(abs) ||
    c.created.has(abs) ||
    disposable(c, abs)
  )
    return
  if (!recoverableDeletion(c, raw, abs, f.earlier)) c.deleted.set(abs, { lose: 'all' })
}

function disposable(c: Sink, abs: string): boolean {
  const rel = abs.startsWith(c.ctx.projectDir + '/') ? abs.slice(c.ctx.projectDir.length + 1) : undefined
  if (rel === undefined || !(/\.log$|(^|\/)logs?\//.test(rel) || isBuildOutput(rel))) return false
  const state = c.ctx.fileState?.(abs)
  return state === 'ignored' || state === 'tracked-clean'
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
