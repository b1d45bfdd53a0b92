// The client side of the case server: `ratchet cases submit --server URL` and `verify --server URL`.
// The server's log key is pinned on first contact (config folder, outside the project) with the last
// checkpoint this machine saw; every later checkpoint must carry a signature by that key and be proven
// (RFC 6962 consistency) to extend the last one, so the server cannot rewrite history unseen. Each
// accepted entry's receipt (leaf, inclusion proof, checkpoint) is kept beside the ledger.

import { canonicalJson, pae, type DsseEnvelope } from '../../core/courtroom/canonical'
import { envelopeHash, type Entry } from '../../core/courtroom/chain'
import { RatchetError } from '../../core/errors'
import {
  batches,
  compareWithLog,
  unsent,
  type LocalEntry,
  type LoggedEntry,
  type Problem,
} from '../../core/serve/audit'
import { SUBMISSION_TYPE, submissionPayload } from '../../core/serve/submission'
import { leafHash, verifyConsistency, verifyInclusion, type Hasher } from '../../core/transparency/merkle'
import {
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  type Checkpoint,
  type NoteKey,
} from '../../core/transparency/note'
import { fileOf } from '../registry'
import type { Paths } from '../registry'
import { appendJsonl, readJson, writePrivateFile } from '../store'
import { configHome } from './files'
import { nodeCrypto, publicFromRaw, sign, type KeyPair } from './keys'
import { readLines } from './ledger'
import crypto from 'node:crypto'

const hasher: Hasher = { sha256: (d) => crypto.createHash('sha256').update(d).digest() }
const CHUNK = 32

export interface Pin {
  server: string
  log: string
  log_key: string
  pinned_at: string
  last?: { size: number; root: string; checkpoint: string; seen_at: string }
}

export interface Receipt {
  server: string
  log: string
  agent: string
  seq: number
  kind: string
  case_id?: string
  entry_hash: string
  leaf_index: number
  leaf_hash: string
  tree_size: number
  inclusion_proof: string[]
  checkpoint: string
  at: string
}

export function normaliseServer(url: string): string {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw new RatchetError('usage', `--server ${url.slice(0, 100)}: not a URL (http://host:port)`)
  }
  if (!/^https?:$/.test(u.protocol) || u.username || u.password)
    throw new RatchetError(
      'usage',
      `--server ${url.slice(0, 100)}: expected http(s)://host[:port], without credentials`,
    )
  return `${u.protocol}//${u.host}`
}

const pinFile = (server: string, env?: NodeJS.ProcessEnv) =>
  fileOf(
    { stateDir: '', configHome: configHome(env) },
    'caseServer',
    crypto.createHash('sha256').update(server).digest('hex').slice(0, 24),
  )

function readPin(server: string, env?: NodeJS.ProcessEnv): Pin | undefined {
  const r = readJson(
    pinFile(server, env),
    (raw) => (raw && typeof (raw as Pin).log_key === 'string' ? (raw as Pin) : 'log_key: expected a pinned log key'),
    () => undefined as unknown as Pin,
  )
  if (!r.ok)
    throw new RatchetError(
      'state_corrupt',
      `${pinFile(server, env)}: ${r.error.message} (remove it to pin ${server}'s key again, knowingly)`,
    )
  return r.value ?? undefined
}

function writePin(pin: Pin, env?: NodeJS.ProcessEnv): void {
  writePrivateFile(pinFile(pin.server, env), JSON.stringify(pin, null, 2) + '\n', { tightenDir: true })
}

export function readReceipts(paths: Paths, agent: string): Receipt[] {
  const out: Receipt[] = []
  for (const line of readLines(fileOf(paths, 'receipts', agent))) {
    try {
      out.push(JSON.parse(line))
    } catch {
      /* a torn line: the receipt is fetched again */
    }
  }
  return out
}

// ---- HTTP ---------------------------------------------------------------------------------------

async function call(server: string, path: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(server + path, { ...init, signal: AbortSignal.timeout(15_000), redirect: 'error' })
  } catch (e) {
    const c = (e as { cause?: { code?: string; message?: string } }).cause
    const cause = c?.code ?? c?.message ?? (e as Error).message
    throw new RatchetError('remote', `${server}: not reachable (${cause}); nothing was changed here`)
  }
}

async function getText(server: string, path: string): Promise<string> {
  const r = await call(server, path)
  if (!r.ok) throw new RatchetError('remote', `${server}${path} answered ${r.status}`)
  return r.text()
}

