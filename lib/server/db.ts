// One query layer over two engines: PostgreSQL (pg) for a team, SQLite (better-sqlite3) embedded for one
// person. The same SQL text runs on both: queries use `?` placeholders (numbered $n for PostgreSQL),
// portable types (TEXT, INTEGER, BIGINT), ON CONFLICT and RETURNING; `FOR UPDATE` serialises appends on
// PostgreSQL and is dropped on SQLite, where BEGIN IMMEDIATE already holds the one writer lock.
// The contract suite (test/e2e/serve-store.test.ts) runs every query on both.

import path from 'node:path'
import { ensurePrivateDir } from '../io/store'

export interface Db {
  readonly dialect: 'sqlite' | 'postgres'
  /** For /health and the start-up line: the engine and where, never a password. */
  readonly where: string
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>
  one<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T | undefined>
  run(sql: string, params?: unknown[]): Promise<number>
  /** A write transaction: commits when `fn` resolves, rolls back when it throws. */
  tx<T>(fn: (q: Db) => Promise<T>): Promise<T>
  close(): Promise<void>
}

/** The store cannot be reached (down, restarting, refused): a 503 with a retry, never a 500. */
export class StoreUnavailable extends Error {
  readonly code = 'store_unavailable'
}

// ---- PostgreSQL ---------------------------------------------------------------------------------------

const NUMERIC_INT8 = 20
const UNAVAILABLE_PG = /^(08|57P0|53)/ // connection exceptions, admin/crash shutdown, insufficient resources

function pgUnavailable(e: unknown): boolean {
  const err = e as { code?: string; message?: string }
  if (typeof err?.code === 'string' && UNAVAILABLE_PG.test(err.code)) return true
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH'].includes(err?.code ?? '') ||
    /Connection terminated|terminating connection|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)/i.test(
      err?.message ?? '',
    )
  )
}

const numbered = (sql: string) => {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

/** `schema=NAME` in the URL puts every table in that schema (created if needed): tests and tenants share one database. */
export function parsePgUrl(url: string): { connectionString: string; schema?: string } {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw new Error(`--db ${url.replace(/:[^:@/]*@/, ':***@')}: not a URL (postgres://user@host:port/database)`)
  }
  if (!/^postgres(ql)?:$/.test(u.protocol)) throw new Error(`--db: expected a postgres:// URL, got ${u.protocol}`)
  const schema = u.searchParams.get('schema') ?? undefined
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new Error(`--db: schema "${schema.slice(0, 70)}" must be lower-case letters, digits and _`)
  u.searchParams.delete('schema')
  return { connectionString: u.toString(), schema }
}

export async function openPostgres(url: string, o: { max?: number } = {}): Promise<Db> {
  const { Pool, types } = await import('pg')
  const { connectionString, schema } = parsePgUrl(url)
  const pool = new Pool({
    connectionString,
    max: o.max ?? 10,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 10_000,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    // BIGINT as a number: leaf indexes and sizes stay far below 2^53.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === NUMERIC_INT8 ? (v: string) => Number(v) : types.getTypeParser(oid, format as 'text')) as never,
    },
  })
  // An idle client whose server went away: dropped from the pool; the next query reconnects.
  pool.on('error', () => undefined)
  const safe = new URL(connectionString)
  safe.password = ''
  const where = `postgres://${safe.username ? safe.username + '@' : ''}${safe.host}${safe.pathname}${schema ? ` (schema ${schema})` : ''}`
  const wrap = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn()
    } catch (e) {
      if (pgUnavailable(e)) throw new StoreUnavailable(`PostgreSQL unavailable: ${(e as Error).message}`)
      throw e
    }
  }
  type Runner = { query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[]; rowCount: number | null }> }
  const over = (c: Runner): Omit<Db, 'tx' | 'close'> => ({
    dialect: 'postgres',
    where,
    all: async <T>(sql: string, params: unknown[] = []) =>
      (await wrap(() => c.query(numbered(sql), params))).rows as T[],
    one: async <T>(sql: string, params: unknown[] = []) =>
      (await wrap(() => c.query(numbered(sql), params))).rows[0] as T | undefined,
    run: async (sql: string, params: unknown[] = []) =>
      (await wrap(() => c.query(numbered(sql), params))).rowCount ?? 0,
  })
  const db: Db = {
    ...over(pool),
    tx: async (fn) => {
      const client = await wrap(() => pool.connect())
      let broken: Error | undefined
      // A connection lost while checked out is an 'error' event on the client: without a listener it would end the process.
      const lost = (e: Error) => (broken = e)
      client.on('error', lost)
      try {
        await wrap(() => client.query('BEGIN'))
        const inner: Db = {
          ...over(client),
          tx: () => Promise.reject(new Error('nested transaction')),
          close: async () => undefined,
        }
        const out = await fn(inner)
        await wrap(() => client.query('COMMIT'))
        return out
      } catch (e) {
        await client.query('ROLLBACK').catch((r: Error) => (broken = r))
        if (pgUnavailable(e)) broken = e as Error
        throw e
      } finally {
        // A client whose connection failed is destroyed, not returned to the pool.
        client.off('error', lost)
        client.release(broken)
      }
    },
    close: () => pool.end(),
  }
  if (schema) await db.run(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
  return db
}

