// The resident decision service: preflight-check's and custodiet's engines loaded once, answering Claude Code's
// `type: "http"` hooks (`ratchet init --transport http`) on 127.0.0.1 instead of a process per call. Every
// answer comes from the same `main` the command hook runs, with the session's own environment, and is
// rendered for http by the one function that knows both wire formats (render.ts renderHttp).
//
// Who may ask (docs/threat-model.md, "The transport"):
// - A session is known only once its SessionStart command hook registered it with the key from the config
//   folder (the agent cannot read that folder); the registration carries the environment the session's hooks
//   run with, which an http request does not. The service proves it holds the key in its answer, so a hook
//   never registers with an impostor in the port.
// - A hook request must come from a socket of this user account (/proc/net/tcp), name a known session, and
//   that session's Claude Code process must still run. What it cannot tell apart: a request the agent sends
//   through the sandbox's proxy (see the threat model). That is why `command` stays the default transport.
// - One decision at a time: the engine reads process.env, cwd and ppid, which are the session's for the call.
// It restarts itself when its files change (an upgrade) and leaves once no session has used it for a while.

import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { main as preflightCheck } from '../../hooks/preflight-check/main'
import { main as custodiet } from '../../hooks/custodiet/main'
import {
  ensureService,
  proof,
  readServiceKeys,
  serviceFiles,
  servicePort,
  serviceStatus,
  socketInodes,
  stopService,
  type SessionRegistration,
} from '../io/service'
import { writeAll } from './stdio'
import { filesStamp } from './stamp'
import { REGISTRATIONS } from '../core/settings'
import { joinAnswers, oneLine, renderHttp, type Rendered } from './render'
import { CLI } from '../core/manifest'

type Engine = typeof preflightCheck
const ENGINES: Record<string, Engine> = { 'preflight-check': preflightCheck, custodiet }
/** Per engine, the events it answers here (the manifest's `served`) that `also` holds for. */
function servedEvents(also: (r: (typeof REGISTRATIONS)[number]) => boolean): Record<string, Set<string>> {
  return Object.fromEntries(
    Object.keys(ENGINES).map((n) => [
      n,
      new Set(REGISTRATIONS.filter((r) => r.hook === n && r.served && also(r)).map((r) => r.event)),
    ]),
  )
}
/** The events each engine answers here (the manifest's `served`): any other event over http is refused unread. */
const SERVED = servedEvents(() => true)
/**
 * The events Claude Code is to run in the background (the manifest's `async`: custodiet's PostToolUse). Over http
 * it waits for them anyway (2.1.330's debug log: the next model request starts after the hook's response, ~10-30 ms
 * per call), so they are answered at once and decided after; what the decision says goes with the session's next
 * such answer, one call later, as an async command hook's output reaches the model a request later.
 */
const LATER = servedEvents((r) => r.async === true)
const MAX_BODY = 16 * 1024 * 1024
const idleMs = () => Number(process.env.RATCHET_SERVICE_IDLE_MS) || 30 * 60_000

