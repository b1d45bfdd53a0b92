// Destroying data in databases: SQL through any client, dropdb, FLUSHALL, framework reset tasks.

import type { Invocation } from '../commands'
import type { CodeScanner, Detector, FamilyMeta, InvocationFacts, Sink } from './types'

export const meta: FamilyMeta = {
  id: 'database',
  classes: ['irreversible'],
  patterns: ['db_destroy'],
  description: 'Destroying data (DROP/DELETE/TRUNCATE, dropdb, FLUSHALL, db:drop, prisma migrate reset)',
  examples: ['psql -c "DROP TABLE users"', 'dropdb app_production', 'redis-cli FLUSHALL', 'rails db:drop'],
}

/** SQL (or Mongo/Redis) text that destroys data; dropping a whole database is catastrophic. */
export function scanSql(c: Sink, text: string, detail: string): void {
  if (/\bdrop\s+(database|schema)\b/i.test(text)) c.add('db_destroy', detail, true)
  else if (/\b(drop\s+(table|view|index|collection|keyspace)|truncate\s+(table\s+)?\w+|delete\s+from)\b/i.test(text)) c.add('db_destroy', detail)
  if (/\bflushall\b|\bflushdb\b|dropDatabase\s*\(/i.test(text)) c.add('db_destroy', detail, true)
}

function sqlClient(flags: string[], fileFlags: string[] = []): Detector {
  return (c, inv, f) => {
    const parts: string[] = []
    const files: string[] = []
    inv.args.forEach((a, i) => {
      if (flags.includes(inv.args[i - 1] ?? '')) parts.push(a)
      if (fileFlags.includes(inv.args[i - 1] ?? '')) files.push(a)
      for (const fl of flags) if (fl.startsWith('--') && a.startsWith(fl + '=')) parts.push(a.slice(fl.length + 1))
      for (const fl of fileFlags) if (fl.startsWith('--') && a.startsWith(fl + '=')) files.push(a.slice(fl.length + 1))
    })
    for (const r of inv.redirects) if (r.op === '<' && r.target) files.push(r.target)
    if (inv.stdin) parts.push(inv.stdin)
    const piped = pipedText(f)
    if (piped) parts.push(piped)
    // SQL from a file (`psql -f drop.sql`, `mysql app < drop.sql`): judged by what the file says when it can be
    // read; a file that cannot be read (missing, made earlier in the line, too big, a FIFO) is unreadable.
    for (const file of files) {
      const text = file === '-' ? undefined : c.ctx.fs?.readText(f.at(file))
      if (text === undefined) c.add('unreadable', `${f.cmd} runs SQL from ${file}, which Ratchet cannot read`)
      else parts.push(text.slice(0, 1024 * 1024))
    }
    if (parts.length) scanSql(c, parts.join('\n'), f.cmd)
  }
}

/** Text an earlier `echo`/`printf`/`cat <<EOF` on the same line may pipe into this client (`echo 'DROP TABLE x' | psql`). */
function pipedText(f: InvocationFacts): string | undefined {
  const p = f.prev
  if (!p) return undefined
  if (p.name === 'echo' || p.name === 'printf') return p.args.join(' ')
  return p.stdin
}

function dbTask(c: Sink, inv: Invocation, f: InvocationFacts): void {
  if (inv.args.some((a) => /^db:(drop|reset|purge|schema:load|truncate_all)/.test(a))) c.add('db_destroy', f.cmd)
}

export const programs: Record<string, Detector> = {
  psql: sqlClient(['-c', '--command'], ['-f', '--file']),
  mysql: sqlClient(['-e', '--execute']),
  mariadb: sqlClient(['-e', '--execute']),
  sqlite3: (c, inv, f) => {
    const sql = f.operands.slice(1).join(' ') + ' ' + (inv.stdin ?? '') + ' ' + (pipedText(f) ?? '')
    scanSql(c, sql, f.cmd)
  },
  'clickhouse-client': sqlClient(['-q', '--query'], ['--queries-file']),
  sqlcmd: sqlClient(['-Q', '-q'], ['-i']),
  mongo: sqlClient(['--eval']),
  mongosh: sqlClient(['--eval']),
  dropdb: (c, _inv, f) => c.add('db_destroy', f.cmd, true),
  'redis-cli': (c, inv, f) => {
    const words = [...inv.args, ...(pipedText(f) ?? '').split(/\s+/)].map((a) => a.toLowerCase())
    if (words.includes('flushall') || words.includes('flushdb')) c.add('db_destroy', f.cmd, true)
    else if (words.some((w) => w === 'del' || w === 'unlink')) c.add('db_destroy', f.cmd)
  },
  rails: dbTask,
  rake: dbTask,
  bundle: (c, inv, f) => {
    if (inv.args[0] === 'exec') dbTask(c, { ...inv, args: inv.args.slice(2) }, f)
  },
  prisma: (c, _inv, f) => {
    if (f.operands.join(' ').match(/migrate reset|db push --force-reset/)) c.add('db_destroy', f.cmd)
  },
  // The dispatcher files every `python3.x` under `python`: Django's destructive management commands.
  python: (c, inv, f) => {
    if (inv.args[0] === 'manage.py' && /^(flush|reset_db|sqlflush)$/.test(inv.args[1] ?? '')) c.add('db_destroy', f.cmd)
  },
}

export const scanCode: CodeScanner = (c, s, detail) => scanSql(c, s.code, detail)

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
