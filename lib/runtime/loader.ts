// Loads one bundled executable from dist/ through V8's code cache, so a hook skips parsing and
// compiling its bundle on every tool call (~10 ms of a ~40 ms budget). The cache is written at build
// time after a representative run, so it also holds the functions that run compiled. V8 rejects a
// cache made by another Node version or for other source; then we compile normally and refresh it.
// Bundled on its own by scripts/build.mjs (dist/loader.cjs, node built-ins only): the bin/ launchers require it, and
// the bundles require it for their chunks, so it stays small and imports nothing of the engine.

import fs from 'node:fs'
import path from 'node:path'

/** A bundle as loaded: its exports and a refresher of its code cache. */
interface Loaded {
  exports: Record<string, unknown>
  refresh(): void
}
/** A hook bundle's entry, as the launchers call it. */
type Main = (argv: string[], pre?: { stdin?: string; failNow?: string }) => unknown

/** Compiles and evaluates dist/<name>.cjs (through its code cache); returns its exports and a cache refresher. */
export function load(name: string): Loaded {
  const file = path.join(__dirname, name + '.cjs')
  const cacheFile = path.join(__dirname, name + cacheKey() + '.v8cache')
  let source: string
  try {
    source = fs.readFileSync(file, 'utf8')
  } catch (e) {
    ;(e as { incompleteInstall?: string }).incompleteInstall = file
    throw e
  }
  let cachedData: Buffer | undefined
  try {
    cachedData = fs.readFileSync(cacheFile)
  } catch {}
  // Required here, not at the top: a call the warm process answers never compiles a bundle.
  const vm = require('node:vm') as typeof import('node:vm')
  const script = new vm.Script((require('node:module') as typeof import('node:module')).wrap(source), {
    filename: file,
    cachedData,
  })
  const mod = { exports: {} as Record<string, unknown>, filename: file, id: file, loaded: true }
  script.runInThisContext().call(mod.exports, mod.exports, require, mod, file, __dirname)
  const refresh = () => {
    if (cachedData !== undefined && !script.cachedDataRejected && process.env.RATCHET_WRITE_CODE_CACHE !== '1') return
    try {
      const tmp = `${cacheFile}.${process.pid}.tmp`
      fs.writeFileSync(tmp, script.createCachedData())
      fs.renameSync(tmp, cacheFile)
    } catch {
      // A read-only install only loses the speed-up.
    }
  }
  return { exports: mod.exports, refresh }
}

/**
 * V8 accepts a code cache only from a process with the same V8 options. A user whose shell exports, say,
 * NODE_OPTIONS=--max-old-space-size=8192 (common in large JavaScript projects) had every call reject the
 * build's cache, compile from scratch and write its own over it, and the next call without the option did the
 * same the other way: each configuration of options now has its own cache file beside the build's
 * (<name>.<key>.v8cache, written on first use). Options that only load code (-r, --require, --import,
 * --loader) leave V8 alone and keep the build's cache.
 */
let key: string | undefined
function cacheKey(): string {
  if (key !== undefined) return key
  const words = [...process.execArgv, ...(process.env.NODE_OPTIONS || '').split(/\s+/)].filter(Boolean)
  const kept = []
  for (let i = 0; i < words.length; i++) {
    if (/^(-r|--require|--import|--loader|--experimental-loader)$/.test(words[i])) i++
    else if (!/^--(require|import|loader|experimental-loader)=/.test(words[i])) kept.push(words[i])
  }
  if (!kept.length) return (key = '')
  let h = 0x811c9dc5
  for (const c of kept.join(' ')) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193)
  return (key = '.' + (h >>> 0).toString(36))
}

