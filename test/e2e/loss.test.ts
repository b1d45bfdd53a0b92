// Deletions that lose the user's data pause (issue 9 item 2), at the hook boundary: the built bin/preflight-check,
// spawned as Claude Code spawns it, in a real git repository with real files. Each "must stop" is a pause on the
// first call AND on the identical retry, and the file is still there afterwards (a call that is let through is run,
// as the agent's tool would run it). Each has a "must stay quiet" twin, which runs and does what it says.

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { preToolUse, runBin, tempProject } from '../support/fixtures'

let dir: string
let home: string
let env: NodeJS.ProcessEnv
const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@x',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@x',
  GIT_CONFIG_NOSYSTEM: '1',
}
const sh = (cmd: string) =>
  execFileSync('bash', ['-c', cmd], {
    cwd: dir,
    env: { ...process.env, HOME: home, ...GIT_ENV },
    stdio: 'pipe',
    encoding: 'utf8',
  })

interface Outcome {
  decision: 'allow' | 'deny' | 'ask'
  reason: string
}

function guard(tool: string, input: Record<string, unknown>, session: string): Outcome {
  const r = runBin('preflight-check', preToolUse(dir, tool, input, session), { cwd: dir, env })
  if (r.status !== 0) throw new Error(`preflight-check exited ${r.status}: ${r.stderr}`)
  if (!r.stdout.trim()) return { decision: 'allow', reason: '' }
  const out = JSON.parse(r.stdout).hookSpecificOutput ?? {}
  return {
    decision: out.permissionDecision ?? 'allow',
    reason: out.permissionDecisionReason ?? out.additionalContext ?? '',
  }
}

function prompt(text: string, session: string): void {
  const r = runBin(
    'preflight-check',
    {
      session_id: session,
      transcript_path: path.join(dir, 't.jsonl'),
      cwd: dir,
      permission_mode: 'default',
      hook_event_name: 'UserPromptSubmit',
      prompt: text,
    },
    { cwd: dir, env },
  )
  if (r.status !== 0) throw new Error(r.stderr)
}

/** Runs the call as the agent's Bash tool would, when the guard lets it through. */
function attempt(command: string, session: string): Outcome {
  const o = guard('Bash', { command }, session)
  if (o.decision === 'allow') sh(command)
  return o
}

/** A fresh project each case: a repository with tracked, modified, untracked, ignored and build files. */
function prepare(): void {
  sh('find . -mindepth 1 -maxdepth 1 ! -name .ratchet ! -name .claude -exec rm -rf {} +')
  sh('rm -f .ratchet/pending-actions.json .ratchet/sessions/* /tmp/ratchet-loss-x 2>/dev/null; true')
  sh('git init -q -b main . && printf "dist/\\nnode_modules/\\n.ratchet/\\n.claude/\\ndata/\\n" > .gitignore')
  fs.mkdirSync(path.join(dir, 'src'))
  fs.writeFileSync(path.join(dir, 'src', 'app.ts'), 'export const a = 1\n')
  fs.writeFileSync(path.join(dir, 'README.md'), '# app\n')
  sh('git add -A && git commit -qm init')
  fs.writeFileSync(path.join(dir, 'src', 'app.ts'), 'export const a = 2 // my change\n')
  fs.writeFileSync(path.join(dir, 'notes-user.txt'), 'my notes, nowhere else\n')
  fs.mkdirSync(path.join(dir, 'dist'))
  fs.writeFileSync(path.join(dir, 'dist', 'app.js'), 'built\n')
  fs.mkdirSync(path.join(dir, 'data'))
  fs.writeFileSync(path.join(dir, 'data', 'survey.csv'), 'a,b\n1,2\n')
}

beforeAll(() => {
  dir = tempProject('ratchet-loss-e2e-')
  home = tempProject('ratchet-loss-home-')
  env = { HOME: home, ...GIT_ENV }
  fs.mkdirSync(path.join(dir, '.ratchet'), { recursive: true })
  fs.mkdirSync(path.join(dir, '.claude'), { recursive: true })
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), '{}\n')
})
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
  fs.rmSync(home, { recursive: true, force: true })
})

