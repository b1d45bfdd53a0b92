import { describe, expect, it } from 'vitest'
import { parsePayload, payloadSchema, HOOK_EVENTS } from '../../lib/core/payloads'
import { render, renderBlockingError } from '../../lib/runtime/render'
import { hookSamples } from '../support/fixtures'

describe('hook payloads', () => {
  const samples = hookSamples()
  it.each(samples.map((s) => [s.hook_event_name as string, s]))(
    'real %s payload from claude 2.1.330 parses',
    (_event, sample) => {
      const r = parsePayload(JSON.stringify(sample))
      expect(r.ok).toBe(true)
    },
  )

  it('keeps unknown fields (newer clients add them every release)', () => {
    const r = parsePayload(
      JSON.stringify({ session_id: 's', hook_event_name: 'Stop', background_tasks: [], future_field: { x: 1 } }),
    )
    expect(r.ok && (r.value as Record<string, unknown>).future_field).toEqual({ x: 1 })
  })

  it.each([
    ['', 'stdin was empty'],
    ['not json', 'stdin is not a JSON hook payload'],
    ['[1,2]', 'stdin is not a JSON object'],
    ['{"session_id":"s"}', 'hook_event_name undefined is not a Claude Code hook event'],
    ['{"session_id":"s","hook_event_name":"Bogus"}', 'hook_event_name "Bogus" is not a Claude Code hook event'],
    [
      '{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"rm -rf /"}',
      'PreToolUse payload: tool_input:',
    ],
    ['{"hook_event_name":"UserPromptSubmit","prompt":"hi"}', 'UserPromptSubmit payload: session_id:'],
  ])('malformed %j → one line naming the problem', (text, message) => {
    const r = parsePayload(text)
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error.code).toBe('payload_invalid')
      expect(r.error.message).toContain(message)
      expect(r.error.message).not.toContain('\n')
    }
  })

  // PreToolUse payloads are checked by hand (no zod on the hot path): exactly the schema's acceptance and value.
  const base = { session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }
  it.each([
    base,
    {
      ...base,
      cwd: '/p',
      transcript_path: '/t',
      permission_mode: 'default',
      agent_id: 'a',
      agent_type: 't',
      tool_use_id: 'u',
      future: [1],
    },
    { ...base, tool_input: {} },
    { ...base, tool_input: { command: 'x', nested: { a: [1, null] } } },
    { ...base, session_id: 1 },
    { ...base, tool_name: null },
    { ...base, tool_input: null },
    { ...base, tool_input: [] },
    { ...base, tool_input: 'ls' },
    { ...base, cwd: 3 },
    { ...base, tool_use_id: null },
    { ...base, agent_type: {} },
    { session_id: 's', hook_event_name: 'PreToolUse', tool_input: {} },
  ])('PreToolUse %j: accepted and parsed as its schema does', (payload) => {
    const text = JSON.stringify(payload)
    const r = parsePayload(text)
    const z = payloadSchema('PreToolUse').safeParse(JSON.parse(text))
    expect(r.ok).toBe(z.success)
    if (r.ok && z.success) expect(JSON.parse(JSON.stringify(r.value))).toEqual(JSON.parse(JSON.stringify(z.data)))
  })

  const post = {
    session_id: 's',
    hook_event_name: 'PostToolUse',
    tool_name: 'Read',
    tool_input: { file_path: '/x' },
    tool_response: { type: 'text' },
  }
  it.each([
    post,
    { ...post, duration_ms: 12, tool_use_id: 'u', cwd: '/p', extra: true },
    { ...post, tool_response: undefined },
    { ...post, duration_ms: '12' },
    { ...post, tool_input: [] },
    { ...post, tool_use_id: 5 },
    { ...post, session_id: undefined },
    { session_id: 's', hook_event_name: 'UserPromptSubmit', prompt: 'fix it' },
    { session_id: 's', hook_event_name: 'UserPromptSubmit', prompt: 'fix it', permission_mode: 'plan', more: 1 },
    { session_id: 's', hook_event_name: 'UserPromptSubmit', prompt: 3 },
    { session_id: 's', hook_event_name: 'UserPromptSubmit' },
    { session_id: 's', hook_event_name: 'UserPromptSubmit', prompt: 'x', agent_id: false },
  ])('%j: accepted and parsed as its schema does', (payload) => {
    const text = JSON.stringify(payload)
    const r = parsePayload(text)
    const z = payloadSchema(payload.hook_event_name as 'PostToolUse' | 'UserPromptSubmit').safeParse(JSON.parse(text))
    expect(r.ok).toBe(z.success)
    if (r.ok && z.success) expect(JSON.parse(JSON.stringify(r.value))).toEqual(JSON.parse(JSON.stringify(z.data)))
  })

  it('a "__proto__" key in tool_input stays data, as sent (the schema would have made it the prototype, hiding it)', () => {
    const r = parsePayload(
      '{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__x__run","tool_input":{"__proto__":{"command":"rm -rf ~"}}}',
    )
    expect(r.ok).toBe(true)
    const input = r.ok ? (r.value as { tool_input: Record<string, unknown> }).tool_input : {}
    expect(input.command).toBeUndefined()
    expect(Object.keys(input)).toEqual(['__proto__'])
    expect(JSON.stringify(input)).toContain('rm -rf ~')
  })

  it('covers every event of the reference', () => {
    expect(HOOK_EVENTS).toEqual(
      expect.arrayContaining([
        'SessionStart',
        'UserPromptSubmit',
        'PreToolUse',
        'PermissionRequest',
        'PostToolUse',
        'PostToolUseFailure',
        'Stop',
        'SubagentStart',
        'SubagentStop',
        'PreCompact',
        'Notification',
        'SessionEnd',
      ]),
    )
  })
})

