// The transparency log on the database: each accepted ledger entry is a leaf; appends happen inside
// the submission's transaction, after the head row is locked (FOR UPDATE on PostgreSQL, the one
// writer on SQLite), so instances over one database append one after another and agree on every
// checkpoint. The perfect subtrees are stored as they complete, so proofs read a few rows.

import crypto from 'node:crypto'
import {
  appendLeaf,
  consistencyRanges,
  frontierRoot,
  hashRange,
  inclusionRanges,
  leafHash,
  nodesFor,
  type Frontier,
  type Hasher,
  type NodeId,
  type Range,
} from '../core/transparency/merkle'
import { checkpointText, signNote, verifierKey } from '../core/transparency/note'
import type { Db } from './db'
import type { LogIdentity } from './schema'

export const sha256: Hasher = { sha256: (d) => crypto.createHash('sha256').update(d).digest() }

export interface Head {
  size: number
  root: string
  checkpoint: string
}

export interface HeadRow {
  size: number
  frontier: string
  root: string
  checkpoint: string
}

export class TransparencyLog {
  constructor(
    private readonly id: LogIdentity,
    private readonly db: Db,
  ) {}

  get name(): string {
    return this.id.name
  }

  /** The verifier key clients pin: <name>+<key hash>+<base64 key>. */
  get verifierKey(): string {
    return verifierKey(sha256, { name: this.id.name, publicKey: this.id.publicKey })
  }

  sign(size: number, root: Buffer): string {
    return signNote(
      sha256,
      checkpointText({ origin: this.id.name, size, root: root.toString('base64') }),
      { name: this.id.name, publicKey: this.id.publicKey },
      (m) => crypto.sign(null, m, this.id.privateKey),
    )
  }

  /** Creates the empty log's head (once). */
  async init(): Promise<void> {
    const root = frontierRoot(sha256, { size: 0, hashes: [] })
    await this.db.run(
      `INSERT INTO log_head (id, size, frontier, root, checkpoint) VALUES (1, 0, '[]', ?, ?) ON CONFLICT (id) DO NOTHING`,
      [root.toString('base64'), this.sign(0, root)],
    )
  }

  /** Locks the head for this transaction: the first statement of every append. */
  async lock(q: Db): Promise<HeadRow> {
    const head = await q.one<HeadRow>(`SELECT size, frontier, root, checkpoint FROM log_head WHERE id = 1 FOR UPDATE`)
    if (!head) throw new Error('the log has no head (the database was not initialised)')
    return head
  }

  /**
   * Appends a leaf under the lock taken by `lock`: its perfect subtrees are written now, the head (with the
   * signed checkpoint) once per submission by `commitHead`, so a batch is signed once.
   */
  async append(
    q: Db,
    head: Pick<HeadRow, 'size' | 'frontier'>,
    leaf: string,
  ): Promise<{ index: number; head: Head; frontier: string; leafHash: Buffer }> {
    const f: Frontier = {
      size: Number(head.size),
      hashes: (JSON.parse(head.frontier) as string[]).map((x) => Buffer.from(x, 'base64')),
    }
    const lh = leafHash(sha256, Buffer.from(leaf, 'utf8'))
    const { next, nodes } = appendLeaf(sha256, f, lh)
    for (const n of nodes)
      await q.run(`INSERT INTO log_nodes (level, idx, hash) VALUES (?, ?, ?)`, [
        n.level,
        n.index,
        n.hash.toString('base64'),
      ])
    const root = frontierRoot(sha256, next)
    return {
      index: f.size,
      head: { size: next.size, root: root.toString('base64'), checkpoint: '' },
      frontier: JSON.stringify(next.hashes.map((x) => x.toString('base64'))),
      leafHash: lh,
    }
  }

  /** Signs and stores the new head: the checkpoint every instance then serves. */
  async commitHead(q: Db, h: HeadRow): Promise<HeadRow> {
    const checkpoint = this.sign(h.size, Buffer.from(h.root, 'base64'))
    await q.run(`UPDATE log_head SET size = ?, frontier = ?, root = ?, checkpoint = ? WHERE id = 1`, [
      h.size,
      h.frontier,
      h.root,
      checkpoint,
    ])
    h.checkpoint = checkpoint
    return h
  }

  async head(q: Db = this.db): Promise<Head> {
    const h = await q.one<HeadRow>(`SELECT size, root, checkpoint FROM log_head WHERE id = 1`)
    if (!h) throw new Error('the log has no head (the database was not initialised)')
    return { size: Number(h.size), root: h.root, checkpoint: h.checkpoint }
  }

  private async hashes(q: Db, ranges: Range[]): Promise<string[]> {
    const ids = nodesFor(ranges)
    const found = new Map<string, Buffer>()
    // A bounded number of rows per query (a proof needs O(log² n) nodes).
    for (let i = 0; i < ids.length; i += 200) {
      const part = ids.slice(i, i + 200)
      const rows = await q.all<{ level: number; idx: number; hash: string }>(
        `SELECT level, idx, hash FROM log_nodes WHERE ${part.map(() => '(level = ? AND idx = ?)').join(' OR ')}`,
        part.flatMap((n) => [n.level, n.index]),
      )
      for (const r of rows) found.set(`${r.level}/${Number(r.idx)}`, Buffer.from(r.hash, 'base64'))
    }
    const node = (id: NodeId) => {
      const x = found.get(`${id.level}/${id.index}`)
      if (!x) throw new Error(`log node ${id.level}/${id.index} is missing`)
      return x
    }
    return ranges.map(([lo, hi]) => hashRange(sha256, lo, hi, node).toString('base64'))
  }

  async inclusion(index: number, size: number, q: Db = this.db): Promise<string[]> {
    return this.hashes(q, inclusionRanges(index, size))
  }

  async consistency(from: number, to: number, q: Db = this.db): Promise<string[]> {
    return from === to ? [] : this.hashes(q, consistencyRanges(from, to))
  }

  async leafHashAt(index: number, q: Db = this.db): Promise<string | undefined> {
    return (await q.one<{ hash: string }>(`SELECT hash FROM log_nodes WHERE level = 0 AND idx = ?`, [index]))?.hash
  }
}
