// Probation changes what the built preflight-check decides, at each tier, and lifts when it should:
// minor after N actions, moderate after N actions of its class, severe only when a human clears it.
// The probation file is written as a guilty verdict writes it.
import fs from 'node:fs'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { BIN, exec, preToolUse, runBin, tempProject } from '../support/fixtures'
import type { Probation } from '../../lib/core/courtroom/probation'

let dir: string
let env: NodeJS.ProcessEnv
const probationFile = () => path.join(dir, '.ratchet', 'courtroom', 'probation.json')
const put = (...list: Probation[]) => {
  fs.mkdirSync(path.dirname(probationFile()), { recursive: true })
  fs.writeFileSync(probationFile(), JSON.stringify({ v: 1, probations: list }))
}
const probation = (tier: Probation['tier'], extra: Partial<Probation> = {}): Probation => ({
  case_id: `case_${tier}`,
  offense_id: 'o',
  offense_name: 'Answering a Question with Changes',
  tier,
  classes: [],
  patterns: [],
  tools: ['Write'],
  reminder: 'Answer the question before changing anything.',
  started: new Date().toISOString(),
  ...(tier === 'severe' ? {} : { remaining: 2, expires: Date.now() + 3600_000 }),
  ...extra,
})
const guard = (tool: string, input: Record<string, unknown>) => {
  const r = runBin('preflight-check', preToolUse(dir, tool, input), { cwd: dir, env })
  expect(r.status).toBe(0)
  return r.stdout ? JSON.parse(r.stdout).hookSpecificOutput : { permissionDecision: 'allow (silent)' }
}
const write = (name: string) => guard('Write', { file_path: path.join(dir, name), content: 'x' })
const bash = (command: string) => guard('Bash', { command })

beforeEach(() => {
  dir = tempProject()
  env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' }
})

describe('probation in preflight-check', () => {
  it('without probation, these actions pass silently (the baseline)', () => {
    expect(write('a.txt')).toEqual({ permissionDecision: 'allow (silent)' })
    expect(bash('echo hi')).toEqual({ permissionDecision: 'allow (silent)' })
  })

  it('minor: a reminder rides along with the next N actions, then lifts (the file is gone)', () => {
    put(probation('minor', { tools: [] }))
    expect(bash('echo one > one.txt').additionalContext).toBe(
      '[COURTROOM] On probation (case case_minor, Answering a Question with Changes, minor; 2 actions left): Answer the question before changing anything.',
    )
    expect(guard('Read', { file_path: path.join(dir, 'x') })).toEqual({ permissionDecision: 'allow (silent)' }) // reading is not acting
    expect(bash('echo nothing changed')).toEqual({ permissionDecision: 'allow (silent)' }) // nor is printing
    expect(bash('echo two > two.txt').additionalContext).toContain('1 action left')
    expect(fs.existsSync(probationFile())).toBe(false)
    expect(bash('echo three > three.txt')).toEqual({ permissionDecision: 'allow (silent)' })
  })

  it('minor on a class: the reminder rides along with actions of that class only, and only those count', () => {
    put(probation('minor'))
    expect(bash('echo one')).toEqual({ permissionDecision: 'allow (silent)' })
    expect(write('a.txt').additionalContext).toContain('2 actions left')
    expect(JSON.parse(fs.readFileSync(probationFile(), 'utf8')).probations[0].remaining).toBe(1)
  })

  it('moderate: its class is checked (refused once, the identical retry runs), N times, then lifts; other actions stay quiet', () => {
    put(probation('moderate', { remaining: 1 }))
    expect(bash('echo hi')).toEqual({ permissionDecision: 'allow (silent)' })
    const first = write('a.txt')
    expect(first.permissionDecision).toBe('deny')
    expect(first.permissionDecisionReason).toMatch(
      /^\[COURTROOM\] On probation \(case case_moderate, .* moderate; 1 action left\): actions of this kind are checked first\./,
    )
    expect(write('a.txt').permissionDecision ?? 'allow (silent)').toBe('allow (silent)')
    expect(fs.existsSync(probationFile())).toBe(false)
    expect(write('b.txt')).toEqual({ permissionDecision: 'allow (silent)' })
    const log = fs
      .readFileSync(path.join(dir, '.ratchet', 'activity.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(log.map((l) => l.decision)).toEqual(['allow', 'probation_check', 'proceeded_after_probation_check', 'allow'])
  })

  it('moderate in ask mode asks the user', () => {
    fs.mkdirSync(path.join(dir, '.ratchet'), { recursive: true })
    fs.writeFileSync(
      path.join(dir, '.ratchet', 'config.json'),
      JSON.stringify({ courtroom: { probation: { moderate: 'ask' } } }),
    )
    put(probation('moderate'))
    expect(write('a.txt').permissionDecision).toBe('ask')
  })

  it('moderate: an expired probation lifts by itself', () => {
    put(probation('moderate', { expires: Date.now() - 1 }))
    expect(write('a.txt')).toEqual({ permissionDecision: 'allow (silent)' })
    expect(fs.existsSync(probationFile())).toBe(false)
  })

  it('severe: its class waits for a human, with a reflection prompt, however often it is retried; a human clears it', async () => {
    put(probation('severe'))
    for (let i = 0; i < 3; i++) {
      const r = write('a.txt')
      expect(r.permissionDecision).toBe('deny')
      expect(r.permissionDecisionReason).toMatch(
        /wait for a human until they clear the case \(`npx ratchet-guard courtroom clear case_severe`/,
      )
      expect(r.permissionDecisionReason).toMatch(/Reflect before you continue/)
    }
    expect(bash('echo other work')).toEqual({ permissionDecision: 'allow (silent)' })
    // The agent cannot clear it: that command is Ratchet's state, the user's to change.
    expect(bash('ratchet courtroom clear case_severe').permissionDecision).toBe('deny')
    const cleared = await exec(BIN('ratchet'), ['courtroom', 'clear', 'case_severe'], {
      cwd: dir,
      env: { ...process.env, ...env, CLAUDECODE: undefined },
    })
    expect(cleared.stdout).toBe('Probation for case_severe cleared.\n')
    expect(write('a.txt')).toEqual({ permissionDecision: 'allow (silent)' })
  })

  it('never loosens a decision: a hard built-in deny stays that deny', () => {
    put(probation('minor'))
    const r = bash('rm -rf /')
    expect(r.permissionDecision).toBe('deny')
    expect(r.permissionDecisionReason).toMatch(/^\[PRE-FLIGHT\]/)
  })

  it('session start shows the probation in force', () => {
    put(probation('severe'), probation('minor'))
    const r = runBin(
      'session-start',
      { session_id: 's', hook_event_name: 'SessionStart', source: 'startup', cwd: dir },
      { cwd: dir, env },
    )
    const ctx = JSON.parse(r.stdout).hookSpecificOutput.additionalContext
    expect(ctx).toContain('[COURTROOM] On probation after a guilty verdict (2)')
    expect(ctx).toContain(
      '- case_severe SEVERE Answering a Question with Changes: Write paused (until a human clears it)',
    )
  })
})
