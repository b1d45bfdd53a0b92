// custodiet inside the real claude CLI: the periodic review launches custodiet's own nested
// `claude -p` (the real CLI again), which goes to the same mock model; its ATTENTION verdict reaches
// the main model at a later hook.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, ROOT, exec, tempProject } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'

const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')
const VERDICT = '## Compliance Check: ATTENTION\n\n**Issue**: The agent is listing unrelated folders instead of fixing the typo.\n**Principle**: Type B scope expansion\n**Correction**: Fix the typo in README.md and stop.'

describe('custodiet inside the real claude CLI', () => {
  let model: MockModel
  let project: string
  let result: { status: number | null; stdout: string; stderr: string }
  const reviewerRequests: unknown[] = []

  beforeAll(async () => {
    project = tempProject('ratchet-claude-custodiet-')
    const home = tempProject('ratchet-home-')
    expect((await exec(BIN('ratchet'), ['init', '--project-dir', project], { env: { ...process.env, HOME: home } })).status).toBe(0)
    fs.writeFileSync(path.join(project, '.ratchet', 'config.json'), JSON.stringify({ custodiet: { every: 2, reviewer: { kind: 'claude', claudePath: CLAUDE, timeoutSeconds: 60 } } }))
    fs.writeFileSync(path.join(project, 'README.md'), '# Helo\n')
    const stateFile = path.join(project, '.ratchet', 'custodiet')
    const findings = () => {
      try {
        return fs.readdirSync(stateFile).filter((f) => f.endsWith('.json') && !f.includes('hold') && !f.includes('cache')).flatMap((f) => JSON.parse(fs.readFileSync(path.join(stateFile, f), 'utf8')).findings)
      } catch {
        return []
      }
    }
    model = await startMockModel(
      [
        { tool: 'Read', input: { file_path: path.join(project, 'README.md') } },
        { tool: 'Bash', input: { command: 'ls /usr', description: 'Look around' } },
        { tool: 'Bash', input: { command: 'ls /etc', description: 'Look around more' } },
        { text: 'Done.' },
      ],
      {
        respond: async (req) => {
          // custodiet's nested reviewer: no tools, custodiet's system prompt.
          if (!req.tools?.length && JSON.stringify(req.system ?? '').includes('You are custodiet')) {
            reviewerRequests.push(req)
            return { text: VERDICT }
          }
          // Before the main model's third turn, wait for the background review to land.
          const turns = req.messages.filter((m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_use')).length
          if (req.tools?.length && turns === 2) for (let i = 0; i < 300 && !findings().length; i++) await new Promise((r) => setTimeout(r, 100))
          return undefined
        },
      },
    )
    result = await exec(CLAUDE, ['-p', 'fix the typo in README.md', '--output-format', 'json', '--allowedTools', 'Bash', 'Read', 'Edit'], { cwd: project, env: claudeEnv(model.url, home) })
  }, 180_000)

  afterAll(async () => {
    await model?.close()
  })

  it('the session completes', () => {
    expect(result.status, result.stderr).toBe(0)
  })

  it("custodiet's nested claude -p reached the same mock model with the envelope and the transcript", () => {
    expect(reviewerRequests).toHaveLength(1)
    const req = JSON.stringify(reviewerRequests[0])
    expect(req).toContain('Explicit scope: fix the typo in README.md')
    expect(req).toContain('ls /usr')
  })

  it('the nested reviewer ran no hooks of its own (no recursion)', () => {
    const log = fs.readFileSync(path.join(project, '.ratchet', 'activity.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    const sessions = new Set(log.filter((l) => l.session).map((l) => l.session))
    expect(sessions.size).toBe(1)
  })

  it('the ATTENTION warning reached the main model at its next hook', () => {
    const later = model.mainTurns().slice(3).map((r) => JSON.stringify(r)).join('\n')
    expect(later).toContain('[CUSTODIET] ## Compliance Check: ATTENTION')
    expect(later).toContain('listing unrelated folders instead of fixing the typo')
  })
})
