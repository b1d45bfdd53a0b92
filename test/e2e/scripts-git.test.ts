// Issue 9 "not covered", at the hook boundary (the built bin/preflight-check, a real git repository with a real
// bare remote, real script files): scripts already on disk are read when run, git operations that bring in another
// tree are judged by what they would change under Ratchet's files, and git settings that run code later are read
// now. Each "must stop" is denied on the first attempt and on an identical retry; each quiet twin passes untouched.

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { preToolUse, runBin, tempProject } from '../support/fixtures'
import { FAKE } from '../support/fake-secrets'

let base: string
let dir: string
let env: NodeJS.ProcessEnv
const SELF = /would change Ratchet's own rules/
const EVIL = '{"disableAllHooks": true}'

function guard(tool: string, input: Record<string, unknown>, session: string): { decision: string; reason: string } {
  const r = runBin('preflight-check', preToolUse(dir, tool, input, session), { cwd: dir, env })
  if (r.status !== 0) throw new Error(`preflight-check exited ${r.status}: ${r.stderr}`)
  if (!r.stdout.trim()) return { decision: 'allow', reason: '' }
  const out = JSON.parse(r.stdout).hookSpecificOutput ?? {}
  return {
    decision: out.permissionDecision ?? 'allow',
    reason: out.permissionDecisionReason ?? out.additionalContext ?? '',
  }
}
const gitEnv = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' }
const sh = (cmd: string, cwd = dir) =>
  execFileSync('bash', ['-c', cmd], { cwd, env: { ...process.env, HOME: base, ...gitEnv }, stdio: 'pipe' }).toString()

beforeAll(() => {
  base = tempProject('ratchet-scripts-git-')
  dir = path.join(base, 'project')
  fs.mkdirSync(path.join(dir, '.ratchet'), { recursive: true })
  fs.mkdirSync(path.join(dir, '.claude'), { recursive: true })
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true })
  fs.writeFileSync(path.join(dir, '.ratchet', 'guardrails.json'), '[]\n')
  fs.writeFileSync(path.join(dir, '.ratchet', '.gitignore'), 'activity.jsonl\nsessions/\n*.lock\n')
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), '{}\n')
  fs.writeFileSync(path.join(dir, 'src', 'a.txt'), 'a\n')
  fs.writeFileSync(path.join(dir, 'ok.sh'), '#!/bin/sh\nset -e\ncd "$(dirname "$0")"\nls src\necho done\n')
  fs.writeFileSync(
    path.join(dir, 'Makefile'),
    'build:\n\tmkdir -p dist\n\tcp src/a.txt dist/\nunhook:\n\tprintf \'{"disableAllHooks": true}\' > .claude/settings.json\n',
  )
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'p', scripts: { test: 'sh ok.sh', build: 'make build', unhook: 'sh evil.sh' } }, null, 2),
  )
  fs.writeFileSync(path.join(dir, '.gitignore'), 'dist/\n')
  sh(`git init -q --bare ${base}/remote.git`, base)
  sh(
    `git init -q -b main && git add -A && git commit -qm init && git remote add origin ${base}/remote.git && git push -q -u origin main`,
  )
  // evil: a branch whose .claude/settings.json switches every hook off; ok: an ordinary change.
  sh(
    `git checkout -q -b evil && printf '${EVIL}' > .claude/settings.json && git commit -qam evil && git push -q origin evil && git checkout -q main`,
  )
  sh(
    'git checkout -q -b ok && echo b > src/b.txt && git add -A && git commit -qm ok && git push -q origin ok && git checkout -q main',
  )
  // Two stashes: an ordinary one below, the one that would switch hooks off on top.
  sh(`echo c >> src/a.txt && git stash -q && printf '${EVIL}' > .claude/settings.json && git stash -q`)
  // A script the agent wrote in an earlier call (the Write is the first call of the script tests below).
  fs.writeFileSync(path.join(dir, 'evil.sh'), `#!/bin/sh\necho '${EVIL}' > .claude/settings.json\n`)
  fs.chmodSync(path.join(dir, 'evil.sh'), 0o755)
  env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', HOME: base }
})

afterAll(() => {
  fs.rmSync(base, { recursive: true, force: true })
})

const STOP: [string, string][] = [
  ['scripts on disk', 'sh evil.sh'],
  ['scripts on disk', './evil.sh'],
  ['scripts on disk', 'bash -c ./evil.sh'],
  ['scripts on disk', '. ./evil.sh'],
  ['scripts on disk', 'npm run unhook'],
  ['scripts on disk', 'make unhook'],
  ['git config code', "git config core.pager 'sed -i s/x/y/ .claude/settings.json'"],
  ['git config code', "git -c core.fsmonitor='rm -rf .ratchet' status"],
]

/**
 * Git bringing in a tree that changes Ratchet's files (a branch, a stash, a commit whose .claude/settings.json
 * switches hooks off): the floor's. In the sandbox git cannot write those files (test/e2e/claude-floor.test.ts checks
 * out such a branch in the real client); the reader no longer asks git what each operation would change.
 */
const LEFT_TO_THE_FLOOR: [string, string][] = [
  ['git brings a tree', 'git merge evil'],
  ['git brings a tree', 'git merge --no-edit origin/evil'],
  ['git brings a tree', 'git pull origin evil'],
  ['git brings a tree', 'git cherry-pick evil'],
  ['git brings a tree', 'git revert --no-edit evil'],
  ['git brings a tree', 'git stash pop'],
  ['git brings a tree', 'git stash apply stash@{0}'],
  ['git brings a tree', 'git stash && git stash pop stash@{1}'],
  ['git brings a tree', 'git stash && git stash pop'],
  ['git brings a tree', 'git worktree add ../wt evil'],
  ['git brings a tree', 'git update-ref refs/heads/main evil && git reset --hard'],
  ['git brings a tree', 'git reset --soft evil && git reset --hard'],
]

