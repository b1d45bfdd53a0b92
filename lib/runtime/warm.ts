// The warm decision process: the engines of the hooks the manifest marks `warm` (preflight-check, custodiet),
// loaded once and kept in memory, so a call costs a hand-over instead of a node start and ~300 KB of engine.
// One per state folder and install, started in the background by SessionStart (or else by the first call that
// needed an engine), gone after RATCHET_WARM_IDLE_MS (10 minutes) without a call. Its clients: the node launcher (lib/runtime/loader.ts
// warmFirst, through `ask` below) and the compiled client (native/hook-client.c), which speaks the same files.
//
// It must never decide less safely than the hook would in its own process:
// - Any doubt means the hook decides in its own process, as it always did: no warm process, a busy or
//   slow one (WAIT_MS), one that is not this install's, an answer not proven to come from it.
// - Each request carries the calling hook's environment, working folder, parent pid, argv and stdin, and
//   is decided with exactly those (process.env, process.cwd and process.ppid are the request's for its
//   duration). One request at a time: one that comes while another is decided waits its turn for up to
//   QUEUE_MS, 100 ms (custodiet's background PostToolUse of the last call is usually still running when the next
//   call's PreToolUse comes), and is then told "busy".
// - An engine may decline a call it would answer by waiting on a reviewer model (custodiet's gates: its
//   `warmAnswers`): told "busy", the client decides it in its own process, which may wait.
// - Both sides prove themselves with a secret of their own, from a file only the user can read in the
//   per-user config folder (where Ratchet keeps the Telegram token: the agent's reads and writes of it are
//   refused). A request without the client secret is dropped before anything runs (a forged prompt would
//   otherwise be recorded); an answer without the server secret is ignored.
// - Requests carry secrets (the environment, the command), so they go through a folder in memory (tmpfs:
//   $XDG_RUNTIME_DIR, else /dev/shm), owned by the user and closed to everyone else, and each file lives
//   only until the other side has read it. Where there is no such folder, there is no warm process.
// - It exits when the install changes under it (an upgrade), when its state folder goes, after an
//   in-process budget overrun (work it cannot stop may still be running) and after MAX_REQUESTS.
//
// The hand-over is files, not a socket: node:net and the stream machinery behind it cost ~2 ms of the
// client's start-up, more than the hand-over saves. A request is written whole (a temporary name, renamed),
// noticed through inotify (fs.watch), answered the same way, and waited for by polling.
// Bundled on its own by scripts/build.mjs (dist/warm.cjs, node built-ins and the manifest only): its client half
// runs on the node launcher's path before any engine loads.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { EXECUTABLES, type Executable } from '../core/manifest'
import { filesStamp } from './stamp'

const WAIT_MS = 3500 // the engine's own budget is 3 s: a call taken and not decided by then has overrun
const PICKUP_MS = 500 // a request not taken by then: the process is stopped or stuck, the hook decides itself
const START_BACKOFF_MS = 60_000
const MAX_REQUESTS = 20_000
const MAX_REQUEST = 16 * 1024 * 1024 // bytes of one request or answer file
const TMPFS = 0x01021994
const LOADER = path.join(__dirname, 'loader.cjs')
const idleMs = () => Number(process.env.RATCHET_WARM_IDLE_MS) || 10 * 60_000
/** How long a request waits for the one being decided before it is told "busy" (tests set it apart). */
const queueMs = () => Number(process.env.RATCHET_WARM_QUEUE_MS) || 100
/** The hooks whose engines the warm process runs (the manifest's `warm`); the first is its name on /proc. */
export const WARM_HOOKS: string[] = (EXECUTABLES as readonly Executable[]).filter((e) => e.warm).map((e) => e.name)

