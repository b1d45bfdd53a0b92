// What `ratchet cases verify --server` holds the local ledger to, pure: the case server's log is the
// ledger's outside witness. Every entry the log holds for this agent must be in the local ledger,
// byte for byte (same seq, same envelope hash): a ledger rolled back, cut short or re-signed under
// a new key no longer is, whatever its own head says. And the server's checkpoints must only grow:
// each one a consistency-proven extension of the last this machine saw.

export interface LocalEntry {
  seq: number
  hash: string
  kind: string
}

export interface LoggedEntry {
  seq: number
  entry_hash: string
  kind: string
  leaf_index: number
}

export interface Problem {
  seq: number
  problem: string
}

/** The log's entries for this agent against the local ledger's. */
export function compareWithLog(local: LocalEntry[], logged: LoggedEntry[]): Problem[] {
  const problems: Problem[] = []
  const bySeq = new Map(local.map((e) => [e.seq, e]))
  let expect = 0
  for (const r of [...logged].sort((a, b) => a.seq - b.seq)) {
    if (r.seq !== expect)
      problems.push({
        seq: expect,
        problem: `the server's log skips seq ${expect} of this agent (it answered seq ${r.seq} next): the server's record is incomplete`,
      })
    expect = r.seq + 1
    const mine = bySeq.get(r.seq)
    if (!mine)
      problems.push({
        seq: r.seq,
        problem: `the log holds seq ${r.seq} (${r.kind}, leaf ${r.leaf_index}) and the local ledger does not: the ledger was rolled back or cut short`,
      })
    else if (mine.hash !== r.entry_hash)
      problems.push({
        seq: r.seq,
        problem: `seq ${r.seq} differs from the entry the log holds (leaf ${r.leaf_index}): the local ledger was rewritten or signed again under another key`,
      })
  }
  return problems
}

/** Local entries the log does not hold yet (not sent, or refused). */
export function unsent<T extends LocalEntry>(local: T[], logged: LoggedEntry[]): T[] {
  const last = logged.reduce((m, r) => Math.max(m, r.seq), -1)
  return local.filter((e) => e.seq > last)
}

/**
 * How to cut the unsent entries into submissions: each is signed by the key in force after it, and only the
 * current key is at hand (a rotated-out key's private half is gone), so every cut lies after the last rotation.
 */
export function batches<T extends { kind: string }>(entries: T[], size: number): T[][] {
  if (!entries.length) return []
  const lastRotation = entries.map((e) => e.kind).lastIndexOf('rotation')
  const first = Math.max(size, lastRotation + 1)
  const out = [entries.slice(0, first)]
  for (let i = first; i < entries.length; i += size) out.push(entries.slice(i, i + size))
  return out
}
