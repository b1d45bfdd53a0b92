// `ratchet serve` — the team's case record: its own bundle (dist/serve.cjs), reached by the `ratchet`
// launcher for `ratchet serve …` only, so neither the hooks nor the rest of the CLI ever load the server,
// its database clients or Redis. The embedded store (SQLite) needs the optional better-sqlite3; with
// --db postgres://… it is not loaded at all.

import os from 'node:os'
import path from 'node:path'
import { Command } from 'commander'
import { RatchetError } from '../core/errors'
import { humanOnly, runCli } from '../cli/run'
import { buildApp } from './app'
import { noCache, redisCache, type Cache } from './cache'
import { openDb, type Db } from './db'
import { addKey, listKeys, revokeKey, type KeyRow } from './keys'
import { TransparencyLog } from './log'
import { logIdentity, migrate } from './schema'
import { CaseService } from './service'
import { CLI } from '../core/manifest'

const out = (s: string): void => void process.stdout.write(s + '\n')

/** The embedded store's default place: a per-user folder ($XDG_DATA_HOME/ratchet/server, else ~/.local/share/ratchet/server). */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_DATA_HOME || path.join(env.HOME || os.homedir(), '.local', 'share'), 'ratchet', 'server')
}

interface StoreOptions {
  data?: string
  db?: string
}

async function openStore(o: StoreOptions): Promise<Db> {
  try {
    const db = await openDb({ db: o.db, data: o.data ?? defaultDataDir() })
    await migrate(db)
    return db
  } catch (e) {
    if (e instanceof RatchetError) throw e
    throw new RatchetError('remote', `the case store could not be opened: ${(e as Error).message.split('\n')[0]}`)
  }
}

export interface ServeOptions extends StoreOptions {
  port?: string
  host?: string
  redis?: string
  redisPrefix?: string
  origin?: string
  logName?: string
  trustOnFirstUse?: boolean
  trustProxy?: boolean
  logLevel?: string
  freshMinutes?: string
  perKeyPerMinute?: string
  perIpPerMinute?: string
  json?: boolean
}

