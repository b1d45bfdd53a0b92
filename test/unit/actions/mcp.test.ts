import * as family from '../../../lib/core/actions/mcp'
import { familyTable } from './table'

const tool = (name: string) => ({ tool_name: name, tool_input: {} })

familyTable(family, {
  valid: [
    [tool('mcp__slack__post_message'), 'external_post'],
    [tool('mcp__gmail__send_email'), 'external_post'],
    [tool('mcp__github__create_pull_request'), 'external_post'],
    [tool('mcp__db__drop_table'), 'irreversible_mcp'],
    [tool('mcp__drive__delete_file'), 'irreversible_mcp'],
  ],
  invalid: [tool('mcp__github__get_issue'), tool('mcp__slack__list_channels'), tool('Glob'), tool('Grep'), tool('TodoWrite')],
})
