// Claude Code's own resume prompt ("Continue from where you left off.") is not the user speaking: it neither
// replaces the request preflight-check judges by nor lifts custodiet's holds. The recorded wording is matched whole.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { isResumePrompt } from '../../lib/core/payloads'
import { BIN, ROOT, exec, preToolUse, runBinAsync, tempProject } from '../support/fixtures'

describe('isResumePrompt', () => {
  it.each([
    ['Continue from where you left off.', true],
    ['  Continue from where you left off.\n', true],
    [
      'Continue from where you left off. Note: this session was automatically restarted after its process exited unexpectedly; the user has not sent a new message since the restart. Re-verify anything time-sensitive (branch state, running processes, prior partial work) before continuing.',
      true,
    ],
    [
      'Continue from where you left off. This session moved to a new runner; files you created earlier may no longer exist, so verify the working directory state before relying on prior edits.',
      true,
    ],
    [
      "This session's worker process was restarted. If your previous turn was already complete, take no action and wait for the next event. Otherwise, continue from where you left off.",
      true,
    ],
    // The user's own words stay the user's: a condition, a new request, a different phrasing.
    ["Continue from where you left off, but don't push.", false],
    ['Continue from where you left off. Then push the branch.', false],
    ['continue', false],
    ['push the branch', false],
    ['', false],
  ])('%j → %s', (prompt, resume) => {
    expect(isResumePrompt(prompt)).toBe(resume)
  })
})

describe("custodiet's holds stay through a resume", () => {
  it('a held session stays held after the resume prompt, and is released when the user speaks', async () => {
    const dir = tempProject()
    const SESSION = 'sess-r'
    const log = path.join(dir, 'reviewer-calls.jsonl')
    const env = {
      CLAUDE_PROJECT_DIR: dir,
      RATCHET_DIR: '',
      PATH: `${path.join(ROOT, 'test', 'support', 'bin')}:${process.env.PATH}`,
      FAKE_REVIEWER_LOG: log,
      FAKE_REVIEWER_MODE: 'ok',
    }
    fs.writeFileSync(
      path.join(dir, 'transcript.jsonl'),
      fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'transcript-sample-deny.jsonl')),
    )
    fs.mkdirSync(path.join(dir, '.ratchet'))
    fs.writeFileSync(
      path.join(dir, '.ratchet', 'config.json'),
      JSON.stringify({ custodiet: { reviewer: { kind: 'claude' } } }),
    )
    const hook = (payload: Record<string, unknown>) =>
      runBinAsync(
        'custodiet',
        { session_id: SESSION, transcript_path: path.join(dir, 'transcript.jsonl'), cwd: dir, ...payload },
        { cwd: dir, env },
      )
    const prompt = (text: string) => hook({ hook_event_name: 'UserPromptSubmit', prompt: text })
    const guard = async () =>
      (await runBinAsync('preflight-check', preToolUse(dir, 'Bash', { command: 'ls' }, SESSION), { cwd: dir, env }))
        .stdout
    await prompt('fix the login bug')
    for (let i = 0; i < 2; i++) {
      fs.appendFileSync(
        path.join(dir, 'transcript.jsonl'),
        JSON.stringify({ type: 'user', message: { role: 'user', content: `step ${i}` } }) + '\n',
      )
      await exec(BIN('custodiet'), ['review', '--session', SESSION, '--trigger', 'periodic'], {
        cwd: dir,
        env: { ...env, FAKE_REVIEWER_MODE: 'attention' },
      })
    }
    await hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: '/p/a.ts' },
      tool_response: {},
      tool_use_id: 't',
    })
    await hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: '/p/b.ts' },
      tool_response: {},
      tool_use_id: 't',
    })
    expect(JSON.parse(await guard()).hookSpecificOutput.permissionDecision).toBe('ask')
    await prompt('Continue from where you left off.')
    expect(JSON.parse(await guard()).hookSpecificOutput.permissionDecision).toBe('ask')
    const st = JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'custodiet', `${SESSION}.json`), 'utf8'))
    expect(st.envelope).toBeDefined()
    // The user speaks: the hold lifts (custodiet's rule: the user has now confirmed or redirected).
    await prompt('yes, go on with the login fix')
    expect(await guard()).toBe('')
  }, 60_000)
})
