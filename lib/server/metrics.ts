// /metrics (Prometheus): submissions accepted and refused by reason, request and submission latencies,
// the log's size, the store's and the cache's health, cache hits; and the process defaults. One
// registry per server, so two servers in one test process do not share counters.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { CaseService } from './service'

export function serverMetrics(service: CaseService): Registry {
  const register = new Registry()
  collectDefaultMetrics({ register })
  const submissions = new Counter({
    name: 'ratchet_submissions_total',
    help: 'Case submissions by outcome (accepted, refused) and reason code',
    labelNames: ['outcome', 'reason'],
    registers: [register],
  })
  const submitSeconds = new Histogram({
    name: 'ratchet_submission_duration_seconds',
    help: 'Time to check and store one submission',
    labelNames: ['outcome'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [register],
  })
  service.onOutcome = (outcome, reason, seconds) => {
    submissions.inc({ outcome, reason })
    submitSeconds.observe({ outcome }, seconds)
  }
  const cacheEvents = new Counter({
    name: 'ratchet_cache_requests_total',
    help: 'Cache look-ups by result (hit, miss, error: Redis unreachable)',
    labelNames: ['result'],
    registers: [register],
  })
  service.cache.onEvent = (result) => cacheEvents.inc({ result })
  new Gauge({
    name: 'ratchet_log_size',
    help: 'Leaves in the transparency log',
    registers: [register],
    async collect() {
      const h = await service.log.head().catch(() => undefined)
      if (h) this.set(h.size)
    },
  })
  new Gauge({
    name: 'ratchet_store_up',
    help: '1 when the case store answers',
    registers: [register],
    async collect() {
      this.set((await service.health()).ok ? 1 : 0)
    },
  })
  new Gauge({
    name: 'ratchet_cache_up',
    help: '1 when Redis answers, 0 when it is configured and down (absent when no Redis is configured)',
    registers: [register],
    collect() {
      if (service.cache.kind === 'redis') this.set(service.cache.up() ? 1 : 0)
    },
  })
  return register
}

export function httpMetrics(register: Registry): Histogram<'method' | 'route' | 'status'> {
  return new Histogram({
    name: 'ratchet_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [register],
  })
}
