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
    // what cannot be undone, named (issue 19)
    [
      'gh repo delete me/app --yes',
      'infra_destroy',
      /^GitHub repository me\/app with its issues, pull requests, wiki and releases$/,
    ],
    [
      'gh release delete v1.2.0 --yes --cleanup-tag',
      'infra_destroy',
      /release v1\.2\.0 of .* with its assets and notes, and its tag/,
    ],
    ['gh release delete-asset v1 app.zip', 'infra_destroy', /asset app\.zip of release v1/],
    [
      'gh api -X DELETE repos/o/r/git/refs/heads/old',
      'remote_delete',
      /^DELETE repos\/o\/r\/git\/refs\/heads\/old on GitHub$/,
    ],
    ['gh api --method=DELETE /repos/o/r/hooks/1', 'remote_delete', /DELETE \/repos\/o\/r\/hooks\/1/],
    [
      'gh api repos/o/r/issues/1/comments -f body=fixed',
      'pr_or_issue_create',
      /a comment posted to repos\/o\/r\/issues\/1\/comments/,
    ],
    ['gh api repos/o/r/issues -f title=x', 'pr_or_issue_create', false],
    ['gh issue comment 7 -b done', 'pr_or_issue_create', /a comment on issue 7 of this folder’s repository/],
    ['gh pr comment 12 --body lgtm -R o/r', 'pr_or_issue_create', /a comment on pull request 12 of o\/r/],
    ['glab repo delete g/p --yes', 'infra_destroy', /GitLab project g\/p/],
    ['glab release delete v2', 'infra_destroy', /GitLab release v2/],
    ['glab mr note 3 -m done', 'pr_or_issue_create', /a comment on merge request 3/],
    // a workflow run against production is a deploy (a check, like vercel --prod)
    ['gh workflow run deploy.yml -f environment=production', 'deploy', false],
    ['gh workflow run ci.yml -f target=prod', 'deploy'],
  ],
  invalid: [
    'gh workflow run ci.yml',
    'gh workflow list',
    'gh release list',
    'gh repo view o/r',
    'gh api repos/o/r/issues/1/comments',
    'gh api -X GET repos/o/r/issues -f state=open',
    'glab release list',
    'glab repo view',
    'gh pr list',
    'gh pr view 12',
    'gh api repos/o/r/issues',
    'gh issue create --help',
    'glab mr list',
    'hub browse',
    'echo "gh pr create"',
  ],
})
