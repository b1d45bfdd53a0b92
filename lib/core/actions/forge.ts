// Code forges: creating or merging PRs, issues, releases, gists and repos; deleting repos and releases.

import type { Detector, FamilyMeta } from './types'

export const meta: FamilyMeta = {
  id: 'forge',
  classes: ['public_surface', 'irreversible'],
  patterns: ['pr_or_issue_create', 'infra_destroy'],
  description: 'Forge CLIs (gh, glab, hub): creating, commenting on or merging PRs, issues, releases; deleting repos',
  examples: ['gh pr create --fill', 'gh api -X POST repos/o/r/issues', 'glab mr merge 3', 'gh repo delete o/r'],
}

export const programs: Record<string, Detector> = {
  gh: (c, inv, f) => {
    const [noun, verb] = f.operands
    if (
      (/^(pr|issue|release|gist|repo)$/.test(noun ?? '') && /^(create|new|merge|comment|edit|upload|close|reopen|review)$/.test(verb ?? '')) ||
      (noun === 'api' && inv.args.some((a, i) => /^(-X|--method)$/.test(inv.args[i - 1] ?? '') && /^(POST|PUT|PATCH|DELETE)$/i.test(a)))
    )
      c.add('pr_or_issue_create', f.cmd)
    if (/^(repo|release)$/.test(noun ?? '') && verb === 'delete') c.add('infra_destroy', f.cmd)
  },
  glab: (c, _inv, f) => {
    if (/^(mr|issue|release)$/.test(f.operands[0] ?? '') && /^(create|merge|note)$/.test(f.operands[1] ?? '')) c.add('pr_or_issue_create', f.cmd)
  },
  hub: (c, _inv, f) => {
    if (/^(pull-request|release|issue|create)$/.test(f.operands[0] ?? '')) c.add('pr_or_issue_create', f.cmd)
  },
}