async function getJson<T>(server: string, path: string): Promise<T> {
  const r = await call(server, path, { headers: { accept: 'application/json' } })
  const text = await r.text()
  if (!r.ok) throw new RatchetError('remote', `${server}${path} answered ${r.status}: ${text.slice(0, 200)}`)
  try {
    return JSON.parse(text) as T
  } catch {
    throw new RatchetError('remote', `${server}${path}: the answer is not JSON`)
  }
}

// ---- the log's key and checkpoints -----------------------------------------------------------------

interface Contact {
  server: string
  pin: Pin
  key: NoteKey
  checkpoint: Checkpoint
  note: string
  pinnedNow: boolean
}

function openCheckpoint(key: NoteKey, note: string, server: string): Checkpoint {
  const opened = openNote(hasher, note, key, (msg, sig) =>
    crypto.verify(null, msg, publicFromRaw(key.publicKey.toString('base64')), sig),
  )
  if ('problem' in opened)
    throw new RatchetError(
      'conflict',
      `${server}: its checkpoint is not signed by the log key pinned here (${opened.problem})`,
    )
  const cp = parseCheckpoint(opened.text)
  if ('problem' in cp) throw new RatchetError('remote', `${server}: ${cp.problem}`)
  if (cp.origin !== key.name)
    throw new RatchetError('conflict', `${server}: the checkpoint is for log ${cp.origin}, not ${key.name}`)
  return cp
}

/** The new checkpoint must extend the last one seen: same root at the same size, a valid consistency proof beyond it. */
async function extendsLast(server: string, last: Pin['last'], cp: Checkpoint): Promise<void> {
  if (!last || last.size === 0) return
  if (cp.size < last.size)
    throw new RatchetError(
      'conflict',
      `${server}: the log shrank from ${last.size} entries (seen ${last.seen_at}) to ${cp.size}: the server rewrote its history`,
    )
  let proof: string[] = []
  if (cp.size > last.size)
    proof = (
      await getJson<{ consistency_proof: string[] }>(
        server,
        `/api/v1/log/proof/consistency?from=${last.size}&to=${cp.size}`,
      )
    ).consistency_proof
  const ok = verifyConsistency(
    hasher,
    last.size,
    cp.size,
    proof.map((p) => Buffer.from(p, 'base64')),
    Buffer.from(last.root, 'base64'),
    Buffer.from(cp.root, 'base64'),
  )
  if (!ok.ok)
    throw new RatchetError(
      'conflict',
      `${server}: its log of ${cp.size} entries does not extend the ${last.size} this machine saw on ${last.seen_at.slice(0, 16)} (${ok.problem}): the server rewrote its history`,
    )
}

async function contact(rawServer: string, env?: NodeJS.ProcessEnv, now = new Date()): Promise<Contact> {
  const server = normaliseServer(rawServer)
  const keyText = (await getText(server, '/api/v1/log/key')).trim()
  const parsed = parseVerifierKey(hasher, keyText)
  if ('problem' in parsed) throw new RatchetError('remote', `${server}/api/v1/log/key: ${parsed.problem}`)
  let pin = readPin(server, env)
  const pinnedNow = !pin
  if (!pin) pin = { server, log: parsed.name, log_key: keyText, pinned_at: now.toISOString() }
  else if (pin.log_key !== keyText)
    throw new RatchetError(
      'conflict',
      `${server}: its log key is not the one pinned here on ${pin.pinned_at.slice(0, 10)} (${pin.log_key.split('+')[0]}+${pin.log_key.split('+')[1]}, now ${keyText.split('+')[0]}+${keyText.split('+')[1]}): not the log this machine knew. If the operator really replaced it, remove ${pinFile(server, env)} to pin the new key`,
    )
  const key = parseVerifierKey(hasher, pin.log_key) as NoteKey
  const note = await getText(server, '/api/v1/log/checkpoint')
  const checkpoint = openCheckpoint(key, note, server)
  await extendsLast(server, pin.last, checkpoint)
  return { server, pin, key, checkpoint, note, pinnedNow }
}

function remember(c: Contact, env?: NodeJS.ProcessEnv, now = new Date()): void {
  writePin(
    {
      ...c.pin,
      last: { size: c.checkpoint.size, root: c.checkpoint.root, checkpoint: c.note, seen_at: now.toISOString() },
    },
    env,
  )
}

// ---- the local ledger as the log sees it ---------------------------------------------------------------

interface LocalLine extends LocalEntry {
  envelope: DsseEnvelope
  entry: Entry
  leafHash: Buffer
}

function localEntries(file: string): LocalLine[] {
  return readLines(file).map((line) => {
    const envelope = JSON.parse(line) as DsseEnvelope
    const entry = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as Entry
    return {
      seq: entry.seq,
      kind: entry.kind,
      hash: envelopeHash(nodeCrypto, envelope),
      envelope,
      entry,
      leafHash: leafHash(hasher, Buffer.from(canonicalJson(envelope), 'utf8')),
    }
  })
}

