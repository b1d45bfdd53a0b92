// Enrolled keys: the operator says which agent keys the server accepts (`ratchet serve keys add|list|revoke`).
// Nothing is trusted on first use unless the operator starts the server with --trust-on-first-use, and
// a key so trusted is labelled `tofu` here and on every case it signs.

import { fromBase64 } from '../core/courtroom/canonical'
import { keyIdOf } from '../core/courtroom/chain'
import { RatchetError } from '../core/errors'
import { nodeCrypto } from '../io/courtroom/keys'
import type { Db } from './db'
import { CLI } from '../core/manifest'

export interface KeyRow {
  key_id: string
  public_key: string
  agent_id: string | null
  enrolled_at: string
  enrolled_by: string
  revoked_at: string | null
  retired_at: string | null
  case_count: number
  note: string | null
}

/** A raw Ed25519 public key, base64 (what `ratchet courtroom key` prints on its last line). */
export function checkPublicKey(s: string): string {
  const t = s.trim()
  if (!/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(t) || fromBase64(t).length !== 32)
    throw new RatchetError(
      'usage',
      `"${t.slice(0, 60)}" is not an Ed25519 public key (32 bytes, base64: the last line of \`${CLI} courtroom key\`)`,
    )
  return fromBase64(t).toString('base64')
}

export async function addKey(
  db: Db,
  publicKey: string,
  o: { note?: string; agent?: string; now?: Date } = {},
): Promise<{ row: KeyRow; added: boolean }> {
  const pub = checkPublicKey(publicKey)
  if (o.agent !== undefined && !/^agent_[0-9a-f]{16}$/.test(o.agent))
    throw new RatchetError('usage', `--agent ${o.agent.slice(0, 40)}: expected an agent id (agent_ and 16 hex digits)`)
  const id = keyIdOf(nodeCrypto, pub)
  const added =
    (await db.run(
      `INSERT INTO agent_keys (key_id, public_key, agent_id, enrolled_at, enrolled_by, note) VALUES (?, ?, ?, ?, 'operator', ?) ON CONFLICT (key_id) DO NOTHING`,
      [id, pub, o.agent ?? null, (o.now ?? new Date()).toISOString(), o.note ?? null],
    )) > 0
  const row = (await db.one<KeyRow>(`SELECT * FROM agent_keys WHERE key_id = ?`, [id]))!
  if (!added && row.revoked_at)
    throw new RatchetError(
      'conflict',
      `key ${id} was revoked on ${row.revoked_at}: a revoked key is not enrolled again`,
    )
  return { row: { ...row, case_count: Number(row.case_count) }, added }
}

export async function listKeys(db: Db): Promise<KeyRow[]> {
  return (await db.all<KeyRow>(`SELECT * FROM agent_keys ORDER BY enrolled_at, key_id`)).map((r) => ({
    ...r,
    case_count: Number(r.case_count),
  }))
}

export async function revokeKey(db: Db, keyId: string, now = new Date()): Promise<KeyRow> {
  if (!/^[0-9a-f]{8,32}$/.test(keyId))
    throw new RatchetError('usage', `"${keyId.slice(0, 40)}" is not a key id (hex, from ${CLI} serve keys list)`)
  const rows = await db.all<KeyRow>(`SELECT * FROM agent_keys WHERE key_id LIKE ?`, [`${keyId}%`])
  if (!rows.length) throw new RatchetError('not_found', `no enrolled key ${keyId} (${CLI} serve keys list)`)
  if (rows.length > 1) throw new RatchetError('usage', `${keyId} names ${rows.length} keys: give more of the id`)
  await db.run(`UPDATE agent_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL`, [
    now.toISOString(),
    rows[0].key_id,
  ])
  return (await db.one<KeyRow>(`SELECT * FROM agent_keys WHERE key_id = ?`, [rows[0].key_id]))!
}