// ---- SQLite ---------------------------------------------------------------------------------------

/** The embedded store needs better-sqlite3: an optional peer (a native module compiled at install), so installing Ratchet for its hooks never builds it. */
function loadSqlite(): typeof import('better-sqlite3') {
  try {
    return require('better-sqlite3')
  } catch (e) {
    throw new Error(
      `the embedded store needs better-sqlite3, which is not installed here (${(e as NodeJS.ErrnoException).code ?? (e as Error).message.split('\n')[0]}): npm install better-sqlite3@12, or pass --db postgres://…`,
    )
  }
}

export async function openSqlite(file: string): Promise<Db> {
  const Database = loadSqlite()
  if (file !== ':memory:') ensurePrivateDir(path.dirname(file))
  const sqlite = new Database(file)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('synchronous = NORMAL')
  const prepared = new Map<string, import('better-sqlite3').Statement>()
  const stmt = (sql: string) => {
    const text = sql.replace(/\s+FOR UPDATE\b/gi, '')
    let s = prepared.get(text)
    if (!s) prepared.set(text, (s = sqlite.prepare(text)))
    return s
  }
  // One connection: a transaction spans awaits, so every query waits its turn (no reader inside another's transaction).
  let turn: Promise<unknown> = Promise.resolve()
  const serial = <T>(fn: () => T | Promise<T>): Promise<T> => {
    const next = turn.then(fn, fn)
    turn = next.catch(() => undefined)
    return next
  }
  const direct: Omit<Db, 'tx' | 'close'> = {
    dialect: 'sqlite',
    where: `sqlite:${file}`,
    all: async <T>(sql: string, params: unknown[] = []) =>
      stmt(sql).reader ? (stmt(sql).all(...params) as T[]) : (stmt(sql).run(...params), [] as T[]),
    one: async <T>(sql: string, params: unknown[] = []) =>
      stmt(sql).reader ? (stmt(sql).get(...params) as T | undefined) : (stmt(sql).run(...params), undefined),
    run: async (sql: string, params: unknown[] = []) => stmt(sql).run(...params).changes,
  }
  return {
    ...direct,
    all: (sql, params) => serial(() => direct.all(sql, params)),
    one: (sql, params) => serial(() => direct.one(sql, params)),
    run: (sql, params) => serial(() => direct.run(sql, params)),
    tx: (fn) =>
      serial(async () => {
        sqlite.exec('BEGIN IMMEDIATE')
        try {
          const out = await fn({
            ...direct,
            tx: () => Promise.reject(new Error('nested transaction')),
            close: async () => undefined,
          })
          sqlite.exec('COMMIT')
          return out
        } catch (e) {
          if (sqlite.inTransaction) sqlite.exec('ROLLBACK')
          throw e
        }
      }),
    close: async () => {
      await turn
      sqlite.close()
    },
  }
}

export async function openDb(o: { db?: string; data: string }): Promise<Db> {
  return o.db ? openPostgres(o.db) : openSqlite(path.join(o.data, 'cases.sqlite'))
}
