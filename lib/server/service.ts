// What the case server does, apart from HTTP: accept a submission (every check, then one transaction
// that locks the log's head, writes the entry, the case and the leaf), read the public record, and
// manage the enrolled keys. Stateless: everything is in the database (and, optionally, Redis).

import { canonicalJson } from '../core/courtroom/canonical'
import { keyIdOf } from '../core/courtroom/chain'
import type { CaseRecord } from '../core/courtroom/hearing'
import { listWhere, cursorOf, type ListQuery } from '../core/serve/query'
import { isRefusal, parseSubmission, refuse, type Refusal } from '../core/serve/submission'
import { judge, type AgentOnRecord, type Context, type KeyOnRecord } from '../core/serve/judge'
import { nodeCrypto } from '../io/courtroom/keys'
import { TTL, type Cache } from './cache'
import { StoreUnavailable, type Db } from './db'
import type { TransparencyLog } from './log'

export interface Answer {
  status: number
  body: Record<string, unknown>
}

export interface ServiceOptions {
  origin: string
  freshMs: number
  skewMs: number
  tofu: boolean
  now?: () => number
}

const PUBLIC_COLUMNS =
  'case_id, leaf_index, anonymized_agent_id, offense_type, offense_name, severity, verdict, vote, primary_failure, agent_commentary, punishment_summary, timestamp, schema_version, pack, trust, accepted_at'

const refused = (r: Refusal, extra: Record<string, unknown> = {}): Answer => ({
  status: r.status,
  body: { status: 'refused', reason: r.reason, detail: r.detail, ...extra },
})

export class CaseService {
  /** Called once per submission with its outcome (metrics). */
  onOutcome: (outcome: 'accepted' | 'refused', reason: string, seconds: number) => void = () => undefined

  constructor(
    readonly db: Db,
    readonly log: TransparencyLog,
    readonly cache: Cache,
    private readonly o: ServiceOptions,
  ) {}

  /** The origin is known once the server listens (an ephemeral port is chosen then). */
  setOrigin(origin: string): void {
    this.o.origin = origin
  }

  private ctx(): Context {
    return {
      origin: this.o.origin,
      now: (this.o.now ?? Date.now)(),
      freshMs: this.o.freshMs,
      skewMs: this.o.skewMs,
      tofu: this.o.tofu,
    }
  }

