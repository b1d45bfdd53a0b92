// Destroying data in databases: SQL through any client, dropdb, FLUSHALL, framework reset tasks, migration tools
// that drop what they created. Each finding says which tables, collections or keys go and on which database,
// and whether that database is plainly a local development one (asked for, a local reset runs quietly).
//
// Where a command connects is db-where.ts, what SQL destroys sql-losses.ts, the framework tasks and migration tools
// (one row per form) db-migrations.ts; this module holds the family: the SQL clients and the programs' table.

import type { Invocation } from '../commands'
import { RAILS, rows } from './db-migrations'
import { clientWhere, conninfoWhere, type DbWhere, toolWhere, urlWhere } from './db-where'
import { runRows, withRows } from './rows'
import { scanSql } from './sql-losses'
import type { CodeScanner, Detector, FamilyMeta, InvocationFacts, Sink } from './types'

export const meta: FamilyMeta = {
  id: 'database',
  classes: ['irreversible'],
  patterns: ['db_destroy'],
  description:
    'Destroying data (DROP/DELETE/TRUNCATE through any client, dropdb, FLUSHALL, db:drop, prisma migrate reset, alembic downgrade, flyway clean, knex migrate:rollback, …)',
  examples: [
    'psql -c "DROP TABLE users"',
    'dropdb app_production',
    'redis-cli FLUSHALL',
    'rails db:drop',
    'alembic downgrade base',
    'npx prisma db push --accept-data-loss',
  ],
}

// ---- SQL clients -------------------------------------------------------------------------------------

interface ClientSpec {
  /** Options that carry SQL. */
  sql: string[]
  files?: string[]
  host: string[]
  db?: string[]
  envHost: string
  defaultHost: string
  /** The first operand may name the database (or a URL). */
  dbOperand?: boolean
}

function optionValue(args: string[], names: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    for (const n of names) {
      if (args[i] === n) return args[i + 1]
      if (n.startsWith('--') && args[i].startsWith(n + '=')) return args[i].slice(n.length + 1)
      if (/^-[a-zA-Z]$/.test(n) && args[i].startsWith(n) && args[i].length > 2 && !args[i].startsWith('--'))
        return args[i].slice(2)
    }
  }
  return undefined
}

/** Where a SQL client connects: its host option or URL, its database operand, its environment. */
function sqlWhere(c: Sink, inv: Invocation, f: InvocationFacts, spec: ClientSpec): DbWhere {
  const host = optionValue(inv.args, spec.host)
  const dbOpt = spec.db ? optionValue(inv.args, spec.db) : undefined
  const first = spec.dbOperand ? f.operands[0] : undefined
  for (const v of [dbOpt, first, host]) {
    if (!v) continue
    const w = /:\/\//.test(v) ? urlWhere(v) : conninfoWhere(v)
    if (w) return w
  }
  return clientWhere(c, inv, host, dbOpt ?? first, spec.envHost, spec.defaultHost)
}

function sqlClient(spec: ClientSpec): Detector {
  return (c, inv, f) => {
    const parts: string[] = []
    const files: string[] = []
    inv.args.forEach((a, i) => {
      if (spec.sql.includes(inv.args[i - 1] ?? '')) parts.push(a)
      if ((spec.files ?? []).includes(inv.args[i - 1] ?? '')) files.push(a)
      for (const fl of spec.sql) if (fl.startsWith('--') && a.startsWith(fl + '=')) parts.push(a.slice(fl.length + 1))
      for (const fl of spec.files ?? [])
        if (fl.startsWith('--') && a.startsWith(fl + '=')) files.push(a.slice(fl.length + 1))
    })
    for (const r of inv.redirects) if (r.op === '<' && r.target) files.push(r.target)
    if (inv.stdin) parts.push(inv.stdin)
    const piped = pipedText(f)
    if (piped) parts.push(piped)
    // SQL from a file (`psql -f drop.sql`, `mysql app < drop.sql`): judged by what the file says when it can be
    // read; a file that cannot be read (missing, made earlier in the line, too big, a FIFO) is unreadable.
    const where = sqlWhere(c, inv, f, spec)
    for (const file of files) {
      const text = file === '-' ? undefined : c.ctx.fs?.readText(f.at(file))
      if (text !== undefined) {
        parts.push(text.slice(0, 1024 * 1024))
        continue
      }
      c.add('unreadable', `${f.cmd} runs SQL from ${file}, which Ratchet cannot read`)
      // At its worst it destroys whatever the SQL names: a check whose retry passes is no guard for that
      // (`echo 'DROP TABLE orders' > /tmp/x.sql && psql -f /tmp/x.sql` ran on a retry).
      c.irrevocable('db_destroy', f.cmd, {
        kind: 'destroys',
        what: `whatever the SQL in ${file} destroys (Ratchet cannot read it before it runs) on ${where.label}`,
        names: [[file, file.slice(file.lastIndexOf('/') + 1)]],
      })
    }
    if (parts.length) scanSql(c, parts.join('\n'), f.cmd, where)
  }
}

