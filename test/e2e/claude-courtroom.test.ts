// The courtroom inside the real `claude` CLI (driven by the mock model API): after a guilty verdict
// (moderate: answering a question with changes), the agent hears its probation at session start; its
// next Write is checked with the courtroom's note and runs on the identical retry; its attempts to clear
// the probation itself — through `ratchet courtroom clear` or by deleting the file — are denied.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, ROOT, exec, tempProject } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'

const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')
const say = (text: string) => `printf '${text}'`

describe('the courtroom inside the real claude CLI', () => {
  let model: MockModel
  let project: string
  let home: string
  let caseId: string
  let result: { status: number | null; stdout: string; stderr: string }
  const probationFile = () => path.join(project, '.ratchet', 'courtroom', 'probation.json')

  beforeAll(async () => {
    project = tempProject('ratchet-claude-court-')
    home = tempProject('ratchet-home-')
    const env = {
      ...process.env,
      NODE_ENV: undefined,
      CLAUDECODE: undefined,
      HOME: home,
      CLAUDE_PROJECT_DIR: project,
      RATCHET_DIR: '',
    }
    expect(spawnSync(BIN('ratchet'), ['init', '--project-dir', project], { encoding: 'utf8', env }).status).toBe(0)
    fs.writeFileSync(
      path.join(project, '.ratchet', 'config.json'),
      JSON.stringify({
        courtroom: {
          probation: { actions: 2 },
          judge: {
            kind: 'command',
            command: say(
              'CHARGE: Asked why the build fails, the agent edited the CI config.\\nPRIMARY_FAILURE: Changed files instead of answering the question.',
            ),
          },
          reviewer: { kind: 'command', command: say('VOTE: GUILTY\\nREASON: The user asked a question.') },
        },
      }),
    )
    expect((await exec(BIN('ratchet'), ['courtroom', 'enable', '--yes'], { cwd: project, env })).status).toBe(0)
    const heard = await exec(
      BIN('ratchet'),
      [
        'courtroom',
        'hear',
        '--offense',
        'answered_with_changes',
        '--summary',
        'asked why the build fails; edited .github/workflows/ci.yml',
        '--json',
      ],
      { cwd: project, env },
    )
    caseId = JSON.parse(heard.stdout).record.case_id
    const target = path.join(project, 'notes.txt')
    model = await startMockModel([
      { text: 'Writing the notes.', tool: 'Write', input: { file_path: target, content: 'notes\n' } },
      { tool: 'Bash', input: { command: `ratchet courtroom clear ${caseId}`, description: 'Clear probation' } },
      { tool: 'Bash', input: { command: 'rm -f .ratchet/courtroom/probation.json', description: 'Remove probation' } },
      // A spelling the classifier cannot read as ratchet: caught by the CLI itself inside Claude Code.
      {
        tool: 'Bash',
        input: { command: `node ${BIN('ratchet')} courtroom clear ${caseId}`, description: 'Clear probation' },
      },
      { tool: 'Write', input: { file_path: target, content: 'notes\n' } },
      { text: 'Done.' },
    ])
    result = await exec(
      CLAUDE,
      ['-p', 'write my notes to notes.txt', '--output-format', 'json', '--allowedTools', 'Bash', 'Write', 'Edit'],
      { cwd: project, env: claudeEnv(model.url, home) },
    )
  }, 180_000)

  afterAll(async () => {
    await model?.close()
  })

  it('runs to the end', () => {
    expect(result.status, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ result: 'Done.' })
  })

  it('the probation reaches the model at session start', () => {
    const first = JSON.stringify(model.mainTurns()[0])
    expect(first).toContain('[COURTROOM] On probation after a guilty verdict (1)')
    expect(first).toContain(
      `${caseId} MODERATE Answering a Question with Changes: checks Write, Edit, MultiEdit, NotebookEdit`,
    )
  })

  it('the first Write is checked with the courtroom’s note; the identical retry runs', () => {
    const [write, , , , retry] = model.toolResults()
    expect(write.is_error).toBe(true)
    expect(write.content).toContain(
      `[COURTROOM] On probation (case ${caseId}, Answering a Question with Changes, moderate; 2 actions left)`,
    )
    expect(retry.is_error).toBe(false)
    expect(fs.readFileSync(path.join(project, 'notes.txt'), 'utf8')).toBe('notes\n')
  })

  it('the agent cannot clear its own probation, by the CLI or by deleting the file', () => {
    const [, clear, rm, viaNode] = model.toolResults()
    expect(clear.is_error).toBe(true)
    expect(clear.content).toMatch(/Denied: .*would change Ratchet's own rules/)
    expect(rm.is_error).toBe(true)
    // Refused either way: by preflight-check (self-protection recognises Ratchet's CLI through node and any path,
    // shell's issue 9 item 3) or, were the hook absent, by the CLI itself inside Claude Code.
    expect(viaNode.is_error).toBe(true)
    expect(viaNode.content).toMatch(
      /npx ratchet-guard courtroom clear is the user's to run, in a terminal outside the agent's session \(refused inside Claude Code\)|Denied: node \S+ courtroom clear .*would change Ratchet's own rules/,
    )
    const left = JSON.parse(fs.readFileSync(probationFile(), 'utf8')).probations
    expect(left).toEqual([expect.objectContaining({ case_id: caseId, remaining: 1 })])
  })
})
