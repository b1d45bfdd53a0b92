// A FIFO planted in the state folder (issue 9, red team): `mkfifo .ratchet/activity.jsonl` was allowed, and then
// every later hook hung until Claude Code killed it (detached reviewers hung 17–28 min). Two halves, at the hook
// boundary: planting one is refused as an edit of Ratchet's state (first call and identical retry), with
// look-alikes elsewhere left alone; and a FIFO put there anyway (by another process) hangs nothing — the hooks
// decide as before, tell the user the log is not kept, and the reviewer finishes within its bound.

import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { BIN, exec, preToolUse, tempProject } from '../support/fixtures'

let dir: string
let env: NodeJS.ProcessEnv

beforeEach(() => {
  dir = tempProject('ratchet-fifo-')
  env = {
    HOME: dir,
    CLAUDE_PROJECT_DIR: dir,
    RATCHET_DIR: '',
    CLAUDECODE: '',
    RATCHET_TELEGRAM_TOKEN: '',
    RATCHET_TELEGRAM_CHAT_ID: '',
  }
  // Best-effort mode: what is planted here meets the reader alone (in sandbox mode the kernel refuses the write).
  expect(
    spawnSync(BIN('ratchet'), ['init', '--no-sandbox', '--project-dir', dir], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    }).status,
  ).toBe(0)
  fs.mkdirSync(path.join(dir, '.ratchet', 'sessions'), { recursive: true })
})

function guard(command: string, session = 'f') {
  const r = spawnSync(BIN('preflight-check'), [], {
    input: JSON.stringify({ ...preToolUse(dir, 'Bash', { command }), session_id: session }),
    cwd: dir,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  })
  expect(r.error, 'the hook must not hang').toBeUndefined()
  expect(r.status, r.stderr).toBe(0)
  const out = r.stdout.trim() ? JSON.parse(r.stdout) : {}
  return {
    decision: out.hookSpecificOutput?.permissionDecision ?? 'allow',
    reason: String(out.hookSpecificOutput?.permissionDecisionReason ?? ''),
    notice: String(out.systemMessage ?? ''),
  }
}

const PLANT = [
  'mkfifo .ratchet/activity.jsonl',
  'mkfifo -m 600 .ratchet/sessions/s1.json',
  'mknod .ratchet/pending-actions.json p',
  'cd .ratchet && mkfifo config.json',
  'mkfifo .claude/settings.local.json',
  'python3 -c "import os;os.mkfifo(\'.ratchet/activity.jsonl\')"',
  "python3 -c \"import os;os.mkfifo('.rat'+'chet/fires.jsonl')\"",
  'perl -MPOSIX -e \'POSIX::mkfifo(".ratchet/config.json", 0600)\'',
  'ln -sf /dev/zero .ratchet/config.json',
  'ln -s /dev/stdin .ratchet/activity.jsonl',
]

describe('planting a FIFO, device or link in the state folder is refused', () => {
  it.each(PLANT)('%s (first call and identical retry)', (command) => {
    for (const attempt of [1, 2]) {
      const out = guard(command)
      expect([attempt, out.decision]).toEqual([attempt, 'deny'])
      expect(out.reason).toMatch(/would change Ratchet's own rules/)
    }
  })
  it.each([
    'mkfifo /tmp/ratchet-test-pipe-$$',
    'mkfifo build/pipe',
    'python3 -c "import os;os.mkfifo(\'/tmp/ratchet-p\')"',
    'ln -s ../README.md docs/readme.md',
  ])('stays quiet: %s', (command) => {
    expect(guard(command).decision).toBe('allow')
  })
})

describe('a FIFO planted anyway hangs nothing', () => {
  it('at activity.jsonl: decisions as before, the user is told the log is not kept, nothing waits', () => {
    execFileSync('mkfifo', [path.join(dir, '.ratchet', 'activity.jsonl')])
    const risky = guard('git push --force origin main')
    expect(risky.decision).toBe('deny')
    expect(risky.notice).toMatch(/activity\.jsonl is a FIFO, not a regular file/)
    const ordinary = guard('ls -la')
    expect(ordinary.decision).toBe('allow')
    expect(ordinary.notice).toMatch(/activity\.jsonl is a FIFO/)
    expect(fs.readFileSync(path.join(dir, '.ratchet', 'errors.log'), 'utf8')).toContain('activity.jsonl is a FIFO')
  }, 60_000)

  it.each(['sessions/f.json', 'pending-actions.json', 'config.json', 'custodiet/f.json'])(
    'at %s: the hook answers (fail closed or as before), never waits',
    (name) => {
      const file = path.join(dir, '.ratchet', name)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.rmSync(file, { force: true })
      execFileSync('mkfifo', [file])
      expect(guard('git push --force origin main').decision).toBe('deny')
      guard('ls -la') // answers, whatever it decides
    },
    60_000,
  )

  it('custodiet and its detached reviewer finish within their bound with FIFOs at the activity log and the transcript', async () => {
    fs.writeFileSync(
      path.join(dir, '.ratchet', 'config.json'),
      JSON.stringify({
        custodiet: {
          reviewer: { kind: 'command', command: 'cat >/dev/null; echo \'{"status":"OK"}\'', timeoutSeconds: 5 },
        },
      }),
    )
    execFileSync('mkfifo', [path.join(dir, '.ratchet', 'activity.jsonl')])
    const transcript = path.join(dir, 'transcript.jsonl')
    execFileSync('mkfifo', [transcript])
    const post = await exec(BIN('custodiet'), [], {
      cwd: dir,
      env: { ...process.env, ...env },
      input: JSON.stringify({
        session_id: 'f',
        transcript_path: transcript,
        cwd: dir,
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_response: { stdout: 'ok' },
        tool_use_id: 't',
      }),
      timeoutMs: 30_000,
    })
    expect(post.status, post.stderr).toBe(0)
    const review = await exec(
      BIN('custodiet'),
      ['review', '--session', 'f', '--trigger', 'stop', '--transcript', transcript, '--timeout', '5'],
      { cwd: dir, env: { ...process.env, ...env }, timeoutMs: 60_000 },
    )
    expect(review.status, 'the reviewer ends by itself, not at the test timeout').not.toBeNull()
  }, 120_000)
})
