// Helpers for the case server's tests: a real server on an ephemeral loopback port over a real store
// (the embedded SQLite, or PostgreSQL in a schema of the test's own, dropped after), optional Redis
// under a key prefix of the test's own (deleted after), and an agent that keeps a real signed ledger
// and signs submissions the way `ratchet cases submit` does.
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pae, type DsseEnvelope } from '../../lib/core/courtroom/canonical'
import { envelopeHash, nextEntry, type Entry, type EntryKind } from '../../lib/core/courtroom/chain'
import { SUBMISSION_TYPE, submissionPayload } from '../../lib/core/serve/submission'
import { generateKey, sign, type KeyPair } from '../../lib/io/courtroom/keys'
import { envelopeFor } from '../../lib/io/courtroom/ledger'
import { buildApp } from '../../lib/server/app'
import { noCache, redisCache, type Cache } from '../../lib/server/cache'
import { openPostgres, openSqlite, type Db } from '../../lib/server/db'
import { TransparencyLog } from '../../lib/server/log'
import { logIdentity, migrate } from '../../lib/server/schema'
import { CaseService } from '../../lib/server/service'

export const PG_URL = process.env.RATCHET_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test'
export const REDIS_URL = process.env.RATCHET_TEST_REDIS ?? 'redis://127.0.0.1:6379'

const unique = () => `${process.pid}_${crypto.randomBytes(4).toString('hex')}`

/** Whether PostgreSQL answers here (CI starts it; a laptop may not have it). */
export async function pgAvailable(): Promise<boolean> {
  const { Client } = await import('pg')
  const c = new Client({ connectionString: PG_URL, connectionTimeoutMillis: 1500 })
  try {
    await c.connect()
    await c.query('SELECT 1')
    return true
  } catch {
    return false
  } finally {
    await c.end().catch(() => undefined)
  }
}

export async function redisAvailable(url = REDIS_URL): Promise<boolean> {
  const { default: IORedis } = await import('ioredis')
  const r = new IORedis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  })
  r.on('error', () => undefined)
  try {
    await r.connect()
    return (await r.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    r.disconnect()
  }
}

/**
 * Says on stderr what a run without the service skipped (npm test on a machine without it still passes). In CI
 * (CI=true, where .ci/run installs and starts everything) a skip is a failure: CI proves every store.
 */
export function skipped(what: string, why: string): void {
  if (process.env.CI === 'true') throw new Error(`CI must not skip ${what}: ${why}`)
  process.stderr.write(`SKIPPED ${what}: ${why}\n`)
}

export type Engine = 'sqlite' | 'postgres'

export interface Store {
  engine: Engine
  db: Db
  /** The --db URL (postgres) or --data folder (sqlite) another process would open. */
  arg: string[]
  drop: () => Promise<void>
}

