// Headless pauses are visible and final (issue 10 item 8), in the real claude CLI: a paused call in `-p`
// tells the user its id and how to decide and resume; after `ratchet pending deny --note …`, `--resume`
// hands the model the denial with the human's note as the tool's result, and nothing is queued again.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, ROOT, exec, tempProject } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'

describe('headless pause → deny with a note → resume', () => {
  let model: MockModel
  let project: string
  let first: { status: number | null; stdout: string; stderr: string }
  let resumed: { status: number | null; stdout: string; stderr: string }
  const queue = () => JSON.parse(fs.readFileSync(path.join(project, '.ratchet', 'pending-actions.json'), 'utf8'))

  beforeAll(async () => {
    project = tempProject('ratchet-claude-hdeny-')
    const home = tempProject('ratchet-home-')
    expect(
      (await exec(BIN('ratchet'), ['init', '--project-dir', project], { env: { ...process.env, HOME: home } })).status,
    ).toBe(0)
    fs.writeFileSync(
      path.join(project, '.ratchet', 'guardrails.json'),
      JSON.stringify([
        {
          id: 'GR-REL',
          pattern: 'custom',
          match: { command: ['touch release-*'] },
          rule: 'Releases need a human yes.',
          severity: 'hard',
          decision: 'pause',
        },
      ]),
    )
    model = await startMockModel([
      { tool: 'Bash', input: { command: 'touch release-3.0.txt', description: 'Cut the release' } },
      { text: 'Understood.' },
    ])
    const claude = path.join(ROOT, 'node_modules', '.bin', 'claude')
    first = await exec(claude, ['-p', 'cut the 3.0 release', '--output-format', 'json', '--allowedTools', 'Bash'], {
      cwd: project,
      env: claudeEnv(model.url, home),
    })
    const id = queue()[0].id
    expect(
      (
        await exec(BIN('ratchet'), ['pending', 'deny', id, '--note', 'wait for the changelog review'], {
          cwd: project,
          env: { ...process.env, CLAUDE_PROJECT_DIR: project },
        })
      ).status,
    ).toBe(0)
    resumed = await exec(
      claude,
      ['-p', '--resume', JSON.parse(first.stdout).session_id, '--output-format', 'json', '--allowedTools', 'Bash'],
      { cwd: project, env: claudeEnv(model.url, home) },
    )
  }, 180_000)

  afterAll(async () => {
    await model?.close()
  })

  it('the paused run stops at the call and queues it once for a human, masked, for this session', () => {
    const out = JSON.parse(first.stdout)
    expect(out.stop_reason).toBe('tool_deferred')
    expect(out.deferred_tool_use).toMatchObject({ name: 'Bash', input: { command: 'touch release-3.0.txt' } })
    expect(queue()).toHaveLength(1)
    expect(queue()[0]).toMatchObject({ action: 'run touch release-3.0.txt', session_id: out.session_id })
    expect(queue()[0]).not.toHaveProperty('input')
    // In -p the client shows neither the hook's systemMessage nor its stderr; preflight-check writes the id
    // and the resume hint to the client's own stderr instead (see claude-defer.test.ts).
  })

  it('after a denial with a note, --resume gives the model the note as the tool result; nothing is queued again', () => {
    expect(resumed.status, resumed.stderr).toBe(0)
    expect(fs.existsSync(path.join(project, 'release-3.0.txt'))).toBe(false)
    const results = model
      .mainTurns()
      .flatMap((r) =>
        r.messages
          .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
          .filter((b: { type?: string }) => b.type === 'tool_result'),
      )
    expect(JSON.stringify(results)).toContain('wait for the changelog review')
    expect(queue()).toHaveLength(1)
    expect(queue()[0]).toMatchObject({ status: 'denied', delivered: true })
  })
})
