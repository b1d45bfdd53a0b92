// MCP tools, judged by their names and by their inputs: a tool's `command` is classified as shell, its SQL as
// SQL, its paths as file changes, deletions or reads, its URL and method as an upload, through the same families.

import path from 'node:path'
import { scanSql } from './database'
import { fileChange } from './fs-write'
import { noteSecretPath } from './secrets'
import type { FamilyMeta, Sink } from './types'
import { isLocalUrl, recoverableDeletion } from './util'

export const meta: FamilyMeta = {
  id: 'mcp',
  classes: ['public_surface', 'irreversible'],
  patterns: ['external_post', 'irreversible_mcp', 'http_upload', 'db_destroy', 'stale_write'],
  description: 'MCP tools that post, send or publish, or that delete, drop or destroy; and what their inputs do (commands, SQL, paths, URLs)',
  examples: ['mcp__slack__post_message', 'mcp__db__drop_table', 'mcp__postgres__query {sql: "DROP TABLE x"}', 'mcp__shell__run {command: "rm -rf ~"}'],
}

const DELETES = /(^|_)(delete|drop|remove|destroy|purge|truncate|wipe|erase|rm|unlink)(_|$)/
const POSTS = /(^|_)(send|post|publish|tweet|reply|comment|create_(issue|pull_request|pr|release|comment)|merge|push|deploy|email|message|upload|share)(_|$)/
const WRITES = /(^|_)(write|edit|create|save|update|replace|patch|append|move|rename|put)(_|$)/
const READS = /(^|_)(read|get|view|cat|open|download|show)(_|$)/
const DATABASE = /sql|postgres|mysql|maria|sqlite|supabase|neon|database|(^|_)db(_|$)|bigquery|snowflake|clickhouse|mongo|redis|turso|d1/

const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [])

/** An MCP shell tool's inputs that hold a command line. */
const SHELL_KEYS = ['command', 'cmd', 'script', 'shell', 'bash']

/**
 * The command lines a tool call runs: Bash's command, or an MCP tool's command-like inputs. The classifier
 * reads them as shell, and the evidence gatherer (lib/io/evidence.ts) reads what they would send, from the
 * same list, so a command that pauses in Bash pauses through an MCP shell tool too.
 */
export function shellCommandsOf(tool: string, input: Record<string, unknown>): string[] {
  if (tool === 'Bash') return strings(input.command)
  return tool.startsWith('mcp__') ? SHELL_KEYS.flatMap((k) => strings(input[k])) : []
}

export function mcpTool(c: Sink, tool: string, input: Record<string, unknown>): void {
  const parts = tool.split('__')
  const server = (parts[1] ?? '').toLowerCase()
  const action = parts.slice(2).join('__').toLowerCase()
  const at = (p: string) => (p.startsWith('~/') ? c.ctx.homeDir + p.slice(1) : path.posix.resolve(c.ctx.projectDir, p))
  const paths = ['path', 'file_path', 'filePath', 'file', 'paths', 'source', 'destination', 'target', 'filename'].flatMap((k) => strings(input[k]))

  // Shell tools: the command is a command line like any other.
  for (const cmd of shellCommandsOf(tool, input)) c.shell(cmd)
  // SQL: explicit SQL fields always; a `query` field only for database servers (a search tool's query is text).
  const sql = [...strings(input.sql), ...strings(input.statement), ...(DATABASE.test(server + '_' + action) ? strings(input.query) : [])]
  for (const q of sql) scanSql(c, q, `${tool} ${q.replace(/\s+/g, ' ').slice(0, 120)}`)

  if (DELETES.test(action)) {
    // Deleting only what git restores, build output or the agent's own files loses nothing.
    const lost = !paths.length || paths.some((p) => !recoverableDeletion(c, p, at(p)))
    for (const p of paths) c.paths.add(at(p))
    if (lost) c.add('irreversible_mcp', tool)
  } else if (POSTS.test(action)) c.add('external_post', tool)
  else if (WRITES.test(action)) for (const p of paths) fileChange(c, at(p), 'Edit')
  else if (READS.test(action)) for (const p of paths) {
    c.reads.add(at(p))
    noteSecretPath(c, at(p), tool)
  }

  const url = strings(input.url)[0] ?? ''
  const method = strings(input.method)[0] ?? ''
  if (url && /^(POST|PUT|PATCH|DELETE)$/i.test(method) && !isLocalUrl(url)) c.add('http_upload', `${tool} ${method.toUpperCase()} ${url}`)
}
