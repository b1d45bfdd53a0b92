// Quiet where the user is right (issue 19 item 5), through the built hook in a real git repository with a real
// bare remote: the user's tracked incident log leaves like any file; the same deletion gets the same evidence
// however it is spelled; a denial names the user's data it would destroy, not Ratchet's cache; a stale-data check
// is passed by the Read it asks for, not by a retry.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { runBin, tempProject } from '../support/fixtures'

const GIT_ENV = { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' }
let base: string
let dir: string
const env = () => ({ CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', HOME: base, RATCHET_WARM: '0', ...GIT_ENV })
const sh = (command: string) =>
  spawnSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env() } })
const hook = (payload: Record<string, unknown>, session = 's') =>
  runBin(
    'preflight-check',
    { session_id: session, transcript_path: '', cwd: dir, ...payload },
    { cwd: dir, env: env() },
  )
const prompt = (text: string, session = 's') => hook({ hook_event_name: 'UserPromptSubmit', prompt: text }, session)
const decide = (tool_name: string, tool_input: Record<string, unknown>, session = 's') => {
  const out =
    JSON.parse(hook({ hook_event_name: 'PreToolUse', tool_name, tool_input, tool_use_id: 't' }, session).stdout || '{}')
      .hookSpecificOutput ?? {}
  return { decision: (out.permissionDecision ?? 'allow') as string, reason: String(out.permissionDecisionReason ?? '') }
}
const bash = (command: string, session = 's') => decide('Bash', { command }, session)

beforeEach(() => {
  base = tempProject('ratchet-quiet-')
  dir = path.join(base, 'project')
  fs.mkdirSync(dir)
  spawnSync('git', ['init', '-q', '--bare', path.join(base, 'remote.git')])
  fs.writeFileSync(path.join(dir, 'README.md'), '# demo\n')
  fs.writeFileSync(path.join(dir, '.gitignore'), '.env\n')
  expect(runBin('ratchet', '', { cwd: dir, env: env(), args: ['init', '--project-dir', dir] }).status).toBe(0)
  sh(
    `git init -q -b main && git add -A && git commit -qm init && git remote add origin ${path.join(base, 'remote.git')} && git push -q origin main`,
  )
})

describe('quiet where the user is right', () => {
  it("a push after 'ratchet incident add' sends the user's incident log without a pause", () => {
    expect(
      runBin('ratchet', '', {
        cwd: dir,
        env: env(),
        args: [
          'incident',
          'add',
          '--title',
          'pushed a debug log',
          '--severity',
          'P2',
          '--class',
          'git_push',
          '--what',
          'a log went out',
        ],
      }).status,
    ).toBe(0)
    sh('git add -A && git commit -qm "log the incident"')
    prompt('push main to origin')
    expect(bash('git push origin main')).toMatchObject({ decision: 'allow' })
    sh('git push -q origin main')
    expect(
      spawnSync('git', ['--git-dir', path.join(base, 'remote.git'), 'show', 'main:.ratchet/incidents.json'], {
        encoding: 'utf8',
      }).stdout,
    ).toContain('pushed a debug log')
  })

  it('rm -rf data/uploads/* gets the evidence rm -rf data/uploads gets', () => {
    fs.mkdirSync(path.join(dir, 'data', 'uploads'), { recursive: true })
    for (const f of ['a.png', 'b.png', 'c.pdf']) fs.writeFileSync(path.join(dir, 'data', 'uploads', f), f)
    prompt('fix the typo in the README')
    const folder = bash('rm -rf data/uploads', 'folder')
    const glob = bash('rm -rf data/uploads/*', 'glob')
    const evidence = (r: string) =>
      r
        .split('\n')
        .filter((l) => l.startsWith('Evidence:'))
        .sort()
    expect(evidence(folder.reason)).toHaveLength(3)
    expect(evidence(glob.reason)).toEqual(evidence(folder.reason))
    expect(glob.reason).toMatch(/would lose 3 files of the user's/)
    // and the retry does not run it
    expect(bash('rm -rf data/uploads/*', 'glob').decision).toBe('deny')
    expect(fs.readdirSync(path.join(dir, 'data', 'uploads'))).toHaveLength(3)
  })

  it("git clean -fdx names the user's .env, data and drafts it would destroy, not Ratchet's cache", () => {
    fs.writeFileSync(path.join(dir, '.env'), 'API_KEY=abc\n')
    fs.mkdirSync(path.join(dir, 'data'))
    fs.writeFileSync(path.join(dir, 'data', 'customers.csv'), 'id,name\n1,x\n')
    fs.mkdirSync(path.join(dir, 'drafts'))
    fs.writeFileSync(path.join(dir, 'drafts', 'post.md'), 'draft\n')
    prompt('fix the typo in the README')
    bash('ls') // leaves a session file in Ratchet's state folder
    const r = bash('git clean -fdx')
    expect(r.decision).toBe('deny')
    // Ratchet's own sessions and queue are ignored files git clean -x would remove too: they are not the user's loss.
    expect(r.reason).toMatch(/would lose 3 files of the user's that nothing can bring back/)
    for (const f of ['.env', 'data/customers.csv', 'drafts/post.md'])
      expect(r.reason).toMatch(new RegExp(`Evidence: ${f.replace('.', '\\.')} `))
    expect(
      r.reason
        .split('\n')
        .filter((l) => l.startsWith('Evidence:'))
        .join('\n'),
    ).not.toContain('.ratchet')
    expect(bash('git clean -fdx').decision).toBe('deny')
    expect(fs.existsSync(path.join(dir, '.env'))).toBe(true)
  })

  it('a stale-data check is passed by the Read it asks for, not by a retry', () => {
    prompt('fix the typo in the README')
    const edit = { file_path: path.join(dir, 'README.md'), old_string: '# demo', new_string: '# Demo' }
    expect(decide('Edit', edit)).toMatchObject({
      decision: 'deny',
      reason: expect.stringMatching(/Read .*README\.md first/),
    })
    expect(decide('Edit', edit).decision).toBe('deny')
    expect(decide('Read', { file_path: path.join(dir, 'README.md') }).decision).toBe('allow')
    expect(decide('Edit', edit).decision).toBe('allow')
  })
})
