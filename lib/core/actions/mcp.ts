// MCP tools, judged by their names: deleting/dropping tools are irreversible, posting/sending ones public.

import type { FamilyMeta, Sink } from './types'

export const meta: FamilyMeta = {
  id: 'mcp',
  classes: ['public_surface', 'irreversible'],
  patterns: ['external_post', 'irreversible_mcp'],
  description: 'MCP tools that post, send or publish, or that delete, drop or destroy',
  examples: ['mcp__slack__post_message', 'mcp__db__drop_table'],
}

export function mcpTool(c: Sink, tool: string): void {
  const action = tool.split('__').slice(2).join('__').toLowerCase()
  if (/(^|_)(delete|drop|remove|destroy|purge|truncate|wipe|erase)(_|$)/.test(action)) c.add('irreversible_mcp', tool)
  else if (/(^|_)(send|post|publish|tweet|reply|comment|create_(issue|pull_request|pr|release|comment)|merge|push|deploy|email|message|upload|share)(_|$)/.test(action))
    c.add('external_post', tool)
}
