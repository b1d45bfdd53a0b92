// Where a database command connects, in words, and whether every sign says the database is on this machine: a
// connection URL or conninfo, a client's host and database options, the environment, the project's .env.

import type { Invocation } from '../commands'
import type { Sink } from './types'

/** Which database, in words, and whether every sign says it is on this machine. */
export interface DbWhere {
  label: string
  local: boolean
}

export const LOCAL_HOST = /^(localhost|127(?:\.\d{1,3}){3}|::1|\[::1\]|0\.0\.0\.0|host\.docker\.internal|)$/i

/** Host and database of a connection URL (`postgres://u:p@h:5432/app`, `mongodb+srv://h/app`, `sqlite:///x.db`); never the password. */
export function urlWhere(url: string): DbWhere | undefined {
  if (/^(sqlite|file):/i.test(url))
    return { label: `the SQLite file ${url.replace(/^(sqlite|file):(\/\/)?/i, '') || '(in memory)'}`, local: true }
  const m = /^([a-z][\w+.-]*):\/\/(?:[^@/?#]*@)?([^/?#]*)(?:\/([^?#]*))?/i.exec(url)
  if (!m) return undefined
  const hosts = m[2].split(',').map((h) => h.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1'))
  const socket = /[?&]host=(\/|%2F)/i.test(url)
  const local = socket || hosts.every((h) => LOCAL_HOST.test(h))
  return { label: `${m[3] ? `${decodeURIComponent(m[3])} on ` : ''}${hosts.join(',') || 'the local socket'}`, local }
}

/** `host=db.internal dbname=app` (libpq conninfo). */
export function conninfoWhere(s: string): DbWhere | undefined {
  if (!/\b(host|dbname|hostaddr)=/.test(s)) return undefined
  const host = /\bhost(?:addr)?=(\S+)/.exec(s)?.[1] ?? ''
  const db = /\bdbname=(\S+)/.exec(s)?.[1]
  return {
    label: `${db ? `${db} on ` : ''}${host || 'the local socket'}`,
    local: host.startsWith('/') || LOCAL_HOST.test(host),
  }
}

/**
 * A client's target from its host option, or its default (`defaultHost`, read from `envHost` when set). The
 * agent's environment may point a client elsewhere (PGHOST): unknown (no environment fact) is not local.
 */
export function clientWhere(
  c: Sink,
  inv: Invocation,
  host: string | undefined,
  db: string | undefined,
  envHost: string,
  defaultHost: string,
): DbWhere {
  const fromLine = inv.env?.[envHost]
  const env = fromLine ?? c.ctx.env?.(envHost)
  const h = host ?? env
  if (h !== undefined) {
    const u = /:\/\//.test(h) ? urlWhere(h) : undefined
    if (u) return u
    return {
      label: `${db ? `${db} on ` : ''}${h || defaultHost}`,
      local: h.startsWith('/') || LOCAL_HOST.test(h.replace(/:\d+$/, '')),
    }
  }
  // No host anywhere: the client's default, local unless the environment could not be read.
  return { label: `${db ? `${db} on ` : ''}${defaultHost} (the default)`, local: !!c.ctx.env }
}

/** `DATABASE_URL=…` in the project's .env (read for its host, never shown). */
function dotenvUrl(c: Sink, names: string[]): string | undefined {
  const text = c.ctx.fs?.readText(`${c.ctx.projectDir}/.env`)
  if (!text) return undefined
  for (const n of names) {
    const m = new RegExp(`^\\s*(?:export\\s+)?${n}\\s*=\\s*["']?([^"'\\s#]+)`, 'm').exec(text)
    if (m) return m[1]
  }
  return undefined
}

/**
 * Where an ORM or migration tool connects: an explicit URL, then the variables it reads (on the line, in the
 * agent's environment, in the project's .env). Unknown is not local.
 */
export function toolWhere(c: Sink, inv: Invocation, url: string | undefined, vars: string[], tool: string): DbWhere {
  const u = url ?? vars.map((v) => inv.env?.[v] ?? c.ctx.env?.(v)).find((x) => x) ?? dotenvUrl(c, vars)
  const w = u ? urlWhere(u) : undefined
  return w ?? { label: `the database ${tool} is configured for`, local: false }
}
