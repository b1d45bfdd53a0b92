// Fail closed inside the real claude CLI: a PreToolUse guard that outlives its registered timeout
// (synchronous work its own 3 s budget timer cannot interrupt), or crashes, must block the call, not
// let it run. The hook here is a stand-in registered exactly as `ratchet init` registers
// preflight-check (same guard, same onFailure), only with a 2 s timeout so the test is quick.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REGISTRATIONS, guardedCommand, withRatchet } from '../../lib/core/settings'
import { spawnSync, execFileSync } from 'node:child_process'
import { BIN, ROOT, exec, tempProject } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'

const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')

function projectWith(hookBody: string): string {
  const project = tempProject('ratchet-failclosed-')
  const hook = path.join(project, 'guard')
  fs.writeFileSync(hook, hookBody, { mode: 0o755 })
  const regs = REGISTRATIONS.filter((r) => r.event === 'PreToolUse' && r.hook === 'preflight-check').map((r) => ({
    ...r,
    timeout: 2,
  }))
  expect(regs[0].onFailure).toBe('block')
  fs.mkdirSync(path.join(project, '.claude'))
  fs.writeFileSync(
    path.join(project, '.claude', 'settings.json'),
    JSON.stringify(
      withRatchet({}, () => guardedCommand('preflight-check', `"$CLAUDE_PROJECT_DIR"/guard`), regs),
      null,
      2,
    ),
  )
  return project
}

describe('a PreToolUse guard that fails, inside the real claude CLI', () => {
  let model: MockModel
  let home: string
  beforeAll(async () => {
    home = tempProject('ratchet-home-')
    model = await startMockModel([
      { tool: 'Bash', input: { command: 'touch should-not-exist.txt', description: 'Create a file' } },
      { text: 'Done.' },
    ])
  })
  afterAll(async () => {
    await model?.close()
  })

  const run = async (project: string) => {
    model.requests.length = 0
    const r = await exec(CLAUDE, ['-p', 'make a file', '--output-format', 'json', '--allowedTools', 'Bash'], {
      cwd: project,
      env: claudeEnv(model.url, home),
      timeoutMs: 120_000,
    })
    return { ...r, results: model.toolResults() }
  }

  it('outliving its registered timeout (a synchronous loop) blocks the call', async () => {
    const project = projectWith("#!/usr/bin/env node\nrequire('fs').readFileSync(0)\nfor (;;) {}\n")
    const r = await run(project)
    expect(r.status, r.stderr).toBe(0)
    expect(r.results).toHaveLength(1)
    expect(r.results[0].is_error).toBe(true)
    expect(fs.existsSync(path.join(project, 'should-not-exist.txt'))).toBe(false)
  }, 150_000)

  it('crashing (exit 1 with a stack trace) blocks the call', async () => {
    const project = projectWith("#!/usr/bin/env node\nthrow new Error('boom')\n")
    const r = await run(project)
    expect(r.results[0].is_error).toBe(true)
    expect(fs.existsSync(path.join(project, 'should-not-exist.txt'))).toBe(false)
  }, 150_000)

  // Not covered by onFailure on 2.1.330, measured: exit 0 with stdout that is not JSON ('{not json')
  // lets the call run. Our hooks always print JSON through lib/runtime/render.ts.

  it('and a guard that allows lets the call run (the stand-in is not blocking by itself)', async () => {
    const project = projectWith('#!/bin/sh\ncat >/dev/null; exit 0\n')
    const r = await run(project)
    expect(r.results[0].is_error).toBe(false)
    expect(fs.existsSync(path.join(project, 'should-not-exist.txt'))).toBe(true)
  }, 150_000)
})

// A FIFO planted in the state folder (issue 9, red team) used to hang every later hook until its timeout,
// and the detached reviewers for half an hour. Inside the real claude CLI with the real hooks: with a FIFO
// already at .ratchet/activity.jsonl the session goes on (an ordinary command runs, promptly), planting
// another one is refused, and the run ends.
describe('a FIFO in the state folder does not brick the session, inside the real claude CLI', () => {
  let model: MockModel
  let project: string
  let home: string
  let result: { status: number | null; stdout: string; stderr: string }
  beforeAll(async () => {
    project = tempProject('ratchet-fifo-claude-')
    home = tempProject('ratchet-home-')
    const init = spawnSync(BIN('ratchet'), ['init', '--project-dir', project], {
      encoding: 'utf8',
      env: { ...process.env, HOME: home, CLAUDECODE: '' },
    })
    expect(init.status, init.stderr).toBe(0)
    fs.writeFileSync(
      path.join(project, '.ratchet', 'config.json'),
      JSON.stringify({ custodiet: { reviewer: { kind: 'none' } } }),
    )
    execFileSync('mkfifo', [path.join(project, '.ratchet', 'activity.jsonl')])
    model = await startMockModel([
      { tool: 'Bash', input: { command: 'echo hello > out.txt', description: 'Write a file' } },
      { tool: 'Bash', input: { command: 'mkfifo .ratchet/sessions/planted.json', description: 'Make a pipe' } },
      { text: 'Done.' },
    ])
    result = await exec(CLAUDE, ['-p', 'write hello to out.txt', '--output-format', 'json', '--allowedTools', 'Bash'], {
      cwd: project,
      env: claudeEnv(model.url, home),
      timeoutMs: 150_000,
    })
  }, 200_000)
  afterAll(async () => {
    await model?.close()
  })

  it('runs to the end', () => {
    expect(result.status, result.stderr).toBe(0)
  })

  // A hook that hung was killed at its timeout and, registered onFailure block, blocked the call: the ordinary
  // command running is what shows nothing hung.
  it('the ordinary command ran; planting another FIFO was refused and nothing was planted', () => {
    const results = model.toolResults()
    expect(results).toHaveLength(2)
    expect(results[0].is_error, results[0].content).toBe(false)
    expect(fs.readFileSync(path.join(project, 'out.txt'), 'utf8')).toBe('hello\n')
    expect(results[1].is_error).toBe(true)
    // Refused by the hook where it names the path outright, or by the floor's read-only state folder.
    expect(results[1].content).toMatch(/Ratchet's own rules|Read-only file system/)
    expect(fs.existsSync(path.join(project, '.ratchet', 'sessions', 'planted.json'))).toBe(false)
  })

  it('the user is told why the log is not kept (errors.log names the FIFO)', () => {
    expect(fs.readFileSync(path.join(project, '.ratchet', 'errors.log'), 'utf8')).toContain('activity.jsonl is a FIFO')
  })
})
