import { describe, expect, it } from 'vitest'
import * as family from '../../../lib/core/actions/ratchet-self'
import { PROJECT, ctx, familyTable, patterns } from './table'

const w = (tool: string, input: Record<string, unknown>) => ({ tool_name: tool, tool_input: input })

familyTable(family, {
  valid: [
    [w('Write', { file_path: `${PROJECT}/.ratchet/guardrails.json`, content: '[]' }), 'ratchet_state_edit'],
    [w('Edit', { file_path: `${PROJECT}/.ratchet/pending-actions.json`, old_string: 'pending', new_string: 'approved' }), 'ratchet_state_edit'],
    [w('Write', { file_path: `${PROJECT}/.claude/settings.json`, content: '{}' }), 'ratchet_state_edit'],
    [w('Edit', { file_path: `${PROJECT}/.claude/settings.local.json`, old_string: 'a', new_string: 'b' }), 'ratchet_state_edit'],
    [w('Write', { file_path: '/home/dev/.claude/settings.json', content: '{}' }), 'ratchet_state_edit'],
    [w('MultiEdit', { file_path: `${PROJECT}/.ratchet/config.json`, edits: [] }), 'ratchet_state_edit'],
    ['echo "[]" > .ratchet/guardrails.json', 'ratchet_state_edit'],
    ['echo x >> .ratchet/activity.jsonl', 'ratchet_state_edit'],
    ["sed -i 's/hard/soft/' .ratchet/guardrails.json", 'ratchet_state_edit'],
    ['rm .ratchet/pending-actions.json', 'ratchet_state_edit'],
    ['mv .ratchet/guardrails.json /tmp/', 'ratchet_state_edit'],
    ['cp /tmp/evil.json .ratchet/guardrails.json', 'ratchet_state_edit'],
    ['cd .ratchet && rm guardrails.json', 'ratchet_state_edit'],
    ['cat x | tee .claude/settings.json', 'ratchet_state_edit'],
    ['truncate -s 0 .ratchet/activity.jsonl', 'ratchet_state_edit'],
    ['python3 -c "open(\'.ratchet/guardrails.json\',\'w\').write(\'[]\')"', 'ratchet_state_edit'],
    ['node -e "require(\'fs\').writeFileSync(\'.claude/settings.json\', \'{}\')"', 'ratchet_state_edit'],
    ['git checkout HEAD~3 -- .ratchet/guardrails.json', 'ratchet_state_edit'],
    ['ratchet pending approve pa-123', 'ratchet_state_edit'],
    ['ratchet guardrails add --pattern x --rule y', 'ratchet_state_edit'],
    ['ratchet uninstall', 'ratchet_state_edit'],
    ['bash -c "echo [] > .ratchet/guardrails.json"', 'ratchet_state_edit'],
    ['ln -sf /tmp/x .ratchet/guardrails.json', 'ratchet_state_edit'],
  ],
  invalid: [
    'cat .ratchet/guardrails.json',
    'ratchet guardrails list',
    'ratchet guardrails explain --command "ls"',
    'jq . .ratchet/activity.jsonl',
    'ratchet log',
    'grep fire_count .ratchet/guardrails.json',
  ],
})

describe('ratchet-self: details', () => {
  it('a custom $RATCHET_DIR is protected too', () => {
    expect(patterns('echo [] > /srv/ratchet-state/guardrails.json', ctx({ stateDir: '/srv/ratchet-state' }))).toContain('ratchet_state_edit')
  })
})
