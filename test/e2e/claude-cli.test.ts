// The real `claude` CLI (npm @anthropic-ai/claude-code) in a temp project set up with `ratchet init`,
// driven offline by a local mock of the model API. Proves the hooks work inside the real client.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, ROOT, exec, tempProject } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'

const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')

describe('inside the real claude CLI', () => {
  let model: MockModel
  let project: string
  let home: string
  let result: { status: number | null; stdout: string; stderr: string }

  beforeAll(async () => {
    project = tempProject('ratchet-claude-')
    home = tempProject('ratchet-home-')
    const init = spawnSync(BIN('ratchet'), ['init', '--project-dir', project], {
      encoding: 'utf8',
      env: { ...process.env, HOME: home },
    })
    expect(init.status, init.stderr).toBe(0)
    model = await startMockModel([
      {
        text: 'Pushing your work.',
        tool: 'Bash',
        input: { command: 'git push origin main', description: 'Push to origin' },
      },
      { tool: 'Bash', input: { command: 'touch made-by-agent.txt', description: 'Create a file' } },
      { tool: 'Write', input: { file_path: path.join(project, '.ratchet', 'guardrails.json'), content: '[]\n' } },
      { tool: 'Bash', input: { command: 'ls', description: 'List files' } },
      { text: 'Done.' },
    ])
    result = await exec(
      CLAUDE,
      ['-p', 'save my work, then make a file', '--output-format', 'json', '--allowedTools', 'Bash', 'Write', 'Edit'],
      { cwd: project, env: claudeEnv(model.url, home) },
    )
  }, 180_000)

  afterAll(async () => {
    await model?.close()
  })

  it('runs the session to the end', () => {
    expect(result.status, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ type: 'result', is_error: false, result: 'Done.' })
  })

  it('the active guardrails reach the model at session start', () => {
    const first = JSON.stringify(model.mainTurns()[0])
    expect(first).toContain('[RATCHET] Active guardrails')
    expect(first).toContain('RG-CATASTROPHIC')
  })

  it('git push reaches the model as a denied tool_result carrying the PRE-FLIGHT note', () => {
    const [push] = model.toolResults()
    expect(push.is_error).toBe(true)
    expect(push.content).toContain('PreToolUse:Bash hook error')
    expect(push.content).toContain('[PRE-FLIGHT] Action: git push origin main')
    expect(push.content).toContain('Trigger: public surface')
    expect(JSON.parse(result.stdout).permission_denials.map((d: { tool_name: string }) => d.tool_name)).toContain(
      'Bash',
    )
  })

  it('touch and ls run normally', () => {
    const [, touch, , ls] = model.toolResults()
    expect(touch.is_error).toBe(false)
    expect(fs.existsSync(path.join(project, 'made-by-agent.txt'))).toBe(true)
    expect(ls.is_error).toBe(false)
    expect(ls.content).toContain('made-by-agent.txt')
  })

  it("editing .ratchet/guardrails.json through the agent is denied by the floor's permission rule before any hook, and the file is unchanged", () => {
    const [, , write] = model.toolResults()
    expect(write.is_error).toBe(true)
    expect(write.content).toContain('denied by your permission settings')
    const rules = JSON.parse(fs.readFileSync(path.join(project, '.ratchet', 'guardrails.json'), 'utf8'))
    expect(rules.length).toBeGreaterThan(0)
  })

  it('every decision is in the activity log', () => {
    const log = fs
      .readFileSync(path.join(project, '.ratchet', 'activity.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const pre = log.filter((l) => l.event === 'PreToolUse').map((l) => [l.tool, l.decision])
    expect(pre).toEqual([
      ['Bash', 'check'],
      ['Bash', 'allow'],
      // The Write never reached preflight-check: Claude Code's permission layer refused it first.
      ['Bash', 'allow'],
    ])
    expect(log.some((l) => l.hook === 'session-start')).toBe(true)
  })
})
