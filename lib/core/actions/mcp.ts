// MCP tools, judged by their names and by their inputs: a tool's `command` is classified as shell, its SQL as
// SQL, its paths as file changes, deletions or reads, its URL and method as an upload, through the same families.

import path from 'node:path'
import { scanSql } from './sql-losses'
import { fileChange } from './fs-write'
import { httpIrrevocable } from './network'
import { paymentTool } from './payments'
import { noteSecretPath } from './secrets'
import type { FamilyMeta, Sink } from './types'
import { isLocalUrl, recoverableDeletion } from './util'

export const meta: FamilyMeta = {
  id: 'mcp',
  classes: ['public_surface', 'irreversible'],
  patterns: [
    'external_post',
    'irreversible_mcp',
    'http_upload',
    'remote_delete',
    'payment',
    'db_destroy',
    'stale_write',
  ],
  description:
    'MCP tools that post, send or publish, or that delete, drop or destroy; and what their inputs do (commands, SQL, paths, URLs)',
  examples: [
    'mcp__slack__post_message',
    'mcp__db__drop_table',
    'mcp__postgres__query {sql: "DROP TABLE x"}',
    'mcp__shell__run {command: "rm -rf ~"}',
  ],
}

const DELETES = /(^|_)(delete|drop|remove|destroy|purge|truncate|wipe|erase|rm|unlink)(_|$)/
const POSTS =
  /(^|_)(send|post|publish|tweet|reply|comment|create_(issue|pull_request|pr|release|comment)|merge|push|deploy|email|message|upload|share)(_|$)/
const WRITES = /(^|_)(write|edit|create|save|update|replace|patch|append|move|rename|put)(_|$)/
const READS = /(^|_)(read|get|view|cat|open|download|show)(_|$)/
const DATABASE =
  /sql|postgres|mysql|maria|sqlite|supabase|neon|database|(^|_)db(_|$)|bigquery|snowflake|clickhouse|mongo|redis|turso|d1/

/** What an MCP tool's input names: the ids, names and places it acts on (`repo: "app"`, `channel: "#general"`). */
function named(input: Record<string, unknown>): [string, string][] {
  return Object.entries(input)
    .filter(
      ([k, v]) =>
        /(^|_)(id|ids|name|names|repo|repository|owner|project|table|collection|bucket|key|channel|to|recipient|recipients|email|path|url|branch|tag|namespace|database|index)$/i.test(
          k,
        ) &&
        (typeof v === 'string' || typeof v === 'number' || (Array.isArray(v) && v.every((x) => typeof x === 'string'))),
    )
    .map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.slice(0, 5).join(', ') : String(v)])
    .filter(([, v]) => v.length > 0 && v.length < 200)
    .slice(0, 6)
}
const inWords = (action: string, server: string, input: Record<string, unknown>) => {
  const n = named(input)
  return `${action.replace(/_/g, ' ')} through ${server}${n.length ? ` (${n.map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}`
}
const namesOf = (input: Record<string, unknown>, server: string) => {
  const n = named(input)
    .filter(([k]) => !/^(url|path)$/i.test(k))
    .flatMap(([, v]) => v.split(', '))
  return n.length ? n.map((v) => [v, v.replace(/^#/, '')]) : [[server]]
}

const strings = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []

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
  const paths = [
    'path',
    'file_path',
    'filePath',
    'file',
    'paths',
    'source',
    'destination',
    'target',
    'filename',
  ].flatMap((k) => strings(input[k]))

  // Shell tools: the command is a command line like any other.
  for (const cmd of shellCommandsOf(tool, input)) c.shell(cmd)
  // SQL: explicit SQL fields always; a `query` field only for database servers (a search tool's query is text).
  const sql = [
    ...strings(input.sql),
    ...strings(input.statement),
    ...(DATABASE.test(server + '_' + action) ? strings(input.query) : []),
  ]
  for (const q of sql)
    scanSql(c, q, `${tool} ${q.replace(/\s+/g, ' ').slice(0, 120)}`, {
      label: `the database behind MCP server ${server}`,
      local: false,
    })

  const pay = paymentTool(action, server, input)
  if (pay) c.irrevocable('payment', tool, pay)
  if (DELETES.test(action)) {
    // Deleting only what git restores, build output or the agent's own files loses nothing.
    const lost = !paths.length || paths.some((p) => !recoverableDeletion(c, p, at(p)))
    for (const p of paths) c.paths.add(at(p))
    if (lost)
      c.irrevocable('irreversible_mcp', tool, {
        kind: 'destroys',
        what: inWords(action, server, input),
        names: namesOf(input, server),
      })
  } else if (POSTS.test(action)) {
    // Sending a message (mail, chat, a comment) cannot be called back; publishing, merging or deploying through a tool is a check.
    if (/(^|_)(send|post|tweet|reply|comment|email|message|create_comment)(_|$)/.test(action) && !pay)
      c.irrevocable('external_post', tool, {
        kind: 'sends',
        what: inWords(action, server, input),
        names: namesOf(input, server),
      })
    else c.add('external_post', tool)
  } else if (WRITES.test(action)) for (const p of paths) fileChange(c, at(p), 'Edit')
  else if (READS.test(action))
    for (const p of paths) {
      c.reads.add(at(p))
      noteSecretPath(c, at(p), tool)
    }

  const url = strings(input.url)[0] ?? ''
  const method = strings(input.method)[0] ?? ''
  if (url && /^(POST|PUT|PATCH)$/i.test(method) && !isLocalUrl(url))
    c.add('http_upload', `${tool} ${method.toUpperCase()} ${url}`)
  if (url) httpIrrevocable(c, method, url, `${tool} ${method.toUpperCase()} ${url}`)
}
