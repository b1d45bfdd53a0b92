// The seed's caches in Redis (ioredis), optional: case lists 5 min, a case 1 h (immutable once
// accepted), statistics 10 min. An accepted case bumps a generation counter that list and statistics
// keys include, so no instance serves a list from before it. Every call is bounded and fails soft:
// with Redis down (or absent) the server answers from the database, a little slower, and /health says so.

import type { Redis } from 'ioredis'

export const TTL = { list: 300, case: 3600, stats: 600 } as const

export interface Cache {
  readonly kind: 'redis' | 'none'
  /** Undefined on a miss or when Redis cannot answer. */
  get(key: string): Promise<string | undefined>
  set(key: string, value: string, ttlSeconds: number): Promise<void>
  /** The current generation (lists and statistics are keyed by it); 0 when Redis cannot answer. */
  generation(): Promise<number>
  bump(): Promise<void>
  up(): boolean
  /** The ioredis client, for the shared rate limit. */
  client?: Redis
  onEvent?: (result: 'hit' | 'miss' | 'error') => void
  close(): Promise<void>
}

export const noCache = (): Cache => ({
  kind: 'none',
  get: async () => undefined,
  set: async () => undefined,
  generation: async () => 0,
  bump: async () => undefined,
  up: () => false,
  close: async () => undefined,
})

export async function redisCache(url: string, prefix: string): Promise<Cache> {
  const { default: IORedis } = await import('ioredis')
  const client = new IORedis(url, {
    keyPrefix: prefix,
    // Never queue commands while disconnected: a request must not wait for Redis to come back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    commandTimeout: 500,
    lazyConnect: true,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  })
  client.on('error', () => undefined)
  // Cases accepted while Redis was away did not bump the generation: every (re)connection does, so no list from before it is served.
  client.on('ready', () => void client.incr('gen').catch(() => undefined))
  await client.connect().catch(() => undefined)
  const cache: Cache = {
    kind: 'redis',
    client,
    up: () => client.status === 'ready',
    get: async (key) => {
      if (client.status !== 'ready') return (cache.onEvent?.('error'), undefined)
      try {
        const v = await client.get(key)
        cache.onEvent?.(v === null ? 'miss' : 'hit')
        return v ?? undefined
      } catch {
        cache.onEvent?.('error')
        return undefined
      }
    },
    set: async (key, value, ttl) => {
      if (client.status === 'ready') await client.set(key, value, 'EX', ttl).catch(() => undefined)
    },
    generation: async () => (client.status === 'ready' ? Number((await client.get('gen').catch(() => null)) ?? 0) : 0),
    bump: async () => {
      if (client.status === 'ready') await client.incr('gen').catch(() => undefined)
    },
    close: async () => {
      client.disconnect()
    },
  }
  return cache
}
