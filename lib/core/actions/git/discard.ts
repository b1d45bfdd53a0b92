// git subcommands that discard uncommitted work (reset --hard, clean -f, checkout -- path, restore, switch -f,
// stash drop, read-tree -u --reset): each names the paths whose changes would go, for the loss stage.

import type { SubcommandHandler } from './call'

const reset: SubcommandHandler = ({ c, f, rest, ops, discard }) => {
  if (rest.includes('--hard') || rest.includes('--merge') || rest.includes('--keep')) {
    // Back to HEAD with nothing uncommitted loses nothing; another commit drops commits from the branch.
    const target = ops[0]
    if (target && target !== 'HEAD') c.add('git_discard', f.cmd)
    else discard(['.'])
  }
}

const clean: SubcommandHandler = ({ c, f, rest, ops, flags, dry, at }) => {
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
}

const checkout: SubcommandHandler = ({ c, f, rest, ops, flags, at, touchesProtected, discard }) => {
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
}

const restore: SubcommandHandler = ({ c, f, rest, flags, touchesProtected, discard }) => {
  if (touchesProtected) c.add('ratchet_state_edit', f.cmd)
  // `--staged` alone only unstages.
  if (!(rest.includes('--staged') || flags.includes('S')) || rest.includes('--worktree') || flags.includes('W')) {
    const paths = rest.filter((x, k) => !x.startsWith('-') && !/^(-s|--source)$/.test(rest[k - 1] ?? ''))
    discard(paths)
  }
}

const switchBranch: SubcommandHandler = ({ rest, flags, discard }) => {
  if (rest.includes('--discard-changes') || rest.includes('--force') || flags.includes('f')) discard(['.'])
}

const stash: SubcommandHandler = ({ c, f, ops }) => {
  if (ops[0] === 'drop' || ops[0] === 'clear') c.add('git_discard', f.cmd)
}

const readTree: SubcommandHandler = ({ rest, flags, discard }) => {
  // `-u --reset` overwrites the work tree like reset --hard; `-u -m` refuses to lose changes.
  if ((rest.includes('-u') || flags.includes('u')) && rest.includes('--reset')) discard(['.'])
}

export const discarding: Record<string, SubcommandHandler> = {
  reset,
  clean,
  checkout,
  restore,
  switch: switchBranch,
  stash,
  'read-tree': readTree,
}
