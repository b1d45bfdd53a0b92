// What the case server decides about a parsed submission, pure: the signed context against this server,
// then each entry against the agent's chain and the keys on record (see submission.ts for the wire shape).

import { fromBase64, type DsseEnvelope } from '../courtroom/canonical'
import { keyIdOf, signersOf, type ChainCrypto, type Entry } from '../courtroom/chain'
import { CLI } from '../manifest'
import { isRefusal, refuse, type Item, type Parsed, type Refusal, type Submission } from './submission'

export interface KeyOnRecord {
  key_id: string
  public_key: string
  agent_id: string | null
  enrolled_by: 'operator' | 'tofu' | 'rotation' | 'code'
  revoked_at: string | null
  retired_at: string | null
}

export interface AgentOnRecord {
  agent_id: string
  last_seq: number
  last_hash: string
  key_id: string
  revoked: boolean
}

export interface Context {
  /** This server's origin, as clients must sign it. */
  origin: string
  now: number
  /** How far the signed time may lie in the past / future. */
  freshMs: number
  skewMs: number
  /** Trust on first use: an unknown key's genesis enrolls it (labelled tofu). Off unless the operator turns it on. */
  tofu: boolean
}

export interface Accepted {
  refused?: false
  /** Per entry: the key that signed it and the trust it carries. */
  signed: { keyId: string; trust: 'enrolled' | 'tofu' }[]
  /** Keys to write: new ones (first use, rotation), the one bound to the agent, retired and revoked ones. */
  enroll: { key_id: string; public_key: string; enrolled_by: KeyOnRecord['enrolled_by'] }[]
  bind?: string
  retire: string[]
  revoke: string[]
  /** The agent's chain after these entries. */
  agent: AgentOnRecord
}

const normOrigin = (o: string) => o.replace(/\/+$/, '').toLowerCase()

/** Origin and freshness: what the signed context says, against this server. */
export function checkContext(
  s: Submission,
  ctx: Pick<Context, 'origin' | 'now' | 'freshMs' | 'skewMs'>,
): Refusal | undefined {
  if (normOrigin(s.origin) !== normOrigin(ctx.origin))
    return refuse('wrong_origin', `signed for ${s.origin.slice(0, 200)}, not for this server (${ctx.origin})`)
  const at = Date.parse(s.submitted_at)
  if (at < ctx.now - ctx.freshMs)
    return refuse(
      'stale_timestamp',
      `signed at ${s.submitted_at}, more than ${Math.round(ctx.freshMs / 60000)} min ago: sign it again`,
    )
  if (at > ctx.now + ctx.skewMs)
    return refuse('future_timestamp', `signed at ${s.submitted_at}, in the future (check the clock)`)
  return undefined
}

const verifies = (c: ChainCrypto, env: DsseEnvelope, keyId: string, pub: string) =>
  signersOf(c, env, { [keyId]: pub }).has(keyId)

/**
 * Signatures and the chain, entry by entry, then the submission's own signature: by the key the chain
 * leaves in force (after any rotation in it), never one the request names. `agent` is the agent's chain
 * so far (undefined before its first entry); `keyOf` the keys on record.
 */
export function judge(
  c: ChainCrypto,
  p: Parsed,
  ctx: Context,
  agent: AgentOnRecord | undefined,
  keyOf: (keyId: string) => KeyOnRecord | undefined,
): Accepted | Refusal {
  const context = checkContext(p.submission, ctx)
  if (context) return context
  const out: Accepted = { signed: [], enroll: [], retire: [], revoke: [], agent: agent as AgentOnRecord }
  // A key on record, or one this submission enrolls (bound to its agent).
  const known = (id: string): KeyOnRecord | undefined =>
    keyOf(id) ??
    (out.enroll.find((k) => k.key_id === id) && {
      ...out.enroll.find((k) => k.key_id === id)!,
      agent_id: p.agent,
      revoked_at: null,
      retired_at: null,
    })
  let state = agent
  let trust: Trust = 'enrolled'
  for (const [i, item] of p.items.entries()) {
    const next: Step | Refusal = state
      ? acceptNext(c, item, i, { state, trust }, keyOf, known, out)
      : acceptGenesis(c, item, i, ctx, keyOf, out)
    if (isRefusal(next)) return next
    state = next.state
    trust = next.trust
  }
  out.agent = state!
  const outer = state!.revoked ? undefined : outerSignatureRefused(c, p, known(state!.key_id)!)
  return outer ?? out
}

type Trust = 'enrolled' | 'tofu'

/** Where the walk along the chain stands after an entry: the agent's chain so far and the trust its keys carry. */
interface Step {
  state: AgentOnRecord
  trust: Trust
}