export interface Place {
  dir: string
  id: string
  stateDir: string
  keys: string
  lock: string
}
interface Keys {
  pid: number
  spool: string
  client: string
  server: string
}
/** A hook's call as its client hands it over: what the hook's own process would have had. */
interface Request {
  k: string
  hook?: string
  argv: string[]
  env: NodeJS.ProcessEnv
  cwd: string
  ppid: number
  stdin: string
}
/** What the hook's process would have written and exited with; `busy`: decide it yourself. */
interface Answer {
  stdout?: string
  stderr?: string
  code?: number
  busy?: boolean
  poisoned?: boolean
}
/** An engine bundle as lib/runtime/loader.ts `load` returns it. */
interface Engine {
  exports: {
    main(argv: string[], pre: { stdin: string; io: object }): Promise<void>
    /** Whether the warm process may answer this payload (undefined: always). */
    warmAnswers?(stdin: string): boolean
  }
}

/** Where the warm process serving this call's state folder from this install keeps its keys; undefined when off. */
function placeOf(env: NodeJS.ProcessEnv, cwd: string): Place | undefined {
  // Linux only: the client proves the process is ours through /proc, and requests need a folder in memory.
  if (env.RATCHET_WARM === '0' || env.RATCHET_WRITE_CODE_CACHE === '1' || process.platform !== 'linux') return undefined
  // As lib/io/paths.ts resolvePaths and configHomeOf.
  const projectDir = path.resolve(env.CLAUDE_PROJECT_DIR || cwd)
  const stateDir = path.resolve(env.RATCHET_DIR || path.join(projectDir, '.ratchet'))
  const home = env.HOME || os.homedir()
  const dir = path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'ratchet', 'warm')
  // One per state folder, install and config folder (two config folders: two processes that never share a request).
  let h = 0x811c9dc5
  for (const c of `${stateDir}\0${__dirname}\0${dir}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193)
  const id = (h >>> 0).toString(36)
  return { dir, id, stateDir, keys: path.join(dir, `${id}.json`), lock: path.join(dir, `${id}.lock`) }
}

/** This user's id (the warm process runs on Linux only, where process.getuid exists). */
const uid = (): number => (process.getuid as () => number)()

/** A folder only this user can enter (not a link, owned by the user, no access for group or others). */
function privateFolder(dir: string): boolean {
  try {
    const st = fs.lstatSync(dir)
    return st.isDirectory() && st.uid === uid() && (st.mode & 0o077) === 0
  } catch {
    return false
  }
}

/** A small regular file, read without ever blocking on a FIFO or device; undefined when it is anything else. */
function readSmall(file: string, max = 4096): string | undefined {
  let fd: number | undefined
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW)
    const st = fs.fstatSync(fd)
    if (!st.isFile() || st.size > max) return undefined
    return fs.readFileSync(fd, 'utf8')
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/**
 * Removes a file; whether this call removed it (false: it was gone already, taken by someone else). fs.rmSync
 * would load node's rimraf module on the client's start-up path.
 */
function unlink(file: string): boolean {
  try {
    fs.unlinkSync(file)
    return true
  } catch {
    return false
  }
}

function parse(text: string | undefined): unknown {
  try {
    return JSON.parse(text as string)
  } catch {
    return undefined
  }
}

function parseKeys(text: string | undefined): Keys | undefined {
  const k = parse(text) as Partial<Keys> | null | undefined
  return k &&
    typeof k.client === 'string' &&
    k.client.length >= 32 &&
    typeof k.server === 'string' &&
    k.server.length >= 32 &&
    Number.isInteger(k.pid) &&
    typeof k.spool === 'string'
    ? (k as Keys)
    : undefined
}

/** What a process must not differ in from the hook that asks it: a preload, a library, a module path. */
const INHERITED = ['NODE_OPTIONS', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'NODE_PATH', 'LD_AUDIT']

/**
 * `pid` is this install's warm process, started as a hook starts it: the same node binary running exactly
 * `<loader> --warm`, with no preload or library the hook itself does not have (/proc shows its executable,
 * command line and starting environment). A process the agent started with NODE_OPTIONS=--require=… or
 * LD_PRELOAD, or through a wrapper, is not it, whatever its keys say.
 */
function alive(pid: number): boolean {
  try {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    if (
      argv[1] !== LOADER ||
      argv[2] !== '--warm' ||
      fs.readlinkSync(`/proc/${pid}/exe`) !== fs.realpathSync(process.execPath)
    )
      return false
    const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
    return INHERITED.every(
      (k) => (env.find((l) => l.startsWith(`${k}=`)) ?? '').slice(k.length + 1) === (process.env[k] ?? ''),
    )
  } catch {
    return false
  }
}
// ---- client ---------------------------------------------------------------------------------------

const sleeper = new Int32Array(new SharedArrayBuffer(4))

/**
 * Asks the warm process to decide this call. `answer` ({stdout, stderr, code}) when it did. Otherwise the
 * hook decides in its own process: `absent` says no warm process runs for this place (start one), and
 * `overran` that the warm process took the call but did not decide it within WAIT_MS (deciding it again would
 * overrun as well: the failure policy decides).
 */
export function ask(
  argv: string[],
  stdin: string,
  hook: string,
): { place?: Place; absent?: boolean; overran?: boolean; answer?: { stdout: string; stderr: string; code: number } } {
  const place = placeOf(process.env, process.cwd())
  // A payload past what the server reads (a Write of a very large file): decided here, without the round trip.
  if (!place || stdin.length > MAX_REQUEST / 4) return { place }
  const keys = parseKeys(readSmall(place.keys))
  if (!keys || !alive(keys.pid)) return { place, absent: true }
  // Never write the request anywhere but a private folder in memory (a link or another owner: not ours).
  if (!privateFolder(keys.spool)) return { place }
  const base = path.join(keys.spool, `${place.id}.${process.pid}.${Math.random().toString(36).slice(2)}`)
  const req = `${base}.req`
  const res = `${base}.res`
  try {
    fs.writeFileSync(
      `${base}.tmp`,
      JSON.stringify({ k: keys.client, hook, argv, env: process.env, cwd: process.cwd(), ppid: process.ppid, stdin }),
      { mode: 0o600 },
    )
    fs.renameSync(`${base}.tmp`, req)
  } catch {
    unlink(`${base}.tmp`)
    return { place }
  }
  const started = Date.now()
  let taken = false // the server removes the request when it reads it
  let pause = 0.05
  let checked = started
  for (;;) {
    if (fs.existsSync(res)) {
      const r = parse(readSmall(res, MAX_REQUEST)) as (Answer & { k?: string }) | null | undefined
      unlink(res)
      // Only the real process knows the server secret: anything else decides nothing.
      if (!r || r.k !== keys.server || r.busy || typeof r.code !== 'number') return { place }
      return { place, answer: { stdout: String(r.stdout || ''), stderr: String(r.stderr || ''), code: r.code } }
    }
    const now = Date.now()
    if (now - checked > 50) {
      checked = now
      taken = taken || !fs.existsSync(req)
      // Not taken in time (stopped, or stuck on another call) or gone: decide here, and end it, so the
      // next call does not wait as well. The request goes first: what was not taken is never decided twice.
      const late = !taken && now - started > PICKUP_MS
      if (late || now - started > WAIT_MS || !alive(keys.pid)) {
        const withdrawn = !taken && unlink(req)
        try {
          if (alive(keys.pid)) process.kill(keys.pid, 'SIGKILL')
        } catch {}
        return { place, overran: !withdrawn && now - started > WAIT_MS }
      }
    }
    Atomics.wait(sleeper, 0, 0, pause)
    // Short naps while an answer is due (it takes ~2 ms: every nap past it is time the agent waits); longer ones
    // once the call is plainly waiting on something (a push asks git, the network): a quarter-millisecond nap for
    // a second of git was ~6 ms of CPU spent polling, on the cores the agent and git need.
    const waited = Date.now() - started
    pause = Math.min(pause * 1.5, waited < 30 ? 0.25 : waited < 300 ? 2 : 10)
  }
}

/**
 * Starts a warm process in the background for the next call, unless one is starting (the lock) or a start
 * failed less than START_BACKOFF_MS ago (a lock its process left). Never blocks, never throws.
 */
export function start(place: Place, name: string): void {
  try {
    fs.mkdirSync(place.dir, { recursive: true, mode: 0o700 })
    try {
      fs.closeSync(fs.openSync(place.lock, 'wx', 0o600))
    } catch (e) {
      if (
        (e as NodeJS.ErrnoException).code !== 'EEXIST' ||
        Date.now() - fs.lstatSync(place.lock).mtimeMs < START_BACKOFF_MS
      )
        return
      unlink(place.lock)
      return start(place, name)
    }
    // Required here: a call the warm process answers never loads child_process.
    const { spawn } = require('node:child_process') as typeof import('node:child_process')
    // Through the loader (it has the code cache's `load`), which hands over to `serve` below.
    spawn(process.execPath, [LOADER, '--warm', name, place.stateDir], {
      detached: true,
      stdio: 'ignore',
      cwd: place.dir,
      env: process.env,
    }).unref()
  } catch {}
}

/**
 * For SessionStart: starts, in the background, the warm process this session's hooks will use, unless one runs or is
 * starting, so the session's first prompt and first calls are not decided by a node start each. Never blocks.
 */
export function prestart(env: NodeJS.ProcessEnv, cwd: string): boolean {
  const place = placeOf(env, cwd)
  if (!place) return false
  const keys = parseKeys(readSmall(place.keys))
  if (keys && alive(keys.pid)) return false
  start(place, WARM_HOOKS[0])
  return true
}

/** For `ratchet doctor` and `ratchet uninstall`: the warm process a hook with this environment would use. */
export function status(
  env: NodeJS.ProcessEnv,
  cwd: string,
):
  | { on: false; why: string }
  | { on: true; running: false }
  | { on: true; running: true; pid: number; spool: string; keys: string } {
  const place = placeOf(env, cwd)
  if (!place) return { on: false, why: process.platform !== 'linux' ? 'Linux only' : 'RATCHET_WARM=0' }
  const keys = parseKeys(readSmall(place.keys))
  return keys && alive(keys.pid)
    ? { on: true, running: true, pid: keys.pid, spool: keys.spool, keys: place.keys }
    : { on: true, running: false }
}

/** Ends the warm process a hook with this environment would use (`ratchet uninstall`). */
export function stop(env: NodeJS.ProcessEnv, cwd: string): boolean {
  const s = status(env, cwd)
  if (!s.on || !s.running) return false
  try {
    process.kill(s.pid, 'SIGKILL')
    unlink(s.keys)
  } catch {}
  return true
}

// ---- server ---------------------------------------------------------------------------------------

/** The private folder in memory requests go through: $XDG_RUNTIME_DIR/ratchet-warm, else /dev/shm/ratchet-warm-<uid>. */
function spoolFolder(): string | undefined {
  const runtime = process.env.XDG_RUNTIME_DIR
  const candidates = [
    ...(runtime && privateFolder(runtime) ? [path.join(runtime, 'ratchet-warm')] : []),
    `/dev/shm/ratchet-warm-${uid()}`,
  ]
  for (const dir of candidates) {
    try {
      fs.mkdirSync(dir, { mode: 0o700 })
    } catch {}
    try {
      if (privateFolder(dir) && fs.statfsSync(dir).type === TMPFS) return dir
    } catch {}
  }
  return undefined
}

/** The warm process itself: `node dist/loader.cjs --warm <name>` (lib/runtime/loader.ts), with the loader's `load`. */
export function serve(load: (name: string) => Engine, name: string): void {
  // Node opens its inspector (a debugger anyone of this user could drive) on SIGUSR1 unless something listens
  // for it: loader.cjs listens before anything else runs. If it opened anyway, in that moment, this process
  // may already be someone else's: it stops.
  if (require('node:inspector').url() !== undefined) process.exit(1)
  const place = placeOf(process.env, process.cwd())
  const spool = place && spoolFolder()
  if (!place || !spool || !WARM_HOOKS.includes(name)) {
    // Nowhere private in memory: no warm process (the lock stays, so no call tries again for a minute).
    process.exit(0)
  }
  const crypto = require('node:crypto') as typeof import('node:crypto')
  const keys: Keys = {
    pid: process.pid,
    spool,
    client: crypto.randomBytes(24).toString('hex'),
    server: crypto.randomBytes(24).toString('hex'),
  }
  // The files it runs from: when any changes (an upgrade, a rebuild), this process is out of date.
  const own = [...WARM_HOOKS.map((h) => path.join(__dirname, `${h}.cjs`)), LOADER, __filename]
  const stamp = () => filesStamp(own)
  const built = stamp()
  // Every engine now, in the background of the call that started it: none is loaded on a call's time.
  const engines = new Map(WARM_HOOKS.map((h) => [h, load(h)]))
  const prefix = `${place.id}.`
  const home = { env: process.env, cwd: process.cwd() }
  const ppid = Object.getOwnPropertyDescriptor(process, 'ppid')
  let busy = false
  let served = 0
  let idle: NodeJS.Timeout | undefined
  let current: { stderr: string } | undefined // the answer being built, for warnings
  // Requests that came while another was decided, in order; each told "busy" after QUEUE_MS.
  const QUEUE_MS = queueMs()
  const waiting: { base: string; req: Request; timer: NodeJS.Timeout }[] = []

  const answer = (base: string, r: Answer, hook = '') => {
    fs.writeFileSync(`${base}.rtmp`, JSON.stringify({ k: keys.server, ...r }), { mode: 0o600 })
    // What tests read to know an answer came from here, and for which hook (RATCHET_WARM_LOG: a file, given when it
    // started); noted before the answer is out, so a client that has its answer finds it noted.
    if (home.env.RATCHET_WARM_LOG)
      fs.appendFileSync(home.env.RATCHET_WARM_LOG, `${r.busy ? 'busy' : 'answered'} ${hook}\n`)
    fs.renameSync(`${base}.rtmp`, `${base}.res`)
  }
  const quit = (): never => {
    // Whoever still waits decides in its own process at once, instead of noticing this process is gone.
    for (const w of waiting.splice(0)) {
      try {
        answer(w.base, { busy: true })
      } catch {}
    }
    // Its keys go only while they are still its own (a newer process may have taken the place).
    try {
      if (parseKeys(readSmall(place.keys))?.pid === process.pid) unlink(place.keys)
    } catch {}
    process.exit(0)
  }
  const touch = () => {
    clearTimeout(idle)
    idle = setTimeout(quit, idleMs())
  }

  const run = (base: string, req: Request) => {
    busy = true
    touch()
    decide(req).then((r) => {
      try {
        answer(base, r, req.hook ?? WARM_HOOKS[0])
      } catch {}
      busy = false
      if (r.poisoned || ++served >= MAX_REQUESTS) quit()
      const next = waiting.shift()
      if (next) {
        clearTimeout(next.timer)
        run(next.base, next.req)
      } else sweep() // any request that came and was not seen is waiting
    })
  }

  const sweep = () => {
    let names: string[]
    try {
      names = fs.readdirSync(spool)
    } catch {
      return quit()
    }
    // Another process has its place (a newer start wrote its keys): this one is no longer asked.
    if (parseKeys(readSmall(place.keys))?.pid !== process.pid) return quit()
    for (const f of names) {
      const file = path.join(spool, f)
      let age = 0
      try {
        age = Date.now() - fs.lstatSync(file).mtimeMs
      } catch {
        continue
      }
      // What a client or warm process that died left behind, of any project (they all belong to this user):
      // a request holds the environment, so nothing stays longer than a minute.
      if (age > 60_000) {
        unlink(file)
        continue
      }
      if (!f.startsWith(prefix) || !f.endsWith('.req')) continue
      // A request its client has stopped waiting for is not decided (the client decided it itself).
      if (age > WAIT_MS) {
        unlink(file)
        continue
      }
      const base = file.slice(0, -4)
      const req = parse(readSmall(file, MAX_REQUEST)) as Request | undefined
      unlink(file) // read: the secrets in it are not kept a moment longer
      // Not from a hook of this install: no answer at all (a client would time out and decide itself).
      if (
        !req ||
        req.k !== keys.client ||
        !Array.isArray(req.argv) ||
        !req.env ||
        typeof req.env !== 'object' ||
        typeof req.cwd !== 'string' ||
        typeof req.stdin !== 'string'
      )
        continue
      if (stamp() !== built) {
        answer(base, { busy: true })
        if (!busy) quit()
      } else if (busy) {
        const item = {
          base,
          req,
          timer: setTimeout(() => {
            const at = waiting.indexOf(item)
            if (at < 0) return
            waiting.splice(at, 1)
            try {
              answer(base, { busy: true })
            } catch {}
          }, QUEUE_MS),
        }
        waiting.push(item)
      } else run(base, req)
    }
  }

  // Warnings (a damaged state file moved aside) belong to the call that caused them, on its stderr.
  process.removeAllListeners('warning')
  process.on('warning', (w) => {
    if (current) current.stderr += `(node:${process.ppid}) ${w.name}: ${w.message}\n`
  })

  async function decide(req: Request): Promise<Answer> {
    // A request from a client older than the hook name (preflight-check's alone): the first engine's.
    const engine = engines.get(req.hook ?? WARM_HOOKS[0])
    if (!engine) return { busy: true }
    const out = { stdout: '', stderr: '', code: 0, poisoned: false }
    try {
      process.chdir(req.cwd)
    } catch {
      return { busy: true } // its folder is gone: the hook says so in its own process
    }
    current = out
    try {
      process.env = req.env
      Object.defineProperty(process, 'ppid', { configurable: true, get: () => req.ppid })
      process.exitCode = undefined
      // A call the engine answers by waiting on a model (custodiet's gates): the hook's own process waits.
      if (engine.exports.warmAnswers && !engine.exports.warmAnswers(req.stdin)) return { busy: true }
      const io = {
        argv: req.argv.slice(2),
        stdinIsTTY: false,
        write: (r: { stdout: string; stderr: string; exitCode: number }) => {
          out.stdout += r.stdout
          out.stderr += r.stderr
          out.code = r.exitCode
        },
        // The budget ran out while work is stuck: answer, then end this process (that work may go on).
        exitNow: () => {
          out.poisoned = true
        },
      }
      await engine.exports.main(req.argv, { stdin: req.stdin, io })
    } catch {
      // Never an answer it is not sure of: the hook decides in its own process.
      return { busy: true, poisoned: true }
    } finally {
      current = undefined
      process.env = home.env
      try {
        process.chdir(home.cwd)
      } catch {}
      if (ppid) Object.defineProperty(process, 'ppid', ppid)
      process.exitCode = undefined
    }
    return out
  }

  try {
    const tmpKeys = `${place.keys}.${process.pid}`
    fs.writeFileSync(tmpKeys, JSON.stringify(keys), { mode: 0o600 })
    // Busy or not, a request is taken as soon as it comes: it waits its turn here (see QUEUE_MS), not untaken
    // in the spool, where its client would end this process after PICKUP_MS, and the call being decided with it.
    fs.watch(spool, { persistent: true }, (_event, file) => {
      if (!file || (String(file).startsWith(prefix) && String(file).endsWith('.req'))) sweep()
    })
    fs.renameSync(tmpKeys, place.keys)
    unlink(place.lock)
  } catch {
    process.exit(1)
  }
  touch()
  // Gone with its state folder (a project deleted, a test's scratch folder) or its install.
  setInterval(() => {
    if (!fs.existsSync(place.stateDir) || stamp() !== built) quit()
    sweep()
  }, 30_000).unref()
  sweep()
}
