// git: pushes (public surface), discarding work, rewriting history, deleting refs.

import path from 'node:path'
import { gitConfigArgs, gitConfigEnv } from './git-config'
import { deletion } from './fs-delete'
import { protectedPath } from './protected-paths'
import type { Detector, FamilyMeta, Sink } from './types'
import { splitWords } from '../shell'
import { nothingToDiscard, shortFlags } from './util'

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

const DEFAULT_BRANCHES = /^(main|master|trunk|production|prod|release)$/

const git: Detector = (c, inv, f) => {
  // Global options come before the subcommand: git -C dir -c k=v --no-pager push …
  const a = inv.args
  let i = 0
  let dir = f.base
  const aliases: Record<string, string> = Object.create(null)
  // `git config alias.p 'push --force' && git p`: an alias set earlier on the same line.
  for (const e of f.earlier ?? []) {
    if (e.name !== 'git') continue
    const k = e.args.indexOf('config')
    const m = k >= 0 ? /^alias\.(.+)$/.exec(e.args.slice(k + 1).find((x) => !x.startsWith('-')) ?? '') : null
    const value = m ? e.args.slice(k + 1).filter((x) => !x.startsWith('-'))[1] : undefined
    if (m && value !== undefined) aliases[m[1]] = value
  }
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
  const touchesProtected = ops.some((o) => protectedPath(c.ctx, at(o)))
  const dry = rest.includes('--dry-run')
  /** Discarding uncommitted work in these paths, unless git says there is none. */
  const discard = (paths: string[]) => {
    const lost = paths.filter((p) => !nothingToDiscard(c, at(p)))
    if (!paths.length || lost.length) c.add('git_discard', f.cmd)
    // The named paths whose uncommitted changes would go: weighed with evidence from the disk (loss stage).
    for (const p of lost) if (!/[$`*?[]/.test(p)) c.deleted.set(at(p), { lose: 'changes' })
  }

  outsideRepo(c, f.cmd, gitDir ? path.posix.resolve(dir, gitDir) : dir, sub, rest, ops, flags)

  switch (sub) {
    case 'push': {
      if (dry || flags.includes('n')) return
      c.add('git_push', f.cmd)
      c.add('commit_to_public_repo', f.cmd)
      const force =
        rest.some(
          (x) =>
            x === '--force' ||
            x === '--force-with-lease' ||
            x.startsWith('--force-with-lease=') ||
            x === '--force-if-includes' ||
            x === '--mirror',
        ) ||
        flags.includes('f') ||
        ops.slice(1).some((r) => r.startsWith('+'))
      const del = rest.includes('--delete') || flags.includes('d') || ops.slice(1).some((r) => r.startsWith(':'))
      const refs = ops.slice(1).map((r) => r.replace(/^\+/, '').split(':').pop() ?? '')
      const branch = refs.length ? undefined : c.ctx.currentBranch(dir)
      const hitsDefault = refs.length
        ? refs.some((r) => DEFAULT_BRANCHES.test(r.replace(/^refs\/heads\//, ''))) ||
          rest.includes('--all') ||
          rest.includes('--mirror')
        : branch === undefined || DEFAULT_BRANCHES.test(branch)
      if (force) c.add('git_history_rewrite', f.cmd, hitsDefault)
      if (del) {
        // Deleting on the remote: what others fetched from there is gone from it (a local copy may still exist).
        const remote = ops[0] ?? 'origin'
        const gone = refs.filter(Boolean)
        const catastrophic = refs.some((r) => DEFAULT_BRANCHES.test(r))
        if (catastrophic || !gone.length) c.add('git_ref_delete', f.cmd, catastrophic)
        else
          c.irrevocable('git_ref_delete', f.cmd, {
            kind: 'destroys',
            what: `${gone.length === 1 ? 'ref' : 'refs'} ${gone.join(', ')} on remote ${remote} (anyone who fetches from it loses ${gone.length === 1 ? 'it' : 'them'}; a local copy, if any, can be pushed back)`,
            names: gone.map((r) => [r, r.replace(/^refs\/(heads|tags)\//, '')]),
            remoteRefs: { dir, remote, refs: gone },
          })
      }
      return
    }
    case 'add':
    case 'commit':
      // Local until pushed: recorded as git_commit; the push is what reaches a remote. Where the project
      // says its remote is public (config publicRemotes), a commit is also the seed's commit_to_public_repo.
      if (!dry && !(sub === 'add' && flags.includes('n'))) {
        c.add('git_commit', f.cmd)
        if (c.ctx.publicRemote?.(dir)) c.add('commit_to_public_repo', f.cmd)
      }
      return
    case 'reset':
      if (rest.includes('--hard') || rest.includes('--merge') || rest.includes('--keep')) {
        // Back to HEAD with nothing uncommitted loses nothing; another commit drops commits from the branch.
        const target = ops[0]
        if (target && target !== 'HEAD') c.add('git_discard', f.cmd)
        else discard(['.'])
      }
      return
    case 'clean':
      if ((flags.includes('f') || rest.includes('--force')) && !flags.includes('n') && !dry) {
        const scope = rest.includes('--') ? rest.slice(rest.indexOf('--') + 1) : ops
        const paths = scope.length ? scope : ['.']
        const lost = paths.filter((p) => c.ctx.fileState?.(at(p)) !== 'tracked-clean')
        if (lost.length) c.add('git_discard', f.cmd)
        // Untracked files under these paths are what `git clean -f` removes (ignored ones too with -x).
        for (const p of lost)
          if (!/[$`*?[]/.test(p))
            c.deleted.set(at(p), {
              lose: flags.includes('x') || flags.includes('X') ? 'untracked+ignored' : 'untracked',
            })
      }
      return
    case 'checkout': {
      if (touchesProtected) c.add('ratchet_state_edit', f.cmd)
      // New branches (`-b`, `-B`, `--orphan`) discard nothing. Paths are discarded: after `--`, after a ref
      // (`git checkout main src/app.ts`), or a lone operand that is a path rather than a branch (`.`, an
      // existing file); `feature/x` alone is a branch. `-f` discards the whole tree.
      if (flags.includes('b') || flags.includes('B') || rest.includes('--orphan') || rest.includes('--help')) return
      if (flags.includes('f') || rest.includes('--force')) return discard(['.'])
      const dd = rest.indexOf('--')
      let paths: string[] = []
      if (dd >= 0) paths = rest.slice(dd + 1)
      else if (ops.length >= 2) paths = ops.slice(1)
      else if (
        ops.length === 1 &&
        (ops[0] === '.' ||
          ops[0].startsWith('./') ||
          ops[0].startsWith(':/') ||
          /[*?]/.test(ops[0]) ||
          c.ctx.fileExists(at(ops[0])))
      )
        paths = ops
      if (paths.length) discard(paths)
      return
    }
    case 'restore': {
      if (touchesProtected) c.add('ratchet_state_edit', f.cmd)
      // `--staged` alone only unstages.
      if (!(rest.includes('--staged') || flags.includes('S')) || rest.includes('--worktree') || flags.includes('W')) {
        const paths = rest.filter((x, k) => !x.startsWith('-') && !/^(-s|--source)$/.test(rest[k - 1] ?? ''))
        discard(paths)
      }
      return
    }
    case 'switch':
      if (rest.includes('--discard-changes') || rest.includes('--force') || flags.includes('f')) discard(['.'])
      return
    case 'stash':
      if (ops[0] === 'drop' || ops[0] === 'clear') c.add('git_discard', f.cmd)
      return
    case 'branch':
      // `-d` refuses an unmerged branch, so it loses nothing; `-D` (or `-d --force`) does not refuse.
      if (
        flags.includes('D') ||
        ((flags.includes('d') || rest.includes('--delete')) && (flags.includes('f') || rest.includes('--force')))
      )
        c.add('git_ref_delete', f.cmd)
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
    case 'read-tree':
      // `-u --reset` overwrites the work tree like reset --hard; `-u -m` refuses to lose changes.
      if ((rest.includes('-u') || flags.includes('u')) && rest.includes('--reset')) discard(['.'])
      return
    case 'update-ref':
      if (flags.includes('d')) c.add('git_ref_delete', f.cmd)
      return
    case 'rm':
      if (touchesProtected) c.add('ratchet_state_edit', f.cmd)
      // `git rm` deletes the files from the work tree too (not with --cached). Without -f git refuses a file whose
      // content HEAD does not hold, so what it deletes can be restored: quiet for the built-ins, but a rule on
      // file_delete hears of it. With -f it is weighed as rm's is (uncommitted changes are lost).
      if (rest.includes('--cached') || dry || flags.includes('n')) return
      if (flags.includes('f') || rest.includes('--force')) deletion(c, inv, { ...f, at }, ops, flags.includes('r'))
      else if (ops.length) {
        for (const o of ops) c.paths.add(at(o))
        c.restorable('file_delete', f.cmd)
      }
      return
    case 'mv':
    case 'apply':
    case 'am':
      if (touchesProtected) c.add('ratchet_state_edit', f.cmd)
      return
    case 'send-email': {
      if (dry) return
      const to = rest
        .flatMap((x, k) =>
          x === '--to' || x === '--cc'
            ? [rest[k + 1] ?? '']
            : x.startsWith('--to=') || x.startsWith('--cc=')
              ? [x.slice(x.indexOf('=') + 1)]
              : [],
        )
        .filter(Boolean)
      c.irrevocable('email_send', f.cmd, {
        kind: 'sends',
        what: `patches by mail to ${to.length ? to.join(', ') : 'the recipients in git’s configuration or the patches’ headers'}`,
        names: to.length ? to.map((r) => [r, r.split('@')[0]]) : [['send-email', 'patches', 'patch']],
      })
      return
    }
  }
}

