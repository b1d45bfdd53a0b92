// renderHttp: a command hook's output, as the resident service answers an http hook with it. Both transports must
// say the same thing to Claude Code, which reads no exit code and no stderr from an http hook.
import { describe, expect, it } from 'vitest'
import { joinAnswers, renderHttp } from '../../lib/runtime/render'

describe('renderHttp', () => {
  it.each([
    ['a clean allow is an empty object', 'PreToolUse', { exitCode: 0 as const, stdout: '', stderr: '' }, {}],
    [
      'a JSON deny passes through',
      'PreToolUse',
      {
        exitCode: 0 as const,
        stdout:
          '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}\n',
        stderr: '',
      },
      {
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' },
      },
    ],
    [
      'exit 2 on PreToolUse is a deny with the line as its reason',
      'PreToolUse',
      { exitCode: 2 as const, stdout: '', stderr: 'ratchet preflight-check: bad payload; blocked to be safe\n' },
      {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: 'ratchet preflight-check: bad payload; blocked to be safe',
        },
      },
    ],
    [
      'exit 2 elsewhere is a block',
      'PreCompact',
      { exitCode: 2 as const, stdout: '', stderr: 'held\n' },
      { decision: 'block', reason: 'held' },
    ],
    [
      'a notice on stderr reaches the user',
      'PostToolUse',
      { exitCode: 0 as const, stdout: '', stderr: 'ratchet custodiet: note\n' },
      { systemMessage: 'ratchet custodiet: note' },
    ],
    [
      "a notice never replaces the hook's own message",
      'PostToolUse',
      { exitCode: 0 as const, stdout: '{"systemMessage":"mine"}', stderr: 'other\n' },
      { systemMessage: 'mine' },
    ],
  ])('%s', (_what, event, rendered, expected) => {
    expect(JSON.parse(renderHttp(event, rendered))).toEqual(expected)
  })
})

describe('joinAnswers: two answers of background events told at once', () => {
  const ctx = (text: string) =>
    JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: text } })
  it.each([
    [
      'nothing waiting: the later alone',
      undefined,
      ctx('b'),
      { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'b' } },
    ],
    [
      'two findings: both texts, in order',
      ctx('first finding'),
      ctx('second finding'),
      { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'first finding\nsecond finding' } },
    ],
    [
      'a notice and a finding: each kept',
      JSON.stringify({ systemMessage: 'cost file unreadable' }),
      ctx('a finding'),
      {
        systemMessage: 'cost file unreadable',
        hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'a finding' },
      },
    ],
    [
      'the same notice twice: once',
      JSON.stringify({ systemMessage: 'n' }),
      JSON.stringify({ systemMessage: 'n' }),
      { systemMessage: 'n' },
    ],
  ])('%s', (_what, earlier, later, want) => {
    expect(JSON.parse(joinAnswers(earlier, later))).toEqual(want)
  })
})
