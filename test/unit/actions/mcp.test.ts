import * as family from '../../../lib/core/actions/mcp'
import { familyTable, withGit } from './table'

const tool = (name: string, input: Record<string, unknown> = {}) => ({ tool_name: name, tool_input: input })

familyTable(family, {
  valid: [
    // what cannot be undone through a tool, named from its inputs (issue 19)
    [
      tool('mcp__slack__post_message', { channel: '#general', text: 'hi' }),
      'external_post',
      /^post message through slack \(channel #general\)$/,
    ],
    [
      tool('mcp__gmail__send_email', { to: 'boss@example.com', subject: 'x' }),
      'external_post',
      /send email through gmail \(to boss@example\.com\)/,
    ],
    [tool('mcp__github__create_pull_request', { title: 'x' }), 'external_post', false],
    [
      tool('mcp__github__delete_repository', { owner: 'me', repo: 'app' }),
      'irreversible_mcp',
      /^delete repository through github \(owner me, repo app\)$/,
    ],
    [
      tool('mcp__postgres__query', { sql: 'TRUNCATE users' }),
      'db_destroy',
      /every row of users \(the database behind MCP server postgres\)/,
    ],
    [
      tool('mcp__stripe__create_refund', { charge: 'ch_1', amount: 500 }),
      'payment',
      /create refund through stripe \(charge ch_1, amount 500\)/,
    ],
    [
      tool('mcp__http__request', { url: 'https://api.example.com/v1/users/3', method: 'DELETE' }),
      'remote_delete',
      /users\/3/,
    ],
    [tool('mcp__slack__post_message'), 'external_post'],
    [tool('mcp__gmail__send_email'), 'external_post'],
    [tool('mcp__github__create_pull_request'), 'external_post'],
    [tool('mcp__db__drop_table'), 'irreversible_mcp'],
    [tool('mcp__drive__delete_file'), 'irreversible_mcp'],
    // judged by their inputs, through the same families
    [tool('mcp__postgres__query', { sql: 'DROP TABLE users' }), 'db_destroy'],
    [tool('mcp__supabase__execute_sql', { query: 'drop table orders;' }), 'db_destroy'],
    [tool('mcp__sqlite__write_query', { query: 'DELETE FROM sessions' }), 'db_destroy'],
    [tool('mcp__postgres__query', { sql: 'DROP DATABASE prod' }), 'db_destroy', true],
    [tool('mcp__shell__run_command', { command: 'rm -rf ~' }), 'file_delete', true],
    [tool('mcp__terminal__execute', { command: 'git push --force origin main' }), 'git_history_rewrite', true],
    [tool('mcp__filesystem__write_file', { path: 'existing.txt', content: 'x' }), 'stale_write'],
    [tool('mcp__filesystem__edit_file', { path: '/etc/hosts', edits: [] }), 'outside_project'],
    [tool('mcp__filesystem__write_file', { path: '.ratchet/guardrails.json', content: '[]' }), 'ratchet_state_edit'],
    {
      input: tool('mcp__filesystem__delete_file', { path: 'notes.txt' }),
      pattern: 'irreversible_mcp',
      ctx: withGit({ 'notes.txt': 'untracked' }),
    },
    [tool('mcp__http__request', { url: 'https://api.example.com/x', method: 'POST', body: '{}' }), 'http_upload'],
    [tool('mcp__filesystem__read_file', { path: '.env' }), 'secret_access'],
  ],
  invalid: [
    tool('mcp__stripe__list_refunds'),
    tool('mcp__stripe__retrieve_charge', { charge: 'ch_1' }),
    tool('mcp__http__request', { url: 'http://localhost:3000/items/1', method: 'DELETE' }),
    tool('mcp__slack__get_channel_history', { channel: '#general' }),
    tool('mcp__github__get_issue'),
    tool('mcp__slack__list_channels'),
    tool('Glob'),
    tool('Grep'),
    tool('TodoWrite'),
    tool('mcp__search__web_search', { query: 'how to drop table in postgres' }),
    tool('mcp__postgres__query', { sql: 'SELECT * FROM users LIMIT 5' }),
    tool('mcp__shell__run_command', { command: 'ls -la && npm test' }),
    tool('mcp__filesystem__read_file', { path: 'src/app.ts' }),
    tool('mcp__filesystem__write_file', { path: 'new-file.ts', content: 'x' }),
    tool('mcp__http__request', { url: 'https://api.example.com/x', method: 'GET' }),
    {
      input: tool('mcp__filesystem__delete_file', { path: 'dist/app.js' }),
      ctx: withGit({ 'dist/app.js': 'ignored' }),
    },
    {
      input: tool('mcp__filesystem__delete_file', { path: 'src/old.ts' }),
      ctx: withGit({ 'src/old.ts': 'tracked-clean' }),
    },
  ],
})
