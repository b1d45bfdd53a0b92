// The case ledger on disk: one JSONL file per agent (.ratchet/courtroom/ledger/<agent>.jsonl), one
// DSSE envelope per line, appended under the ledger's lock; after each append the signed head is
// rewritten outside the project, so losing entries from the end is caught too.

import fs from 'node:fs'
import { canonicalJson, pae, type DsseEnvelope } from '../../core/courtroom/canonical'
import {
  CHECKPOINT_EVERY,
  ENTRY_TYPE,
  HEAD_TYPE,
  envelopeHash,
  nextEntry,
  payloadBytes,
  verifyChain,
  type Entry,
  type EntryKind,
  type Head,
  type Trust,
  type VerifyResult,
} from '../../core/courtroom/chain'
import { appendLine, readRegularFile, truncateFile, withLock, writePrivateFile } from '../store'
import { headFile } from './files'
import { digest, nodeCrypto, readKeyStore, sign, type KeyPair } from './keys'

export function readLines(file: string): string[] {
  let text: string
  try {
    text = readRegularFile(file) // a FIFO in its place is refused, never waited on
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw e
  }
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

export function envelopeFor(entry: Entry, signers: KeyPair[]): DsseEnvelope {
  const body = payloadBytes(entry)
  const msg = pae(ENTRY_TYPE, body)
  return {
    payload: body.toString('base64'),
    payloadType: ENTRY_TYPE,
    signatures: signers.map((k) => ({ keyid: k.keyid, sig: sign(k, msg) })),
  }
}

function lastOf(lines: string[]): { seq: number; hash: string } | null {
  if (!lines.length) return null
  const env = JSON.parse(lines[lines.length - 1]) as DsseEnvelope
  const entry = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as Entry
  return { seq: entry.seq, hash: envelopeHash(nodeCrypto, env) }
}

export interface AppendOptions {
  agent: string
  file: string
  /** Signs the entry; a rotation is signed by two keys. */
  signers: KeyPair[]
  /** Signs the head and checkpoints (the key in force after this entry). */
  headKey: KeyPair
  env?: NodeJS.ProcessEnv
  now?: Date
}

/** The last line, when it is not an entry at all (a write cut short): what `repair` moves out. */
function tornTail(lines: string[]): string | undefined {
  if (!lines.length) return undefined
  try {
    const env = JSON.parse(lines[lines.length - 1]) as DsseEnvelope
    JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8'))
    return undefined
  } catch {
    return lines[lines.length - 1]
  }
}

const TORN_KEPT = 4096

/**
 * A torn last line (an interrupted write) is never rewritten silently, and never blocks the next entry: it is
 * cut from the file and recorded in a signed repair entry (its digest, length and up to 4 KiB of its bytes), so
 * the chain goes on and the ledger says what was removed. Under the ledger's lock; returns the lines after it.
 */
function repairTail(o: AppendOptions, lines: string[], at: string): { lines: string[]; written: Entry[] } {
  const torn = tornTail(lines)
  if (torn === undefined) return { lines, written: [] }
  const good = lines.slice(0, -1)
  truncateFile(o.file, Buffer.byteLength(good.length ? good.join('\n') + '\n' : ''))
  const last = lastOf(good)
  const entry = nextEntry(
    last,
    o.agent,
    'repair',
    {
      reason: 'the last line was not a whole entry (an interrupted write): cut from the ledger and kept here',
      torn_digest: digest(torn),
      torn_length: Buffer.byteLength(torn),
      torn_bytes: Buffer.from(torn).subarray(0, TORN_KEPT).toString('base64'),
    },
    at,
  )
  const env = envelopeFor(entry, [o.signers[0]])
  appendLine(o.file, JSON.stringify(env) + '\n')
  return { lines: [...good, JSON.stringify(env)], written: [entry] }
}

/** Before a hearing is paid for: a torn tail is repaired now (and a ledger that cannot be written fails now). */
export function readyToAppend(o: AppendOptions): Entry[] {
  return withLock(o.file, () => {
    const r = repairTail(o, readLines(o.file), (o.now ?? new Date()).toISOString())
    if (r.written.length) {
      const last = lastOf(r.lines)!
      writeHead(o.agent, { agent: o.agent, seq: last.seq, hash: last.hash, at: r.written[0].at }, o.headKey, o.env)
    }
    return r.written
  })
}

/** Appends one entry (and a checkpoint every CHECKPOINT_EVERY entries); returns the appended entries. */
export function appendEntry(o: AppendOptions, kind: EntryKind, body: Record<string, unknown>): Entry[] {
  return withLock(o.file, () => {
    const at = (o.now ?? new Date()).toISOString()
    const repaired = repairTail(o, readLines(o.file), at)
    const lines = repaired.lines
    const written: Entry[] = [...repaired.written]
    let last = lastOf(lines)
    const add = (k: EntryKind, b: Record<string, unknown>, signers: KeyPair[]) => {
      const entry = nextEntry(last, o.agent, k, b, at)
      const env = envelopeFor(entry, signers)
      appendLine(o.file, JSON.stringify(env) + '\n')
      last = { seq: entry.seq, hash: envelopeHash(nodeCrypto, env) }
      written.push(entry)
    }
    add(kind, body, o.signers)
    if (kind !== 'checkpoint' && kind !== 'revocation' && (last!.seq + 1) % CHECKPOINT_EVERY === CHECKPOINT_EVERY - 1)
      add('checkpoint', { through: last!.seq, head: last!.hash }, [o.headKey])
    writeHead(o.agent, { agent: o.agent, seq: last!.seq, hash: last!.hash, at }, o.headKey, o.env)
    return written
  })
}

export function writeHead(agent: string, head: Head, key: KeyPair, env?: NodeJS.ProcessEnv): void {
  const body = Buffer.from(canonicalJson(head), 'utf8')
  const file = headFile(agent, env)
  writePrivateFile(file, JSON.stringify({ ...head, keyid: key.keyid, sig: sign(key, pae(HEAD_TYPE, body)) }) + '\n')
}

export function readHead(agent: string, env?: NodeJS.ProcessEnv): Trust['head'] | undefined {
  try {
    return JSON.parse(readRegularFile(headFile(agent, env)))
  } catch {
    return undefined
  }
}

/** Verifies an agent's ledger against the keys and head on record outside the project. */
export function verifyLedger(
  agent: string,
  file: string,
  env?: NodeJS.ProcessEnv,
  opts: { genesisKey?: string } = {},
): VerifyResult {
  const store = readKeyStore(agent, env)
  return verifyChain(nodeCrypto, readLines(file), {
    agent,
    genesisKey: opts.genesisKey ?? store?.genesis_public,
    head: readHead(agent, env),
  })
}

export function listAgents(ledgerDir: string): string[] {
  try {
    return fs
      .readdirSync(ledgerDir)
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => f.slice(0, -6))
  } catch {
    return []
  }
}