  async submit(body: unknown): Promise<Answer> {
    const started = process.hrtime.bigint()
    const done = (a: Answer): Answer => {
      this.onOutcome(
        a.status === 201 ? 'accepted' : 'refused',
        a.status === 201 ? 'accepted' : String(a.body.reason),
        Number(process.hrtime.bigint() - started) / 1e9,
      )
      return a
    }
    const p = parseSubmission(nodeCrypto, body)
    if (isRefusal(p)) return done(refused(p))
    try {
      const a = await this.db.tx(async (q): Promise<Answer> => {
        // The head's lock first: every check below sees the chain as the last committed append left it.
        const head = await this.log.lock(q)
        const first = p.items[0]
        const dup = await q.one<{ leaf_index: number }>(`SELECT leaf_index FROM entries WHERE entry_hash = ?`, [
          first.entryHash,
        ])
        if (dup)
          return refused(
            refuse('duplicate', `seq ${first.entry.seq} is already on the log at leaf ${dup.leaf_index}`, 0),
            { leaf_index: Number(dup.leaf_index), entry_hash: first.entryHash },
          )
        const agent = await q.one<AgentOnRecord & { revoked: number | boolean }>(
          `SELECT agent_id, last_seq, last_hash, key_id, revoked FROM agents WHERE agent_id = ?`,
          [p.agent],
        )
        const named = p.items
          .flatMap(({ entry: e }) => [e.body.public_key, e.body.new_public_key])
          .filter((k): k is string => typeof k === 'string' && k.length < 100)
          .map((k) => keyIdOf(nodeCrypto, k))
        const ids = [...new Set([...(agent ? [agent.key_id] : []), ...named])]
        const keys = ids.length
          ? await q.all<KeyOnRecord>(
              `SELECT key_id, public_key, agent_id, enrolled_by, revoked_at, retired_at FROM agent_keys WHERE key_id IN (${ids.map(() => '?').join(', ')})`,
              ids,
            )
          : []
        const d = judge(
          nodeCrypto,
          p,
          this.ctx(),
          agent && { ...agent, last_seq: Number(agent.last_seq), revoked: !!Number(agent.revoked) },
          (id) => keys.find((k) => k.key_id === id),
        )
        if (isRefusal(d)) return refused(d, d.index !== undefined ? { seq: p.items[d.index].entry.seq } : {})
        const records = p.items.map((it) =>
          it.entry.kind === 'case' ? (it.entry.body as unknown as CaseRecord) : undefined,
        )
        const caseIds = records.filter((r): r is CaseRecord => !!r).map((r) => r.case_id)
        if (new Set(caseIds).size !== caseIds.length)
          return refused(refuse('duplicate_case', 'the same case id twice in one submission'))
        const taken = caseIds.length
          ? await q.all<{ case_id: string }>(
              `SELECT case_id FROM cases WHERE case_id IN (${caseIds.map(() => '?').join(', ')})`,
              caseIds,
            )
          : []
        if (taken.length) {
          const i = records.findIndex((r) => r?.case_id === taken[0].case_id)
          return refused(
            refuse('duplicate_case', `case ${taken[0].case_id} is already on record (in another entry)`, i),
            { seq: p.items[i].entry.seq },
          )
        }
        const now = new Date((this.o.now ?? Date.now)()).toISOString()
        for (const k of d.enroll)
          await q.run(
            `INSERT INTO agent_keys (key_id, public_key, agent_id, enrolled_at, enrolled_by) VALUES (?, ?, ?, ?, ?)`,
            [k.key_id, k.public_key, p.agent, now, k.enrolled_by],
          )
        if (d.bind)
          await q.run(`UPDATE agent_keys SET agent_id = ? WHERE key_id = ? AND agent_id IS NULL`, [p.agent, d.bind])
        for (const id of d.retire) await q.run(`UPDATE agent_keys SET retired_at = ? WHERE key_id = ?`, [now, id])
        for (const id of d.revoke)
          await q.run(`UPDATE agent_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL`, [now, id])
        let h = head
        const placed: { index: number; leafHash: Buffer }[] = []
        for (const [i, it] of p.items.entries()) {
          const appended = await this.log.append(q, h, it.leaf)
          h = {
            size: appended.head.size,
            root: appended.head.root,
            checkpoint: appended.head.checkpoint,
            frontier: appended.frontier,
          }
          placed.push({ index: appended.index, leafHash: appended.leafHash })
          await q.run(
            `INSERT INTO entries (leaf_index, agent_id, seq, kind, entry_hash, envelope, submission, key_id, trust, accepted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            [
              appended.index,
              p.agent,
              it.entry.seq,
              it.entry.kind,
              it.entryHash,
              it.leaf,
              canonicalJson(p.outer),
              d.signed[i].keyId,
              d.signed[i].trust,
              now,
            ],
          )
          const rec = records[i]
          if (rec) {
            await q.run(
              `INSERT INTO cases (${PUBLIC_COLUMNS}) VALUES (${PUBLIC_COLUMNS.split(',')
                .map(() => '?')
                .join(', ')})`,
              [
                rec.case_id,
                appended.index,
                rec.anonymized_agent_id,
                rec.offense_type,
                rec.offense_name,
                rec.severity,
                rec.verdict,
                rec.vote,
                rec.primary_failure,
                rec.agent_commentary,
                rec.punishment_summary,
                rec.timestamp,
                rec.schema_version,
                rec.pack,
                d.signed[i].trust,
                now,
              ],
            )
            await q.run(`UPDATE agent_keys SET case_count = case_count + 1 WHERE key_id = ?`, [d.signed[i].keyId])
          }
        }
        await this.log.commitHead(q, h)
        if (agent)
          await q.run(`UPDATE agents SET last_seq = ?, last_hash = ?, key_id = ?, revoked = ? WHERE agent_id = ?`, [
            d.agent.last_seq,
            d.agent.last_hash,
            d.agent.key_id,
            d.agent.revoked ? 1 : 0,
            d.agent.agent_id,
          ])
        else
          await q.run(
            `INSERT INTO agents (agent_id, last_seq, last_hash, key_id, revoked, first_seen) VALUES (?, ?, ?, ?, ?, ?)`,
            [d.agent.agent_id, d.agent.last_seq, d.agent.last_hash, d.agent.key_id, d.agent.revoked ? 1 : 0, now],
          )
        const accepted = []
        for (const [i, it] of p.items.entries())
          accepted.push({
            seq: it.entry.seq,
            kind: it.entry.kind,
            ...(records[i] ? { case_id: records[i]!.case_id } : {}),
            trust: d.signed[i].trust,
            entry_hash: it.entryHash,
            leaf_index: placed[i].index,
            leaf_hash: placed[i].leafHash.toString('base64'),
            inclusion_proof: await this.log.inclusion(placed[i].index, h.size, q),
          })
        return {
          status: 201,
          body: { status: 'accepted', agent: p.agent, tree_size: h.size, checkpoint: h.checkpoint, accepted },
        }
      })
      if (a.status === 201) await this.cache.bump()
      return done(a)
    } catch (e) {
      if (e instanceof StoreUnavailable)
        return done(
          refused(refuse('store_unavailable', 'the case store is unavailable: nothing was stored, try again')),
        )
      // Two instances racing on the same entry: the unique constraints let one win; the other is told as a duplicate would be.
      if (/unique|duplicate key/i.test((e as Error).message))
        return done(
          refused(
            refuse(
              'duplicate',
              'this entry (or its case id, or its place in the chain) was just accepted by another request',
            ),
          ),
        )
      throw e
    }
  }

  private async cached<T>(key: string, ttl: number, make: () => Promise<T>): Promise<T> {
    const hit = await this.cache.get(key)
    if (hit !== undefined) return JSON.parse(hit) as T
    const v = await make()
    await this.cache.set(key, JSON.stringify(v), ttl)
    return v
  }

  async list(q: ListQuery): Promise<{ cases: Record<string, unknown>[]; next_cursor: string | null }> {
    const gen = await this.cache.generation()
    return this.cached(`list:${gen}:${canonicalJson(q)}`, TTL.list, async () => {
      const { where, params } = listWhere(q)
      const rows = await this.db.all<Record<string, unknown>>(
        `SELECT ${PUBLIC_COLUMNS} FROM cases ${where} ORDER BY leaf_index DESC LIMIT ?`,
        [...params, q.limit + 1],
      )
      const page = rows.slice(0, q.limit).map((r) => ({ ...r, leaf_index: Number(r.leaf_index) }))
      return { cases: page, next_cursor: rows.length > q.limit ? cursorOf(page[page.length - 1].leaf_index) : null }
    })
  }

  /** One case with what it takes to check it again: both signed envelopes and the signing key. */
  async getCase(id: string): Promise<Record<string, unknown> | undefined> {
    const hit = await this.cache.get(`case:${id}`)
    if (hit !== undefined) return JSON.parse(hit)
    const row = await this.db.one<Record<string, unknown>>(
      `SELECT ${PUBLIC_COLUMNS.split(', ')
        .map((c) => `c.${c}`)
        .join(
          ', ',
        )}, e.envelope, e.submission, e.entry_hash, e.seq, k.public_key, k.key_id FROM cases c JOIN entries e ON e.leaf_index = c.leaf_index JOIN agent_keys k ON k.key_id = e.key_id WHERE c.case_id = ?`,
      [id],
    )
    if (!row) return undefined
    const { envelope, submission, ...rest } = row
    const out = {
      ...rest,
      leaf_index: Number(row.leaf_index),
      seq: Number(row.seq),
      signed: { entry: JSON.parse(envelope as string), submission: JSON.parse(submission as string) },
    }
    await this.cache.set(`case:${id}`, JSON.stringify(out), TTL.case)
    return out
  }

  async statistics(): Promise<Record<string, unknown>> {
    const gen = await this.cache.generation()
    return this.cached(`stats:${gen}`, TTL.stats, async () => {
      const [totals] = await this.db.all<{ cases: number; guilty: number; agents: number }>(
        `SELECT COUNT(*) AS cases, COALESCE(SUM(CASE WHEN verdict = 'GUILTY' THEN 1 ELSE 0 END), 0) AS guilty, COUNT(DISTINCT anonymized_agent_id) AS agents FROM cases`,
      )
      const group = (col: string) =>
        this.db.all<Record<string, unknown>>(
          `SELECT ${col}, COUNT(*) AS count, COALESCE(SUM(CASE WHEN verdict = 'GUILTY' THEN 1 ELSE 0 END), 0) AS guilty FROM cases GROUP BY ${col} ORDER BY count DESC, ${col}`,
        )
      const num = (rows: Record<string, unknown>[]) =>
        rows.map((r) => ({ ...r, count: Number(r.count), guilty: Number(r.guilty) }))
      const overTime = await this.db.all<Record<string, unknown>>(
        `SELECT substr(timestamp, 1, 10) AS day, verdict, severity, offense_type, COUNT(*) AS count FROM cases GROUP BY substr(timestamp, 1, 10), verdict, severity, offense_type ORDER BY day, offense_type, verdict, severity`,
      )
      const head = await this.log.head()
      return {
        total_cases: Number(totals.cases),
        guilty: Number(totals.guilty),
        not_guilty: Number(totals.cases) - Number(totals.guilty),
        agents: Number(totals.agents),
        by_verdict: num(await group('verdict')),
        by_severity: num(await group('severity')),
        by_offense: num(
          await this.db.all(
            `SELECT offense_type, MIN(offense_name) AS offense_name, COUNT(*) AS count, COALESCE(SUM(CASE WHEN verdict = 'GUILTY' THEN 1 ELSE 0 END), 0) AS guilty FROM cases GROUP BY offense_type ORDER BY count DESC, offense_type`,
          ),
        ),
        over_time: overTime.map((r) => ({ ...r, count: Number(r.count) })),
        log: { size: head.size, root: head.root },
      }
    })
  }

  /** Every entry the log holds for one agent, in chain order: what `ratchet cases verify --server` holds the local ledger to. */
  async entriesOf(agent: string): Promise<Record<string, unknown>[]> {
    const rows = await this.db.all<{
      leaf_index: number
      seq: number
      kind: string
      entry_hash: string
      envelope: string
    }>(`SELECT leaf_index, seq, kind, entry_hash, envelope FROM entries WHERE agent_id = ? ORDER BY seq`, [agent])
    return rows.map((r) => ({
      leaf_index: Number(r.leaf_index),
      seq: Number(r.seq),
      kind: r.kind,
      entry_hash: r.entry_hash,
      envelope: JSON.parse(r.envelope),
    }))
  }

  async health(): Promise<{
    ok: boolean
    store: Record<string, unknown>
    cache: Record<string, unknown>
    log?: Record<string, unknown>
  }> {
    const cache = { kind: this.cache.kind, up: this.cache.kind === 'none' ? null : this.cache.up() }
    try {
      const head = await this.log.head()
      return {
        ok: true,
        store: { kind: this.db.dialect, where: this.db.where, up: true },
        cache,
        log: { name: this.log.name, size: head.size, root: head.root },
      }
    } catch (e) {
      return {
        ok: false,
        store: {
          kind: this.db.dialect,
          where: this.db.where,
          up: false,
          error: (e as Error).message.split('\n')[0].slice(0, 200),
        },
        cache,
      }
    }
  }
}
