import { describe, expect, it } from 'vitest'
import { decide, type PreflightOptions } from '../../hooks/preflight-check/decide'
import { compileRules } from '../../lib/core/rule-match'
import { validateGuardrails } from '../../lib/core/guardrails'
import type { ClassifyContext } from '../../lib/core/classify'
import fs from 'node:fs'
import path from 'node:path'

const DEFAULTS = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'guardrails.json'), 'utf8'))
const ctx: ClassifyContext = {
  projectDir: '/p',
  homeDir: '/home/u',
  stateDir: '/p/.ratchet',
  session: { reads: {}, prompts: [] },
  fileExists: (p) => p === '/p/old.txt',
  currentBranch: () => 'feature',
}
const NOW = 1_800_000_000_000
const opts = (o: Partial<PreflightOptions> = {}): PreflightOptions => ({
  checkWindowMs: 600_000,
  checks: {},
  fingerprint: 'fp1',
  now: NOW,
  ...o,
})
const index = (rules: unknown[] = DEFAULTS) => compileRules(validateGuardrails(rules).rules)
const run = (command: string, o?: Partial<PreflightOptions>, rules?: unknown[]) =>
  decide({ tool_name: 'Bash', tool_input: { command }, cwd: '/p' }, ctx, index(rules), opts(o))

describe('preflight decisions with the default rules', () => {
  it('a clean action is allowed silently', () => {
    const r = run('npm test')
    expect(r.verdict).toBe('allow')
    expect(r.decision).toEqual({ kind: 'allow' })
  })

  it('a soft rule denies the first attempt with the seed’s PRE-FLIGHT note', () => {
    const r = run('git push origin feature')
    expect(r.verdict).toBe('check')
    expect(r.decision.kind).toBe('deny')
    const note = (r.decision as { reason: string }).reason
    expect(note.split('\n').map((l) => l.split(':')[0])).toEqual([
      '[PRE-FLIGHT] Action',
      'Trigger',
      'Check',
      'Rule',
      'Proceed',
    ])
    expect(note).toContain('[PRE-FLIGHT] Action: git push origin feature')
    expect(note).toContain('Trigger: public surface (guardrail RG-PUBLIC)')
    expect(note).toContain('retry the identical call within 10 min')
  })

  it('the identical retry within the window proceeds; after it, or another action, does not', () => {
    expect(run('git push origin feature', { checks: { fp1: NOW - 60_000 } }).verdict).toBe('proceeded_after_check')
    expect(run('git push origin feature', { checks: { fp1: NOW - 11 * 60_000 } }).verdict).toBe('check')
    expect(run('git push origin feature', { checks: { other: NOW - 1000 } }).verdict).toBe('check')
  })

  it('catastrophic actions are denied even without any rule, and a retry does not help', () => {
    for (const rules of [DEFAULTS, []]) {
      const r = run('rm -rf ~', { checks: { fp1: NOW - 1000 } }, rules)
      expect(r.verdict).toBe('deny')
      expect(r.builtin).toBe('catastrophic')
      expect((r.decision as { reason: string }).reason).toContain('Proceed: no.')
    }
  })

  it('a user rule may turn a catastrophic action into a question for the human, never a retry', () => {
    const rules = [{ id: 'ASK', pattern: 'catastrophic', rule: 'ask me', severity: 'hard', decision: 'ask' }]
    expect(run('dropdb scratch', {}, rules).decision.kind).toBe('ask')
    const weak = [{ id: 'W', pattern: 'catastrophic', rule: 'meh', severity: 'soft', decision: 'warn' }]
    expect(run('dropdb scratch', {}, weak).decision.kind).toBe('deny')
  })

  it("editing Ratchet's own rules is denied with a clear reason", () => {
    const r = decide(
      { tool_name: 'Write', tool_input: { file_path: '/p/.ratchet/guardrails.json', content: '[]' } },
      ctx,
      index(),
      opts(),
    )
    expect(r.builtin).toBe('self-protection')
    expect(r.decision.kind).toBe('deny')
    expect((r.decision as { reason: string }).reason).toMatch(/Ratchet's own rules.*never change them/)
  })

  it('the strongest decision wins; hard rules name their incident', () => {
    const rules = [
      { id: 'W', pattern: 'git_push', rule: 'warn', severity: 'soft', decision: 'warn' },
      {
        id: 'GR-002',
        source: 'INC-003',
        pattern: 'commit_to_public_repo',
        rule: 'Verify no private files.',
        severity: 'hard',
      },
    ]
    const r = run('git push origin feature', {}, rules)
    expect(r.verdict).toBe('deny')
    expect(r.classes).toContain('prior_incident')
    const note = (r.decision as { reason: string }).reason
    expect(note).toContain('prior incident INC-003')
    expect(note).toContain('Rule: GR-002 (from INC-003): Verify no private files.')
  })

  it('warn allows with context for the model and a notice for the user', () => {
    const r = run('git push origin feature', {}, [
      { id: 'W', pattern: 'git_push', rule: 'be careful', severity: 'soft', decision: 'warn' },
    ])
    expect(r.decision.kind).toBe('allow')
    expect(r.decision).toMatchObject({
      context: expect.stringContaining('[PRE-FLIGHT]'),
      notice: expect.stringContaining('Ratchet warned'),
    })
  })

  it('ask goes to the user; pause holds like a deny until the queue exists', () => {
    expect(
      run('git push', {}, [{ id: 'A', pattern: 'git_push', rule: 'r', severity: 'soft', decision: 'ask' }]).decision
        .kind,
    ).toBe('ask')
    expect(
      run('git push', {}, [{ id: 'P', pattern: 'git_push', rule: 'r', severity: 'soft', decision: 'pause' }]).decision
        .kind,
    ).toBe('deny')
  })

  it('stale data: a Write over an unread file is checked', () => {
    const r = decide(
      { tool_name: 'Write', tool_input: { file_path: '/p/old.txt', content: 'x' } },
      ctx,
      index(),
      opts(),
    )
    expect(r.verdict).toBe('check')
    expect(r.fired.map((f) => f.id)).toEqual(['RG-STALE'])
  })

  it('a note with many rules shows five and counts the rest', () => {
    const rules = Array.from({ length: 8 }, (_, i) => ({
      id: `R${i}`,
      pattern: 'git_push',
      rule: `rule ${i}`,
      severity: 'soft',
    }))
    const note = (run('git push', {}, rules).decision as { reason: string }).reason
    expect(note.match(/^Rule: R\d/gm)).toHaveLength(5)
    expect(note).toContain('Rule: …and 3 more')
  })
})