const intOpt = (v: string | undefined, name: string, d: number, min = 0, max = 1e9): number => {
  if (v === undefined) return d
  if (!/^[0-9]+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new RatchetError('usage', `--${name} ${v.slice(0, 20)}: expected a whole number from ${min} to ${max}`)
  return Number(v)
}

export async function serve(o: ServeOptions): Promise<{ close: () => Promise<void>; url: string }> {
  const port = intOpt(o.port, 'port', 8780, 0, 65535)
  const host = o.host ?? '127.0.0.1'
  if (o.origin !== undefined && !/^https?:\/\/[^/\s]+\/?$/.test(o.origin))
    throw new RatchetError(
      'usage',
      `--origin ${o.origin.slice(0, 80)}: expected scheme://host[:port], as clients reach this server`,
    )
  const db = await openStore(o)
  const cache: Cache = o.redis ? await redisCache(o.redis, o.redisPrefix ?? 'ratchet:') : noCache()
  let app: Awaited<ReturnType<typeof buildApp>> | undefined
  try {
    const id = await logIdentity(db, o.logName ?? `${os.hostname()}/ratchet-cases`)
    const log = new TransparencyLog(id, db)
    await log.init()
    // The origin clients sign for; known once the port is (an ephemeral --port 0 is chosen at listen).
    const service = new CaseService(db, log, cache, {
      origin: o.origin ?? '',
      freshMs: intOpt(o.freshMinutes, 'fresh-minutes', 10, 1, 7 * 24 * 60) * 60_000,
      skewMs: 2 * 60_000,
      tofu: !!o.trustOnFirstUse,
    })
    app = await buildApp(service, {
      logLevel: o.logLevel ?? 'info',
      trustProxy: !!o.trustProxy,
      perKeyPerMinute: intOpt(o.perKeyPerMinute, 'per-key-per-minute', 120, 1),
      perIpPerMinute: intOpt(o.perIpPerMinute, 'per-ip-per-minute', 600, 1),
    })
    const address = await app.listen({ port, host })
    const url = address.replace('[::1]', 'localhost')
    const origin = o.origin?.replace(/\/+$/, '') ?? url
    service.setOrigin(origin)
    const info = {
      url,
      origin,
      store: db.where,
      cache: cache.kind === 'redis' ? (cache.up() ? 'redis' : 'redis (down: serving without it)') : 'none',
      log: id.name,
      log_key: log.verifierKey,
      trust_on_first_use: !!o.trustOnFirstUse,
      pid: process.pid,
    }
    if (o.json) out(JSON.stringify(info))
    else {
      out(`Ratchet case server on ${url} (origin ${origin})`)
      out(
        `  store: ${db.where}; cache: ${info.cache}${o.trustOnFirstUse ? '; TRUST ON FIRST USE is on: unknown keys are enrolled by their first genesis, and labelled tofu' : ''}`,
      )
      out(`  log: ${id.name}; verifier key (clients pin it on first use):`)
      out(log.verifierKey)
    }
    const close = async () => {
      await app!.close()
      await cache.close()
      await db.close()
    }
    return { close, url }
  } catch (e) {
    await app?.close().catch(() => undefined)
    await cache.close()
    await db.close()
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new RatchetError('conflict', `port ${port} on ${host} is taken: pass --port N (0 for any free one)`)
    throw e
  }
}

const keyLine = (k: KeyRow) =>
  `${k.key_id}  ${k.revoked_at ? `REVOKED ${k.revoked_at.slice(0, 10)}` : k.retired_at ? `retired ${k.retired_at.slice(0, 10)}` : 'active'}  ${k.enrolled_by}${k.enrolled_by === 'tofu' ? ' (trust on first use)' : ''}  ${k.agent_id ?? '(no entries yet)'}  ${k.case_count} cases${k.note ? `  — ${k.note}` : ''}`

async function withStore<T>(o: StoreOptions, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openStore(o)
  try {
    return await fn(db)
  } finally {
    await db.close()
  }
}

export function serveProgram(): Command {
  const program = new Command('ratchet')
  const store = (c: Command) =>
    c
      .option('--data <dir>', `the embedded store's folder (default ${defaultDataDir().replace(os.homedir(), '~')})`)
      .option('--db <url>', 'PostgreSQL instead: postgres://user@host:port/database[?schema=NAME]')
  const s = store(program.command('serve'))
    .description("the team's case record: the case API, the transparency log and the dashboard")
    .option('--port <n>', 'port (0: any free one)', '8780')
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--redis <url>', 'Redis for caches and shared rate limits (optional; the server keeps serving without it)')
    .option('--redis-prefix <p>', 'prefix of every Redis key', 'ratchet:')
    .option(
      '--origin <url>',
      'the URL clients reach this server by (signed into each submission; default the listening address)',
    )
    .option('--log-name <name>', "the log's name in its checkpoints (first start only)")
    .option('--trust-on-first-use', 'enroll an unknown key by its first genesis (labelled tofu); off by default')
    .option('--trust-proxy', 'behind a load balancer: take the client address from X-Forwarded-For')
    .option('--fresh-minutes <n>', 'how old a signed submission may be', '10')
    .option('--per-key-per-minute <n>', 'submissions a minute per agent key', '120')
    .option('--per-ip-per-minute <n>', 'requests a minute per client address', '600')
    .option('--log-level <level>', 'request log level (pino): info, warn, error, silent', 'info')
    .option('--json', 'print the start-up line as JSON')
    .action(async (o: ServeOptions) => {
      const server = await serve(o)
      const stop = () => void server.close().then(() => process.exit(0))
      process.once('SIGTERM', stop)
      process.once('SIGINT', stop)
    })
  const keys = s.command('keys').description('the agent keys this server accepts')
  store(keys.command('add'))
    .argument('<public-key>', `the agent's public key (the last line of \`${CLI} courtroom key\`)`)
    .option('--agent <id>', 'bind it to this agent id')
    .option('--note <text>', 'who it is, for the list')
    .option('--json', 'machine-readable output')
    .description('enroll a key')
    .action(async (pub: string, _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals() as StoreOptions & { agent?: string; note?: string; json?: boolean }
      humanOnly(`${CLI} serve keys add`)
      const r = await withStore(o, (db) => addKey(db, pub, o))
      if (o.json) return out(JSON.stringify({ ...r.row, added: r.added }))
      out(
        r.added
          ? `Enrolled ${r.row.key_id}${o.agent ? ` for ${o.agent}` : ''}.`
          : `Already enrolled: ${keyLine(r.row)}`,
      )
    })
  store(keys.command('list'))
    .option('--json', 'machine-readable output')
    .description('every enrolled key: state, how it was enrolled, its agent and case count')
    .action(async (_o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals() as StoreOptions & { json?: boolean }
      const rows = await withStore(o, listKeys)
      if (o.json) return out(JSON.stringify(rows, null, 2))
      if (!rows.length) return out(`No keys enrolled (${CLI} serve keys add <public key>).`)
      for (const k of rows) out(keyLine(k))
    })
  store(keys.command('revoke'))
    .argument('<key-id>', `the key id (or its start) from ${CLI} serve keys list`)
    .option('--json', 'machine-readable output')
    .description('refuse every later submission signed by this key')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals() as StoreOptions & { json?: boolean }
      humanOnly(`${CLI} serve keys revoke`)
      const k = await withStore(o, (db) => revokeKey(db, id))
      if (o.json) return out(JSON.stringify(k))
      out(`Revoked ${k.key_id} (${k.revoked_at}).`)
    })
  return program
}

export async function main(argv: string[]): Promise<void> {
  await runCli('ratchet', serveProgram(), argv)
}