/** Runs the bundle `name`'s `main` with `args`, in this process. */
export function run(name: string, ...args: Parameters<Main>): Promise<void> {
  let loaded: Loaded
  try {
    loaded = load(name)
  } catch (e) {
    const missing = (e as { incompleteInstall?: string })?.incompleteInstall
    if (!missing) throw e
    // A damaged install: exit 2, which blocks a PreToolUse call in every client (exit 1 would let it run).
    process.stderr.write(
      `ratchet ${name}: the install is incomplete (${(e as NodeJS.ErrnoException).code} ${missing}); blocked to be safe. Reinstall it (npm install in the project), or run \`npx ratchet-guard doctor\`.\n`,
    )
    process.exitCode = 2
    return Promise.resolve()
  }
  const done = Promise.resolve((loaded.exports.main as Main)(...args)) as Promise<void>
  done.finally(() => {
    loaded.refresh()
    for (const c of Object.values(chunks)) c.refresh()
    exitWhenIdle()
  })
  return done
}

/**
 * Ends the process once its work is done and nothing is left that would keep it alive: no handle (a child
 * still running, a socket, a ref'd timer) and no request in flight. Node would exit there anyway, a turn of
 * the event loop later, and V8 uses that turn for a young-generation collection of the heap the call just
 * built: ~1 ms of a hook's ~5 ms budget, on every call, for memory that is about to be freed. Checked after
 * the promise chains that are ready have run (nextTick runs once the microtask queue is empty); the exit
 * code is the one the hook set. Anything still pending means the ordinary exit.
 */
function exitWhenIdle(): void {
  process.nextTick(() => {
    if (process.getActiveResourcesInfo().length === 0) process.exit()
  })
}

/** Chunks loaded so far, by name. */
const chunks: Record<string, Loaded> = Object.create(null)

/**
 * A library the bundles import but a call seldom runs (scripts/build.mjs CHUNKS: zod, minimatch) is its own
 * file, dist/<name>.cjs, loaded through its code cache on first use. The bundle gets this stand-in: each of
 * `names` is a getter that loads the chunk when first read, so a hook that never validates a file with zod
 * never reads it. A missing chunk is an incomplete install: the error carries the file, and the hook's own
 * failure policy decides (a PreToolUse call that could not be checked is denied).
 */
export function chunk(name: string, names: string[]): Record<string, unknown> {
  const get = () => {
    if (!chunks[name]) {
      try {
        chunks[name] = load(name)
      } catch (e) {
        const missing = (e as { incompleteInstall?: string })?.incompleteInstall
        if (!missing) throw e
        // Not an internal error: the person reading it has something to do (the hook still fails closed).
        const err = new Error(
          `the install is incomplete (${(e as NodeJS.ErrnoException).code} ${missing}): reinstall it (npm install in the project)`,
        ) as Error & { incompleteInstall?: string }
        err.incompleteInstall = missing
        throw err
      }
    }
    return chunks[name].exports
  }
  const stand = {}
  for (const n of names) Object.defineProperty(stand, n, { enumerable: true, get: () => get()[n] })
  return stand
}

/**
 * A hook with a fast path (see the manifest's `fast`): the small bundle `fast` settles the commonest
 * calls on its own; anything it does not settle — including any error of its own — goes to the full
 * engine `name`, with the stdin it may already have read. It never decides anything but a plain allow.
 * Before loading it, the payload is screened (`screen`): a call the fast path plainly never settles goes
 * straight to the full engine.
 */
export function runFast(fast: string, name: string, argv: string[]): Promise<void> {
  // The compiled client (native/hook-client.c) handed the call over: the warm process took it and overran.
  if (process.env.RATCHET_WARM_OVERRAN === '1') {
    delete process.env.RATCHET_WARM_OVERRAN
    return run(name, argv, { failNow: 'it took longer than 3.5 s to check' })
  }
  const pre = screen(fast, argv)
  if (pre?.skip) return warmFirst(name, argv, pre.stdin)
  let outcome: { settled?: unknown; stdin?: unknown } | undefined
  try {
    const loaded = load(fast)
    outcome = (loaded.exports.main as Main)(argv, pre ? { stdin: pre.stdin } : undefined) as typeof outcome
    loaded.refresh()
  } catch {
    outcome = undefined // a missing or broken fast bundle costs only the speed-up
  }
  if (outcome && outcome.settled === true) return Promise.resolve()
  const stdin = outcome && typeof outcome.stdin === 'string' ? outcome.stdin : pre ? pre.stdin : undefined
  if (stdin === undefined) return run(name, argv)
  return warmFirst(name, argv, stdin)
}

