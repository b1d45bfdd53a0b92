// Changing files: Write/Edit tools, shell redirections, and the programs that write in place. A change to an
// existing file the agent has not read in this context is stale data; outside the project it is out of scope.

import type { Invocation } from '../commands'
import { protectedPath } from './ratchet-self'
import type { Detector, FamilyMeta, InvocationFacts, Sink } from './types'
import { outsideProject } from './util'

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
    return
  }
  if (!(abs in c.ctx.session.reads) && c.ctx.fileExists(abs)) c.add('stale_write', `${how} ${abs} (not read since the session started or was compacted)`)
}

/** `> file`, `>> file`, `&> file`: the shell writes the target. */
export function redirects(c: Sink, inv: Invocation, f: InvocationFacts): void {
  for (const r of inv.redirects) {
    if (/^(>|>>|>\||&>|&>>)$/.test(r.op) && r.target && !/^&?\d$/.test(r.target)) {
      const abs = f.at(r.target)
      if (protectedPath(c.ctx, abs)) c.add('ratchet_state_edit', `${f.cmd} ${r.op} ${r.target}`)
      else {
        c.paths.add(abs)
        if (outsideProject(c.ctx, abs)) c.add('outside_project', `${f.cmd} ${r.op} ${r.target}`)
      }
    }
  }
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
    if (stale && c.ctx.fileExists(abs) && !(abs in c.ctx.session.reads)) c.add('stale_write', `${f.cmd} (${t} not read since the session started or was compacted)`)
  }
}

export const programs: Record<string, Detector> = {
  truncate: (c, _inv, f) => writesTo(c, f, f.operands.filter((_o, i, all) => i > 0 || all.length === 1), false),
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
  tee: (c, _inv, f) => writesTo(c, f, f.operands, false),
  sponge: (c, _inv, f) => writesTo(c, f, f.operands, false),
  touch: (c, _inv, f) => writesTo(c, f, f.operands, false),
  chmod: (c, _inv, f) => writesTo(c, f, f.operands.slice(1), false),
  chown: (c, _inv, f) => writesTo(c, f, f.operands.slice(1), false),
  ln: (c, _inv, f) => writesTo(c, f, f.operands.slice(-1), false),
  install: (c, _inv, f) => writesTo(c, f, f.operands.slice(-1), false),
  cp: (c, _inv, f) => writesTo(c, f, f.operands.slice(-1), false),
  mv: (c, _inv, f) => writesTo(c, f, f.operands, false),
  // Moving to the desktop trash is recoverable: only scope and self-protection apply.
  trash: (c, _inv, f) => writesTo(c, f, f.operands, false),
}
