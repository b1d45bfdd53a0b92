// The HTTP face of the case server (fastify 5, pino logs with request ids, @fastify/rate-limit, prom-client):
// the seed's routes, the transparency log's, /health, /metrics and the dashboard. Every refusal is a
// 4xx with {status: "refused", reason, detail}; nothing is stored unless the whole submission checks.

import crypto from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import { parseListQuery } from '../core/serve/query'
import { CASE_ID, REASONS, type Reason } from '../core/serve/submission'
import { dashboardHtml } from './dashboard'
import { httpMetrics, serverMetrics } from './metrics'
import type { CaseService } from './service'

export interface AppOptions {
  /** pino level; 'silent' for none. */
  logLevel?: string
  /** Behind a load balancer: take the client address from X-Forwarded-For. */
  trustProxy?: boolean
  /** Requests a minute: per client address (every route), and per agent key (submissions). */
  perIpPerMinute?: number
  perKeyPerMinute?: number
  bodyLimit?: number
  /** Redis key prefix for the shared rate limit (the cache's own prefix applies on top). */
  instance?: string
}

const refusal = (
  reply: FastifyReply,
  reason: Reason | 'not_found' | 'unsupported_media_type' | 'bad_filter' | 'internal',
  detail: string,
  status?: number,
  extra: Record<string, unknown> = {},
) =>
  reply
    .code(status ?? (REASONS as Record<string, number>)[reason] ?? 400)
    .send({ status: 'refused', reason, detail, ...extra })

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

