// What SQL destroys: DROP, TRUNCATE, DELETE without a narrowing WHERE, DROP COLUMN, and what each takes
// (`every row of users`, `tables a, b and their rows`), found in any text a client or code sends.

import type { DbWhere } from './db-where'
import type { Sink } from './types'
import { oneLine } from './util'

const ident = '(?:"[^"]{1,128}"|' + '`[^`]{1,128}`' + String.raw`|\[[^\]]{1,128}\]|[\w$.]{1,256})`
const list = String.raw`${ident}(?:\s*,\s*${ident}){0,31}`
const unquote = (s: string) => s.split(/\s*,\s*/).map((t) => t.replace(/^["`[]|["`\]]$/g, ''))
const bare = (t: string) => t.slice(t.lastIndexOf('.') + 1)

interface Loss {
  text: string
  tables: string[]
}

// Compiled once: these are long patterns, and scanSql runs on every command's text (built per call, they were most
// of a classified call's cost when pattern-detect mined transcripts). matchAll copies a regex, so sharing is safe.
const DROP = new RegExp(String.raw`\bdrop\s+(table|collection|keyspace)\s+(?:if\s+exists\s+)?(${list})`, 'gi')
const TRUNCATE = new RegExp(String.raw`\btruncate\s+(?:table\s+)?(?:only\s+)?(${list})`, 'gi')
const DELETE = new RegExp(String.raw`\bdelete\s+from\s+(?:only\s+)?(${ident})([^;]{0,400})`, 'gi')
const DROP_COLUMN = new RegExp(
  String.raw`\balter\s+table\s+(?:if\s+exists\s+)?(?:only\s+)?(${ident})\s+drop\s+(?:column\s+)?(?:if\s+exists\s+)?(${ident})`,
  'gi',
)
/** A word any of the statements below starts with: text without one destroys nothing (most commands). */
const ANY_LOSS = /\b(drop|truncate|delete|db)\b/i

/** What each destructive statement takes: `every row of users`, `tables a, b and their rows`, `column c of t`. */
function sqlLosses(sql: string): Loss[] {
  const out: Loss[] = []
  const s = sql.slice(0, 1024 * 1024)
  if (!ANY_LOSS.test(s)) return out
  for (const m of s.matchAll(DROP)) {
    const t = unquote(m[2])
    out.push({
      text: `${m[1].toLowerCase() === 'table' ? (t.length > 1 ? 'tables' : 'table') : m[1].toLowerCase()} ${t.join(', ')} and every row in ${t.length > 1 ? 'them' : 'it'}`,
      tables: t,
    })
  }
  for (const m of s.matchAll(TRUNCATE)) {
    const t = unquote(m[1]).filter((x) => !/^(table|only|cascade|restrict)$/i.test(x))
    if (t.length) out.push({ text: `every row of ${t.join(', ')}`, tables: t })
  }
  for (const m of s.matchAll(DELETE)) {
    const t = unquote(m[1])
    const where = /\bwhere\b\s*([^;]{1,400})/i.exec(m[2])?.[1]
    out.push({ text: where ? `rows of ${t[0]} where ${oneLine(where, 60)}` : `every row of ${t[0]}`, tables: t })
  }
  for (const m of s.matchAll(DROP_COLUMN)) {
    if (/^(constraint|index|default|not|primary|foreign)$/i.test(m[2])) continue
    out.push({ text: `column ${unquote(m[2])[0]} of ${unquote(m[1])[0]} and its data`, tables: unquote(m[1]) })
  }
  // MongoDB: db.users.drop(), db.getCollection('users').drop(), deleteMany, remove.
  for (const m of s.matchAll(
    /\bdb\.(?:getCollection\(\s*['"]([^'"]{1,128})['"]\s*\)|([\w$]{1,128}))\.(drop|deleteMany|remove|findOneAndDelete|deleteOne)\s*\(([^)]{0,200})\)/g,
  )) {
    const coll = m[1] ?? m[2]
    const filter = m[4].trim()
    out.push({
      text:
        m[3] === 'drop'
          ? `collection ${coll} and every document in it`
          : filter && filter !== '{}'
            ? `documents of ${coll} matching ${oneLine(filter, 60)}`
            : `every document of ${coll}`,
      tables: [coll],
    })
  }
  return out
}

/**
 * SQL (or Mongo/Redis) text that destroys data. Dropping a whole database is catastrophic; dropping an index or a
 * view loses no data (a check); the rest names each table and the database it is on.
 */
export function scanSql(c: Sink, text: string, detail: string, where?: DbWhere): void {
  if (/\bdrop\s+(database|schema)\b/i.test(text)) c.add('db_destroy', detail, true)
  if (/\bflushall\b|\bflushdb\b|dropDatabase\s*\(/i.test(text)) c.add('db_destroy', detail, true)
  const losses = sqlLosses(text)
  if (losses.length) {
    const on = where ?? { label: 'the database it connects to', local: false }
    c.irrevocable('db_destroy', detail, {
      kind: 'destroys',
      what: `${[...new Set(losses.map((l) => l.text))].slice(0, 6).join('; ')} (${on.label})`,
      names: [...new Set(losses.flatMap((l) => l.tables.map(bare)))].slice(0, 12).map((t) => [t]),
      ...(on.local ? { local: true } : {}),
    })
  } else if (/\b(drop\s+(table|view|index|collection|keyspace)|truncate\s+(table\s+)?\w+|delete\s+from)\b/i.test(text))
    c.add('db_destroy', detail)
}