/** Text an earlier `echo`/`printf`/`cat <<EOF` on the same line may pipe into this client (`echo 'DROP TABLE x' | psql`). */
function pipedText(f: InvocationFacts): string | undefined {
  const p = f.prev
  if (!p) return undefined
  if (p.name === 'echo' || p.name === 'printf') return p.args.join(' ')
  return p.stdin
}

// ---- drop tools, Entity Framework, framework tasks (their rows: db-migrations.ts) ----------------------

/** `dotnet ef database drop`, `dotnet ef database update 0` (called by publish.ts, which owns `dotnet`). */
export const dbMigration: Detector = (c, inv, f) => {
  const ef = f.operands.slice(1)
  const where = toolWhere(
    c,
    inv,
    optionValue(inv.args, ['--connection']),
    ['ConnectionStrings__DefaultConnection', 'DATABASE_URL'],
    'Entity Framework',
  )
  if (ef[0] === 'database' && ef[1] === 'drop' && !inv.args.includes('--dry-run'))
    c.irrevocable('db_destroy', f.cmd, {
      kind: 'destroys',
      what: `the whole database (${where.label})`,
      names: [['database', 'db', 'drop']],
      ...(where.local ? { local: true } : {}),
    })
  if (ef[0] === 'database' && ef[1] === 'update' && ef[2] === '0')
    c.irrevocable('db_destroy', f.cmd, {
      kind: 'destroys',
      what: `the tables and columns of every migration, with their data (${where.label})`,
      names: [['database', 'db', 'migration', 'migrations']],
      ...(where.local ? { local: true } : {}),
    })
  if (ef[0] === 'migrations' && ef[1] === 'remove' && inv.args.includes('--force')) c.add('db_destroy', f.cmd)
}
function dbTask(c: Sink, inv: Invocation, f: InvocationFacts): void {
  if (inv.args.some((a) => /^db:(drop|reset|purge|schema:load|truncate_all)/.test(a))) c.add('db_destroy', f.cmd)
}

