import { describe, expect, it } from 'vitest'
import * as family from '../../../lib/core/actions/git'
import { catastrophic, ctx, familyTable, patterns } from './table'

familyTable(family, {
  valid: [
    ['git push origin main', 'git_push'],
    ['git -C ../other push', 'git_push'],
    ['git -c user.name=x --no-pager push --tags', 'git_push'],
    ['cd repo && git push', 'git_push'],
    ['sudo -u deploy git push production', 'git_push'],
    ['env GIT_SSH_COMMAND=ssh git push', 'git_push'],
    ['FOO=1 BAR=2 git push', 'git_push'],
    ['timeout 30 git push origin feature', 'git_push'],
    ['nohup git push &', 'git_push'],
    ['command git push', 'git_push'],
    ['bash -c "git push origin main"', 'git_push'],
    ['echo $(git push)', 'git_push'],
    ['python3 -c "import subprocess; subprocess.run([\'git\', \'push\'])"', 'git_push'],
    ['git add -A', 'commit_to_public_repo'],
    ['git commit -m "fix typo"', 'commit_to_public_repo'],
    ['git reset --hard HEAD~1', 'git_discard'],
    ['git clean -fdx', 'git_discard'],
    ['git checkout .', 'git_discard'],
    ['git checkout -- src/app.ts', 'git_discard'],
    ['git restore src/', 'git_discard'],
    ['git stash drop', 'git_discard'],
    ['git stash clear', 'git_discard'],
    ['git switch --discard-changes main', 'git_discard'],
    ['git push --force origin feature', 'git_history_rewrite', false],
    ['git push -f', 'git_history_rewrite'],
    ['git push origin +feature', 'git_history_rewrite'],
    ['git push --force-with-lease', 'git_history_rewrite'],
    ['git filter-branch --tree-filter x HEAD', 'git_history_rewrite'],
    ['git reflog expire --expire=now --all', 'git_history_rewrite'],
    ['git push --force origin main', 'git_history_rewrite', true],
    ['git push -f origin HEAD:master', 'git_history_rewrite', true],
    ['git push origin +main', 'git_history_rewrite', true],
    ['git branch -D old', 'git_ref_delete'],
    ['git tag -d v1', 'git_ref_delete'],
    ['git push origin --delete old', 'git_ref_delete'],
    ['git push origin :old', 'git_ref_delete'],
    ['git update-ref -d refs/heads/old', 'git_ref_delete'],
    ['git send-email --to x@y.z 0001.patch', 'email_send'],
  ],
  invalid: [
    'echo "git push"',
    '# git push origin main',
    'git log --grep="npm publish"',
    'git status && git diff',
    'git checkout -b feature/new',
    'git checkout main',
    'git restore --staged src/app.ts',
    'git clean -n',
    'git stash list',
    'git reflog',
    'git branch -a',
    'git tag v1.2.0',
    'git push --help',
    'node -e "console.log(\'git push\')"',
    'echo "$(echo git push)"',
  ],
})

describe('git: details', () => {
  it('a force push without a refspec is catastrophic on the default branch only', () => {
    expect(catastrophic('git push --force', ctx({ currentBranch: () => 'main' }))).toBe(true)
    expect(catastrophic('git push --force', ctx({ currentBranch: () => 'feature/x' }))).toBe(false)
    // Unknown branch (detached, no repo): assume the worst.
    expect(catastrophic('git push -f', ctx({ currentBranch: () => undefined }))).toBe(true)
  })
  it('a commit message naming commands is only a commit, never a push or a delete', () => {
    expect(patterns('git commit -m "do not git push --force to main; rm -rf is bad"')).toEqual(['commit_to_public_repo'])
  })
})
