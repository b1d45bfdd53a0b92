// The everyday session benchmark (issue 10 target) as a test: ~45 ordinary calls after a prompt that asked
// for the work, through the built hook, at most 1 interruption. Counts, not timing.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { everydaySession } from '../../bench/everyday'
import { BIN } from '../support/fixtures'

describe('everyday session', () => {
  it('~45 ordinary calls the prompt asked for: at most 1 interruption', () => {
    const r = everydaySession()
    expect(r.calls).toBeGreaterThanOrEqual(40)
    expect(r.interruptions.length, JSON.stringify(r.interruptions, null, 2)).toBeLessThanOrEqual(1)
  }, 180_000)

  it('the same hook is live: what the prompt did not ask for still stops', () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-everyday-live-')))
    spawnSync('git', ['init', '-q'], { cwd: dir })
    const env = { ...process.env, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', NODE_ENV: undefined }
    const hook = (p: Record<string, unknown>) => spawnSync(BIN('preflight-check'), [], { input: JSON.stringify({ session_id: 'live', transcript_path: '', cwd: dir, ...p }), cwd: dir, env, encoding: 'utf8' })
    hook({ hook_event_name: 'UserPromptSubmit', prompt: 'add a greet() function and commit it; do not push' })
    const decision = (command: string) => JSON.parse(hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: 't' }).stdout || '{}').hookSpecificOutput?.permissionDecision
    expect(decision('git push origin feature')).toBe('deny')
    expect(decision('git push --force origin main')).toBe('deny')
    expect(decision('git commit -m x')).toBeUndefined()
  })
})