const own: Record<string, Detector> = {
  psql: sqlClient({
    sql: ['-c', '--command'],
    files: ['-f', '--file'],
    host: ['-h', '--host'],
    db: ['-d', '--dbname'],
    envHost: 'PGHOST',
    defaultHost: 'the local socket',
    dbOperand: true,
  }),
  mysql: sqlClient({
    sql: ['-e', '--execute'],
    host: ['-h', '--host'],
    db: ['-D', '--database'],
    envHost: 'MYSQL_HOST',
    defaultHost: 'localhost',
    dbOperand: true,
  }),
  mariadb: sqlClient({
    sql: ['-e', '--execute'],
    host: ['-h', '--host'],
    db: ['-D', '--database'],
    envHost: 'MYSQL_HOST',
    defaultHost: 'localhost',
    dbOperand: true,
  }),
  sqlite3: (c, inv, f) => {
    const sql = f.operands.slice(1).join(' ') + ' ' + (inv.stdin ?? '') + ' ' + (pipedText(f) ?? '')
    scanSql(c, sql, f.cmd, { label: `the SQLite file ${f.operands[0] ?? '(in memory)'}`, local: true })
  },
  'clickhouse-client': sqlClient({
    sql: ['-q', '--query'],
    files: ['--queries-file'],
    host: ['-h', '--host'],
    db: ['-d', '--database'],
    envHost: 'CLICKHOUSE_HOST',
    defaultHost: 'localhost',
  }),
  sqlcmd: sqlClient({
    sql: ['-Q', '-q'],
    files: ['-i'],
    host: ['-S'],
    db: ['-d'],
    envHost: 'SQLCMDSERVER',
    defaultHost: 'localhost',
  }),
  mongo: sqlClient({
    sql: ['--eval'],
    host: ['--host'],
    envHost: 'MONGO_HOST',
    defaultHost: 'localhost',
    dbOperand: true,
  }),
  mongosh: sqlClient({
    sql: ['--eval'],
    host: ['--host'],
    envHost: 'MONGO_HOST',
    defaultHost: 'localhost',
    dbOperand: true,
  }),
  dropdb: (c, _inv, f) => c.add('db_destroy', f.cmd, true),
  'redis-cli': (c, inv, f) => {
    const words = [...inv.args, ...(pipedText(f) ?? '').split(/\s+/)]
    const lower = words.map((a) => a.toLowerCase())
    if (lower.includes('flushall') || lower.includes('flushdb')) c.add('db_destroy', f.cmd, true)
    else if (lower.some((w) => w === 'del' || w === 'unlink')) {
      const url = optionValue(inv.args, ['-u'])
      const where = url
        ? (urlWhere(url) ?? { label: 'the server -u names', local: false })
        : clientWhere(c, inv, optionValue(inv.args, ['-h']), undefined, 'REDISCLI_HOST', '127.0.0.1')
      const k = lower.findIndex((w) => w === 'del' || w === 'unlink')
      const keys = words
        .slice(k + 1)
        .filter((w) => w && !w.startsWith('-'))
        .slice(0, 12)
      c.irrevocable('db_destroy', f.cmd, {
        kind: 'destroys',
        what: `Redis key${keys.length === 1 ? '' : 's'} ${keys.join(', ') || '(unnamed)'} (${where.label})`,
        names: keys.map((x) => [x]),
        ...(where.local ? { local: true } : {}),
      })
    }
  },
  rails: dbTask,
  rake: dbTask,
  bundle: (c, inv, f) => {
    if (inv.args[0] !== 'exec') return
    const task = { ...inv, name: inv.args[1] ?? '', args: inv.args.slice(2) }
    dbTask(c, task, f)
    if (task.name === 'rails' || task.name === 'rake') runRows(task.name, RAILS, c, task, f)
  },
  // The dispatcher files every `python3.x` under `python`: Django's destructive management commands.
  python: (c, inv, f) => {
    if (inv.args[0] !== 'manage.py') return
    const where = toolWhere(c, inv, undefined, ['DATABASE_URL'], 'Django')
    const lose = (what: string) =>
      c.irrevocable('db_destroy', f.cmd, {
        kind: 'destroys',
        what: `${what} (${where.label})`,
        names: [['database', 'db', inv.args[1], ...(inv.args[2] ? [inv.args[2]] : [])]],
        ...(where.local ? { local: true } : {}),
      })
    if (/^(flush|reset_db)$/.test(inv.args[1] ?? '')) lose('every row of every table')
    else if (inv.args[1] === 'sqlflush') c.add('db_destroy', f.cmd)
    else if (inv.args[1] === 'migrate' && inv.args[3] !== undefined && !inv.args.includes('--plan'))
      lose(`the tables and columns of ${inv.args[2]}’s migrations after ${inv.args[3]}, with their data`)
  },
}

export const programs: Record<string, Detector> = withRows(own, rows)

export const scanCode: CodeScanner = (c, s, detail) => scanSql(c, s.code, detail)

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
Object.setPrototypeOf(own, null)