/** Subcommands that change no ref of the repository they run in (config and remotes are judged as settings). */
const LEAVES_REFS = new Set([
  'status',
  'log',
  'show',
  'diff',
  'rev-parse',
  'ls-remote',
  'ls-files',
  'ls-tree',
  'cat-file',
  'describe',
  'blame',
  'annotate',
  'shortlog',
  'grep',
  'rev-list',
  'show-ref',
  'for-each-ref',
  'count-objects',
  'fsck',
  'help',
  'version',
  'name-rev',
  'merge-base',
  'whatchanged',
  'show-branch',
  'var',
  'check-ignore',
  'check-attr',
  'check-ref-format',
  'verify-commit',
  'verify-tag',
  'verify-pack',
  'archive',
  'format-patch',
  'diff-tree',
  'diff-files',
  'diff-index',
  'config',
  'remote',
  'init',
  'clone',
  'bundle',
  'worktree',
  'submodule',
  'range-diff',
  'cherry',
  'get-tar-commit-id',
  'hash-object',
  'mktree',
  'ls-files',
  'send-email',
  'request-pull',
  'maintenance',
  'credential',
  'lfs',
  '',
])

/**
 * A git command that changes refs in a repository outside the project (`git -C ../remote.git fetch ../project
 * main:leak`, `--git-dir=`, `cd ../remote.git && git update-ref …`): what it takes from the project reaches whoever
 * reads that repository, so it is a push there. Under the floor the only such repositories the agent can write
 * are the project's local remotes (and temporary folders). lib/core/evidence.ts gathers what would leave.
 */