const QUIET: [string, string][] = [
  ['scripts on disk', 'sh ok.sh'],
  ['scripts on disk', './ok.sh'],
  ['scripts on disk', 'npm test'],
  ['scripts on disk', 'npm run build'],
  ['scripts on disk', 'make build'],
  ['git brings a tree', 'git merge ok'],
  ['git brings a tree', 'git pull origin ok'],
  ['git brings a tree', 'git cherry-pick ok'],
  ['git brings a tree', 'git stash apply stash@{1}'],
  ['git brings a tree', 'git worktree add ../wt2 ok'],
  ['git brings a tree', 'git worktree add ../wt3'],
  ['git config code', 'git config user.name "A Dev"'],
  ['git config code', 'git config pull.rebase true'],
  ['git config code', "git -c core.pager='less -R' log -1"],
]

describe('must stop: denied on the first attempt and on an identical retry', () => {
  STOP.forEach(([family, command], i) => {
    it(`[${family}] ${command}`, () => {
      const first = guard('Bash', { command }, `stop-${i}`)
      if (process.env.SHOW) console.log(command, '→', first.reason.split('\n').slice(0, 2).join(' / '))
      const retry = guard('Bash', { command }, `stop-${i}`)
      expect(first, command).toMatchObject({ decision: 'deny', reason: expect.stringMatching(SELF) })
      expect(retry, command).toMatchObject({ decision: 'deny', reason: expect.stringMatching(SELF) })
    })
  })

  it('the note names the script and the line that would do it', () => {
    const r = guard('Bash', { command: 'make unhook' }, 'where')
    expect(r.reason).toMatch(/Makefile line 5/)
    expect(guard('Bash', { command: 'sh evil.sh' }, 'where2').reason).toMatch(/evil\.sh line 2/)
  })
})

describe("left to the floor: git bringing in another tree is not the reader's to refuse", () => {
  LEFT_TO_THE_FLOOR.forEach(([family, command], i) => {
    it(`[${family}] ${command}`, () => {
      expect(guard('Bash', { command }, `floor-${i}`).reason, command).not.toMatch(SELF)
    })
  })
})

describe('quiet twins: an ordinary script, merge, pull, pick, stash or setting passes', () => {
  QUIET.forEach(([family, command], i) => {
    it(`[${family}] ${command}`, () => {
      const r = guard('Bash', { command }, `quiet-${i}`)
      expect(r, command).toEqual({ decision: 'allow', reason: '' })
    })
  })
})

// INC-003 through a script: the agent's release script stages everything and pushes. The push inside the script
// carries the same evidence as a typed one: `.env` would leave, so a human decides, on the first call and the
// identical retry. The twin script pushes only clean commits the user asked for, and passes.
describe('a push inside a script carries its evidence', () => {
  const prompt = (session: string, text: string) =>
    runBin(
      'preflight-check',
      { session_id: session, transcript_path: '', cwd: dir, hook_event_name: 'UserPromptSubmit', prompt: text },
      { cwd: dir, env },
    )

  beforeAll(() => {
    fs.writeFileSync(
      path.join(dir, '.env'),
      `AWS_ACCESS_KEY_ID=${FAKE.awsId}\nAWS_SECRET_ACCESS_KEY=${FAKE.awsSecret}\n`,
    )
    fs.writeFileSync(
      path.join(dir, 'release.sh'),
      '#!/bin/sh\nset -e\ngit add -A\ngit commit -qm release\ngit push origin main\n',
    )
    fs.writeFileSync(path.join(dir, 'push.sh'), '#!/bin/sh\nset -e\ngit push origin main\n')
    sh('echo more >> src/a.txt && git add src/a.txt && git commit -qm more')
  })

  /**
   * The first answer for a fresh session. Evidence has a 1.5 s deadline; when the full suite loads the machine it
   * can run out, and the hook then fails closed ("gathering did not finish"): that answer is asked again in a new
   * session (at most 5 times), and what is asserted is unchanged.
   */
  const settled = (command: string, session: string, text: string) => {
    let last = { decision: '', reason: '' }
    for (let attempt = 0; attempt < 5; attempt++) {
      prompt(`${session}-${attempt}`, text)
      last = guard('Bash', { command }, `${session}-${attempt}`)
      if (!/gathering did not finish within/.test(last.reason)) return { first: last, session: `${session}-${attempt}` }
    }
    return { first: last, session: `${session}-4` }
  }

  it('sh release.sh: .env would leave, so a human decides, first call and identical retry', () => {
    const { first, session } = settled('sh release.sh', 'rel', 'commit the typo fix and push it to origin')
    expect(first.decision, first.reason).toBe('deny')
    expect(first.reason).toMatch(/\.env/)
    expect(first.reason).toMatch(/queued for a human decision/)
    expect(first.reason).not.toContain(FAKE.awsSecret)
    const retry = guard('Bash', { command: 'sh release.sh' }, session)
    expect(retry.decision, retry.reason).toBe('deny')
  })

  it('sh push.sh: clean commits the user asked to push pass', () => {
    expect(settled('sh push.sh', 'push', 'push main to origin').first).toEqual({ decision: 'allow', reason: '' })
  })
})