export async function buildApp(service: CaseService, o: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: o.logLevel ?? 'info' },
    bodyLimit: o.bodyLimit ?? 64 * 1024,
    trustProxy: o.trustProxy ?? false,
    requestIdHeader: 'x-request-id',
    // A caller's id is kept when it is a plain token (nginx's $request_id, a client's), else a new one.
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID()
    },
  })
  const register = serverMetrics(service)
  const latency = httpMetrics(register)

  app.addHook('onRequest', async (req) => {
    ;(req as FastifyRequest & { started?: bigint }).started = process.hrtime.bigint()
  })
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id)
  })
  app.addHook('onResponse', async (req, reply) => {
    const started = (req as FastifyRequest & { started?: bigint }).started
    if (started)
      latency.observe(
        { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
        Number(process.hrtime.bigint() - started) / 1e9,
      )
  })

  await app.register(rateLimit, {
    global: true,
    max: o.perIpPerMinute ?? 600,
    timeWindow: 60_000,
    // Shared between instances through Redis when there is one; with Redis down, requests go through (the store is the guard).
    ...(service.cache.client ? { redis: service.cache.client, nameSpace: `rl:${o.instance ?? ''}` } : {}),
    skipOnError: true,
    allowList: (req) => req.url === '/health' || req.url.startsWith('/health/') || req.url === '/metrics',
    errorResponseBuilder: (_req, ctx) => ({
      statusCode: 429,
      status: 'refused',
      reason: 'rate_limited',
      detail: `too many requests: retry in ${ctx.after}`,
    }),
  })
  const perKey = app.createRateLimit({
    max: o.perKeyPerMinute ?? 120,
    timeWindow: 60_000,
    keyGenerator: (req) => `key:${submittingKey(req.body)}`,
  })

  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, req, reply) => {
    if (err.statusCode === 429) return reply.code(429).send(err)
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return refusal(
        reply,
        'body_too_large',
        `the body is larger than ${Math.round((o.bodyLimit ?? 65536) / 1024)} KiB`,
      )
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return refusal(reply, 'unsupported_media_type', 'send the envelope as application/json', 415)
    if (
      err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
      err instanceof SyntaxError ||
      /JSON|prototype/i.test(err.message)
    )
      return refusal(reply, 'malformed_json', 'the body is not valid JSON')
    if (err.statusCode && err.statusCode < 500)
      return refusal(reply, 'malformed_json', err.message.slice(0, 200), err.statusCode)
    if ((err as { code?: string }).code === 'store_unavailable')
      return refusal(reply, 'store_unavailable', 'the case store is unavailable: try again')
    req.log.error({ err }, 'internal error')
    return refusal(reply, 'internal', `internal error (request ${req.id})`, 500)
  })
  app.setNotFoundHandler((req, reply) =>
    refusal(reply, 'not_found', `no route ${req.method} ${req.url.split('?')[0].slice(0, 200)}`, 404),
  )

  // ---- the seed's routes -------------------------------------------------------------------------

  app.post('/api/v1/cases', async (req, reply) => {
    const limit = await perKey(req)
    if (!limit.isAllowed && limit.isExceeded)
      return refusal(
        reply,
        'rate_limited',
        `too many submissions for this key: retry in ${Math.ceil(limit.ttl / 1000)} s`,
      )
    const a = await service.submit(req.body)
    return reply.code(a.status).send(a.body)
  })

  app.get('/api/v1/public/cases', async (req, reply) => {
    const q = parseListQuery(req.query as Record<string, unknown>)
    if ('problem' in q) return refusal(reply, 'bad_filter', `${q.param}: ${q.problem}`, 400)
    return service.list(q)
  })

  app.get('/api/v1/public/cases/:id', async (req, reply) => {
    const { id } = req.params as { id: string }
    if (!CASE_ID.test(id)) return refusal(reply, 'bad_filter', 'id: expected case_<digits>_<hex>', 400)
    const c = await service.getCase(id)
    return c ?? refusal(reply, 'not_found', `no case ${id}`, 404)
  })

  app.get('/api/v1/public/statistics', async () => service.statistics())

  app.get('/api/v1/public/agents/:agent/entries', async (req, reply) => {
    const { agent } = req.params as { agent: string }
    if (!/^agent_[0-9a-f]{16}$/.test(agent))
      return refusal(reply, 'bad_filter', 'agent: expected agent_ and 16 hex digits', 400)
    return { agent, entries: await service.entriesOf(agent) }
  })

  // ---- the transparency log ------------------------------------------------------------------------

  app.get('/api/v1/log/checkpoint', async (_req, reply) =>
    reply.type('text/plain; charset=utf-8').send((await service.log.head()).checkpoint),
  )
  app.get('/api/v1/log/key', async (_req, reply) =>
    reply.type('text/plain; charset=utf-8').send(service.log.verifierKey + '\n'),
  )

  const whole = (v: unknown): number | undefined =>
    typeof v === 'string' && /^(0|[1-9][0-9]{0,14})$/.test(v) ? Number(v) : undefined
  app.get('/api/v1/log/proof/inclusion', async (req, reply) => {
    const q = req.query as Record<string, unknown>
    const index = whole(q.index)
    const size = whole(q.size)
    const head = await service.log.head()
    if (index === undefined || size === undefined)
      return refusal(reply, 'bad_filter', 'index and size: expected whole numbers', 400)
    if (size > head.size || index >= size)
      return refusal(reply, 'bad_filter', `leaf ${index} is not in a tree of ${size} (the log has ${head.size})`, 400)
    return {
      leaf_index: index,
      tree_size: size,
      leaf_hash: await service.log.leafHashAt(index),
      inclusion_proof: await service.log.inclusion(index, size),
    }
  })
  app.get('/api/v1/log/proof/consistency', async (req, reply) => {
    const q = req.query as Record<string, unknown>
    const from = whole(q.from)
    const to = whole(q.to)
    const head = await service.log.head()
    if (from === undefined || to === undefined || from < 1 || from > to || to > head.size)
      return refusal(reply, 'bad_filter', `from and to: expected 1 <= from <= to <= ${head.size}`, 400)
    return { from, to, consistency_proof: await service.log.consistency(from, to) }
  })

  // ---- operations ------------------------------------------------------------------------------------

  app.get('/health/live', async () => ({ status: 'ok' }))
  app.get('/health', async (_req, reply) => {
    const h = await service.health()
    return reply.code(h.ok ? 200 : 503).send({
      status: h.ok ? (service.cache.kind === 'redis' && !service.cache.up() ? 'degraded' : 'ok') : 'unavailable',
      ...h,
    })
  })
  app.get('/metrics', async (_req, reply) => reply.type(register.contentType).send(await register.metrics()))

  app.get('/', async (_req, reply) => reply.redirect('/dashboard'))
  app.get('/favicon.ico', async (_req, reply) => reply.code(204).send())
  app.get('/dashboard', async (_req, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header(
        'content-security-policy',
        "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
      )
      .send(dashboardHtml()),
  )
  return app
}

/** The key a submission claims (its first signature's keyid), for the per-key limit; the signature itself is checked later. */
function submittingKey(body: unknown): string {
  const sigs = (body as { signatures?: { keyid?: unknown }[] } | null)?.signatures
  const id = Array.isArray(sigs) ? sigs[0]?.keyid : undefined
  return typeof id === 'string' && /^[0-9a-f]{8,64}$/.test(id) ? id : 'none'
}
