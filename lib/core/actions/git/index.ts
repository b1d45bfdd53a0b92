// git: pushes (public surface), discarding work, rewriting history, deleting refs. This file reads what comes
// before the subcommand (global options, aliases) and hands the subcommand to its family's handler:
//   push.ts        push, and pushes by other means (refs changed in a repository outside the project)
//   work-tree.ts   add, commit, rm, mv, apply, am
//   discard.ts     reset, clean, checkout, restore, switch, stash, read-tree
//   refs.ts        branch, tag, update-ref, filter-branch, filter-repo, reflog
//   send-email.ts  send-email

import path from 'node:path'
import { gitConfigArgs, gitConfigEnv } from '../git-config'
import { protectedPath } from '../protected-paths'
import type { Invocation } from '../../commands'
import type { Detector, FamilyMeta, InvocationFacts } from '../types'
import { splitWords } from '../../shell'
import { nothingToDiscard, shortFlags } from '../util'
import type { GitCall, SubcommandHandler } from './call'
import { discarding } from './discard'
import { outsideRepo, push } from './push'
import { refsAndHistory } from './refs'
import { sendEmail } from './send-email'
import { workTree } from './work-tree'

export const meta: FamilyMeta = {
  id: 'git',
  classes: ['public_surface', 'irreversible'],
  patterns: [
    'git_push',
    'commit_to_public_repo',
    'git_commit',
    'git_discard',
    'git_history_rewrite',
    'git_ref_delete',
    'email_send',
  ],
  description:
    'git: pushing, discarding work (reset --hard, clean -f, checkout -- path), rewriting history, deleting refs',
  examples: ['git push origin main', 'git reset --hard HEAD~1', 'git push --force', 'git branch -D old'],
}

/** Each subcommand's handler; a subcommand not here changes nothing the family weighs. */
const SUBCOMMANDS: Record<string, SubcommandHandler> = {
  push,
  ...workTree,
  ...discarding,
  ...refsAndHistory,
  'send-email': sendEmail,
}

/** Aliases defined earlier on the same line: `git config alias.p 'push --force' && git p`. */
function earlierAliases(f: InvocationFacts): Record<string, string> {
  const aliases: Record<string, string> = Object.create(null)
  for (const e of f.earlier ?? []) {
    if (e.name !== 'git') continue
    const k = e.args.indexOf('config')
    const m = k >= 0 ? /^alias\.(.+)$/.exec(e.args.slice(k + 1).find((x) => !x.startsWith('-')) ?? '') : null
    const value = m ? e.args.slice(k + 1).filter((x) => !x.startsWith('-'))[1] : undefined
    if (m && value !== undefined) aliases[m[1]] = value
  }
  return aliases
}

/**
 * Global options come before the subcommand: git -C dir -c k=v --no-pager push … Returns where the subcommand is,
 * the folder and git dir it runs with, and the aliases it may use (`-c alias.x=…` adds to `aliases`).
 */
function globalOptions(
  inv: Invocation,
  f: InvocationFacts,
  aliases: Record<string, string>,
): { i: number; dir: string; gitDir?: string } {
  const a = inv.args
  let i = 0
  let dir = f.base
  let gitDir = inv.env?.GIT_DIR
  while (i < a.length && a[i].startsWith('-')) {
    if (a[i] === '-C') dir = f.at(a[i + 1] ?? '.')
    if (a[i] === '--git-dir') gitDir = a[i + 1]
    else if (a[i].startsWith('--git-dir=')) gitDir = a[i].slice('--git-dir='.length)
    const alias = a[i] === '-c' ? /^alias\.([^=]+)=([\s\S]*)$/.exec(a[i + 1] ?? '') : null
    if (alias) aliases[alias[1]] = alias[2]
    if (
      a[i] === '-C' ||
      a[i] === '-c' ||
      a[i] === '--git-dir' ||
      a[i] === '--work-tree' ||
      a[i] === '--namespace' ||
      a[i] === '--config-env'
    )
      i += 2
    else i += 1
  }
  return { i, dir, gitDir }
}

const git: Detector = (c, inv, f) => {
  const a = inv.args
  const aliases = earlierAliases(f)
  const { i, dir, gitDir } = globalOptions(inv, f, aliases)
  // Settings whose value is a command git runs later (or during this command, through `-c`): read it now.
  gitConfigArgs(c, a, dir, f.cmd)
  gitConfigEnv(c, inv.env, dir, f.cmd)
  let sub = a[i] ?? ''
  let rest = a.slice(i + 1)
  // `git -c alias.x='push --force' x`: an alias defined inline runs its definition.
  if (sub in aliases) {
    const def = aliases[sub]
    if (def.startsWith('!')) return c.shell(`${def.slice(1)} ${rest.join(' ')}`)
    const words = splitWords(def)
    sub = words[0] ?? ''
    rest = [...words.slice(1), ...rest]
  }
  const ops = rest.filter((x) => !x.startsWith('-'))
  const flags = shortFlags(rest)
  const at = (p: string) => path.posix.resolve(dir, p)
  const discard = (paths: string[]) => {
    const lost = paths.filter((p) => !nothingToDiscard(c, at(p)))
    if (!paths.length || lost.length) c.add('git_discard', f.cmd)
    // The named paths whose uncommitted changes would go: weighed with evidence from the disk (loss stage).
    for (const p of lost) if (!/[$`*?[]/.test(p)) c.deleted.set(at(p), { lose: 'changes' })
  }
  const call: GitCall = {
    c,
    inv,
    f,
    sub,
    rest,
    ops,
    flags,
    dir,
    dry: rest.includes('--dry-run'),
    at,
    touchesProtected: ops.some((o) => protectedPath(c.ctx, at(o))),
    discard,
  }
  outsideRepo(c, f.cmd, gitDir ? path.posix.resolve(dir, gitDir) : dir, sub, rest, ops, flags)
  SUBCOMMANDS[sub]?.(call)
}

export const programs: Record<string, Detector> = { git }

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs, SUBCOMMANDS]) Object.setPrototypeOf(table, null)
