// The case server's tables, one list of migrations for both engines (see db.ts for the portable subset).
// The log's signing key is created here, once, inside the migration's lock and stored in the database:
// every instance over the same database signs the same checkpoints, and none keeps state of its own.

import crypto from 'node:crypto'
import type { Db } from './db'

const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)`,
    `CREATE TABLE agent_keys (key_id TEXT PRIMARY KEY, public_key TEXT NOT NULL UNIQUE, agent_id TEXT, enrolled_at TEXT NOT NULL, enrolled_by TEXT NOT NULL, revoked_at TEXT, retired_at TEXT, case_count INTEGER NOT NULL DEFAULT 0, note TEXT)`,
    `CREATE TABLE agents (agent_id TEXT PRIMARY KEY, last_seq BIGINT NOT NULL, last_hash TEXT NOT NULL, key_id TEXT NOT NULL, revoked INTEGER NOT NULL DEFAULT 0, first_seen TEXT NOT NULL)`,
    `CREATE TABLE entries (leaf_index BIGINT PRIMARY KEY, agent_id TEXT NOT NULL, seq BIGINT NOT NULL, kind TEXT NOT NULL, entry_hash TEXT NOT NULL UNIQUE, envelope TEXT NOT NULL, submission TEXT NOT NULL, key_id TEXT NOT NULL, trust TEXT NOT NULL, accepted_at TEXT NOT NULL, UNIQUE (agent_id, seq))`,
    `CREATE TABLE cases (case_id TEXT PRIMARY KEY, leaf_index BIGINT NOT NULL UNIQUE, anonymized_agent_id TEXT NOT NULL, offense_type TEXT NOT NULL, offense_name TEXT NOT NULL, severity TEXT NOT NULL, verdict TEXT NOT NULL, vote TEXT NOT NULL, primary_failure TEXT NOT NULL, agent_commentary TEXT NOT NULL, punishment_summary TEXT NOT NULL, timestamp TEXT NOT NULL, schema_version TEXT NOT NULL, pack TEXT NOT NULL, trust TEXT NOT NULL, accepted_at TEXT NOT NULL)`,
    `CREATE INDEX cases_by_verdict ON cases (verdict, leaf_index)`,
    `CREATE INDEX cases_by_offense ON cases (offense_type, leaf_index)`,
    `CREATE INDEX cases_by_severity ON cases (severity, leaf_index)`,
    `CREATE INDEX cases_by_agent ON cases (anonymized_agent_id, leaf_index)`,
    `CREATE TABLE log_nodes (level INTEGER NOT NULL, idx BIGINT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (level, idx))`,
    `CREATE TABLE log_head (id INTEGER PRIMARY KEY, size BIGINT NOT NULL, frontier TEXT NOT NULL, root TEXT NOT NULL, checkpoint TEXT NOT NULL)`,
  ],
]

/** Brings the database to the current schema; two instances starting at once run each migration once. */
export async function migrate(db: Db): Promise<void> {
  await db
    .run(`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`)
    .catch(async (e) => {
      // Two PostgreSQL sessions creating the same table at once: one wins, the other sees it made.
      if (!(await tableExists(db))) throw e
    })
  await db.tx(async (q) => {
    if (q.dialect === 'postgres') await q.one(`SELECT pg_advisory_xact_lock(7261636865)`)
    const done = new Set(
      (await q.all<{ version: number }>(`SELECT version FROM schema_migrations`)).map((r) => Number(r.version)),
    )
    for (const [i, steps] of MIGRATIONS.entries()) {
      if (done.has(i + 1)) continue
      for (const sql of steps) await q.run(sql)
      await q.run(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, [
        i + 1,
        new Date().toISOString(),
      ])
    }
  })
}

async function tableExists(db: Db): Promise<boolean> {
  const sql =
    db.dialect === 'postgres'
      ? `SELECT to_regclass('schema_migrations') AS t`
      : `SELECT name AS t FROM sqlite_master WHERE name = 'schema_migrations'`
  return !!(await db.one<{ t: string | null }>(sql))?.t
}

export interface LogIdentity {
  name: string
  publicKey: Buffer
  privateKey: crypto.KeyObject
}

/**
 * The log's name (a checkpoint's origin line) and Ed25519 key: made by the first instance to start on an empty
 * database, read by every other. `name` applies only then; afterwards the stored one stands.
 */
export async function logIdentity(db: Db, name: string): Promise<LogIdentity> {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519')
  const made = [
    ['log_name', name],
    ['log_public_key', Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('base64')],
    ['log_private_key', privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()],
  ]
  await db.tx(async (q) => {
    const have = await q.one(`SELECT v FROM meta WHERE k = 'log_name'`)
    if (!have)
      for (const [k, v] of made) await q.run(`INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO NOTHING`, [k, v])
  })
  const rows = new Map(
    (
      await db.all<{ k: string; v: string }>(
        `SELECT k, v FROM meta WHERE k IN ('log_name', 'log_public_key', 'log_private_key')`,
      )
    ).map((r) => [r.k, r.v]),
  )
  return {
    name: rows.get('log_name')!,
    publicKey: Buffer.from(rows.get('log_public_key')!, 'base64'),
    privateKey: crypto.createPrivateKey(rows.get('log_private_key')!),
  }
}
