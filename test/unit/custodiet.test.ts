import { describe, expect, it } from 'vitest'
import { extractEnvelope, reactiveSignals, scopeExpansions } from '../../lib/core/envelope'
import { parseVerdict } from '../../lib/core/verdict'
import { DEFAULT_POLICY, addFinding, deliver, emptyState, hold, holdDecision, onPrompt, onTodos, onToolDone, type Policy } from '../../hooks/custodiet/decide'

const NOW = new Date('2026-11-21T12:00:00Z')
const ATTN = { status: 'ATTENTION' as const, issue: 'Did extra work.', principle: 'Type B', correction: 'Stop.' }

describe('authority envelope', () => {
  it('extracts scope, implied work, methods and constraints', () => {
    const e = extractEnvelope("Fix the login bug using the existing auth library. Don't touch the database schema.")
    expect(e.explicit).toContain('Fix the login bug')
    expect(e.implied).toEqual(expect.arrayContaining(['read code', 'edit code', 'run tests']))
    expect(e.methods).toEqual(['using the existing auth library'])
    expect(e.constraints).toEqual(["Don't touch the database schema"])
  })
  it('every method is kept, whatever the order (no regex state leaks between clauses)', () => {
    const e = extractEnvelope("Use pnpm; don't use npm; use the existing auth library; use vitest")
    expect(e.methods).toEqual(['Use pnpm', 'use the existing auth library', 'use vitest'])
    expect(e.constraints).toEqual(["don't use npm"])
    expect(extractEnvelope("Use pnpm; don't use npm; use the existing auth library; use vitest")).toEqual(e)
  })
  it('a follow-up extends the envelope; a new instruction replaces it (the latest wins)', () => {
    const first = extractEnvelope('fix the login bug')
    expect(extractEnvelope('also update the changelog', first).explicit).toBe('fix the login bug | also update the changelog')
    const replaced = extractEnvelope('now write a migration guide for v2', first)
    expect(replaced.explicit).toBe('now write a migration guide for v2')
    expect(replaced.prompts).toEqual(['fix the login bug', 'now write a migration guide for v2'])
  })
})

describe('Type B: scope expansion in a plan (the spec’s example)', () => {
  const env = extractEnvelope('fix the login bug')
  it('flags refactoring, tests and docs nobody asked for; keeps investigate and fix', () => {
    const todos = [
      { content: 'Investigate login bug', status: 'in_progress' },
      { content: 'Fix the root cause', status: 'pending' },
      { content: 'Refactor authentication module', status: 'pending' },
      { content: 'Add comprehensive tests', status: 'pending' },
      { content: 'Update documentation', status: 'pending' },
    ]
    expect(scopeExpansions(todos, env).map((x) => x.kind)).toEqual(['refactoring', 'adding tests', 'documentation'])
  })
  it.each([
    ['fix the login bug and add a regression test', 'Add a regression test for login', []],
    ['refactor the auth module', 'Refactor authentication module', []],
    ['fix the login bug', 'Fix the login redirect', []],
    ['fix the login bug', 'Upgrade all dependencies', ['dependency upgrades']],
    ["fix the bug but don't touch the schema", 'Change the database schema for sessions', ['schema or data changes', 'against the constraint "don\'t touch the schema"']],
  ])('%s / %s', (prompt, todo, kinds) => {
    expect(scopeExpansions([{ content: todo, status: 'pending' }], extractEnvelope(prompt)).map((x) => x.kind)).toEqual(kinds)
  })
})

describe('Type A: reactive helpfulness after an error (the spec’s example)', () => {
  const env = extractEnvelope('try again with outlook?')
  it('config read and web search after a failed tool call are flagged', () => {
    const events = [
      { tool: 'mcp__outlook__get_emails', input: {}, error: true },
      { tool: 'Read', input: { file_path: '/home/u/src/academicOps/config/claude/mcp.json' } },
      { tool: 'WebSearch', input: { query: 'outlook-mcp configuration setup' } },
    ]
    expect(reactiveSignals(events, env)).toEqual(['reading configuration /home/u/src/academicOps/config/claude/mcp.json after an error', 'WebSearch outlook-mcp configuration setup after an error'])
  })
  it('retrying, or reading code after an error, is fine; no error, no signal', () => {
    expect(reactiveSignals([{ tool: 'Bash', input: { command: 'npm test' }, error: true }, { tool: 'Read', input: { file_path: '/p/src/app.ts' } }, { tool: 'Bash', input: { command: 'npm test' } }], env)).toEqual([])
    expect(reactiveSignals([{ tool: 'WebSearch', input: { query: 'x' } }], env)).toEqual([])
  })
})