/**
 * The full engine's decision, from the warm process when one answers (lib/runtime/warm.ts): then this
 * process never loads the engine. Otherwise decided here, as always; when no warm process exists, one is
 * started in the background for the next call.
 */
function warmFirst(name: string, argv: string[], stdin: string): Promise<void> {
  let asked: ReturnType<typeof import('./warm').ask> = {}
  try {
    // The warm process's bundle, beside this one in dist/ (lib/runtime/warm.ts): read only by a call that needs it.
    const warm = require('./warm.cjs') as typeof import('./warm')
    asked = warm.ask(argv, stdin, name)
    if (asked.place && asked.absent) warm.start(asked.place, name)
  } catch {
    // Anything wrong with the warm process only costs its speed-up: decided here.
  }
  if (asked.answer) {
    writeAll(1, asked.answer.stdout)
    writeAll(2, asked.answer.stderr)
    process.exitCode = asked.answer.code
    exitWhenIdle()
    return Promise.resolve()
  }
  // It took the call and overran its budget: deciding again here would overrun Claude Code's timeout too.
  if (asked.overran) return run(name, argv, { stdin, failNow: 'it took longer than 3.5 s to check' })
  return run(name, argv, { stdin })
}

function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text)
  for (let off = 0; off < buf.length; ) {
    try {
      off += fs.writeSync(fd, buf, off)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e
    }
  }
}

/**
 * The fast path's screen (<fast>.screen.json, written at build time from the fast bundle's SCREEN): reads
 * the payload and says whether the fast bundle is worth loading. `skip` only for a payload the fast path
 * would certainly hand over: another event, another tool, or a Bash command whose first word is plainly
 * (no quote, no shell syntax) not one of its programs. Undefined (the fast bundle reads stdin and decides,
 * as before) whenever anything is unusual: no screen, a terminal, a help flag, stdin that cannot be read.
 */
function screen(fast: string, argv: string[]): { stdin: string; skip: boolean } | undefined {
  if (process.env.RATCHET_FAST_PATH === '0' || argv.slice(2).some((a) => a === '--help' || a === '-h')) return undefined
  let s: { event: string; tools: string[]; programs: string[] }
  let stdin: string
  try {
    s = JSON.parse(fs.readFileSync(path.join(__dirname, fast + '.screen.json'), 'utf8'))
    const st = fs.fstatSync(0)
    if (st.isCharacterDevice() || st.isDirectory()) return undefined // a human at a terminal: the hook prints its help
    stdin = fs.readFileSync(0, 'utf8')
  } catch {
    return undefined
  }
  let call: { hook_event_name?: unknown; tool_name?: unknown; tool_input?: { command?: unknown } } | null
  try {
    call = JSON.parse(stdin)
  } catch {
    return { stdin, skip: false }
  }
  const skip =
    !!call &&
    typeof call === 'object' &&
    (call.hook_event_name !== s.event ||
      (call.tool_name !== 'Bash' && !s.tools.includes(call.tool_name as string)) ||
      (call.tool_name === 'Bash' && !plainlyOneOf(call.tool_input?.command, s.programs)))
  return { stdin, skip }
}

/** A command whose first word is plain (letters, digits, `_./-` only) and in `programs`, or anything unusual: true. */
function plainlyOneOf(command: unknown, programs: string[]): boolean {
  if (typeof command !== 'string') return false
  const m = /^[ \t]*([^ \t]*)/.exec(command)
  const word = m ? m[1] : ''
  if (!/^[A-Za-z0-9_./-]+$/.test(word)) return true
  return programs.includes(word)
}

// `node dist/loader.cjs --warm <name>`: the warm decision process (lib/runtime/warm.ts), started by a hook.
if (require.main === module && process.argv[2] === '--warm') {
  process.on('SIGUSR1', () => {}) // first: no inspector for a signal (see lib/runtime/warm.ts serve)
  ;(require('./warm.cjs') as typeof import('./warm')).serve(load as never, process.argv[3] as string)
}
