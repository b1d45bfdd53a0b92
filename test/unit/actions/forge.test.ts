import * as family from '../../../lib/core/actions/forge'
import { familyTable } from './table'

familyTable(family, {
  valid: [
    ['gh pr create --fill', 'pr_or_issue_create'],
    ['gh issue create -t bug -b body', 'pr_or_issue_create'],
    ['gh release create v1.0.0', 'pr_or_issue_create'],
    ['gh pr merge 12 --squash', 'pr_or_issue_create'],
    ['gh api -X POST repos/o/r/issues', 'pr_or_issue_create'],
    ['gh repo delete o/r --yes', 'infra_destroy'],
    ['glab mr create --fill', 'pr_or_issue_create'],
    ['gh -R o/r pr create --fill', 'pr_or_issue_create'],
    ['glab -R g/p mr merge 3', 'pr_or_issue_create'],
    ['hub pull-request -m x', 'pr_or_issue_create'],
  ],
  invalid: ['gh pr list', 'gh pr view 12', 'gh api repos/o/r/issues', 'gh issue create --help', 'glab mr list', 'hub browse', 'echo "gh pr create"'],
})
