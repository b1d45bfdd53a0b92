// The case server's contract suite, run on each store behind the same query layer: the embedded SQLite
// always, PostgreSQL when it answers (CI starts it; without it this says what it skipped), each in a
// store of its own. A real server on a loopback port; the HTTP boundary is attacked with bad and missing
// signatures, payloads changed after signing, replays of every kind, unenrolled and revoked keys,
// oversized and malformed bodies and injection in filters: each a 4xx with a reason code and nothing
// stored. What is accepted is proven in the signed log.
import crypto from 'node:crypto'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { canonicalJson, type DsseEnvelope } from '../../lib/core/courtroom/canonical'
import { envelopeFor } from '../../lib/io/courtroom/ledger'
import { nextEntry } from '../../lib/core/courtroom/chain'
import { generateKey } from '../../lib/io/courtroom/keys'
import { leafHash, verifyConsistency, verifyInclusion } from '../../lib/core/transparency/merkle'
import { openNote, parseCheckpoint, parseVerifierKey } from '../../lib/core/transparency/note'
import { revokeKey } from '../../lib/server/keys'
import { sha256 } from '../../lib/server/log'
import {
  Agent,
  caseBody,
  counts,
  enroll,
  freshStore,
  getJson,
  pgAvailable,
  post,
  skipped,
  startServer,
  submission,
  type Engine,
  type Store,
  type TestServer,
} from '../support/serve'

const PG = await pgAvailable()
if (!PG)
  skipped(
    'the PostgreSQL half of the case-server contract suite',
    'no PostgreSQL at 127.0.0.1:5432 (CI starts one: .ci/run)',
  )
const ENGINES: Engine[] = PG ? ['sqlite', 'postgres'] : ['sqlite']

const b64 = (s: string) => Buffer.from(s, 'base64')
const reencode = (env: DsseEnvelope, change: (payload: Record<string, unknown>) => void): DsseEnvelope => {
  const p = JSON.parse(b64(env.payload).toString())
  change(p)
  return { ...env, payload: Buffer.from(canonicalJson(p)).toString('base64') }
}

/** Opens a checkpoint with the key the server publishes. */
async function checkpoint(url: string, note?: string) {
  const key = parseVerifierKey(sha256, (await (await fetch(`${url}/api/v1/log/key`)).text()).trim())
  if ('problem' in key) throw new Error(key.problem)
  const text = note ?? (await (await fetch(`${url}/api/v1/log/checkpoint`)).text())
  const opened = openNote(sha256, text, key, (m, s) =>
    crypto.verify(
      null,
      m,
      crypto.createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: key.publicKey.toString('base64url') },
        format: 'jwk',
      }),
      s,
    ),
  )
  if ('problem' in opened) throw new Error(opened.problem)
  const cp = parseCheckpoint(opened.text)
  if ('problem' in cp) throw new Error(cp.problem)
  return cp
}