const STOP: { name: string; command: string; survives: string; evidence: RegExp; prompt?: string }[] = [
  {
    name: 'rm of an untracked user file',
    command: 'rm -f notes-user.txt',
    survives: 'notes-user.txt',
    evidence: /notes-user\.txt \(23 B\) — untracked: git cannot restore it/,
  },
  {
    name: 'a function deleting it',
    command: 'f(){ rm -rf "$1"; }; f notes-user.txt',
    survives: 'notes-user.txt',
    evidence: /notes-user\.txt \(23 B\)/,
  },
  {
    name: 'a script written and run',
    command: "printf 'rm -f notes-user.txt' > /tmp/ratchet-loss-s.sh && sh /tmp/ratchet-loss-s.sh",
    survives: 'notes-user.txt',
    evidence: /notes-user\.txt/,
  },
  {
    name: 'a computed program word',
    command: '$(echo rm) -f notes-user.txt',
    survives: 'notes-user.txt',
    evidence: /notes-user\.txt/,
  },
  {
    name: 'eval of a variable holding rm',
    command: 'c="rm -f"; eval $c notes-user.txt',
    survives: 'notes-user.txt',
    evidence: /notes-user\.txt/,
  },
  {
    name: 'a python one-liner',
    command: `python3 -c "import os; os.remove('notes-user.txt')"`,
    survives: 'notes-user.txt',
    evidence: /notes-user\.txt/,
  },
  { name: 'truncating it', command: ': > notes-user.txt', survives: 'notes-user.txt', evidence: /notes-user\.txt/ },
  {
    name: 'moving another file over it',
    command: 'mv README.md notes-user.txt',
    survives: 'notes-user.txt',
    evidence: /notes-user\.txt/,
  },
  {
    name: 'discarding uncommitted changes',
    command: 'git checkout -- src/app.ts',
    survives: 'src/app.ts',
    evidence: /src\/app\.ts \(\d+ B\) — uncommitted changes would be lost/,
  },
  { name: 'git clean -f', command: 'git clean -fq', survives: 'notes-user.txt', evidence: /notes-user\.txt/ },
  {
    name: 'ignored data that is not build output',
    command: 'rm -rf data',
    survives: 'data/survey.csv',
    evidence: /data\/survey\.csv .*ignored by git and not build output/,
  },
  {
    name: 'find -name naming the user file',
    command: 'find . -name "notes-*" -delete',
    survives: 'notes-user.txt',
    evidence: /notes-user\.txt \(23 B\)/,
  },
  {
    name: 'asked, but unreadable: the worst reading is weighed',
    command: '$(echo rm) -f notes-user.txt',
    survives: 'notes-user.txt',
    evidence: /notes-user\.txt/,
    prompt: 'delete notes-user.txt',
  },
]

const QUIET: { name: string; command: string; gone?: string; prompt?: string }[] = [
  { name: 'build output', command: 'rm -rf dist node_modules', gone: 'dist' },
  { name: 'a tracked clean file', command: 'rm README.md', gone: 'README.md' },
  { name: 'a dry run of git clean', command: 'git clean -n' },
  {
    name: 'the file the user asked to delete',
    command: 'rm -f notes-user.txt',
    gone: 'notes-user.txt',
    prompt: 'please delete notes-user.txt, it is obsolete',
  },
  { name: 'a move to a new name', command: 'mv notes-user.txt notes-old.txt', gone: 'notes-user.txt' },
  { name: 'writing to /tmp', command: 'echo x > /tmp/ratchet-loss-x' },
  { name: 'a function deleting build output', command: 'f(){ rm -rf "$1"; }; f dist', gone: 'dist' },
]

describe('a deletion of user data pauses on the first call and the identical retry; the file survives', () => {
  STOP.forEach((c, i) => {
    it(c.name, () => {
      prepare()
      const session = `stop-${i}`
      if (c.prompt) prompt(c.prompt, session)
      const first = attempt(c.command, session)
      expect(first.decision, first.reason).toBe('deny')
      expect(first.reason).toMatch(/would lose \d+ files? of the user's that nothing can bring back/)
      expect(first.reason).toMatch(c.evidence)
      expect(first.reason).toMatch(/Pending: pa-[0-9a-f]{8} \(destructive\)/)
      const retry = attempt(c.command, session)
      expect(retry.decision, retry.reason).toBe('deny')
      expect(retry.reason).toMatch(/queued for a human decision/)
      expect(fs.existsSync(path.join(dir, c.survives)), `${c.survives} survives`).toBe(true)
      const queue = JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'pending-actions.json'), 'utf8'))
      const entries = (Array.isArray(queue) ? queue : (queue.entries ?? [])) as {
        context: string
        session_id: string
      }[]
      expect(
        entries.filter((e) => e.session_id === session),
        'queued once',
      ).toHaveLength(1)
      expect(entries.find((e) => e.session_id === session)?.context).toMatch(c.evidence)
    })
  })
})

describe('its twins stay quiet and run', () => {
  QUIET.forEach((c, i) => {
    it(c.name, () => {
      prepare()
      const session = `quiet-${i}`
      if (c.prompt) prompt(c.prompt, session)
      const r = attempt(c.command, session)
      expect(r, c.command).toEqual({ decision: 'allow', reason: '' })
      if (c.gone) expect(fs.existsSync(path.join(dir, c.gone))).toBe(false)
    })
  })

  it("a file the agent wrote this session is the agent's own: deleting it is quiet", () => {
    prepare()
    const session = 'own'
    const file = path.join(dir, 'scratch.txt')
    expect(guard('Write', { file_path: file, content: 'tmp' }, session)).toEqual({ decision: 'allow', reason: '' })
    fs.writeFileSync(file, 'tmp')
    expect(attempt('rm scratch.txt', session)).toEqual({ decision: 'allow', reason: '' })
    expect(fs.existsSync(file)).toBe(false)
  })
})