describe('render: Decision → exactly what Claude Code expects', () => {
  it('a clean allow prints nothing and exits 0', () => {
    expect(render('PreToolUse', { kind: 'allow' })).toEqual({ exitCode: 0, stdout: '', stderr: '' })
  })
  it('PreToolUse deny/ask/defer use permissionDecision with the reason', () => {
    for (const kind of ['deny', 'ask', 'defer'] as const) {
      const r = render('PreToolUse', { kind, reason: 'why' })
      expect(r.exitCode).toBe(0)
      expect(JSON.parse(r.stdout)).toEqual({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: kind, permissionDecisionReason: 'why' },
      })
    }
  })
  it('an allow with context never says "allow" (that would skip the user’s permission prompt)', () => {
    const out = JSON.parse(render('PreToolUse', { kind: 'allow', context: 'note', notice: 'for the user' }).stdout)
    expect(out).toEqual({
      systemMessage: 'for the user',
      hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'note' },
    })
  })
  it('SessionStart and UserPromptSubmit context goes in additionalContext', () => {
    expect(JSON.parse(render('SessionStart', { kind: 'allow', context: 'rules' }).stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'rules' },
    })
    expect(
      JSON.parse(render('UserPromptSubmit', { kind: 'allow', context: 'c' }).stdout).hookSpecificOutput
        .additionalContext,
    ).toBe('c')
  })
  it('post-action events block with decision: block', () => {
    expect(JSON.parse(render('PostToolUse', { kind: 'block', reason: 'r', context: 'c' }).stdout)).toEqual({
      decision: 'block',
      reason: 'r',
      hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'c' },
    })
    expect(JSON.parse(render('Stop', { kind: 'block', reason: 'keep going' }).stdout)).toEqual({
      decision: 'block',
      reason: 'keep going',
    })
  })
  it('PermissionRequest denies with decision.behavior', () => {
    expect(JSON.parse(render('PermissionRequest', { kind: 'deny', reason: 'no' }).stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'no' } },
    })
  })
  it('caps injected text below Claude Code’s 10,000 characters', () => {
    const r = JSON.parse(render('SessionStart', { kind: 'allow', context: 'x'.repeat(20000) }).stdout)
    expect(r.hookSpecificOutput.additionalContext.length).toBeLessThan(10000)
  })
  it('a blocking error is exit 2 with one line on stderr (exit 1 would fail open)', () => {
    expect(renderBlockingError('bad\nthing')).toEqual({ exitCode: 2, stdout: '', stderr: 'bad thing\n' })
  })
})