describe.each(ENGINES)('the case server on %s', (engine) => {
  let store: Store
  let srv: TestServer
  beforeEach(async () => {
    store = await freshStore(engine)
    srv = await startServer(store)
  })
  afterEach(async () => {
    await srv.close()
    await store.drop()
  })

  it('an enrolled agent submits its ledger; each accepted entry is proven in the signed checkpoint; the case is listed, shown with both signatures, counted', async () => {
    const a = new Agent()
    await enroll(store.db, a)
    a.addCase()
    const r = await post(srv.url, submission(srv.url, a.envelopes, a.key))
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const accepted = r.body.accepted as {
      seq: number
      leaf_index: number
      inclusion_proof: string[]
      entry_hash: string
      trust: string
    }[]
    expect(accepted.map((x) => [x.seq, x.leaf_index, x.trust])).toEqual([
      [0, 0, 'enrolled'],
      [1, 1, 'enrolled'],
    ])
    const cp = await checkpoint(srv.url, r.body.checkpoint as string)
    expect(cp.size).toBe(2)
    for (const [i, x] of accepted.entries()) {
      const leaf = leafHash(sha256, Buffer.from(canonicalJson(a.envelopes[i])))
      expect(verifyInclusion(sha256, x.leaf_index, cp.size, leaf, x.inclusion_proof.map(b64), b64(cp.root)).ok).toBe(
        true,
      )
    }
    const rec = a.entries[1].body as Record<string, unknown>
    const list = await getJson(`${srv.url}/api/v1/public/cases`)
    expect(list.body.cases).toEqual([
      expect.objectContaining({ case_id: rec.case_id, verdict: 'GUILTY', leaf_index: 1, trust: 'enrolled' }),
    ])
    const one = await getJson(`${srv.url}/api/v1/public/cases/${rec.case_id}`)
    expect(one.body).toMatchObject({ case_id: rec.case_id, public_key: a.key!.public, severity: 'severe', seq: 1 })
    // Anyone can check the public record again: the stored ledger envelope is the one the agent signed.
    expect((one.body.signed as { entry: unknown }).entry).toEqual(a.envelopes[1])
    const stats = await getJson(`${srv.url}/api/v1/public/statistics`)
    expect(stats.body).toMatchObject({
      total_cases: 1,
      guilty: 1,
      agents: 1,
      by_offense: [{ offense_type: 'route_around', count: 1, guilty: 1 }],
      log: { size: 2 },
    })
    expect(stats.body.over_time).toEqual([
      { day: '2026-11-20', verdict: 'GUILTY', severity: 'severe', offense_type: 'route_around', count: 1 },
    ])
    const health = await getJson(`${srv.url}/health`)
    expect(health.body).toMatchObject({ status: 'ok', store: { kind: engine, up: true }, log: { size: 2 } })
    const metrics = await (await fetch(`${srv.url}/metrics`)).text()
    expect(metrics).toMatch(/ratchet_submissions_total\{outcome="accepted",reason="accepted"\} 1/)
    expect(metrics).toMatch(/ratchet_log_size 2/)
    expect(metrics).toMatch(/ratchet_store_up 1/)
    expect(metrics).toMatch(/process_cpu_user_seconds_total/)
  })

  describe('refused at the HTTP boundary: a 4xx with a reason code, and nothing stored', () => {
    let a: Agent
    let before: Record<string, number>
    beforeEach(async () => {
      a = new Agent()
      await enroll(store.db, a)
      a.addCase()
      expect((await post(srv.url, submission(srv.url, a.envelopes, a.key))).status).toBe(201)
      before = await counts(store.db)
    })
    const refusedWith = async (body: unknown, status: number, reason: string, headers?: Record<string, string>) => {
      const r = await post(srv.url, body, headers)
      expect({ status: r.status, reason: r.body.reason }, JSON.stringify(r.body)).toEqual({ status, reason })
      expect(typeof r.body.detail).toBe('string')
      expect(await counts(store.db)).toEqual(before)
      return r
    }
    const next = () => a.addCase()

    it.each([
      [
        'a signature by another key',
        () => ({
          ...submission(srv.url, [next()], a.key),
          signatures: submission(srv.url, [a.envelopes[a.envelopes.length - 1]], generateKey()).signatures,
        }),
        401,
        'bad_signature',
      ],
      ['no signature', () => ({ ...submission(srv.url, [next()], a.key), signatures: [] }), 401, 'missing_signature'],
      [
        'a garbage signature',
        () => ({ ...submission(srv.url, [next()], a.key), signatures: [{ keyid: a.key!.keyid, sig: 'AAAA' }] }),
        401,
        'bad_signature',
      ],
      [
        'the case changed after signing (severity lowered), wrapper re-signed',
        () =>
          submission(
            srv.url,
            [reencode(next(), (e) => ((e.body as Record<string, unknown>).severity = 'minor'))],
            a.key,
          ),
        401,
        'bad_entry_signature',
      ],
      [
        'the case text changed after signing',
        () =>
          submission(
            srv.url,
            [reencode(next(), (e) => ((e.body as Record<string, unknown>).primary_failure = 'Nothing happened.'))],
            a.key,
          ),
        401,
        'bad_entry_signature',
      ],
      [
        'the submission changed after signing (origin swapped)',
        () => reencode(submission('https://elsewhere.example', [next()], a.key), (s) => (s.origin = srv.url)),
        401,
        'bad_signature',
      ],
      [
        'the entry signed by a key that is not the agent’s',
        () => (next(), submission(srv.url, [envelopeFor(a.entries[a.entries.length - 1], [generateKey()])], a.key)),
        401,
        'bad_entry_signature',
      ],
      [
        'a stale timestamp (an hour old)',
        () => submission(srv.url, [next()], a.key, new Date(Date.now() - 3600_000).toISOString()),
        403,
        'stale_timestamp',
      ],
      [
        'a timestamp in the future',
        () => submission(srv.url, [next()], a.key, new Date(Date.now() + 3600_000).toISOString()),
        403,
        'future_timestamp',
      ],
      [
        'signed for another server',
        () => submission('https://cases.other.example', [next()], a.key),
        403,
        'wrong_origin',
      ],
      [
        'not canonical JSON (same values, other order)',
        () => {
          const s = submission(srv.url, [next()], a.key)
          const p = JSON.parse(b64(s.payload).toString())
          return {
            ...s,
            payload: Buffer.from(
              JSON.stringify({ v: p.v, origin: p.origin, entries: p.entries, submitted_at: p.submitted_at }),
            ).toString('base64'),
          }
        },
        400,
        'not_canonical',
      ],
      [
        'the wrong payload type',
        () => ({ ...submission(srv.url, [next()], a.key), payloadType: 'application/json' }),
        400,
        'wrong_payload_type',
      ],
      [
        'an unknown field in the submission',
        () => reencode(submission(srv.url, [next()], a.key), (s) => (s.extra = 1)),
        400,
        'malformed_submission',
      ],
      ['no entries', () => submission(srv.url, [], a.key), 400, 'malformed_submission'],
    ] as const)('%s', async (_what, make, status, reason) => {
      await refusedWith(make(), status, reason)
    })

    it.each([
      [
        'a primary failure over 280 characters',
        { primary_failure: 'x'.repeat(281) },
        /primary_failure: longer than 280/,
      ],
      [
        'a verdict that does not follow from the vote',
        { verdict: 'GUILTY', vote: '1-2' },
        /does not follow from the vote/,
      ],
      ['a single juror convicting', { verdict: 'GUILTY', vote: '1-0', abstentions: 2 }, /does not follow/],
      ['an unknown severity', { severity: 'catastrophic' }, /severity/],
      ['a control character', { agent_commentary: 'a\u0000b' }, /control characters/],
      ['an extra field', { user_email: 'x@example.com' }, /unknown field user_email/],
      ['another agent named inside', { anonymized_agent_id: 'agent_0000000000000000' }, /anonymized_agent_id/],
      ['markup in the offense id', { offense_type: '<script>' }, /offense_type/],
      [
        'a credential in the text',
        { primary_failure: 'Ran git push https://x:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r' },
        /primary_failure: holds what looks like a credential/,
      ],
      [
        'a panel where nobody voted',
        { verdict: 'NOT GUILTY', vote: '0-0', abstentions: 3 },
        /fewer votes than a quorum/,
      ],
    ])('an invalid case record: %s', async (_what, over, detail) => {
      const r = await refusedWith(
        submission(srv.url, [a.append('case', caseBody(a.agent, over))], a.key),
        422,
        'invalid_case',
      )
      expect(r.body.detail).toMatch(detail)
    })

    it('replays: the same submission again, an old sequence number, a gap, a rewritten chain, a case id already on record', async () => {
      const first = submission(srv.url, a.envelopes, a.key)
      await refusedWith(first, 409, 'duplicate')
      // seq 1 again, with other content (a fork of the accepted chain)
      const fork = envelopeFor({ ...a.entries[1], body: caseBody(a.agent) }, [a.key!])
      await refusedWith(submission(srv.url, [fork], a.key), 409, 'sequence_replayed')
      const skipped = a.addCase()
      const later = a.addCase()
      await refusedWith(submission(srv.url, [later], a.key), 409, 'sequence_gap')
      const broken = envelopeFor({ ...a.entries[a.entries.length - 2], prev: 'sha256:' + '0'.repeat(64) }, [a.key!])
      await refusedWith(submission(srv.url, [broken], a.key), 409, 'chain_broken')
      const sameId = envelopeFor({ ...a.entries[a.entries.length - 2], body: { ...(a.entries[1].body as object) } }, [
        a.key!,
      ])
      await refusedWith(submission(srv.url, [sameId], a.key), 409, 'duplicate_case')
      // The genuine next entries still land, in order.
      expect((await post(srv.url, submission(srv.url, [skipped, later], a.key))).status).toBe(201)
    })

    it('an unenrolled key, another agent claiming an enrolled key, a revoked key', async () => {
      const stranger = new Agent()
      stranger.addCase()
      await refusedWith(submission(srv.url, stranger.envelopes, stranger.key), 403, 'unknown_key')
      // A new agent id whose genesis names a's key (enrolled for a): refused, the key is a's.
      const twin = 'agent_' + crypto.randomBytes(8).toString('hex')
      const g = envelopeFor(
        nextEntry(null, twin, 'genesis', { public_key: a.key!.public }, '2026-11-20T09:00:00.000Z'),
        [a.key!],
      )
      await refusedWith(submission(srv.url, [g], a.key), 403, 'key_bound_elsewhere')
      await revokeKey(store.db, a.key!.keyid)
      before = await counts(store.db)
      await refusedWith(submission(srv.url, [next()], a.key), 403, 'key_revoked')
      await refusedWith(submission(srv.url, [g], a.key), 403, 'key_revoked')
    })

    it('bodies: oversized, malformed JSON, prototype pollution, not JSON at all, empty', async () => {
      await refusedWith(
        { ...submission(srv.url, [next()], a.key), padding: 'x'.repeat(600 * 1024) },
        413,
        'body_too_large',
      )
      await refusedWith('{"payload": ', 400, 'malformed_json')
      await refusedWith(
        '{"__proto__": {"polluted": true}, "payload": "", "payloadType": "", "signatures": []}',
        400,
        'malformed_json',
      )
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      await refusedWith('payload=1', 415, 'unsupported_media_type', {
        'content-type': 'application/x-www-form-urlencoded',
      })
      await refusedWith('', 400, 'malformed_json')
      await refusedWith('[]', 400, 'not_an_envelope')
      await refusedWith('null', 400, 'not_an_envelope')
    })
  })

  it('trust on first use is off by default, and labelled when the operator turns it on', async () => {
    const a = new Agent()
    a.addCase()
    expect((await post(srv.url, submission(srv.url, a.envelopes, a.key))).body.reason).toBe('unknown_key')
    const tofu = await startServer(store, { tofu: true })
    try {
      const r = await post(tofu.url, submission(tofu.url, a.envelopes, a.key))
      expect(r.status).toBe(201)
      expect((r.body.accepted as { trust: string }[]).map((x) => x.trust)).toEqual(['tofu', 'tofu'])
      const list = await getJson(`${tofu.url}/api/v1/public/cases`)
      expect((list.body.cases as { trust: string }[])[0].trust).toBe('tofu')
      const keys = await store.db.all<{ enrolled_by: string }>(`SELECT enrolled_by FROM agent_keys`)
      expect(keys).toEqual([{ enrolled_by: 'tofu' }])
    } finally {
      await tofu.close()
    }
  })

  it('rotation and revocation arrive as the ledger’s own records: the old key stops, the new one signs, a revoked agent is closed', async () => {
    const a = new Agent()
    await enroll(store.db, a)
    const old = a.key!
    a.addCase()
    a.rotate()
    a.addCase()
    // Signed by the key in force after the entries (the new one); the old one no longer signs.
    expect((await post(srv.url, submission(srv.url, a.envelopes, old))).body.reason).toBe('bad_signature')
    expect((await post(srv.url, submission(srv.url, a.envelopes, a.key))).status).toBe(201)
    const keys = await store.db.all<{
      key_id: string
      enrolled_by: string
      retired_at: string | null
      case_count: number
    }>(`SELECT key_id, enrolled_by, retired_at, case_count FROM agent_keys ORDER BY enrolled_at, enrolled_by`)
    expect(keys.map((k) => [k.key_id === old.keyid, k.enrolled_by, !!k.retired_at, Number(k.case_count)])).toEqual([
      [true, 'operator', true, 1],
      [false, 'rotation', false, 1],
    ])
    a.revoke()
    // The revocation ends the chain: no key is left to sign it with.
    expect((await post(srv.url, submission(srv.url, [a.envelopes[a.envelopes.length - 1]], null))).status).toBe(201)
    const more = envelopeFor(
      nextEntry(
        { seq: a.entries.length - 1, hash: 'sha256:' + 'a'.repeat(64) },
        a.agent,
        'case',
        caseBody(a.agent),
        '2026-11-20T11:00:00.000Z',
      ),
      [generateKey()],
    )
    expect((await post(srv.url, submission(srv.url, [more], generateKey()))).body.reason).toBe('agent_revoked')
    // An unsigned submission that does not end with a revocation is refused.
    const b = new Agent()
    await enroll(store.db, b)
    expect((await post(srv.url, submission(srv.url, b.envelopes, null))).body.reason).toBe('missing_signature')
  })

  it('filters: checked values only, injection refused with the parameter named; pagination newest first without repeats', async () => {
    const a = new Agent()
    await enroll(store.db, a)
    for (let i = 0; i < 7; i++)
      a.addCase(
        i % 2
          ? { verdict: 'NOT GUILTY', vote: '1-2', severity: 'minor', offense_type: 'drift', offense_name: 'Drift' }
          : {},
      )
    expect((await post(srv.url, submission(srv.url, a.envelopes, a.key))).status).toBe(201)
    for (const [q, param] of [
      ["verdict=GUILTY' OR '1'='1", 'verdict'],
      ['offense=drift;DROP TABLE cases', 'offense'],
      ['severity=minor%27--', 'severity'],
      ['agent=agent_x', 'agent'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=1e2', 'limit'],
      ['cursor=djE6LTE', 'cursor'],
      ['cursor=%27', 'cursor'],
      ['order=leaf_index', 'order'],
      ['verdict=GUILTY&verdict=NOT%20GUILTY', 'verdict'],
    ]) {
      const r = await getJson(`${srv.url}/api/v1/public/cases?${q}`)
      expect({ q, status: r.status, reason: r.body.reason, param: String(r.body.detail).split(':')[0] }).toEqual({
        q,
        status: 400,
        reason: 'bad_filter',
        param,
      })
    }
    expect(await counts(store.db)).toMatchObject({ cases: 7 })
    const ids = (r: { body: Record<string, unknown> }) =>
      (r.body.cases as { case_id: string; leaf_index: number }[]).map((c) => c.leaf_index)
    expect(ids(await getJson(`${srv.url}/api/v1/public/cases?verdict=NOT%20GUILTY`))).toEqual([6, 4, 2])
    expect(
      ids(await getJson(`${srv.url}/api/v1/public/cases?verdict=not_guilty&severity=minor&offense=drift`)),
    ).toEqual([6, 4, 2])
    expect(ids(await getJson(`${srv.url}/api/v1/public/cases?severity=severe&agent=${a.agent}`))).toEqual([7, 5, 3, 1])
    const seen: number[] = []
    let url = `${srv.url}/api/v1/public/cases?limit=3`
    for (;;) {
      const page = await getJson(url)
      seen.push(...ids(page))
      if (!page.body.next_cursor) break
      url = `${srv.url}/api/v1/public/cases?limit=3&cursor=${page.body.next_cursor}`
    }
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1])
    expect((await getJson(`${srv.url}/api/v1/public/cases/case_1_zz`)).body.reason).toBe('bad_filter')
    expect((await getJson(`${srv.url}/api/v1/public/cases/case_1_00000000`)).status).toBe(404)
    expect((await getJson(`${srv.url}/api/v1/nothing`)).body).toMatchObject({ reason: 'not_found' })
  })

  it('agents submitting at once: one log, every entry proven in the final checkpoint, each checkpoint extending the last', async () => {
    const agents = Array.from({ length: 4 }, () => new Agent())
    for (const a of agents) await enroll(store.db, a)
    const first = await Promise.all(agents.map((a) => post(srv.url, submission(srv.url, a.envelopes, a.key))))
    expect(first.map((r) => r.status)).toEqual([201, 201, 201, 201])
    const seenCps: { size: number; root: string }[] = []
    for (let round = 0; round < 5; round++) {
      const rs = await Promise.all(agents.map((a) => post(srv.url, submission(srv.url, [a.addCase()], a.key))))
      expect(rs.map((r) => r.status)).toEqual([201, 201, 201, 201])
      for (const r of rs) seenCps.push(await checkpoint(srv.url, r.body.checkpoint as string))
    }
    const final = await checkpoint(srv.url)
    expect(final.size).toBe(24)
    for (const cp of seenCps) {
      const proof =
        cp.size === final.size
          ? []
          : ((await getJson(`${srv.url}/api/v1/log/proof/consistency?from=${cp.size}&to=${final.size}`)).body
              .consistency_proof as string[])
      expect(verifyConsistency(sha256, cp.size, final.size, proof.map(b64), b64(cp.root), b64(final.root)).ok).toBe(
        true,
      )
    }
    for (const a of agents) {
      const logged = (await getJson(`${srv.url}/api/v1/public/agents/${a.agent}/entries`)).body.entries as {
        seq: number
        leaf_index: number
      }[]
      expect(logged.map((l) => l.seq)).toEqual([0, 1, 2, 3, 4, 5])
      for (const l of logged) {
        const p = await getJson(`${srv.url}/api/v1/log/proof/inclusion?index=${l.leaf_index}&size=${final.size}`)
        expect(
          verifyInclusion(
            sha256,
            l.leaf_index,
            final.size,
            leafHash(sha256, Buffer.from(canonicalJson(a.envelopes[l.seq]))),
            (p.body.inclusion_proof as string[]).map(b64),
            b64(final.root),
          ).ok,
        ).toBe(true)
      }
    }
  })

  it('proof queries outside the log are refused, not guessed', async () => {
    for (const q of [
      'inclusion?index=0&size=1',
      'inclusion?index=-1&size=0',
      'inclusion?index=a&size=b',
      'consistency?from=0&to=0',
      'consistency?from=2&to=1',
    ]) {
      const r = await getJson(`${srv.url}/api/v1/log/proof/${q}`)
      expect({ q, status: r.status, reason: r.body.reason }).toEqual({ q, status: 400, reason: 'bad_filter' })
    }
  })
})

describe('rate limits per agent key', () => {
  let store: Store
  let srv: TestServer
  beforeAll(async () => {
    store = await freshStore('sqlite')
    srv = await startServer(store, { perKeyPerMinute: 3 })
  })
  afterAll(async () => {
    await srv.close()
    await store.drop()
  })
  it('a key past its limit gets 429 rate_limited; another key is unaffected', async () => {
    const a = new Agent()
    const b = new Agent()
    await enroll(store.db, a)
    await enroll(store.db, b)
    expect((await post(srv.url, submission(srv.url, a.envelopes, a.key))).status).toBe(201)
    for (let i = 0; i < 2; i++)
      expect((await post(srv.url, submission(srv.url, [a.addCase()], a.key))).status).toBe(201)
    const over = await post(srv.url, submission(srv.url, [a.addCase()], a.key))
    expect({ status: over.status, reason: over.body.reason }).toEqual({ status: 429, reason: 'rate_limited' })
    expect((await post(srv.url, submission(srv.url, b.envelopes, b.key))).status).toBe(201)
  })
})
