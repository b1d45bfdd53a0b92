// git: pushes (public surface), discarding work, rewriting history, deleting refs.

import path from 'node:path'
import { protectedPath } from './ratchet-self'
import type { Detector, FamilyMeta } from './types'
import { shortFlags } from './util'

export const meta: FamilyMeta = {
  id: 'git',
  classes: ['public_surface', 'irreversible'],
  patterns: ['git_push', 'commit_to_public_repo', 'git_discard', 'git_history_rewrite', 'git_ref_delete', 'email_send'],
  description: 'git: pushing, discarding work (reset --hard, clean -f, checkout -- path), rewriting history, deleting refs',
  examples: ['git push origin main', 'git reset --hard HEAD~1', 'git push --force', 'git branch -D old'],
}

const DEFAULT_BRANCHES = /^(main|master|trunk|production|prod|release)$/

const git: Detector = (c, inv, f) => {
  // Global options come before the subcommand: git -C dir -c k=v --no-pager push …
  const a = inv.args
  let i = 0
  let dir = f.base
  while (i < a.length && a[i].startsWith('-')) {
    if (a[i] === '-C') dir = f.at(a[i + 1] ?? '.')
    if (a[i] === '-C' || a[i] === '-c' || a[i] === '--git-dir' || a[i] === '--work-tree' || a[i] === '--namespace') i += 2
    else i += 1
  }
  const sub = a[i] ?? ''
  const rest = a.slice(i + 1)
  const ops = rest.filter((x) => !x.startsWith('-'))
  const flags = shortFlags(rest)
  const at = (p: string) => path.posix.resolve(dir, p)
  const touchesProtected = ops.some((o) => protectedPath(c.ctx, at(o)))

  switch (sub) {
    case 'push': {
      c.add('git_push', f.cmd)
      c.add('commit_to_public_repo', f.cmd)
      const force = rest.some((x) => x === '--force' || x === '--force-with-lease' || x.startsWith('--force-with-lease=') || x === '--force-if-includes' || x === '--mirror') || flags.includes('f') || ops.slice(1).some((r) => r.startsWith('+'))
      const del = rest.includes('--delete') || flags.includes('d') || ops.slice(1).some((r) => r.startsWith(':'))
      const refs = ops.slice(1).map((r) => r.replace(/^\+/, '').split(':').pop() ?? '')
      const branch = refs.length ? undefined : c.ctx.currentBranch(dir)
      const hitsDefault = refs.length ? refs.some((r) => DEFAULT_BRANCHES.test(r.replace(/^refs\/heads\//, ''))) || rest.includes('--all') || rest.includes('--mirror') : branch === undefined || DEFAULT_BRANCHES.test(branch)
      if (force) c.add('git_history_rewrite', f.cmd, hitsDefault)
      if (del) c.add('git_ref_delete', f.cmd, refs.some((r) => DEFAULT_BRANCHES.test(r)))
      return
    }
    case 'add':
    case 'commit':
      c.add('commit_to_public_repo', f.cmd)
      return
    case 'reset':
      if (rest.includes('--hard') || rest.includes('--merge') || rest.includes('--keep')) c.add('git_discard', f.cmd)
      return
    case 'clean':
      if ((flags.includes('f') || rest.includes('--force')) && !flags.includes('n') && !rest.includes('--dry-run')) c.add('git_discard', f.cmd)
      return
    case 'checkout': {
      if (touchesProtected) c.add('ratchet_state_edit', f.cmd)
      // `git checkout -- path`, `git checkout .`, `git checkout -f`, `git checkout HEAD -- src` discard changes;
      // `git checkout branch` and `-b new` do not.
      const dd = rest.indexOf('--')
      if (flags.includes('f') || rest.includes('--force') || (dd >= 0 && rest.length > dd + 1) || ops.includes('.') || ops.some((o) => o.startsWith('./') || (o.includes('/') && !rest.some((x) => x === '-b' || x === '-B'))))
        if (!flags.includes('b') && !flags.includes('B')) c.add('git_discard', f.cmd)
      return
    }
    case 'restore':
      if (touchesProtected) c.add('ratchet_state_edit', f.cmd)
      // `--staged` alone only unstages.
      if (!(rest.includes('--staged') || flags.includes('S')) || rest.includes('--worktree') || flags.includes('W')) c.add('git_discard', f.cmd)
      return
    case 'switch':
      if (rest.includes('--discard-changes') || rest.includes('--force') || flags.includes('f')) c.add('git_discard', f.cmd)
      return
    case 'stash':
      if (ops[0] === 'drop' || ops[0] === 'clear') c.add('git_discard', f.cmd)
      return
    case 'branch':
      if (flags.includes('D') || flags.includes('d') || rest.includes('--delete')) c.add('git_ref_delete', f.cmd)
      return
    case 'tag':
      if (flags.includes('d') || rest.includes('--delete')) c.add('git_ref_delete', f.cmd)
      return
    case 'filter-branch':
    case 'filter-repo':
      c.add('git_history_rewrite', f.cmd)
      return
    case 'reflog':
      if (ops[0] === 'expire' || ops[0] === 'delete') c.add('git_history_rewrite', f.cmd)
      return
    case 'update-ref':
      if (flags.includes('d')) c.add('git_ref_delete', f.cmd)
      return
    case 'rm':
    case 'mv':
    case 'apply':
    case 'am':
      if (touchesProtected) c.add('ratchet_state_edit', f.cmd)
      return
    case 'send-email':
      c.add('email_send', f.cmd)
      return
  }
}

export const programs: Record<string, Detector> = { git }