/** The first entry this server holds of an agent: its genesis, signed by a key enrolled here (or, with tofu, enrolled by it). */
function acceptGenesis(
  c: ChainCrypto,
  { entry: e, entryHash, envelope }: Item,
  i: number,
  ctx: Context,
  keyOf: (keyId: string) => KeyOnRecord | undefined,
  out: Accepted,
): Step | Refusal {
  const at = `entries[${i}] (seq ${e.seq})`
  let trust: Trust
  if (e.kind !== 'genesis' || e.seq !== 0)
    return refuse(
      'sequence_gap',
      `this server holds nothing of ${e.agent} yet: its entries start with the genesis (seq 0), ${at} is not it`,
      i,
    )
  if (typeof e.body.public_key !== 'string' || fromBase64(e.body.public_key).length !== 32)
    return refuse('malformed_entry', `${at}: the genesis names no 32-byte public_key`, i)
  const pub = e.body.public_key
  const keyId = keyIdOf(c, pub)
  const k = keyOf(keyId)
  if (!k) {
    if (!ctx.tofu)
      return refuse(
        'unknown_key',
        `key ${keyId} is not enrolled here (the operator runs: ${CLI} serve keys add <public key>)`,
        i,
      )
    out.enroll.push({ key_id: keyId, public_key: pub, enrolled_by: 'tofu' })
    trust = 'tofu'
  } else {
    if (k.revoked_at) return refuse('key_revoked', `key ${keyId} was revoked on ${k.revoked_at}`, i)
    if (k.agent_id && k.agent_id !== e.agent)
      return refuse('key_bound_elsewhere', `key ${keyId} belongs to another agent`, i)
    trust = k.enrolled_by === 'tofu' ? 'tofu' : 'enrolled'
  }
  out.bind = keyId
  if (!verifies(c, envelope, keyId, pub))
    return refuse('bad_entry_signature', `${at}: the genesis is not signed by the key it names`, i)
  out.signed.push({ keyId, trust })
  return { state: { agent_id: e.agent, last_seq: 0, last_hash: entryHash, key_id: keyId, revoked: false }, trust }
}

/** An entry after the last one accepted: the next link, signed by the key in force (a rotation also by the new key). */
function acceptNext(
  c: ChainCrypto,
  { entry: e, entryHash, envelope }: Item,
  i: number,
  { state, trust: trustSoFar }: Step,
  keyOf: (keyId: string) => KeyOnRecord | undefined,
  known: (keyId: string) => KeyOnRecord | undefined,
  out: Accepted,
): Step | Refusal {
  const at = `entries[${i}] (seq ${e.seq})`
  const broken = chainLinkRefused(e, at, i, state)
  if (broken) return broken
  const k = known(state.key_id)
  if (!k) return refuse('unknown_key', `the key in force for ${e.agent} (${state.key_id}) is not on record`, i)
  if (k.revoked_at) return refuse('key_revoked', `key ${k.key_id} was revoked on ${k.revoked_at}`, i)
  const pub = k.public_key
  const trust = k.enrolled_by === 'tofu' || trustSoFar === 'tofu' ? 'tofu' : 'enrolled'
  let next = state.key_id
  if (e.kind === 'rotation') {
    const newPub = e.body.new_public_key
    if (typeof newPub !== 'string' || fromBase64(newPub).length !== 32)
      return refuse('malformed_entry', `${at}: the rotation names no 32-byte new_public_key`, i)
    const newId = keyIdOf(c, newPub)
    if (!verifies(c, envelope, state.key_id, pub) || !verifies(c, envelope, newId, newPub))
      return refuse('bad_entry_signature', `${at}: a rotation is signed by the key in force and by the new key`, i)
    const had = keyOf(newId)
    if (had?.agent_id && had.agent_id !== e.agent)
      return refuse('key_bound_elsewhere', `key ${newId} belongs to another agent`, i)
    if (had?.revoked_at) return refuse('key_revoked', `key ${newId} was revoked on ${had.revoked_at}`, i)
    if (!had) out.enroll.push({ key_id: newId, public_key: newPub, enrolled_by: 'rotation' })
    out.retire.push(state.key_id)
    next = newId
  } else if (!verifies(c, envelope, state.key_id, pub))
    return refuse(
      'bad_entry_signature',
      `${at}: the signature does not verify with key ${state.key_id}: changed after signing, or signed by another key`,
      i,
    )
  if (e.kind === 'revocation') out.revoke.push(state.key_id)
  out.signed.push({ keyId: state.key_id, trust })
  return {
    state: { agent_id: e.agent, last_seq: e.seq, last_hash: entryHash, key_id: next, revoked: e.kind === 'revocation' },
    trust,
  }
}

/** Why entry `e` cannot be the next link of the agent's chain: closed, replayed, a gap, or a rewritten ledger. */
function chainLinkRefused(e: Entry, at: string, i: number, state: AgentOnRecord): Refusal | undefined {
  if (state.revoked)
    return refuse(
      'agent_revoked',
      `${e.agent} closed its ledger with a revocation: nothing more is accepted from it`,
      i,
    )
  if (e.seq <= state.last_seq)
    return refuse(
      'sequence_replayed',
      `${at} is not after the last accepted entry of ${e.agent} (seq ${state.last_seq})`,
      i,
    )
  if (e.seq > state.last_seq + 1)
    return refuse('sequence_gap', `${at} skips seq ${state.last_seq + 1} of ${e.agent}: submit the ledger in order`, i)
  if (e.prev !== state.last_hash)
    return refuse(
      'chain_broken',
      `${at} does not follow the entry accepted as seq ${state.last_seq} (its prev hash differs): the ledger was rewritten`,
      i,
    )
  return undefined
}

/** The submission's own signature, by `k`, the key in force after its entries. */
function outerSignatureRefused(c: ChainCrypto, p: Parsed, k: KeyOnRecord): Refusal | undefined {
  if (!p.outer.signatures.length) return refuse('missing_signature', 'the submission carries no signature')
  if (!verifies(c, p.outer, k.key_id, k.public_key))
    return refuse(
      'bad_signature',
      `the submission's signature does not verify with key ${k.key_id}, the key in force after these entries`,
    )
  return undefined
}
