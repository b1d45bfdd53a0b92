// git subcommands that delete refs or rewrite history in the repository they run in (branch -D, tag -d,
// update-ref -d, filter-branch, filter-repo, reflog expire).

import type { SubcommandHandler } from './call'

const branch: SubcommandHandler = ({ c, f, rest, flags }) => {
  // `-d` refuses an unmerged branch, so it loses nothing; `-D` (or `-d --force`) does not refuse.
  if (
    flags.includes('D') ||
    ((flags.includes('d') || rest.includes('--delete')) && (flags.includes('f') || rest.includes('--force')))
  )
    c.add('git_ref_delete', f.cmd)
}

const tag: SubcommandHandler = ({ c, f, rest, flags }) => {
  if (flags.includes('d') || rest.includes('--delete')) c.add('git_ref_delete', f.cmd)
}

const filter: SubcommandHandler = ({ c, f }) => c.add('git_history_rewrite', f.cmd)

const reflog: SubcommandHandler = ({ c, f, ops }) => {
  if (ops[0] === 'expire' || ops[0] === 'delete') c.add('git_history_rewrite', f.cmd)
}

const updateRef: SubcommandHandler = ({ c, f, flags }) => {
  if (flags.includes('d')) c.add('git_ref_delete', f.cmd)
}

export const refsAndHistory: Record<string, SubcommandHandler> = {
  branch,
  tag,
  'filter-branch': filter,
  'filter-repo': filter,
  reflog,
  'update-ref': updateRef,
}