/** The address the kernel writes in /proc/net/tcp for 127.0.0.1:`port`. */
const loopback = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`

/** The files this process runs from: when any changes (an upgrade, a rebuild), it is out of date. */
function stamp(): string {
  return filesStamp([__filename, path.join(__dirname, 'loader.cjs')])
}

const alive = (pid: number) => Number.isInteger(pid) && pid > 1 && fs.existsSync(`/proc/${pid}`)

function writePrivate(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, data, { mode: 0o600 })
  fs.renameSync(tmp, file)
}

function readSessions(file: string): Map<string, SessionRegistration> {
  const out = new Map<string, SessionRegistration>()
  try {
    for (const s of JSON.parse(fs.readFileSync(file, 'utf8')) as SessionRegistration[])
      if (s && typeof s.session_id === 'string' && alive(s.ppid)) out.set(s.session_id, s)
  } catch {}
  return out
}

/** What a served hook answers when the service does not know the session: the call is refused, with the way back. */
function unknownSession(event: unknown): string {
  const line =
    "[RATCHET] Ratchet's decision service does not know this session (it started after the session did, or restarted), so this call is refused to be safe. Ask the user to start Claude Code again (`claude --continue` keeps this conversation); its SessionStart hook registers the session."
  return event === 'PreToolUse'
    ? JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: line },
      })
    : '{}'
}

function replayed(event: unknown): string {
  const line = '[RATCHET] This exact call was already checked once (a replayed request?), so it is refused.'
  return event === 'PreToolUse'
    ? JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: line },
      })
    : '{}'
}

async function serve(): Promise<void> {
  process.on('SIGUSR1', () => {}) // no inspector on a signal: anyone of this user could drive it
  const port = servicePort()
  const files = serviceFiles(process.env, port)
  const key = crypto.randomBytes(24).toString('hex')
  const sessions = readSessions(files.sessions)
  const built = stamp()
  const home = { env: process.env, cwd: process.cwd() }
  const ppid = Object.getOwnPropertyDescriptor(process, 'ppid')
  const uid = process.getuid?.() ?? 0
  const answered = new Map<string, Set<string>>()
  /** Per session: what a background event's decision said, for its next answer. */
  const toldLater = new Map<string, string>()
  let tail: Promise<unknown> = Promise.resolve()
  let lastUsed = Date.now()
  let leaving = false

  const saveSessions = () => writePrivate(files.sessions, JSON.stringify([...sessions.values()]))

  /** One decision, with the session's environment, folder and parent for its duration. */
  async function decide(name: string, s: SessionRegistration, body: string): Promise<Rendered> {
    let out: Rendered = { exitCode: 0, stdout: '', stderr: '' }
    try {
      process.chdir(s.cwd)
      process.env = { ...s.env }
      Object.defineProperty(process, 'ppid', { configurable: true, get: () => s.ppid })
      process.exitCode = undefined
      await ENGINES[name]([], {
        stdin: body,
        io: {
          argv: [],
          stdinIsTTY: false,
          write: (r) => (out = { exitCode: r.exitCode, stdout: out.stdout + r.stdout, stderr: out.stderr + r.stderr }),
          exitNow: () => {},
        },
      })
    } catch (e) {
      out = {
        exitCode: 2,
        stdout: '',
        stderr: `ratchet ${name}: the decision service failed (${oneLine(String((e as Error)?.message ?? e))}); blocked to be safe\n`,
      }
    } finally {
      process.env = home.env
      try {
        process.chdir(home.cwd)
      } catch {}
      if (ppid) Object.defineProperty(process, 'ppid', ppid)
      process.exitCode = undefined
    }
    return out
  }

  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const p = tail.then(f, f)
    tail = p.catch(() => undefined)
    return p
  }

  const quit = () => {
    if (leaving) return
    leaving = true
    try {
      if (readServiceKeys(home.env)?.pid === process.pid) fs.unlinkSync(files.keys)
    } catch {}
    process.exit(0)
  }

  /** Out of date: a new process from the new files takes over (it waits for the port), this one leaves. */
  const restart = () => {
    if (leaving) return
    saveSessions()
    server.close()
    const { spawn } = require('node:child_process') as typeof import('node:child_process')
    spawn(process.execPath, [process.argv[1], 'service', 'run'], {
      detached: true,
      stdio: 'ignore',
      cwd: '/',
      env: home.env,
    }).unref()
    leaving = true
    void tail.then(() => process.exit(0))
  }

  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const answer = (status: number, body: string): void => {
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body)
    }
    if (req.method !== 'POST' || !/^application\/json\b/.test(req.headers['content-type'] ?? ''))
      return answer(405, '{}')
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_BODY) req.destroy()
      else chunks.push(c)
    })
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const route = (req.url ?? '').split('?')[0]
      let payload: Record<string, unknown>
      try {
        payload = JSON.parse(body)
      } catch {
        return answer(400, '{}')
      }
      if (route === '/register') {
        const given = Buffer.from(String(req.headers['x-ratchet-key'] ?? ''))
        if (given.length !== key.length || !crypto.timingSafeEqual(given, Buffer.from(key))) return answer(403, '{}')
        const s = payload as unknown as SessionRegistration & { nonce?: string }
        if (typeof s.session_id !== 'string' || !s.env || typeof s.cwd !== 'string' || !alive(s.ppid))
          return answer(400, '{}')
        sessions.set(s.session_id, { session_id: s.session_id, env: s.env, cwd: s.cwd, ppid: s.ppid })
        saveSessions()
        return answer(200, JSON.stringify({ proof: proof(key, String(s.nonce ?? '')) }))
      }
      const name = /^\/hook\/([a-z-]+)$/.exec(route)?.[1]
      if (!name || !ENGINES[name]) return answer(404, '{}')
      if (!SERVED[name].has(String(payload.hook_event_name))) return answer(403, '{}')
      const s = sessions.get(String(payload.session_id))
      if (!s || !alive(s.ppid)) return answer(200, unknownSession(payload.hook_event_name))
      // Claude Code asks once per call and event: the same one again is a replay, and is not decided again.
      const id = `${payload.hook_event_name}\0${String(payload.tool_use_id ?? '')}`
      if (payload.tool_use_id !== undefined) {
        const seen = answered.get(s.session_id) ?? new Set<string>()
        if (seen.has(id)) return answer(200, replayed(payload.hook_event_name))
        seen.add(id)
        if (seen.size > 2000) seen.delete(seen.values().next().value as string)
        answered.set(s.session_id, seen)
      }
      lastUsed = Date.now()
      const event = String(payload.hook_event_name)
      let done: Promise<void>
      if (LATER[name].has(event)) {
        // Answered after what was queued before it (so it carries all of that), decided right after.
        void serial(async () => {
          answer(200, toldLater.get(s.session_id) ?? '{}')
          toldLater.delete(s.session_id)
        })
        done = serial(() => decide(name, s, body)).then((r) => {
          const said = renderHttp(event, r)
          if (said !== '{}') toldLater.set(s.session_id, joinAnswers(toldLater.get(s.session_id), said))
        })
      } else done = serial(() => decide(name, s, body)).then((r) => answer(200, renderHttp(event, r)))
      // Out of date: this call is still answered, by the engine it was taken by; the next goes to the new process.
      if (stamp() !== built) void done.finally(restart)
    })
  })
  // Only this account's sockets: another user on the machine reaches 127.0.0.1 too.
  server.on('connection', (sock) => {
    const mine = socketInodes(
      '/proc/net/tcp',
      (local, remote) => local === loopback(sock.remotePort ?? 0) && remote === loopback(port),
    )
    if (!mine.length || mine.some((m) => m.uid !== uid)) {
      process.stderr.write(
        `ratchet service: refused a connection from port ${sock.remotePort} (${mine.length ? `uid ${mine.map((m) => m.uid).join(',')}` : 'not found in /proc/net/tcp'})\n`,
      )
      sock.destroy()
    }
  })

  // The port may still be held for a moment by the process this one replaces.
  for (let tries = 0; ; tries++) {
    const err = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      const failed = (e: NodeJS.ErrnoException) => resolve(e)
      server.once('error', failed)
      server.listen(port, '127.0.0.1', () => (server.off('error', failed), resolve(undefined)))
    })
    if (err) server.removeAllListeners('listening')
    if (!err) break
    if (err.code !== 'EADDRINUSE' || tries > 100) process.exit(1)
    await new Promise((r) => setTimeout(r, 50))
  }
  writePrivate(files.keys, JSON.stringify({ pid: process.pid, port, key }))
  process.on('SIGTERM', quit)
  setInterval(() => {
    for (const [id, s] of sessions) if (!alive(s.ppid)) sessions.delete(id), answered.delete(id), toldLater.delete(id)
    // Its own environment, not whichever session's a decision in flight has put in process.env.
    if (readServiceKeys(home.env)?.pid !== process.pid) quit()
    if (stamp() !== built) restart()
    if (!sessions.size && Date.now() - lastUsed > idleMs()) quit()
  }, 30_000).unref()
}

const say = (line: string) => writeAll(1, line + '\n')

/** `ratchet service run|start|stop|status` (bin/ratchet hands `service` to this bundle). */
export async function main(argv: string[] = process.argv): Promise<void> {
  const [sub, ...rest] = argv.slice(3)
  const json = rest.includes('--json')
  if (sub === 'run') return serve()
  if (sub === 'start') {
    const r = await ensureService(undefined)
    if (json) return say(JSON.stringify(r))
    if (r.ok)
      return say(
        `Ratchet's decision service runs on 127.0.0.1:${servicePort()} (pid ${r.pid}); sessions that started without it: start them again (\`claude --continue\`).`,
      )
    say(`${CLI} service start: ${r.why}`)
    process.exitCode = 1
    return
  }
  if (sub === 'stop') {
    const stopped = stopService()
    return say(json ? JSON.stringify({ stopped }) : stopped ? 'stopped' : 'not running')
  }
  if (sub === 'status') {
    const s = serviceStatus()
    return say(
      json
        ? JSON.stringify(s)
        : s.running
          ? `running on 127.0.0.1:${s.port} (pid ${s.pid})`
          : `not running (127.0.0.1:${s.port}); the next session starts it`,
    )
  }
  say(`usage: ${CLI} service run|start|stop|status [--json]`)
  process.exitCode = sub ? 1 : 0
}
