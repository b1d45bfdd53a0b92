// Every form of test/support/exfil-forms.ts, in this process: the facts the hook gathers (gather.ts) and the evidence
// of what would leave (lib/io/evidence.ts) from a real repository with a real bare remote and a real .env, then the
// pure decision (compose.ts), on the first call and on its identical retry. The hook boundary
// (test/e2e/exfil.test.ts) runs the forms that need files made first, and the first two of each kind.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decidePreToolUse } from '../../hooks/preflight-check/compose'
import { gatherFacts } from '../../hooks/preflight-check/gather'
import { evidenceForCall } from '../../lib/io/evidence'
import { resolvePaths } from '../../lib/io/paths'
import { FAKE } from '../support/fake-secrets'
import { QUIET, STOP, STOP_PROMPT } from '../support/exfil-forms'

let root: string
let dir: string
let env: NodeJS.ProcessEnv
const cwd = process.cwd()

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

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-exfil-unit-')))
  dir = path.join(root, 'proj')
  fs.mkdirSync(dir)
  env = {
    ...process.env,
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
  // The hook runs in the project: the evidence names files relative to it.
  process.chdir(dir)
}, 60_000)

afterAll(() => {
  process.chdir(cwd)
  fs.rmSync(root, { recursive: true, force: true })
})

/** The decision on a first call after the user's prompt, and on its identical retry. */
async function decideTwice(
  tool: string,
  command: string,
  prompt: string,
): Promise<{ first: { kind: string; reason: string }; retry: { kind: string; reason: string } }> {
  const payload = {
    session_id: 'x',
    transcript_path: path.join(dir, 't.jsonl'),
    cwd: dir,
    hook_event_name: 'PreToolUse' as const,
    tool_name: tool,
    tool_input: { command },
  }
  const base = gatherFacts(payload, resolvePaths(env, dir), env)
  const evidence = await evidenceForCall(payload, dir, root, { asked: { prompts: [prompt] } })
  const facts = { ...base, evidence, session: { ...base.session, prompts: [prompt] } }
  const out = (f: typeof facts) => {
    const d = decidePreToolUse(payload, f).decision
    return { kind: d.kind, reason: 'reason' in d ? String(d.reason) : d.kind === 'allow' ? (d.context ?? '') : '' }
  }
  return {
    first: out(facts),
    retry: out({ ...facts, session: { ...facts.session, checks: { [facts.fingerprint]: facts.now } } }),
  }
}

describe('secrets leaving without an upload flag: held on the first call and on the identical retry', () => {
  it.each(STOP.filter((c) => !c.setup))('$name', async (c) => {
    const { first, retry } = await decideTwice('Bash', c.command, STOP_PROMPT)
    expect(first.kind, first.reason).toBe('deny')
    expect(first.reason).toMatch(c.says)
    expect(first.reason).toMatch(/queued for a human decision/)
    expect(first.reason).not.toContain(FAKE.awsSecret)
    expect(retry.kind, retry.reason).toBe('deny')
    expect(retry.reason).toMatch(/queued for a human decision/)
  })
  it.each(STOP.filter((c) => !c.setup && /curl|dig|ssh/.test(c.command)))('mcp__shell__run: $name', async (c) => {
    const { first, retry } = await decideTwice('mcp__shell__run', c.command, STOP_PROMPT)
    expect(first.kind, first.reason).toBe('deny')
    expect(first.reason).toMatch(c.says)
    expect(retry.reason).toMatch(/queued for a human decision/)
  })
})

describe('look-alikes stay quiet', () => {
  it.each(QUIET)('$name', async (c) => {
    const { first } = await decideTwice('Bash', c.command, c.prompt)
    expect(first.kind, first.reason).toBe('allow')
  })
})