function proves(e: LocalLine, leafIndex: number, size: number, proof: string[], root: string): boolean {
  return verifyInclusion(
    hasher,
    leafIndex,
    size,
    e.leafHash,
    proof.map((p) => Buffer.from(p, 'base64')),
    Buffer.from(root, 'base64'),
  ).ok
}

const agentEntries = (server: string, agent: string) =>
  getJson<{ entries: LoggedEntry[] }>(server, `/api/v1/public/agents/${encodeURIComponent(agent)}/entries`).then(
    (r) => r.entries,
  )

// ---- submit ------------------------------------------------------------------------------------------

export interface SubmitReport {
  server: string
  log: string
  pinned_now: boolean
  sent: number
  cases_sent: number
  already: number
  receipts_added: number
  tree_size: number
}

export async function submitToServer(
  paths: Paths,
  agent: string,
  rawServer: string,
  ledgerFile: string,
  key: KeyPair | null,
  env?: NodeJS.ProcessEnv,
): Promise<SubmitReport> {
  const c = await contact(rawServer, env)
  const local = localEntries(ledgerFile)
  const logged = await agentEntries(c.server, agent)
  const problems = compareWithLog(local, logged)
  if (problems.length)
    throw new RatchetError(
      'conflict',
      `not sent: ${c.server} already holds this agent's entries, and they disagree with the local ledger: ${problems[0].problem}`,
    )
  const receipts = readReceipts(paths, agent).filter((r) => r.server === c.server && r.log === c.pin.log)
  const have = new Set(receipts.map((r) => r.entry_hash))
  const receiptsFile = fileOf(paths, 'receipts', agent)
  let added = 0
  const keep = (r: Omit<Receipt, 'server' | 'log' | 'agent' | 'at'>) => {
    appendJsonl(receiptsFile, { server: c.server, log: c.pin.log, agent, ...r, at: new Date().toISOString() })
    have.add(r.entry_hash)
    added++
  }
  // Entries the log holds without a receipt here (sent from elsewhere, or the receipt was lost): proven now.
  for (const r of logged.filter((x) => !have.has(x.entry_hash))) {
    const e = local.find((x) => x.seq === r.seq)!
    const p = await getJson<{ inclusion_proof: string[] }>(
      c.server,
      `/api/v1/log/proof/inclusion?index=${r.leaf_index}&size=${c.checkpoint.size}`,
    )
    if (!proves(e, r.leaf_index, c.checkpoint.size, p.inclusion_proof, c.checkpoint.root))
      throw new RatchetError(
        'conflict',
        `${c.server}: the inclusion proof for seq ${r.seq} (leaf ${r.leaf_index}) does not verify against its checkpoint`,
      )
    keep({
      seq: r.seq,
      kind: r.kind,
      ...(e.entry.kind === 'case' ? { case_id: String(e.entry.body.case_id) } : {}),
      entry_hash: r.entry_hash,
      leaf_index: r.leaf_index,
      leaf_hash: e.leafHash.toString('base64'),
      tree_size: c.checkpoint.size,
      inclusion_proof: p.inclusion_proof,
      checkpoint: c.note,
    })
  }
  const todo = unsent(local, logged)
  let sent = 0
  let casesSent = 0
  for (const batch of batches(todo, CHUNK)) {
    const closes = batch[batch.length - 1].kind === 'revocation'
    if (!key && !closes)
      throw new RatchetError(
        'conflict',
        `not sent: ${agent} has no signing key here (revoked?), and its unsent entries do not end with the revocation`,
      )
    const payload = submissionPayload(
      c.server,
      new Date().toISOString(),
      batch.map((b) => b.envelope),
    )
    const body: DsseEnvelope = {
      payload: payload.toString('base64'),
      payloadType: SUBMISSION_TYPE,
      signatures: key && !closes ? [{ keyid: key.keyid, sig: sign(key, pae(SUBMISSION_TYPE, payload)) }] : [],
    }
    const res = await call(c.server, '/api/v1/cases', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const text = await res.text()
    let answer: Record<string, unknown>
    try {
      answer = JSON.parse(text)
    } catch {
      throw new RatchetError(
        'remote',
        `${c.server} answered ${res.status} with no JSON${sent ? ` after ${sent} entries were accepted` : ''}`,
      )
    }
    if (res.status !== 201) {
      const at =
        typeof answer.seq === 'number'
          ? `seq ${answer.seq}`
          : `the submission of seq ${batch[0].seq}–${batch[batch.length - 1].seq}`
      throw new RatchetError(
        'remote',
        `${c.server} refused ${at}: ${answer.reason ?? res.status} — ${answer.detail ?? text.slice(0, 200)}${sent ? ` (${sent} entries were accepted before it)` : ''}`,
      )
    }
    const note = String(answer.checkpoint)
    const cp = openCheckpoint(c.key, note, c.server)
    await extendsLast(
      c.server,
      { size: c.checkpoint.size, root: c.checkpoint.root, checkpoint: c.note, seen_at: new Date().toISOString() },
      cp,
    )
    for (const a of answer.accepted as {
      seq: number
      kind: string
      case_id?: string
      entry_hash: string
      leaf_index: number
      inclusion_proof: string[]
    }[]) {
      const e = batch.find((b) => b.seq === a.seq)
      if (!e || e.hash !== a.entry_hash)
        throw new RatchetError('conflict', `${c.server} acknowledged an entry it was not sent (seq ${a.seq})`)
      if (!proves(e, a.leaf_index, cp.size, a.inclusion_proof, cp.root))
        throw new RatchetError('conflict', `${c.server}: the receipt for seq ${a.seq} does not prove it is in the log`)
      keep({
        seq: a.seq,
        kind: a.kind,
        ...(a.case_id ? { case_id: a.case_id } : {}),
        entry_hash: a.entry_hash,
        leaf_index: a.leaf_index,
        leaf_hash: e.leafHash.toString('base64'),
        tree_size: cp.size,
        inclusion_proof: a.inclusion_proof,
        checkpoint: note,
      })
      sent++
      if (a.kind === 'case') casesSent++
    }
    c.checkpoint = cp
    c.note = note
    remember(c, env)
  }
  remember(c, env)
  return {
    server: c.server,
    log: c.pin.log,
    pinned_now: c.pinnedNow,
    sent,
    cases_sent: casesSent,
    already: logged.length,
    receipts_added: added,
    tree_size: c.checkpoint.size,
  }
}

// ---- verify ------------------------------------------------------------------------------------------

export interface ServerVerdict {
  server: string
  log: string
  pinned_now: boolean
  checkpoint: { size: number; root: string }
  /** Local entries proven in the log at this checkpoint. */
  proven: number
  unsent: number
  problems: Problem[]
}

export async function verifyWithServer(
  paths: Paths,
  agent: string,
  rawServer: string,
  ledgerFile: string,
  env?: NodeJS.ProcessEnv,
): Promise<ServerVerdict> {
  const c = await contact(rawServer, env)
  const local = localEntries(ledgerFile)
  const logged = await agentEntries(c.server, agent)
  const problems = compareWithLog(local, logged)
  let proven = 0
  for (const r of logged) {
    const e = local.find((x) => x.seq === r.seq)
    if (!e || e.hash !== r.entry_hash) continue
    const p = await getJson<{ inclusion_proof: string[] }>(
      c.server,
      `/api/v1/log/proof/inclusion?index=${r.leaf_index}&size=${c.checkpoint.size}`,
    )
    if (proves(e, r.leaf_index, c.checkpoint.size, p.inclusion_proof, c.checkpoint.root)) proven++
    else
      problems.push({
        seq: r.seq,
        problem: `seq ${r.seq} (leaf ${r.leaf_index}) is not proven in the log's checkpoint of ${c.checkpoint.size}`,
      })
  }
  // A receipt is this machine's own memory of what the server accepted: each must still match the ledger.
  for (const r of readReceipts(paths, agent).filter((x) => x.server === c.server && x.log === c.pin.log)) {
    const e = local.find((x) => x.seq === r.seq)
    if (!e)
      problems.push({
        seq: r.seq,
        problem: `a receipt from ${r.at.slice(0, 16)} shows seq ${r.seq} accepted at leaf ${r.leaf_index}; the local ledger no longer has it (rolled back or cut short)`,
      })
    else if (e.hash !== r.entry_hash)
      problems.push({
        seq: r.seq,
        problem: `a receipt shows a different seq ${r.seq} accepted at leaf ${r.leaf_index}: the local entry was rewritten or re-signed`,
      })
  }
  const seen = new Set<string>()
  const unique = problems.filter((p) => (seen.has(p.problem) ? false : (seen.add(p.problem), true)))
  remember(c, env)
  return {
    server: c.server,
    log: c.pin.log,
    pinned_now: c.pinnedNow,
    checkpoint: { size: c.checkpoint.size, root: c.checkpoint.root },
    proven,
    unsent: unsent(local, logged).length,
    problems: unique.sort((a, b) => a.seq - b.seq),
  }
}