/** A fresh store: a temp folder for SQLite, a schema of its own for PostgreSQL (dropped by `drop`). */
export async function freshStore(engine: Engine): Promise<Store> {
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-serve-'))
    const db = await openSqlite(path.join(dir, 'cases.sqlite'))
    await migrate(db)
    return {
      engine,
      db,
      arg: ['--data', dir],
      drop: async () => (await db.close().catch(() => undefined), fs.rmSync(dir, { recursive: true, force: true })),
    }
  }
  const schema = `ratchet_t_${unique()}`
  const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}schema=${schema}`
  const db = await openPostgres(url)
  await migrate(db)
  return {
    engine,
    db,
    arg: ['--db', url],
    drop: async () => {
      await db.close().catch(() => undefined)
      const { Client } = await import('pg')
      const c = new Client({ connectionString: PG_URL })
      await c.connect()
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await c.end()
    },
  }
}

export interface TestServer {
  url: string
  service: CaseService
  cache: Cache
  close: () => Promise<void>
}

export interface ServerOptions {
  tofu?: boolean
  redis?: { url: string; prefix: string }
  perKeyPerMinute?: number
  perIpPerMinute?: number
  freshMs?: number
  now?: () => number
}

/** A real server, in this process, on an ephemeral loopback port; origin = its own URL. */
export async function startServer(store: Store, o: ServerOptions = {}): Promise<TestServer> {
  const cache = o.redis ? await redisCache(o.redis.url, o.redis.prefix) : noCache()
  const id = await logIdentity(store.db, 'test.example/ratchet-cases')
  const log = new TransparencyLog(id, store.db)
  await log.init()
  const service = new CaseService(store.db, log, cache, {
    origin: '',
    freshMs: o.freshMs ?? 10 * 60_000,
    skewMs: 2 * 60_000,
    tofu: !!o.tofu,
    now: o.now,
  })
  const app = await buildApp(service, {
    logLevel: 'silent',
    perKeyPerMinute: o.perKeyPerMinute ?? 100_000,
    perIpPerMinute: o.perIpPerMinute ?? 100_000,
  })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  service.setOrigin(url)
  return { url, service, cache, close: async () => (await app.close(), await cache.close()) }
}

/** Deletes every Redis key under a test's prefix. */
export async function dropPrefix(url: string, prefix: string): Promise<void> {
  const { default: IORedis } = await import('ioredis')
  const r = new IORedis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null })
  r.on('error', () => undefined)
  try {
    let cursor = '0'
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500)
      if (keys.length) await r.del(...keys)
      cursor = next
    } while (cursor !== '0')
  } catch {
    /* Redis gone: nothing to clean */
  } finally {
    r.disconnect()
  }
}

// ---- an agent with a real ledger ----------------------------------------------------------------------

let caseCounter = 0

export function caseBody(agent: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const n = ++caseCounter
  return {
    case_id: `case_${1790000000000 + n}_${crypto.randomBytes(4).toString('hex')}`,
    anonymized_agent_id: agent,
    offense_type: 'route_around',
    offense_name: 'Routing Around a Block',
    severity: 'severe',
    verdict: 'GUILTY',
    vote: '2-1',
    primary_failure: 'Ran the denied push through python.',
    agent_commentary: 'Agent Advocate (not guilty): the user asked for the push.',
    punishment_summary: 'Probation: irreversible, public_surface paused until a human clears the case.',
    timestamp: '2026-11-20T10:00:00.000Z',
    schema_version: '1.0.0',
    pack: 'agent',
    source: 'route_around',
    abstentions: 0,
    evidence_digests: ['sha256:' + crypto.createHash('sha256').update(String(n)).digest('hex')],
    ...over,
  }
}

/** An agent keeping its ledger in memory, exactly as lib/io/courtroom/ledger.ts writes it. */
export class Agent {
  readonly agent = 'agent_' + crypto.randomBytes(8).toString('hex')
  key: KeyPair | null = generateKey()
  readonly envelopes: DsseEnvelope[] = []
  readonly entries: Entry[] = []
  private last: { seq: number; hash: string } | null = null

  constructor(at = '2026-11-20T09:00:00.000Z') {
    this.append('genesis', { public_key: this.key!.public, keyid: this.key!.keyid }, [this.key!], at)
  }

  get genesisKey(): string {
    return JSON.parse(Buffer.from(this.envelopes[0].payload, 'base64').toString()).body.public_key
  }

  append(
    kind: EntryKind,
    body: Record<string, unknown>,
    signers = [this.key!],
    at = '2026-11-20T10:00:00.000Z',
  ): DsseEnvelope {
    const entry = nextEntry(this.last, this.agent, kind, body, at)
    const env = envelopeFor(entry, signers)
    this.envelopes.push(env)
    this.entries.push(entry)
    this.last = {
      seq: entry.seq,
      hash: envelopeHash({ sha256: (d) => crypto.createHash('sha256').update(d).digest('hex') }, env),
    }
    return env
  }

  addCase(over: Record<string, unknown> = {}): DsseEnvelope {
    return this.append('case', caseBody(this.agent, over))
  }

  rotate(): KeyPair {
    const next = generateKey()
    this.append('rotation', { old_keyid: this.key!.keyid, new_keyid: next.keyid, new_public_key: next.public }, [
      this.key!,
      next,
    ])
    this.key = next
    return next
  }

  revoke(): void {
    this.append('revocation', { keyid: this.key!.keyid, reason: 'test' })
    this.key = null
  }
}

/** A submission as `ratchet cases submit` builds it: the entries, this origin, the time, signed by `key`. */
export function submission(
  origin: string,
  entries: DsseEnvelope[],
  key: KeyPair | null,
  at = new Date().toISOString(),
): DsseEnvelope {
  const payload = submissionPayload(origin, at, entries)
  return {
    payload: payload.toString('base64'),
    payloadType: SUBMISSION_TYPE,
    signatures: key ? [{ keyid: key.keyid, sig: sign(key, pae(SUBMISSION_TYPE, payload)) }] : [],
  }
}

export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const r = await fetch(`${url}/api/v1/cases`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await r.text()
  let parsed: Record<string, unknown>
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = { text }
  }
  return { status: r.status, body: parsed, headers: r.headers }
}

export async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(url)
  return { status: r.status, body: (await r.json()) as Record<string, unknown> }
}

/** Rows in every table a submission writes: "nothing stored" means these do not change. */
export async function counts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const t of ['agent_keys', 'agents', 'entries', 'cases', 'log_nodes'])
    out[t] = Number((await db.one<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`))!.n)
  const head = await db.one<{ size: number }>(`SELECT size FROM log_head WHERE id = 1`)
  out.log_size = Number(head?.size ?? 0)
  return out
}

export async function enroll(db: Db, a: Agent): Promise<void> {
  const { addKey } = await import('../../lib/server/keys')
  await addKey(db, a.key!.public, { agent: a.agent })
}

// ---- `ratchet serve` as a process ------------------------------------------------------------------

export interface ServeProcess {
  url: string
  port: number
  info: Record<string, unknown>
  child: import('node:child_process').ChildProcess
  stderr: () => string
  stop: () => Promise<void>
}

/** Starts the built `ratchet serve` (bin/ratchet → dist/serve.cjs) and waits for its start-up line. */
export async function spawnServe(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<ServeProcess> {
  const { spawn } = await import('node:child_process')
  const { BIN } = await import('./fixtures')
  const child = spawn(BIN('ratchet'), ['serve', '--json', '--log-level', 'warn', ...args], {
    env: { ...env, CLAUDECODE: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stderr!.on('data', (d) => (err += d))
  const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(
      () => (child.kill('SIGKILL'), reject(new Error(`ratchet serve did not start in 20 s: ${err}`))),
      20_000,
    )
    child.stdout!.on('data', (d) => {
      out += d
      const nl = out.indexOf('\n')
      if (nl >= 0) {
        clearTimeout(timer)
        try {
          resolve(JSON.parse(out.slice(0, nl)))
        } catch {
          reject(new Error(`ratchet serve printed ${out.slice(0, 200)}`))
        }
      }
    })
    child.on('exit', (code) => (clearTimeout(timer), reject(new Error(`ratchet serve exited ${code}: ${err}`))))
  })
  const url = String(info.url)
  return {
    url,
    port: Number(new URL(url).port),
    info,
    child,
    stderr: () => err,
    stop: () =>
      new Promise<void>((resolve) =>
        child.exitCode !== null || child.signalCode
          ? resolve()
          : (child.once('exit', () => resolve()), child.kill('SIGTERM')),
      ),
  }
}
