// Pushes: `git push`, and what is a push by other means — a git command that changes refs in a repository outside
// the project, or a file write into such a repository's objects or refs.

import type { Sink } from '../types'
import { DEFAULT_BRANCHES, type SubcommandHandler } from './call'

export const push: SubcommandHandler = ({ c, f, rest, ops, flags, dry, dir }) => {
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
  // Where each refspec lands on the remote; `HEAD` lands on the branch checked out (unknown: the worst case).
  const refs = ops
    .slice(1)
    .map((r) => r.replace(/^\+/, '').split(':').pop() ?? '')
    .map((r) => (r === 'HEAD' ? (c.ctx.currentBranch(dir) ?? 'HEAD') : r))
  const branch = refs.length ? undefined : c.ctx.currentBranch(dir)
  const hitsDefault =
    rest.includes('--all') ||
    rest.includes('--mirror') ||
    (refs.length
      ? refs.some((r) => r === 'HEAD' || DEFAULT_BRANCHES.test(r.replace(/^refs\/heads\//, '')))
      : branch === undefined || DEFAULT_BRANCHES.test(branch))
  const remote = ops[0] ?? 'origin'
  if (force && hitsDefault) c.add('git_history_rewrite', f.cmd, true)
  else if (force) {
    // Overwriting another branch on the remote loses what it holds there as surely as deleting it: a human decides
    // unless the user asked for it by name, and an approval binds to the remote's tips as they were.
    const over = refs.length ? refs.filter(Boolean) : [branch!]
    c.irrevocable('git_history_rewrite', f.cmd, {
      kind: 'destroys',
      what: `the commits on ${over.join(', ')} at remote ${remote} that the push does not keep (anyone who fetches from it loses them; a local copy, if any, can be pushed back)`,
      names: over.map((r) => [r, r.replace(/^refs\/(heads|tags)\//, '')]),
      remoteRefs: { dir, remote, refs: over },
    })
  }
  if (del) {
    // Deleting on the remote: what others fetched from there is gone from it (a local copy may still exist).
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
 * are the project's local remotes (and temporary folders). lib/core/evidence/ plans what would leave.
 */
export function outsideRepo(
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
