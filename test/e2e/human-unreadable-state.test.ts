// State that cannot be read is never read as the permissive answer (issue 9, fail closed): a probation file or a
// custodiet hold that exists but is a folder, bad JSON or a FIFO reads as the strictest one, with one line saying
// what to fix; `ratchet log` over an activity log that is a folder says so in one line. Built executables.

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BIN, exec, preToolUse, runBin, tempProject } from '../support/fixtures'

let dir: string
let env: NodeJS.ProcessEnv
const guard = (tool: string, input: Record<string, unknown>, session = 'u1') => {
  const r = runBin('preflight-check', preToolUse(dir, tool, input, session), { cwd: dir, env })
  expect(r.status).toBe(0)
  const out = r.stdout.trim() ? (JSON.parse(r.stdout).hookSpecificOutput ?? {}) : {}
  return {
    decision: (out.permissionDecision as string) ?? 'allow',
    reason: (out.permissionDecisionReason as string) ?? '',
  }
}

beforeEach(() => {
  dir = tempProject('ratchet-unreadable-')
  fs.mkdirSync(path.join(dir, '.ratchet', 'courtroom'), { recursive: true })
  fs.mkdirSync(path.join(dir, '.ratchet', 'custodiet'), { recursive: true })
  env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', HOME: dir }
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

const probation = () => path.join(dir, '.ratchet', 'courtroom', 'probation.json')
const hold = (s: string) => path.join(dir, '.ratchet', 'custodiet', `${s}.hold.json`)

describe('an unreadable probation file is the strictest probation', () => {
  const BROKEN: [string, () => void][] = [
    ['a folder', () => fs.mkdirSync(probation())],
    ['bad JSON', () => fs.writeFileSync(probation(), '{"v":1,"probations":[')],
    ['the wrong shape', () => fs.writeFileSync(probation(), '{"v":1}')],
    ['a FIFO', () => execFileSync('mkfifo', [probation()])],
  ]
  it.each(BROKEN)('%s: every change is held, on the first call and the retry; reads go on', (_what, make) => {
    make()
    for (const attempt of [1, 2]) {
      const o = guard('Bash', { command: 'touch notes.txt' })
      expect(o.decision, `attempt ${attempt}`).toBe('deny')
      expect(o.reason).toContain('probation.json')
      expect(o.reason).toMatch(/strictest probation/)
    }
    expect(guard('Write', { file_path: path.join(dir, 'a.txt'), content: 'x' }).decision).toBe('deny')
    expect(guard('Read', { file_path: path.join(dir, 'README.md') })).toEqual({ decision: 'allow', reason: '' })
  })

  it('must stay quiet: no probation file, or an empty list', () => {
    expect(guard('Bash', { command: 'touch notes.txt' })).toEqual({ decision: 'allow', reason: '' })
    fs.writeFileSync(probation(), '{"v":1,"probations":[]}')
    expect(guard('Bash', { command: 'touch notes.txt' }, 'u2')).toEqual({ decision: 'allow', reason: '' })
  })
})

describe('an unreadable custodiet hold is the strictest hold', () => {
  it.each([
    ['a folder', () => fs.mkdirSync(hold('h1'))],
    ['bad JSON', () => fs.writeFileSync(hold('h1'), '{')],
  ] as [string, () => void][])('%s: changes are blocked; reads go on', (_what, make) => {
    make()
    const o = guard('Bash', { command: 'touch notes.txt' }, 'h1')
    expect(o.decision).toBe('deny')
    expect(o.reason).toContain('cannot be read')
    expect(guard('Read', { file_path: path.join(dir, 'README.md') }, 'h1')).toEqual({ decision: 'allow', reason: '' })
    // Another session has no hold.
    expect(guard('Bash', { command: 'touch notes.txt' }, 'h2')).toEqual({ decision: 'allow', reason: '' })
  })
})

describe('ratchet log over a broken activity log', () => {
  it('a folder: one clear line naming it, not an internal error', async () => {
    fs.mkdirSync(path.join(dir, '.ratchet', 'activity.jsonl'))
    const r = await exec(BIN('ratchet'), ['log'], { cwd: dir, env: { ...process.env, ...env } })
    expect(r.status).not.toBe(0)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/activity\.jsonl is a folder, not a regular file/)
    expect(r.stderr).not.toMatch(/internal error|EISDIR|\n\s+at /)
  })
  it('a FIFO: refused at once, never waited on', async () => {
    execFileSync('mkfifo', [path.join(dir, '.ratchet', 'activity.jsonl')])
    const r = await exec(BIN('ratchet'), ['log'], { cwd: dir, env: { ...process.env, ...env }, timeoutMs: 20_000 })
    expect(r.status).not.toBe(0)
    expect(r.stderr).toMatch(/activity\.jsonl is a FIFO, not a regular file/)
  })
})
