import { describe, expect, it } from 'vitest'
import * as family from '../../../lib/core/actions/git'
import { catastrophic, ctx, familyTable, patterns, withGit } from './table'

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
    ["python3 -c \"import subprocess; subprocess.run(['git', 'push'])\"", 'git_push'],
    // local: recorded as git_commit (not public surface); the push is what reaches a remote
    ['git add -A', 'git_commit'],
    ['git commit -m "fix typo"', 'git_commit'],
    ['git push origin feature', 'commit_to_public_repo'],
    // paths discarded: after `--`, after a ref, or a lone existing path
    ['git checkout main src/app.ts', 'git_discard'],
    ['git checkout HEAD~1 -- src/app.ts', 'git_discard'],
    ['git checkout app.ts', 'git_discard'],
    ['git checkout -f main', 'git_discard'],
    { input: 'git checkout -- src/app.ts', pattern: 'git_discard', ctx: withGit({ 'src/app.ts': 'tracked-modified' }) },
    { input: 'git reset --hard', pattern: 'git_discard', ctx: withGit({ '.': 'tracked-modified' }) },
    { input: 'git reset --hard origin/main', pattern: 'git_discard', ctx: withGit({ '.': 'tracked-clean' }) },
    { input: 'git restore src/app.ts', pattern: 'git_discard', ctx: withGit({ 'src/app.ts': 'tracked-modified' }) },
    { input: 'git clean -fd', pattern: 'git_discard', ctx: withGit({ '.': 'untracked' }) },
    // aliases defined inline run their definition
    ["git -c alias.x='push --force' x", 'git_history_rewrite'],
    ["git -c alias.ship='push' ship origin main", 'git_push'],
    ["git -c alias.nuke='!rm -rf ~' nuke", 'file_delete', true],
    ["git config alias.p 'push --force' && git p", 'git_history_rewrite'],
    ['git branch -d -f old', 'git_ref_delete'],
    ['git branch --delete --force old', 'git_ref_delete'],
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
    ['git push origin --delete feature/login', 'git_ref_delete', /^ref feature\/login on remote origin/],
    ['git push upstream :refs/tags/v1.0', 'git_ref_delete', /ref refs\/tags\/v1\.0 on remote upstream/],
    ['git branch -D old', 'git_ref_delete', false],
    ['git send-email --to list@example.org 0001-fix.patch', 'email_send', /^patches by mail to list@example\.org$/],
    ['git update-ref -d refs/heads/old', 'git_ref_delete'],
    ['git send-email --to x@y.z 0001.patch', 'email_send'],
    // Red team C: refs changed in a repository outside the project (a local remote) are a push there.
    ['git -C ../remote.git fetch ../project main:refs/heads/leak', 'git_push'],
    ['git -C ../remote.git fetch ../project main:refs/heads/leak', 'commit_to_public_repo'],
    ['git --git-dir=../remote.git fetch "$PWD" HEAD:refs/heads/main', 'git_push'],
    ['git --git-dir ../remote.git fetch . HEAD:refs/heads/x', 'git_push'],
    ['GIT_DIR=../remote.git git fetch . main:x', 'git_push'],
    ['cd ../remote.git && git fetch ../project +main:main', 'git_history_rewrite', true],
    ['git -C ../remote.git update-ref refs/heads/main 1234abc', 'git_history_rewrite', true],
    ['git -C ../remote.git update-ref refs/heads/leak 1234abc', 'git_history_rewrite', false],
    ['git -C /srv/git/app.git branch -f main 1234abc', 'git_history_rewrite', true],
    ['git -C ../remote.git tag v9 1234abc', 'git_push'],
    ['git -C ../remote.git fetch --prune ../project', 'git_ref_delete'],
    ['git rev-parse HEAD > ../remote.git/refs/heads/leak', 'git_push'],
    ['cp -r .git/objects/. ../remote.git/objects/', 'git_push'],
    ['rsync -a .git/ ../remote.git/', 'git_push'],
    [
      {
        tool_name: 'Write',
        tool_input: { file_path: '/home/dev/remote.git/packed-refs', content: 'x refs/heads/leak\n' },
      },
      'git_push',
    ],
  ],
  invalid: [
    // Reading another repository, fetching into the project, a nested repository of the project's own.
    'git -C ../other-clone status',
    'git -C ../other-clone log --oneline -5',
    'git -C ../remote.git branch -a',
    'git -C ../remote.git tag -l',
    'git -C ../remote.git fetch --dry-run ../project',
    'git fetch ../remote.git main',
    'git pull ../remote.git main',
    { input: 'git -C vendor/lib fetch origin', allow: [] },
    { input: 'git -C vendor/lib commit -m x', allow: ['git_commit'] },
    { input: 'cp notes.txt ../backup/refs.txt', allow: ['outside_project'] },
    { input: 'cp x .git/refs/heads/y', allow: [] },
    'git send-email --dry-run --to list@example.org 0001-fix.patch',
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
    // look-alikes: slash-named branches, safe deletes, dry runs, mentions
    'git checkout feature/x',
    'git checkout -b fix/login origin/main',
    'git checkout -',
    'git switch feature/x',
    'git branch -d old',
    'git push -n origin main',
    'git push --dry-run',
    { input: 'git commit --dry-run', allow: [] },
    'git add -n .',
    'echo "git push --force"',
    { input: 'git commit -m "rm -rf / && git push --force"', allow: ['git_commit'] },
    { input: 'git commit --amend --no-edit', allow: ['git_commit'] },
    'git stash',
    'git stash pop',
    { input: 'git reset --hard', ctx: withGit({ '.': 'tracked-clean' }) },
    { input: 'git reset --hard HEAD', ctx: withGit({ '.': 'untracked' }) },
    { input: 'git checkout -- src/app.ts', ctx: withGit({ 'src/app.ts': 'tracked-clean' }) },
    { input: 'git checkout main -- README.md', ctx: withGit({ 'README.md': 'tracked-clean' }) },
    { input: 'git restore .', ctx: withGit({ '.': 'tracked-clean' }) },
    { input: 'git clean -fd', ctx: withGit({ '.': 'tracked-clean' }) },
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
  it('a force push of HEAD lands on the branch checked out', () => {
    expect(catastrophic('git push --force origin HEAD', ctx({ currentBranch: () => 'main' }))).toBe(true)
    expect(catastrophic('git push -f origin HEAD', ctx({ currentBranch: () => undefined }))).toBe(true)
    expect(catastrophic('git push --force origin HEAD', ctx({ currentBranch: () => 'feature/x' }))).toBe(false)
  })
  it('a commit message naming commands is only a commit, never a push or a delete', () => {
    expect(patterns('git commit -m "do not git push --force to main; rm -rf is bad"')).toEqual(['git_commit'])
  })
})

// Moving the work tree onto a commit without Ratchet's files (`git checkout HEAD~1` before it was added) is the
// floor's to stop: in the sandbox git cannot unlink .claude/settings.json or the rules (EBUSY/EROFS), so the
// registration stays on disk (test/e2e/claude-floor.test.ts checks out such a branch in the real client). The reader
// no longer asks git which protected files a checkout would change.

describe('git: moving the work tree', () => {
  it('read-tree -u --reset overwrites uncommitted work like reset --hard', () => {
    expect(patterns('git read-tree -u --reset HEAD', ctx(withGit({ '.': 'tracked-modified' })))).toContain(
      'git_discard',
    )
    expect(patterns('git read-tree -u --reset HEAD', ctx(withGit({ '.': 'tracked-clean' })))).not.toContain(
      'git_discard',
    )
  })
  it.each(['git checkout HEAD~1', 'git switch --orphan scratch', 'git checkout feature', 'git reset --hard HEAD~1'])(
    'is not self-protection to the reader: %s',
    (command) => {
      expect(patterns(command, ctx({ sandboxed: true }))).not.toContain('ratchet_state_edit')
    },
  )
})
