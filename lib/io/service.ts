// The resident decision service (lib/runtime/service.ts) as its clients see it: where it listens, the key file
// that proves it, whether the process in it is Ratchet's, and the one call that brings it up and tells it about a
// session (session-start, `ratchet service start`). One service per user and port; its key file lives in the
// per-user config folder, which the agent can neither read nor change (the floor's Read/Edit deny rules).

import fs from 'node:fs'
import path from 'node:path'
import { PACKAGE_ROOT } from './package-root'
import { configHomeOf } from './paths'

/**
 * The loopback port the served hooks call: RATCHET_SERVICE_PORT, else one per user account and install (two
 * installs, say two projects' node_modules, each run their own engine and must not take each other's port).
 */
export function servicePort(env: NodeJS.ProcessEnv = process.env): number {
  const p = Number(env.RATCHET_SERVICE_PORT)
  if (Number.isInteger(p) && p > 1024 && p < 65536) return p
  let h = 0x811c9dc5
  for (const c of `${process.getuid?.() ?? 0}\0${PACKAGE_ROOT}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193)
  return 41000 + ((h >>> 0) % 2000)
}

export interface ServiceKeys {
  pid: number
  port: number
  /** What a registration must carry, and what the service proves it holds. */
  key: string
}

export const serviceFiles = (env: NodeJS.ProcessEnv = process.env, port = servicePort(env)) => {
  const dir = configHomeOf(env)
  return {
    dir,
    keys: path.join(dir, `service-${port}.json`),
    sessions: path.join(dir, `service-${port}.sessions.json`),
  }
}

export function readServiceKeys(env: NodeJS.ProcessEnv = process.env): ServiceKeys | undefined {
  try {
    const k = JSON.parse(fs.readFileSync(serviceFiles(env).keys, 'utf8'))
    return Number.isInteger(k.pid) && Number.isInteger(k.port) && typeof k.key === 'string' && k.key.length >= 32
      ? k
      : undefined
  } catch {
    return undefined
  }
}

const RATCHET_BIN = path.join(PACKAGE_ROOT, 'bin', 'ratchet')

/**
 * `pid` is this install's service: the same node binary running exactly `bin/ratchet service run`, with no
 * preload the caller does not have. A process the agent started through a wrapper or with NODE_OPTIONS is not it.
 */
export function isService(pid: number): boolean {
  try {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    if (
      argv[1] !== RATCHET_BIN ||
      argv[2] !== 'service' ||
      argv[3] !== 'run' ||
      fs.readlinkSync(`/proc/${pid}/exe`) !== fs.realpathSync(process.execPath)
    )
      return false
    const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
    return ['NODE_OPTIONS', 'LD_PRELOAD', 'LD_AUDIT'].every(
      (k) => (env.find((l) => l.startsWith(k + '=')) ?? '').slice(k.length + 1) === (process.env[k] ?? ''),
    )
  } catch {
    return false
  }
}

/** The proof a service gives for `nonce`: only the holder of the key file's key can compute it. */
export const proof = (key: string, nonce: string): string =>
  crypto().createHmac('sha256', key).update(nonce).digest('hex')

// Required when used: node:crypto brings in the stream machinery, and session-start loads this module on every
// session, mostly to learn that the command transport needs no service.
const crypto = () => require('node:crypto') as typeof import('node:crypto')

/** What the service keeps about a session: the hook environment it decides with (an http request carries none). */
export interface SessionRegistration {
  session_id: string
  env: Record<string, string>
  cwd: string
  /** The Claude Code process (a command hook's parent): the one whose calls are this session's. */
  ppid: number
}

function post(
  port: number,
  route: string,
  key: string,
  body: unknown,
  timeoutMs: number,
): Promise<{ status: number; body: string }> {
  const http = require('node:http') as typeof import('node:http')
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body)
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: route,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-ratchet-key': key,
          'content-length': Buffer.byteLength(data),
        },
        timeout: timeoutMs,
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c) => (text += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on('timeout', () => req.destroy(new Error('timed out')))
    req.on('error', reject)
    req.end(data)
  })
}

/** Tells the service at `keys` about a session; true only when the one that answered proved it holds the key. */
export async function register(keys: ServiceKeys, session: SessionRegistration, timeoutMs = 1500): Promise<boolean> {
  const nonce = crypto().randomBytes(16).toString('hex')
  try {
    const r = await post(keys.port, '/register', keys.key, { ...session, nonce }, timeoutMs)
    return r.status === 200 && JSON.parse(r.body).proof === proof(keys.key, nonce)
  } catch {
    return false
  }
}

/** Starts `ratchet service run` in the background, detached from the session that asked. */
function spawnService(env: NodeJS.ProcessEnv): void {
  const { spawn } = require('node:child_process') as typeof import('node:child_process')
  const clean = { ...env }
  delete clean.CLAUDE_ENV_FILE
  // RATCHET_SERVICE_LOG: a file for what the service prints on stderr (nothing, unless it fails).
  const log = env.RATCHET_SERVICE_LOG ? fs.openSync(env.RATCHET_SERVICE_LOG, 'a', 0o600) : 'ignore'
  spawn(process.execPath, [RATCHET_BIN, 'service', 'run'], {
    detached: true,
    stdio: ['ignore', 'ignore', log],
    cwd: '/',
    env: clean,
  }).unref()
  if (typeof log === 'number') fs.closeSync(log)
}

export type Ensured = { ok: true; pid: number; started: boolean } | { ok: false; why: string }

/**
 * Brings the service up if it is not (or is out of date: it restarts itself), then registers the session with it.
 * Whatever answers must prove it holds the key: a process in the port that cannot is not trusted, and is ended
 * when it is this user's (something the agent started outside the sandbox while the service was down).
 */
export async function ensureService(
  session: SessionRegistration | undefined,
  env: NodeJS.ProcessEnv = process.env,
  waitMs = 4000,
): Promise<Ensured> {
  let started = false
  const until = Date.now() + waitMs
  for (;;) {
    const keys = readServiceKeys(env)
    if (keys && keys.port === servicePort(env) && isService(keys.pid)) {
      if (!session) return { ok: true, pid: keys.pid, started }
      if (await register(keys, session)) return { ok: true, pid: keys.pid, started }
    }
    if (!started) {
      const squatter = portHolder(servicePort(env))
      if (squatter !== undefined && !isService(squatter)) {
        try {
          process.kill(squatter, 'SIGKILL')
        } catch {
          return {
            ok: false,
            why: `port ${servicePort(env)} is held by another account's process (pid ${squatter}), which must not answer for Ratchet`,
          }
        }
      }
      spawnService(env)
      started = true
    }
    if (Date.now() > until)
      return {
        ok: false,
        why: `the service did not come up on 127.0.0.1:${servicePort(env)} within ${waitMs / 1000} s`,
      }
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** The pid that listens on 127.0.0.1:`port`, from /proc (undefined when nothing does or it cannot be told). */
export function portHolder(port: number): number | undefined {
  const inode = socketInodes(
    '/proc/net/tcp',
    (local, _remote, state) => state === '0A' && local.endsWith(`:${port.toString(16).toUpperCase().padStart(4, '0')}`),
  )[0]
  if (!inode) return undefined
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      for (const fd of fs.readdirSync(`/proc/${pid}/fd`))
        if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode.inode}]`) return Number(pid)
    } catch {}
  }
  return undefined
}

/** Sockets in a /proc/net/tcp table that `match` (addresses as the kernel writes them: hex ip:port), with their owner's uid. */
export function socketInodes(
  table: string,
  match: (local: string, remote: string, state: string) => boolean,
): { inode: string; uid: number }[] {
  const out: { inode: string; uid: number }[] = []
  let text = ''
  try {
    text = fs.readFileSync(table, 'utf8')
  } catch {
    return out
  }
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    if (f.length >= 10 && match(f[1], f[2], f[3])) out.push({ uid: Number(f[7]), inode: f[9] })
  }
  return out
}

/** For `ratchet doctor` and `ratchet service status`. */
export function serviceStatus(env: NodeJS.ProcessEnv = process.env): { port: number; running: boolean; pid?: number } {
  const keys = readServiceKeys(env)
  const port = servicePort(env)
  return keys && keys.port === port && isService(keys.pid)
    ? { port, running: true, pid: keys.pid }
    : { port, running: false }
}

/** Ends the service (`ratchet service stop`, `ratchet uninstall`); whether one was running. */
export function stopService(env: NodeJS.ProcessEnv = process.env): boolean {
  const s = serviceStatus(env)
  if (!s.running) return false
  try {
    process.kill(s.pid!, 'SIGTERM')
  } catch {}
  return true
}
