// git subcommands that change the index or the work tree: add and commit (local until pushed), rm (a deletion),
// and mv, apply, am (a write to whatever they name, Ratchet's own files included).

import { deletion } from '../fs-delete'
import type { SubcommandHandler } from './call'

const commit: SubcommandHandler = ({ c, f, sub, flags, dry, dir }) => {
  // Local until pushed: recorded as git_commit; the push is what reaches a remote. Where the project
  // says its remote is public (config publicRemotes), a commit is also the seed's commit_to_public_repo.
  if (!dry && !(sub === 'add' && flags.includes('n'))) {
    c.add('git_commit', f.cmd)
    if (c.ctx.publicRemote?.(dir)) c.add('commit_to_public_repo', f.cmd)
  }
}

const rm: SubcommandHandler = ({ c, inv, f, rest, ops, flags, dry, at, touchesProtected }) => {
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
}

const writesNamed: SubcommandHandler = ({ c, f, touchesProtected }) => {
  if (touchesProtected) c.add('ratchet_state_edit', f.cmd)
}

export const workTree: Record<string, SubcommandHandler> = {
  add: commit,
  commit,
  rm,
  mv: writesNamed,
  apply: writesNamed,
  am: writesNamed,
}
