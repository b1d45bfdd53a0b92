// Destroying data in databases: SQL through any client, dropdb, FLUSHALL, framework reset tasks, migration tools
// that drop what they created. Each finding says which tables, collections or keys go and on which database,
// and whether that database is plainly a local development one (asked for, a local reset runs quietly).

import type { Invocation } from '../commands'
import { runRows, withRows, type RowArgs, type RowTable } from './rows'
import type { CodeScanner, Detector, FamilyMeta, InvocationFacts, Sink } from './types'
import { oneLine } from './util'

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

// ---- where a command connects ------------------------------------------------------------------------

/** Which database, in words, and whether every sign says it is on this machine. */
export interface DbWhere {
  label: string
  local: boolean
}

const LOCAL_HOST = /^(localhost|127(?:\.\d{1,3}){3}|::1|\[::1\]|0\.0\.0\.0|host\.docker\.internal|)$/i

/** Host and database of a connection URL (`postgres://u:p@h:5432/app`, `mongodb+srv://h/app`, `sqlite:///x.db`); never the password. */
export function urlWhere(url: string): DbWhere | undefined {
  if (/^(sqlite|file):/i.test(url))
    return { label: `the SQLite file ${url.replace(/^(sqlite|file):(\/\/)?/i, '') || '(in memory)'}`, local: true }
  const m = /^([a-z][\w+.-]*):\/\/(?:[^@/?#]*@)?([^/?#]*)(?:\/([^?#]*))?/i.exec(url)
  if (!m) return undefined
  const hosts = m[2].split(',').map((h) => h.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1'))
  const socket = /[?&]host=(\/|%2F)/i.test(url)
  const local = socket || hosts.every((h) => LOCAL_HOST.test(h))
  return { label: `${m[3] ? `${decodeURIComponent(m[3])} on ` : ''}${hosts.join(',') || 'the local socket'}`, local }
}

/** `host=db.internal dbname=app` (libpq conninfo). */
function conninfoWhere(s: string): DbWhere | undefined {
  if (!/\b(host|dbname|hostaddr)=/.test(s)) return undefined
  const host = /\bhost(?:addr)?=(\S+)/.exec(s)?.[1] ?? ''
  const db = /\bdbname=(\S+)/.exec(s)?.[1]
  return {
    label: `${db ? `${db} on ` : ''}${host || 'the local socket'}`,
    local: host.startsWith('/') || LOCAL_HOST.test(host),
  }
}

/**
 * A client's target from its host option, or its default (`defaultHost`, read from `envHost` when set). The
 * agent's environment may point a client elsewhere (PGHOST): unknown (no environment fact) is not local.
 */
function clientWhere(
  c: Sink,
  inv: Invocation,
  host: string | undefined,
  db: string | undefined,
  envHost: string,
  defaultHost: string,
): DbWhere {
  const fromLine = inv.env?.[envHost]
  const env = fromLine ?? c.ctx.env?.(envHost)
  const h = host ?? env
  if (h !== undefined) {
    const u = /:\/\//.test(h) ? urlWhere(h) : undefined
    if (u) return u
    return {
      label: `${db ? `${db} on ` : ''}${h || defaultHost}`,
      local: h.startsWith('/') || LOCAL_HOST.test(h.replace(/:\d+$/, '')),
    }
  }
  // No host anywhere: the client's default, local unless the environment could not be read.
  return { label: `${db ? `${db} on ` : ''}${defaultHost} (the default)`, local: !!c.ctx.env }
}

/** `DATABASE_URL=…` in the project's .env (read for its host, never shown). */
function dotenvUrl(c: Sink, names: string[]): string | undefined {
  const text = c.ctx.fs?.readText(`${c.ctx.projectDir}/.env`)
  if (!text) return undefined
  for (const n of names) {
    const m = new RegExp(`^\\s*(?:export\\s+)?${n}\\s*=\\s*["']?([^"'\\s#]+)`, 'm').exec(text)
    if (m) return m[1]
  }
  return undefined
}

/**
 * Where an ORM or migration tool connects: an explicit URL, then the variables it reads (on the line, in the
 * agent's environment, in the project's .env). Unknown is not local.
 */
export function toolWhere(c: Sink, inv: Invocation, url: string | undefined, vars: string[], tool: string): DbWhere {
  const u = url ?? vars.map((v) => inv.env?.[v] ?? c.ctx.env?.(v)).find((x) => x) ?? dotenvUrl(c, vars)
  const w = u ? urlWhere(u) : undefined
  return w ?? { label: `the database ${tool} is configured for`, local: false }
}

// ---- what SQL destroys ----------------------------------------------------------------------------------

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

// ---- framework tasks and migration tools: one row per form (rows.ts) ------------------------------------

const URL_OPTS = [
  '--url',
  '--database-url',
  '--db-url',
  '-url',
  '--database',
  '-database',
  '--connection',
  '--connection-string',
  '--dsn',
]
const RAILS_TASK =
  /^db:(drop|reset|purge|schema:load|truncate_all|rollback|migrate:reset|migrate:down|migrate:redo|seed:replant)/

/** Rails' database: config/database.yml for RAILS_ENV (development unless the line or environment says otherwise). */
function railsWhere(a: RowArgs): DbWhere {
  const inv = a.inv
  const env =
    inv.env?.RAILS_ENV ?? a.c.ctx.env?.('RAILS_ENV') ?? inv.args.find((x) => x.startsWith('RAILS_ENV='))?.slice(10)
  const url = inv.env?.DATABASE_URL ?? a.c.ctx.env?.('DATABASE_URL')
  if (url) return urlWhere(url) ?? { label: 'the database DATABASE_URL names', local: false }
  const known = env !== undefined || !!a.c.ctx.env
  const e = env ?? 'development'
  return { label: `the ${e} database of config/database.yml`, local: known && /^(development|test)$/.test(e) }
}

// `rails db:drop` and friends: the rows below say what goes and where; `db:migrate` and the rest stay quiet.
const railsTask = (a: RowArgs) => a.args.find((x) => RAILS_TASK.test(x)) ?? ''
const RAILS: RowTable = {
  rows: [
    {
      cmd: [],
      when: (a) => railsTask(a) !== '',
      pattern: 'db_destroy',
      kind: 'destroys',
      what: (a) =>
        `${/rollback|down|redo/.test(railsTask(a)) ? 'the tables and columns the last migrations added, with their data' : 'every table and row'} of ${railsWhere(a).label} (${railsTask(a)})`,
      names: (a) => [[railsTask(a), 'database', 'db']],
      local: (a) => railsWhere(a).local,
    },
  ],
}

/** Where a migration tool connects, from its URL option or the variables it reads. */
const orm =
  (tool: string, vars = ['DATABASE_URL'], urlOpts = URL_OPTS) =>
  (a: RowArgs) =>
    toolWhere(a.c, a.inv, a.opt(...urlOpts), vars, tool)
const DB_NAMES = (a: RowArgs) => [['database', 'db', 'schema', a.program, 'migrations', 'migration']]

function migration(
  cmd: Row['cmd'],
  tool: string,
  what: (a: RowArgs) => string,
  vars?: string[],
  when?: (a: RowArgs) => boolean,
  urlOpts?: string[],
): Row {
  const w = orm(tool, vars, urlOpts)
  return {
    cmd,
    when,
    pattern: 'db_destroy',
    kind: 'destroys',
    what: (a) => `${what(a)} (${w(a).label})`,
    names: DB_NAMES,
    local: (a) => w(a).local,
  }
}
type Row = RowTable['rows'][number]

const ALEMBIC_VALUES = ['-c', '--config', '-n', '--name', '-x']
export const rows: Record<string, RowTable> = {
  prisma: {
    values: ['--schema'],
    rows: [
      migration(
        ['migrate', 'reset'],
        'Prisma',
        () => 'every table and row: the database is dropped and re-created from the migrations',
      ),
      migration(
        ['db', 'push'],
        'Prisma',
        (a) =>
          a.has('--force-reset')
            ? 'every table and row: the database is reset before the push'
            : 'the tables and columns the schema no longer has, with their data',
        undefined,
        (a) => a.has('--accept-data-loss', '--force-reset'),
      ),
    ],
  },
  alembic: {
    values: ALEMBIC_VALUES,
    rows: [
      migration(
        ['downgrade'],
        'Alembic',
        (a) =>
          `the tables and columns added by every migration after ${a.args[a.args.indexOf('downgrade') + 1] ?? '(a revision)'}, with their data`,
        ['DATABASE_URL', 'SQLALCHEMY_DATABASE_URI'],
        (a) => !a.has('--sql'),
      ),
    ],
  },
  flyway: {
    rows: [
      migration(['clean'], 'Flyway', () => 'every table, view and row in the configured schemas', [
        'FLYWAY_URL',
        'DATABASE_URL',
      ]),
      migration(['undo'], 'Flyway', () => 'the changes of the last versioned migration, with the data they held', [
        'FLYWAY_URL',
        'DATABASE_URL',
      ]),
    ],
  },
  knex: {
    values: ['--knexfile', '--env', '--cwd'],
    rows: [
      migration([/^migrate:(rollback|down)$/], 'knex', (a) =>
        a.has('--all')
          ? 'the tables and columns of every migration batch, with their data'
          : 'the tables and columns of the last migration batch, with their data',
      ),
    ],
  },
  'sequelize-cli': { rows: sequelizeRows() },
  sequelize: { rows: sequelizeRows() },
  typeorm: {
    values: ['-d', '--dataSource', '-c', '--connection'],
    rows: [
      migration(['schema:drop'], 'TypeORM', () => 'every table and row of the data source'),
      migration(['migration:revert'], 'TypeORM', () => 'the changes of the last migration, with the data they held'),
    ],
  },
  dbmate: {
    values: ['-u', '--url', '-e', '--env', '-d', '--migrations-dir'],
    rows: [
      migration(['drop'], 'dbmate', () => 'the whole database', undefined, undefined, ['-u', '--url']),
      migration(
        [/^(rollback|down)$/],
        'dbmate',
        () => 'the changes of the last migration, with the data they held',
        undefined,
        undefined,
        ['-u', '--url'],
      ),
    ],
  },
  goose: {
    values: ['-dir', '-table'],
    rows: [
      migration(
        [],
        'goose',
        (a) =>
          a.args.includes('reset')
            ? 'every migration’s tables and columns, with their data'
            : `the changes of the migrations rolled back (${a.args.filter((x) => /^(down|down-to)$/.test(x)).join(' ')}), with their data`,
        ['GOOSE_DBSTRING', 'DATABASE_URL'],
        (a) => a.args.some((x) => /^(down|down-to|reset)$/.test(x)),
      ),
    ],
  },
  migrate: {
    values: ['-path', '-source', '-database'],
    rows: [
      migration([/^(drop|down)$/], 'migrate', (a) =>
        a.ops[0] === 'drop'
          ? 'every table and row of the database'
          : 'the changes of the migrations rolled back, with their data',
      ),
    ],
  },
  diesel: {
    values: ['--database-url', '--config-file', '--migration-dir'],
    rows: [
      migration(['database', 'reset'], 'Diesel', () => 'every table and row: the database is dropped and re-created'),
      migration(['database', 'drop'], 'Diesel', () => 'the whole database'),
      migration(['migration', /^(revert|redo)$/], 'Diesel', (a) =>
        a.has('--all')
          ? 'the changes of every migration, with their data'
          : 'the changes of the last migration, with their data',
      ),
    ],
  },
  'drizzle-kit': {
    values: ['--config', '--dialect', '--url'],
    rows: [
      migration(['drop'], 'drizzle-kit', () => 'the migration it drops'),
      migration(
        ['push'],
        'drizzle-kit',
        () => 'the tables and columns the schema no longer has, with their data',
        undefined,
        (a) => a.has('--force'),
      ),
    ],
  },
  supabase: {
    values: ['--db-url', '--project-ref', '--workdir'],
    rows: [
      {
        cmd: ['db', 'reset'],
        pattern: 'db_destroy',
        kind: 'destroys',
        what: (a) =>
          a.has('--linked') || a.opt('--db-url')
            ? `every table and row of ${a.opt('--db-url') ? (urlWhere(a.opt('--db-url')!)?.label ?? 'the database --db-url names') : 'the linked Supabase project'}`
            : 'every table and row of the local Supabase database',
        names: DB_NAMES,
        local: (a) => !a.has('--linked') && (!a.opt('--db-url') || !!urlWhere(a.opt('--db-url')!)?.local),
      },
    ],
  },
  liquibase: {
    rows: [
      migration([/^(dropAll|drop-all)$/i], 'Liquibase', () => 'every object in the database', [
        'LIQUIBASE_COMMAND_URL',
      ]),
      migration([/^rollback/i], 'Liquibase', () => 'the changes rolled back, with their data', [
        'LIQUIBASE_COMMAND_URL',
      ]),
    ],
  },
  sqitch: { rows: [migration(['revert'], 'Sqitch', () => 'the changes reverted, with their data', ['SQITCH_TARGET'])] },
  rails: RAILS,
  rake: RAILS,
}

function sequelizeRows(): Row[] {
  return [
    migration([/^db:migrate:undo(:all)?$/], 'Sequelize', (a) =>
      a.ops[0].endsWith(':all')
        ? 'the tables and columns of every migration, with their data'
        : 'the tables and columns of the last migration, with their data',
    ),
    migration(['db:drop'], 'Sequelize', () => 'the whole database'),
    migration([/^db:seed:undo(:all)?$/], 'Sequelize', () => 'the rows the seeders inserted'),
  ]
}

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
for (const table of [own, rows]) Object.setPrototypeOf(table, null)
