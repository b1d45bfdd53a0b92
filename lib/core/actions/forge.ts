// Code forges: creating or merging PRs, issues, releases, gists and repos; deleting repos and releases.

import type { Detector, FamilyMeta } from './types'
import { operandsAfter } from './util'

export const meta: FamilyMeta = {
  id: 'forge',
  classes: ['public_surface', 'irreversible'],
  patterns: ['pr_or_issue_create', 'infra_destroy', 'secret_access'],
  description: 'Forge CLIs (gh, glab, hub): creating, commenting on or merging PRs, issues, releases; deleting repos',
  examples: ['gh pr create --fill', 'gh api -X POST repos/o/r/issues', 'glab mr merge 3', 'gh repo delete o/r'],
}

export const programs: Record<string, Detector> = {
  gh: (c, inv, f) => {
    const [noun, verb] = operandsAfter(inv.args, ['-R', '--repo', '--hostname'])
    if (
      (/^(pr|issue|release|gist|repo)$/.test(noun ?? '') && /^(create|new|merge|comment|edit|upload|close|reopen|review)$/.test(verb ?? '')) ||
      (noun === 'api' && inv.args.some((a, i) => /^(-X|--method)$/.test(inv.args[i - 1] ?? '') && /^(POST|PUT|PATCH|DELETE)$/i.test(a)))
    )
      c.add('pr_or_issue_create', f.cmd)
    if (/^(repo|release)$/.test(noun ?? '') && verb === 'delete') c.add('infra_destroy', f.cmd)
    if (noun === 'auth' && verb === 'token') {
      c.secrets.add('the GitHub token')
      c.add('secret_access', f.cmd)
    }
  },
  glab: (c, inv, f) => {
    const [noun, verb] = operandsAfter(inv.args, ['-R', '--repo'])
    if (/^(mr|issue|release)$/.test(noun ?? '') && /^(create|merge|note)$/.test(verb ?? '')) c.add('pr_or_issue_create', f.cmd)
  },
  hub: (c, _inv, f) => {
    if (/^(pull-request|release|issue|create)$/.test(f.operands[0] ?? '')) c.add('pr_or_issue_create', f.cmd)
  },
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
