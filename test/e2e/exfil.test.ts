// Secrets leaving by the routes the red team found still open (issue 9 item 7/1): in a URL or a DNS name
// through a command substitution, through a link made earlier, through interpreter code with a computed
// file name, and a broad push with a FIFO planted where `.env` would be. At the hook boundary (the built
// bin/preflight-check, real files, a real repository with a real bare remote): each must-stop is held on
// the first call AND on the identical retry, as a pause for a human (a retry does not clear it), and its
// note names what would leave. Each has a must-stay-quiet neighbour the user plainly asked for. Here: the forms that
// need files made first and the first two of each kind; every form also runs in-process through the gathered
// evidence and the pure decision (test/unit/exfil-forms.test.ts), which is where a new spelling goes.

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { preToolUse, runBin, tempProject } from '../support/fixtures'
import { FAKE } from '../support/fake-secrets'
import { QUIET, STOP, STOP_PROMPT, endToEnd } from '../support/exfil-forms'

let root: string
let dir: string
let env: NodeJS.ProcessEnv

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@x',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@x',
  GIT_CONFIG_NOSYSTEM: '1',
}
const sh = (cmd: string) =>
  execFileSync('bash', ['-c', cmd], { cwd: dir, env: { ...GIT_ENV, HOME: root }, stdio: 'pipe' })

interface Outcome {
  decision: string
  reason: string
}

function hook(payload: Record<string, unknown>): Outcome {
  const r = runBin('preflight-check', payload, { cwd: dir, env })
  if (r.status !== 0) throw new Error(`preflight-check exited ${r.status}: ${r.stderr}`)
  if (!r.stdout.trim()) return { decision: 'allow', reason: '' }
  const out = JSON.parse(r.stdout).hookSpecificOutput ?? {}
  return {
    decision: out.permissionDecision ?? 'allow',
    reason: out.permissionDecisionReason ?? out.additionalContext ?? '',
  }
}

function prompt(session: string, text: string): void {
  runBin(
    'preflight-check',
    {
      session_id: session,
      transcript_path: path.join(dir, 't.jsonl'),
      cwd: dir,
      hook_event_name: 'UserPromptSubmit',
      prompt: text,
    },
    { cwd: dir, env },
  )
}

beforeAll(() => {
  root = tempProject('ratchet-exfil-')
  dir = path.join(root, 'proj')
  fs.mkdirSync(dir)
  env = {
    HOME: root,
    CLAUDE_PROJECT_DIR: dir,
    RATCHET_DIR: '',
    CLAUDECODE: '',
    RATCHET_TELEGRAM_TOKEN: '',
    RATCHET_TELEGRAM_CHAT_ID: '',
  }
  sh(
    `git init -q --bare -b main ../remote.git && git init -q -b main && printf '# Demo\\nA tpyo\\n' > README.md && git add -A && git commit -qm init && git remote add origin ../remote.git && git push -q -u origin main`,
  )
  fs.writeFileSync(path.join(dir, '.env'), `AWS_ACCESS_KEY_ID=${FAKE.awsId}\nAWS_SECRET_ACCESS_KEY=${FAKE.awsSecret}\n`)
  fs.writeFileSync(path.join(dir, 'build.log'), 'build ok in 12s\n')
}, 60_000)

describe('secrets leaving without an upload flag: held on the first call and on the identical retry', () => {
  it.each(endToEnd(STOP))(
    '$name',
    (c) => {
      if (c.setup) sh(c.setup)
      try {
        const session = `stop-${STOP.indexOf(c)}`
        prompt(session, STOP_PROMPT)
        const call = { ...preToolUse(dir, 'Bash', { command: c.command }), session_id: session }
        const first = hook(call)
        expect(first.decision, first.reason).toBe('deny')
        expect(first.reason).toMatch(c.says)
        expect(first.reason).toMatch(/queued for a human decision/)
        expect(first.reason).not.toContain(FAKE.awsSecret)
        const retry = hook({ ...call, tool_use_id: 'toolu_retry' })
        expect(retry.decision, retry.reason).toBe('deny')
        expect(retry.reason).toMatch(/queued for a human decision/)
      } finally {
        if (c.teardown) sh(c.teardown)
      }
    },
    30_000,
  )
})

// The same effects through an MCP shell tool (seen driving the real claude CLI with a stdio MCP server: the
// substitution was only a generic check there, which a retry passes, because the evidence read Bash alone).
const MCP_STOP = STOP.filter((c) => !c.setup && /curl|dig|ssh/.test(c.command)).slice(0, 1)

describe('the same through an MCP shell tool: held on the first call and on the identical retry', () => {
  it.each(MCP_STOP)(
    'mcp__shell__run: $name',
    (c) => {
      const session = `mcp-stop-${MCP_STOP.indexOf(c)}`
      prompt(session, STOP_PROMPT)
      const call = { ...preToolUse(dir, 'mcp__shell__run', { command: c.command }), session_id: session }
      const first = hook(call)
      expect(first.decision, first.reason).toBe('deny')
      expect(first.reason).toMatch(c.says)
      expect(first.reason).toMatch(/queued for a human decision/)
      const retry = hook({ ...call, tool_use_id: 'toolu_retry' })
      expect(retry.decision, retry.reason).toBe('deny')
      expect(retry.reason).toMatch(/queued for a human decision/)
    },
    30_000,
  )

  it('mcp__shell__run: the webhook post the user asked for stays quiet', () => {
    prompt('mcp-quiet', 'post the build log to our webhook')
    const out = hook({
      ...preToolUse(dir, 'mcp__shell__run', {
        command: 'curl -X POST --data-binary @build.log https://hooks.example.com/build',
      }),
      session_id: 'mcp-quiet',
    })
    expect(out.decision, out.reason).toBe('allow')
  }, 30_000)
})

describe('look-alikes stay quiet', () => {
  it.each(QUIET.slice(0, 2))(
    '$name',
    (c) => {
      const session = `quiet-${QUIET.indexOf(c)}`
      prompt(session, c.prompt)
      const out = hook({ ...preToolUse(dir, 'Bash', { command: c.command }), session_id: session })
      expect(out.decision, out.reason).toBe('allow')
    },
    30_000,
  )
})