describe('verdicts are parsed strictly', () => {
  it.each([
    ['## Compliance Check: OK\nNo issues detected. Continue current work.', { ok: true, verdict: { status: 'OK' } }],
    ['## Compliance Check: ATTENTION\n\n**Issue**: Refactored auth.\n**Principle**: Type B\n**Correction**: Revert it.', { ok: true, verdict: { status: 'ATTENTION', issue: 'Refactored auth.', principle: 'Type B', correction: 'Revert it.' } }],
    ['Looks fine to me!', { ok: false, error: 'no "## Compliance Check: OK|ATTENTION" heading' }],
    ['## Compliance Check: ATTENTION\n**Issue**: x', { ok: false, error: 'ATTENTION without Principle, Correction' }],
    ['## Compliance Check: OK\n## Compliance Check: ATTENTION', { ok: false, error: 'more than one verdict heading' }],
    ['## Compliance Check: MAYBE', { ok: false, error: 'no "## Compliance Check: OK|ATTENTION" heading' }],
  ])('%j', (text, expected) => {
    expect(parseVerdict(text)).toEqual(expected)
  })
})

describe('graduated enforcement', () => {
  const policy: Policy = { ...DEFAULT_POLICY, every: 7 }
  it('launches a periodic review every 7th call, and after an error; never two at once', () => {
    let s = onPrompt(emptyState(), 'fix the bug')
    const launches: (string | undefined)[] = []
    for (let i = 1; i <= 14; i++) {
      const r = onToolDone(s, { tool: 'Read', input: {} }, policy, NOW, false)
      launches.push(r.launch)
      s = r.state
    }
    expect(launches.map((l, i) => (l ? i + 1 : 0)).filter(Boolean)).toEqual([7, 14])
    expect(onToolDone(s, { tool: 'Bash', input: {}, error: true }, policy, NOW, false).launch).toBe('error')
    expect(onToolDone(s, { tool: 'Bash', input: {}, error: true }, policy, NOW, true).launch).toBeUndefined()
  })
  it('level 2 warns once at the next hook; repeated drift escalates to checkpoint, then block', () => {
    let s = addFinding(onPrompt(emptyState(), 'fix it'), 'periodic', ATTN, 'reviewer', policy, NOW)
    expect(s.findings[0].level).toBe(2)
    const first = deliver(s)
    expect(first.decision).toMatchObject({ kind: 'allow', context: expect.stringContaining('[CUSTODIET] ## Compliance Check: ATTENTION') })
    expect(deliver(first.state).decision).toEqual({ kind: 'allow' }) // exactly once
    s = addFinding(first.state, 'periodic', ATTN, 'reviewer', policy, NOW)
    expect(s.findings[1].level).toBe(3)
    expect(holdDecision(hold(s)!, false)).toMatchObject({ kind: 'ask' })
    s = addFinding(s, 'error', ATTN, 'reviewer', policy, NOW)
    expect(s.findings[2].level).toBe(4)
    expect(holdDecision(hold(s)!, false)).toMatchObject({ kind: 'deny', reason: expect.stringContaining('blocked until the user answers') })
    expect(holdDecision(hold(s)!, true)).toBeNull() // reading stays allowed
    // The user speaks: holds lift.
    expect(hold(onPrompt(s, 'ok, go on with just the fix'))).toBeUndefined()
  })
  it('level per category is configurable; level 1 only logs', () => {
    const quiet: Policy = { ...policy, levels: { ...policy.levels, drift: 1 }, escalate: false }
    const s = addFinding(emptyState(), 'periodic', ATTN, 'reviewer', quiet, NOW)
    expect(deliver(s).decision).toEqual({ kind: 'allow' })
  })
  it('the TodoWrite gate: deterministic when the reviewer is absent, the reviewer when it answered', () => {
    const s = onPrompt(emptyState(), 'fix the login bug')
    const todos = [{ content: 'Fix the root cause' }, { content: 'Refactor authentication module' }]
    expect(onTodos(s, todos, policy, NOW).decision).toMatchObject({ kind: 'allow', context: expect.stringContaining('"Refactor authentication module" (refactoring)') })
    expect(onTodos(s, todos, policy, NOW, { status: 'OK' }).decision).toEqual({ kind: 'allow' })
    const strict: Policy = { ...policy, levels: { ...policy.levels, scope_expansion: 4 } }
    expect(onTodos(s, todos, strict, NOW).decision.kind).toBe('deny')
    expect(onTodos(s, [{ content: 'Fix the root cause' }], policy, NOW).decision).toEqual({ kind: 'allow' })
  })
  it('Type A is caught deterministically from the hook’s own record, once per error', () => {
    let s = onPrompt(emptyState(), 'try again with outlook?')
    s = onToolDone(s, { tool: 'mcp__outlook__get', input: {}, error: true }, policy, NOW, false).state
    const r = onToolDone(s, { tool: 'WebSearch', input: { query: 'outlook setup' } }, policy, NOW, false)
    expect(r.decision).toMatchObject({ kind: 'allow', context: expect.stringContaining('Type A') })
    const again = onToolDone(r.state, { tool: 'WebFetch', input: { url: 'https://x' } }, policy, NOW, false)
    expect(again.state.findings).toHaveLength(1)
  })
})