function outsideRepo(
  c: Sink,
  cmd: string,
  repo: string,
  sub: string,
  rest: string[],
  ops: string[],
  flags: string,
): void {
  const project = c.ctx.projectDir
  if (repo === project || repo.startsWith(`${project}/`) || /[$`]/.test(repo)) return
  if (LEAVES_REFS.has(sub) || sub === 'push') return
  if (
    (sub === 'branch' || sub === 'tag') &&
    !ops.length &&
    !/[dDmMcCf]/.test(flags) &&
    !rest.some((x) => /^--(delete|move|copy|force|edit-description|set-upstream-to|unset-upstream)/.test(x))
  )
    return
  if ((sub === 'stash' || sub === 'notes' || sub === 'reflog') && (!ops.length || /^(list|show)$/.test(ops[0]))) return
  if (sub === 'fetch' && (rest.includes('--dry-run') || flags.includes('n'))) return
  const where = `changes refs in ${repo}, a repository outside the project: what it takes from the project reaches whoever reads that repository, as a push would`
  c.add('git_push', `${cmd} (${where})`)
  c.add('commit_to_public_repo', `${cmd} (${where})`)
  // Moving a ref anywhere (`+src:dst`, `--force`, update-ref, reset, branch -f, rebase) is a forced push there.
  const dsts =
    sub === 'fetch' || sub === 'pull'
      ? ops.slice(1).map((r) => r.split(':').pop() ?? '')
      : sub === 'update-ref'
        ? ops.slice(0, 1)
        : ops
  const forced =
    ((sub === 'fetch' || sub === 'pull') &&
      (rest.includes('--force') || flags.includes('f') || ops.slice(1).some((r) => r.startsWith('+')))) ||
    (sub === 'update-ref' && !flags.includes('d')) ||
    /^(reset|rebase|filter-branch|filter-repo|replace|symbolic-ref|fast-import)$/.test(sub) ||
    ((sub === 'branch' || sub === 'tag') && (flags.includes('f') || rest.includes('--force') || /[mM]/.test(flags)))
  if (forced)
    c.add(
      'git_history_rewrite',
      `${cmd} (${where})`,
      dsts.some((r) => DEFAULT_BRANCHES.test(r.replace(/^\+?(refs\/heads\/)?/, ''))),
    )
  const deletes =
    (sub === 'update-ref' && flags.includes('d')) ||
    ((sub === 'branch' || sub === 'tag') && (/[dD]/.test(flags) || rest.includes('--delete'))) ||
    ((sub === 'fetch' || sub === 'pull') && (rest.includes('--prune') || flags.includes('p')))
  if (deletes && sub !== 'branch' && sub !== 'tag' && sub !== 'update-ref') c.add('git_ref_delete', `${cmd} (${where})`)
}

/** A git repository's folder itself, or a path in its object store or refs (`remote.git/`, `.git/objects/…`, `remote.git/refs/heads/x`, `packed-refs`). */
const GIT_STORE =
  /(?:^|\/)(?:\.git|[^/]+\.git)(?:\/(?:objects(?:\/|$)|refs(?:\/|$)|packed-refs$|HEAD$)|\/?$)|\/refs\/(?:heads|tags)(?:\/|$)/

/**
 * A file write into the objects or refs of a repository outside the project (`cp -r .git/objects/.
 * ../remote.git/objects/`, `git rev-parse HEAD > ../remote.git/refs/heads/x`) is a push there by other means, and
 * what it carries cannot be read before it runs.
 */
export function gitStoreWrite(c: Sink, abs: string, how: string): void {
  const project = c.ctx.projectDir
  if (abs === project || abs.startsWith(`${project}/`) || !GIT_STORE.test(abs)) return
  const what = `${how} (writes ${abs}, the object store or refs of a repository outside the project: a push there by other means)`
  c.add('git_push', what)
  c.add('commit_to_public_repo', what)
  c.add(
    'unreadable',
    `${how}: what reaches the repository at ${abs} by a file write cannot be read before it runs; push with git instead`,
  )
}

export const programs: Record<string, Detector> = { git }

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
