// Framework tasks and migration tools that destroy data (db:drop, prisma migrate reset, alembic downgrade, flyway
// clean, knex migrate:rollback, …): one row per form (rows.ts), each saying which database it reaches.

import { type DbWhere, toolWhere, urlWhere } from './db-where'
import type { RowArgs, RowTable } from './rows'

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
export const RAILS: RowTable = {
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

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
Object.setPrototypeOf(rows, null)
