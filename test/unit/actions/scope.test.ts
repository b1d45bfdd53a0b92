import * as family from '../../../lib/core/actions/scope'
import { familyTable } from './table'

const asked = (prompt: string) => ({ session: { reads: {}, prompts: [prompt] } })

familyTable(family, {
  valid: [
    { input: { tool_name: 'WebSearch', tool_input: { query: 'vitest config' } }, pattern: 'unrequested_web', ctx: asked('fix the failing test in utils.ts') },
    { input: 'git push origin feature', pattern: 'unrequested_publish', ctx: asked('add docs for the parser') },
    ['echo x > ~/.bashrc', 'outside_project'],
    [{ tool_name: 'Bash', tool_input: { command: 'npm test', dangerouslyDisableSandbox: true } }, 'sandbox_bypass'],
  ],
  invalid: [
    { input: { tool_name: 'WebSearch', tool_input: { query: 'vitest config' } }, ctx: asked('look up the latest vitest docs and fix the config') },
    // No prompt recorded (hook not registered on UserPromptSubmit): no guess.
    { tool_name: 'WebFetch', tool_input: { url: 'https://x.io', prompt: 'p' } },
    { input: 'git push origin feature', ctx: asked('add docs for the parser and push it'), allow: ['git_push', 'commit_to_public_repo'] },
    'echo x > /tmp/scratch.txt',
    { tool_name: 'Bash', tool_input: { command: 'npm test', dangerouslyDisableSandbox: false } },
  ],
})
