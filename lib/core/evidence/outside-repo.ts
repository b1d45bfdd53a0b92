// A command that writes into a repository outside the project (a fetch run there, a file copied into its objects)
// is a push from the project to it: read here as one, so the destination rules and the scan see it.

import path from 'node:path'
import type { Invocation } from '../commands'
import { GIT_GLOBAL_WITH_VALUE } from './git-line'
import { type EvidenceTarget, resolvePath } from './targets'

/** A git repository's folder itself, or a path in its object store or refs (`remote.git/`, `.git/objects/…`, `remote.git/refs/heads/x`, `packed-refs`). */
const GIT_STORE =
  /(?:^|\/)(?:\.git|[^/]+\.git)(?:\/(?:objects(?:\/|$)|refs(?:\/|$)|packed-refs$|HEAD$)|\/?$)|\/refs\/(?:heads|tags)(?:\/|$)/
/** git subcommands that change no ref of the repository they run in (as lib/core/actions/git/ reads them). */
const LEAVES_REFS =
  /^(status|log|show|diff|rev-parse|ls-remote|ls-files|ls-tree|cat-file|describe|blame|annotate|shortlog|grep|rev-list|show-ref|for-each-ref|count-objects|fsck|help|version|name-rev|merge-base|whatchanged|show-branch|var|check-ignore|check-attr|check-ref-format|verify-commit|verify-tag|verify-pack|archive|format-patch|diff-tree|diff-files|diff-index|config|remote|init|clone|bundle|worktree|submodule|range-diff|cherry|hash-object|send-email|request-pull|maintenance|credential|lfs|push|)$/
const COPIES_TO_LAST = new Set(['cp', 'mv', 'install', 'rsync', 'ln', 'tee', 'dd'])

/**
 * A command that changes what a repository outside the project holds, read as a push from the project to it:
 * - `git -C ../remote.git fetch ../project main:leak` (also `--git-dir`, `GIT_DIR=`, `cd … &&`): the commits of the
 *   fetched refs leave the project, as `git push ../remote.git main:leak` would send them;
 * - any other ref change there (`update-ref`, `reset`, `branch -f`, `fetch` from a name it knows): the worst
 *   reading, every unpushed commit of the project;
 * - a file written into its objects or refs (`cp -r .git/objects/. ../remote.git/objects/`): what arrives cannot be
 *   read before it runs.
 * A fetch into the project itself, and reading another clone (`git -C ../x log`), are not.
 */
export function outsideRepoPush(
  inv: Invocation,
  dir: string,
  home: string,
  cmd: string,
  project: string,
): EvidenceTarget | undefined {
  const inside = (p: string) => p === project || p.startsWith(`${project}/`)
  const dests = [
    ...inv.redirects.filter((r) => /^(>|>>|>\||&>|&>>)$/.test(r.op) && r.target).map((r) => r.target),
    ...(COPIES_TO_LAST.has(inv.name)
      ? inv.args.filter((x) => !x.startsWith('-')).slice(inv.name === 'tee' ? 0 : -1)
      : []),
  ]
  const hit = dests.map((d) => resolvePath(d, dir, home)).find((d) => !inside(d) && GIT_STORE.test(d))
  if (hit)
    return {
      kind: 'unknown',
      why: `it writes into ${hit}, the objects or refs of a repository outside the project: what reaches that repository cannot be read before it runs`,
      command: cmd,
    }
  if (inv.name !== 'git') return undefined
  const a = inv.args
  let i = 0
  let at = dir
  let gitDir = inv.env?.GIT_DIR
  while (i < a.length && a[i].startsWith('-')) {
    if (a[i] === '-C') at = resolvePath(a[i + 1] ?? '.', at, home)
    if (a[i] === '--git-dir') gitDir = a[i + 1]
    else if (a[i].startsWith('--git-dir=')) gitDir = a[i].slice('--git-dir='.length)
    i += GIT_GLOBAL_WITH_VALUE.has(a[i]) || a[i] === '--git-dir' ? 2 : 1
  }
  const repo = gitDir ? resolvePath(gitDir, at, home) : at
  const sub = a[i] ?? ''
  if (inside(repo) || /[$`]/.test(repo) || LEAVES_REFS.test(sub)) return undefined
  const rest = a.slice(i + 1)
  const ops = rest.filter((x) => !x.startsWith('-'))
  if (
    (sub === 'branch' || sub === 'tag' || sub === 'stash' || sub === 'notes' || sub === 'reflog') &&
    (!ops.length || /^(list|show)$/.test(ops[0]))
  )
    return undefined
  if (sub === 'fetch' && rest.some((x) => x === '--dry-run' || /^-[a-z]*n/.test(x))) return undefined
  // Named as `git push` from the project would name it (`../remote.git`), so the destination rules read it the same.
  const push = (from: string, sources: string[], refspecs: string[]): EvidenceTarget => ({
    kind: 'git',
    dir: from,
    stages: [],
    commits: 0,
    push: {
      remote: path.posix.relative(from, repo),
      sources,
      allBranches: !sources.length,
      tags: false,
      refspecs,
      command: cmd,
    },
    command: cmd,
    commands: [cmd],
  })
  if (sub === 'fetch' || sub === 'pull') {
    const [source, ...refspecs] = ops
    // A URL brings nothing of the project's; a path is that repository; a bare name may be a remote pointing at the project.
    if (source && (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) || /^[^/]+@[^/]+:/.test(source))) return undefined
    const from =
      source && !/[$`]/.test(source) && (source.includes('/') || source === '.' || source === '..')
        ? resolvePath(source, at, home)
        : project
    if (!inside(from)) return undefined
    const sources = refspecs.map((r) => r.replace(/^\+/, '').split(':')[0]).filter(Boolean)
    return push(from, sources, refspecs)
  }
  return push(project, [], [])
}
