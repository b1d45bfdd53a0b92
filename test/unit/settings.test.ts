import { describe, expect, it } from 'vitest'
import { registeredRatchetHooks, withRatchet, withoutRatchet, type Settings } from '../../lib/core/settings'

const cmd = (h: string) => `"$CLAUDE_PROJECT_DIR"/node_modules/ratchet/bin/${h}`
const theirs: Settings = {
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-linter', timeout: 5 }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
  },
}

describe('hook registration', () => {
  it('adds every hook with a timeout in seconds, keeping other hooks and settings', () => {
    const s = withRatchet(theirs, cmd)
    expect(s.permissions).toEqual(theirs.permissions)
    expect(s.hooks!.Stop).toEqual(theirs.hooks!.Stop)
    expect(s.hooks!.PreToolUse).toEqual([
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'my-linter', timeout: 5 }] },
      { matcher: '*', hooks: [{ type: 'command', command: cmd('preflight-check'), timeout: 10 }] },
      { matcher: 'TodoWrite', hooks: [{ type: 'command', command: cmd('custodiet'), timeout: 15 }] },
    ])
    expect(registeredRatchetHooks(s).map((r) => `${r.event}:${r.command.split('/').pop()}`).sort()).toEqual([
      'PostToolUse:custodiet', 'PostToolUseFailure:custodiet', 'PreCompact:preflight-check', 'PreToolUse:custodiet', 'PreToolUse:preflight-check',
      'SessionStart:session-start', 'SubagentStop:custodiet', 'UserPromptSubmit:custodiet', 'UserPromptSubmit:preflight-check',
    ])
    // Seconds, not milliseconds (academicOps' mistake), and well above each hook's own budget.
    expect(registeredRatchetHooks(s).every((r) => r.timeout! >= 10 && r.timeout! <= 15)).toBe(true)
  })
  it('is idempotent', () => {
    const once = withRatchet(theirs, cmd)
    expect(withRatchet(once, cmd)).toEqual(once)
  })
  it('re-registering from a new install path replaces the old command', () => {
    const once = withRatchet(theirs, cmd)
    const moved = withRatchet(once, (h) => `"/opt/ratchet/bin/${h}"`)
    expect(registeredRatchetHooks(moved).every((r) => r.command.startsWith('"/opt/ratchet/bin/'))).toBe(true)
    expect(registeredRatchetHooks(moved)).toHaveLength(9)
  })
  it('uninstall removes only ours', () => {
    expect(withoutRatchet(withRatchet(theirs, cmd))).toEqual(theirs)
    expect(withoutRatchet(withRatchet({}, cmd))).toEqual({})
  })
})
