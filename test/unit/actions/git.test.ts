import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { classify } from '../../../lib/core/classify'
import type { FsFacts } from '../../../lib/core/actions/types'
import { fsFacts } from '../../../lib/io/fs-facts'
import { describe, expect, it } from 'vitest'
import * as family from '../../../lib/core/actions/git'
import { PROJECT, catastrophic, ctx, familyTable, patterns, withGit } from './table'

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
  ],
  invalid: [
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
  it('a commit message naming commands is only a commit, never a push or a delete', () => {
    expect(patterns('git commit -m "do not git push --force to main; rm -rf is bad"')).toEqual(['git_commit'])
  })
})

// Tree-changing git judged by the files it would change (issue 9 red team: `git checkout HEAD~1` to a commit
// before Ratchet was added removed .claude/settings.json and switched every hook off). The git facts come from
// a stub here (what `git diff --name-only HEAD <ref>` says under the protected folders) and from a real
// repository below.

describe('git: moving the work tree is judged by the protected files it changes', () => {
  /** A repository where refs `old` and `HEAD~1` predate Ratchet, `feature` has the same settings, orphans have nothing. */
  const differ: Record<string, string[]> = { 'HEAD~1': ['.claude/settings.json', '.ratchet/guardrails.json'], old: ['.claude/settings.json'], feature: [], main: [], '@{-1}': [] }
  const stub: FsFacts = {
    realpath: (p) => p,
    linkId: () => undefined,
    isDir: () => false,
    list: () => undefined,
    readText: () => undefined,
    archiveEntries: () => undefined,
    gitStatus: () => [],
    gitTreeChanges: (_dir, ref, specs) => {
      const files = ref === null ? ['.claude/settings.json', '.ratchet/guardrails.json'] : differ[ref]
      return files?.map((f) => `${PROJECT}/${f}`).filter((f) => specs.some((s) => f === s || f.startsWith(s + '/')))
    },
  }
  const c = ctx({ fs: stub, fileExists: (p) => p.endsWith('/README.md') })
  it.each([
    'git checkout HEAD~1',
    'git checkout old',
    'git checkout --detach old',
    'git switch -d HEAD~1',
    'git switch --detach old',
    'git switch --orphan scratch',
    'git checkout -b rescue HEAD~1',
    'git switch -c rescue old',
    'git read-tree -u --reset HEAD~1',
    'git read-tree -u -m old',
    'git read-tree -u --empty',
    'git reset --hard HEAD~1',
    'git reset --keep old',
    'git checkout old -- .',
    'git checkout old -- .claude',
    'git restore --source=old .',
    'git -C . checkout HEAD~1',
    'git rebase --onto HEAD~1 HEAD',
    // a commit named at run time, while Ratchet's files are tracked: any commit may lack them
    'git checkout $(git rev-list --max-parents=0 HEAD)',
    'git reset --hard $REF',
  ])('must stop: %s', (command) => {
    expect(patterns(command, c)).toContain('ratchet_state_edit')
  })
  it.each([
    'git checkout main',
    'git checkout feature',
    'git switch feature',
    'git switch -',
    'git checkout -',
    'git checkout -b new-branch',
    'git switch -c new-branch',
    'git checkout --orphan scratch',
    'git checkout old -- README.md',
    'git checkout unknown-ref',
    'git read-tree HEAD~1',
    'git reset --soft HEAD~1',
    'git rebase main',
  ])('must stay quiet (of self-protection): %s', (command) => {
    expect(patterns(command, c)).not.toContain('ratchet_state_edit')
  })
  it('a commit named at run time is fine where Ratchet’s files are not tracked', () => {
    const untracked = ctx({ fs: { ...stub, gitTreeChanges: () => [] } })
    expect(patterns('git checkout $BRANCH', untracked)).not.toContain('ratchet_state_edit')
    expect(patterns('git checkout $BRANCH', c)).toContain('ratchet_state_edit')
  })
  it('read-tree -u --reset overwrites uncommitted work like reset --hard', () => {
    expect(patterns('git read-tree -u --reset HEAD', ctx(withGit({ '.': 'tracked-modified' })))).toContain('git_discard')
    expect(patterns('git read-tree -u --reset HEAD', ctx(withGit({ '.': 'tracked-clean' })))).not.toContain('git_discard')
  })

  it('a real repository: checkout to a commit before Ratchet stops; switching between branches that share its files does not', () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-tree-')))
    try {
      const git = (...a: string[]) => execFileSync('git', a, { cwd: dir, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' } })
      git('init', '-q', '-b', 'main')
      fs.writeFileSync(path.join(dir, 'README.md'), 'a\n')
      git('add', '-A')
      git('commit', '-qm', 'before ratchet')
      fs.mkdirSync(path.join(dir, '.claude'))
      fs.mkdirSync(path.join(dir, '.ratchet'))
      fs.writeFileSync(path.join(dir, '.claude/settings.json'), '{"hooks":{}}\n')
      fs.writeFileSync(path.join(dir, '.ratchet/guardrails.json'), '[]\n')
      git('add', '-A')
      git('commit', '-qm', 'add ratchet')
      git('branch', 'feature')
      git('checkout', '-q', '-b', 'other')
      fs.writeFileSync(path.join(dir, 'b.txt'), 'b\n')
      git('add', '-A')
      git('commit', '-qm', 'b')
      git('checkout', '-q', 'main')
      const real = { projectDir: dir, homeDir: path.join(dir, 'home'), stateDir: path.join(dir, '.ratchet'), session: { reads: {}, prompts: [] }, fileExists: () => false, currentBranch: () => 'main', fs: fsFacts() }
      const pats = (command: string) => classify({ tool_name: 'Bash', tool_input: { command }, cwd: dir }, real).findings.map((f) => f.pattern)
      for (const stop of ['git checkout HEAD~1', 'git switch -d HEAD~1', 'git switch --orphan x', 'git read-tree -u --reset HEAD~1', 'git checkout HEAD~1 -- .', 'git reset --hard HEAD~1'])
        expect(pats(stop), stop).toContain('ratchet_state_edit')
      for (const quiet of ['git checkout feature', 'git switch other', 'git checkout -b topic', 'git checkout HEAD~1 -- README.md', 'git checkout no-such-branch'])
        expect(pats(quiet), quiet).not.toContain('ratchet_state_edit')
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
