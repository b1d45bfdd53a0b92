// Redis is optional for the case server: the seed's caches and rate limits shared between instances.
// With the shared Redis (a key prefix of this test's own, deleted after): lists are served from the
// cache and an accepted case is visible at once; two instances share one per-key limit. With a Redis of
// this test's own, stopped mid-way: the server keeps serving and accepting, /health says degraded.
import { spawn, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import net from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  Agent,
  REDIS_URL,
  dropPrefix,
  enroll,
  freshStore,
  getJson,
  post,
  redisAvailable,
  skipped,
  startServer,
  submission,
  type Store,
  type TestServer,
} from '../support/serve'

const SHARED = await redisAvailable()
if (!SHARED) skipped('the shared-Redis cache and rate-limit tests', `no Redis at ${REDIS_URL} (CI starts one: .ci/run)`)
const BINARY = await new Promise<boolean>((resolve) =>
  spawn('redis-server', ['--version'])
    .on('error', () => resolve(false))
    .on('close', (c) => resolve(c === 0)),
)
if (!BINARY) skipped('the Redis-stopped test', 'no redis-server binary here')

const metric = async (url: string, name: string) => {
  const m = new RegExp(`^${name.replace(/[{}"]/g, (c) => '\\' + c)} (\\d+(?:\\.\\d+)?)$`, 'm').exec(
    await (await fetch(`${url}/metrics`)).text(),
  )
  return m ? Number(m[1]) : 0
}

describe.skipIf(!SHARED)('with the shared Redis, under a prefix of its own', () => {
  let store: Store
  let prefix: string
  const servers: TestServer[] = []
  beforeEach(async () => {
    store = await freshStore('sqlite')
    prefix = `ratchet-test:${process.pid}:${crypto.randomBytes(4).toString('hex')}:`
  })
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close()
    await store.drop()
    await dropPrefix(REDIS_URL, prefix)
  })

  it('lists and statistics come from the cache; an accepted case is in the next list at once', async () => {
    const srv = await startServer(store, { redis: { url: REDIS_URL, prefix } })
    servers.push(srv)
    const a = new Agent()
    await enroll(store.db, a)
    a.addCase()
    expect((await post(srv.url, submission(srv.url, a.envelopes, a.key))).status).toBe(201)
    const first = await getJson(`${srv.url}/api/v1/public/cases`)
    const again = await getJson(`${srv.url}/api/v1/public/cases`)
    expect(again.body).toEqual(first.body)
    expect(await metric(srv.url, 'ratchet_cache_requests_total{result="hit"}')).toBeGreaterThanOrEqual(1)
    await getJson(`${srv.url}/api/v1/public/statistics`)
    expect((await getJson(`${srv.url}/api/v1/public/statistics`)).body.total_cases).toBe(1)
    expect((await post(srv.url, submission(srv.url, [a.addCase()], a.key))).status).toBe(201)
    expect((await getJson(`${srv.url}/api/v1/public/cases`)).body.cases).toHaveLength(2)
    expect((await getJson(`${srv.url}/api/v1/public/statistics`)).body.total_cases).toBe(2)
    expect((await getJson(`${srv.url}/health`)).body).toMatchObject({
      status: 'ok',
      cache: { kind: 'redis', up: true },
    })
  })

  it('two instances share one per-key limit through Redis', async () => {
    const one = await startServer(store, { redis: { url: REDIS_URL, prefix }, perKeyPerMinute: 3 })
    const two = await startServer(store, { redis: { url: REDIS_URL, prefix }, perKeyPerMinute: 3 })
    servers.push(one, two)
    const a = new Agent()
    await enroll(store.db, a)
    // Each instance checks the origin it was signed for: the same agent, two servers, one counter.
    expect((await post(one.url, submission(one.url, a.envelopes, a.key))).status).toBe(201)
    expect((await post(two.url, submission(two.url, [a.addCase()], a.key))).status).toBe(201)
    expect((await post(one.url, submission(one.url, [a.addCase()], a.key))).status).toBe(201)
    const over = await post(two.url, submission(two.url, [a.addCase()], a.key))
    expect({ status: over.status, reason: over.body.reason }).toEqual({ status: 429, reason: 'rate_limited' })
  })
})

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
  })
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: 'ignore' },
  )
  const end = Date.now() + 10_000
  while (!(await redisAvailable(`redis://127.0.0.1:${port}`))) {
    if (Date.now() > end) throw new Error('redis-server did not start')
    await new Promise((r) => setTimeout(r, 50))
  }
  return child
}

const stop = (c: ChildProcess) =>
  new Promise<void>((resolve) =>
    c.exitCode !== null ? resolve() : (c.once('exit', () => resolve()), c.kill('SIGTERM')),
  )

describe.skipIf(!BINARY)('with Redis stopped mid-way', () => {
  it('the server keeps serving and accepting; /health says degraded, and ok again when Redis is back', async () => {
    const port = await freePort()
    let redis = await startRedis(port)
    const store = await freshStore('sqlite')
    const srv = await startServer(store, { redis: { url: `redis://127.0.0.1:${port}`, prefix: 'ratchet-test:' } })
    try {
      const a = new Agent()
      await enroll(store.db, a)
      expect((await post(srv.url, submission(srv.url, a.envelopes, a.key))).status).toBe(201)
      await getJson(`${srv.url}/api/v1/public/cases`)
      await stop(redis)
      // Bounded: a handful of requests of each kind, each answered from the store.
      for (let i = 0; i < 5; i++) {
        expect((await post(srv.url, submission(srv.url, [a.addCase()], a.key))).status).toBe(201)
        expect(((await getJson(`${srv.url}/api/v1/public/cases`)).body.cases as unknown[]).length).toBe(i + 1)
        expect((await getJson(`${srv.url}/api/v1/public/statistics`)).body.total_cases).toBe(i + 1)
      }
      const h = await getJson(`${srv.url}/health`)
      expect({ status: h.status, body: h.body.status, cache: h.body.cache }).toEqual({
        status: 200,
        body: 'degraded',
        cache: { kind: 'redis', up: false },
      })
      expect(await metric(srv.url, 'ratchet_cache_up')).toBe(0)
      redis = await startRedis(port)
      const end = Date.now() + 15_000
      while ((await getJson(`${srv.url}/health`)).body.status !== 'ok') {
        if (Date.now() > end) throw new Error('the server did not reconnect to Redis')
        await new Promise((r) => setTimeout(r, 100))
      }
      // Cases accepted while Redis was away are in the lists served after it came back.
      expect(((await getJson(`${srv.url}/api/v1/public/cases`)).body.cases as unknown[]).length).toBe(5)
    } finally {
      await srv.close()
      await store.drop()
      await stop(redis)
    }
  })
})
