// A whole session in the real client: `claude -p` driven by the mock model through 30 ordinary tool calls
// (reads, edits, Bash commands), once per transport, the transports interleaved in the same rounds so a busy
// machine slows them alike. Prints, per transport, the session's wall time, what it adds per tool call against
// the same session with no hooks, the PreToolUse hook's time as the client logs it (`--debug`), and the load
// average around each run. Speed only: whether the answers are right is the tests' job.
//
//   npx tsx bench/session.ts              3 rounds (BENCH_SESSION_ROUNDS=n for more)
//   npm run bench                         runs it after the start-up tables (BENCH_SESSION=0 skips it)
//
// Transports, each with Claude Code's sandbox on as `ratchet init` turns it on (it costs the same in each, ~40 ms
// of CPU per Bash call; under it an http hook goes through the sandbox's proxy, so 127.0.0.1 is allowed there):
// none (no hooks); command (`ratchet init`, the default: a process per hook, preflight-check's through the compiled
// client native/hook-client.c where the build made it); command-no-reviewer (the same with custodiet's reviewer off:
// each review starts a `claude -p`, ~0.9 s of CPU, every 7 calls and at the end of a turn, see bench/reviewer-cpu.ts); command-node (the same, every hook through the node launcher); http-floor (one `type: "http"`
// PreToolUse hook that answers `{}`: the least any hook can cost); command-floor (`/bin/true` as a command hook before
// each call and as an async one after it: the least Ratchet's shape of hooks, a process per call, can cost); service
// (`ratchet init --transport http`).

import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { claudeEnv, startMockModel, type Step } from '../test/support/mock-anthropic'

const ROOT = path.resolve(__dirname, '..')
const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')
const CALLS = 30
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[xs.length >> 1] : NaN)
const load = () => os.loadavg()[0].toFixed(2)

type Mode = 'none' | 'command' | 'command-no-reviewer' | 'command-node' | 'http-floor' | 'command-floor' | 'service'
const ALL: Mode[] = ['none', 'command', 'command-no-reviewer', 'command-node', 'http-floor', 'command-floor', 'service']
// BENCH_SESSION_MODES=none,command,command-node: only these (none is always run: it is the baseline).
const MODES: Mode[] = process.env.BENCH_SESSION_MODES
  ? ALL.filter((m) => m === 'none' || process.env.BENCH_SESSION_MODES!.split(',').includes(m))
  : ALL

/** The 30 calls: for each of ten files, a read, an edit, and a Bash command of the everyday kind. */
function steps(dir: string): Step[] {
  const bash = ['git status --short', 'ls -la', 'wc -l f{i}.txt', 'grep -n LINE f{i}.txt', 'echo done >> log.txt']
  const out: Step[] = []
  for (let i = 0; i < CALLS / 3; i++) {
    const f = path.join(dir, `f${i}.txt`)
    out.push({ tool: 'Read', input: { file_path: f } })
    out.push({ tool: 'Edit', input: { file_path: f, old_string: 'line one', new_string: 'LINE one' } })
    out.push({ tool: 'Bash', input: { command: bash[i % bash.length].replace('{i}', String(i)), description: 'look' } })
  }
  return out
}

function project(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-session-')))
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@x',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@x',
  }
  for (let i = 0; i < CALLS / 3; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), `line one\nline two\n`)
  spawnSync('git', ['init', '-q'], { cwd: dir, env })
  spawnSync('git', ['add', '.'], { cwd: dir, env })
  spawnSync('git', ['commit', '-qm', 'init'], { cwd: dir, env })
  return dir
}

/** Sets the project up for a transport; false when this build cannot (the transport is then skipped). */
function setUp(mode: Mode, dir: string, floorUrl: string, env: NodeJS.ProcessEnv): boolean {
  const settings = path.join(dir, '.claude', 'settings.json')
  fs.mkdirSync(path.dirname(settings), { recursive: true })
  const sandbox = {
    enabled: true,
    failIfUnavailable: true,
    allowUnsandboxedCommands: false,
    network: { allowedDomains: ['127.0.0.1'] },
  }
  if (mode === 'none') fs.writeFileSync(settings, JSON.stringify({ sandbox }))
  else if (mode === 'http-floor')
    fs.writeFileSync(
      settings,
      JSON.stringify({
        sandbox,
        hooks: {
          PreToolUse: [{ matcher: '*', hooks: [{ type: 'http', url: floorUrl, timeout: 10, onFailure: 'block' }] }],
        },
      }),
    )
  else if (mode === 'command-floor')
    // The least a process per call costs: /bin/true before each call and, in the background, after it.
    fs.writeFileSync(
      settings,
      JSON.stringify({
        sandbox,
        hooks: {
          PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'exec /bin/true', timeout: 10 }] }],
          PostToolUse: [
            { matcher: '*', hooks: [{ type: 'command', command: 'exec /bin/true', timeout: 10, async: true }] },
          ],
        },
      }),
    )
  else {
    const args = ['init', '--project-dir', dir, ...(mode === 'service' ? ['--transport', 'http'] : [])]
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ratchet'), ...args], {
      cwd: dir,
      env,
      encoding: 'utf8',
    })
    if (r.status !== 0) {
      process.stdout.write(`  (${mode} skipped: ratchet init said: ${(r.stderr || r.stdout).trim().split('\n')[0]})\n`)
      return false
    }
    // The same install with custodiet's reviewer off: what the hooks cost, apart from the reviews' CPU.
    if (mode === 'command-no-reviewer') {
      const config = path.join(dir, '.ratchet', 'config.json')
      const c = fs.existsSync(config) ? JSON.parse(fs.readFileSync(config, 'utf8')) : {}
      fs.writeFileSync(config, JSON.stringify({ ...c, custodiet: { ...c.custodiet, reviewer: { kind: 'none' } } }))
    }
    // The same install without the compiled client: every call starts the node launcher.
    const text = fs.readFileSync(settings, 'utf8')
    if (mode === 'command-node') {
      const stripped = text.replace(/n=[^;]*; if \[ -x \\"\$n\\" \].*?; fi; /g, '')
      if (stripped === text || stripped.includes('hook-client'))
        throw new Error('bench/session.ts: could not strip the compiled client from the hook commands')
      fs.writeFileSync(settings, stripped)
    } else if (mode === 'command' && !text.includes('hook-client'))
      process.stdout.write('  (command: this build has no compiled client; command runs the node launcher)\n')
  }
  return true
}

interface RunResult {
  ms: number
  ok: boolean
  preToolUse: number[]
  /** The end of the turn: how long the client waited on Stop hooks. */
  stop: number[]
  load: string
}

/** The client's own times for each PreToolUse hook and each Stop hook, from its debug log. */
function hookTimes(home: string): { pre: number[]; stop: number[] } {
  const dir = path.join(home, '.claude', 'debug')
  const out: number[] = []
  const stop: number[] = []
  // Each session's log once (the folder also holds a `latest` link to the newest).
  for (const f of fs.existsSync(dir)
    ? fs.readdirSync(dir).filter((x) => fs.lstatSync(path.join(dir, x)).isFile())
    : []) {
    let post: number | undefined
    let postPre = false
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      const at = Date.parse(line.slice(0, 24))
      // A command hook: "Hooks: PreToolUse:Bash [<command>] finished with status 0 (12ms)".
      const cmd = /Hooks: PreToolUse:\S+ \[.*\] finished with status \d+ \((\d+)ms\)/.exec(line)
      if (cmd && /preflight-check|exec \/bin\/true/.test(line)) out.push(Number(cmd[1]))
      const end = /Hooks: Stop \[.*\] finished with status \d+ \((\d+)ms\)/.exec(line)
      if (end) stop.push(Number(end[1]))
      // An http hook: the POST and its response, logged a few milliseconds apart (ms resolution).
      const p = /Hooks: HTTP hook POST to (\S+)/.exec(line)
      if (p) {
        post = at
        postPre = !/custodiet/.test(p[1])
      }
      if (/Hooks: HTTP hook response status/.test(line) && post !== undefined) {
        if (postPre) out.push(at - post)
        post = undefined
      }
    }
  }
  return { pre: out, stop }
}

async function runOnce(mode: Mode, floorUrl: string, serviceEnv: NodeJS.ProcessEnv): Promise<RunResult | undefined> {
  const dir = project()
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-home-')))
  const model = await startMockModel(steps(dir))
  // The per-user config folder is the run's own, except under the service, which is one per user and stays up
  // between sessions: its runs share one (serviceEnv's), so the first run starts it and the later ones find it, as a
  // user's sessions do.
  const env = claudeEnv(model.url, home, {
    XDG_CONFIG_HOME: path.join(home, '.config'),
    // A clean environment: a machine's NODE_EXTRA_CA_CERTS (this one sets it) makes every node start read its CA
    // bundle, 30-40 ms of CPU; NODE_OPTIONS could load anything.
    NODE_EXTRA_CA_CERTS: undefined,
    NODE_OPTIONS: undefined,
    ...(mode === 'service' ? serviceEnv : {}),
  })
  if (!setUp(mode, dir, floorUrl, env)) {
    await model.close()
    return undefined
  }
  const before = load()
  const t = process.hrtime.bigint()
  const r = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
    const c = spawn(
      CLAUDE,
      [
        '-p',
        'Tidy the ten files.',
        '--output-format',
        'json',
        '--debug',
        '--allowedTools',
        'Bash',
        'Read',
        'Write',
        'Edit',
      ],
      { cwd: dir, env },
    )
    let stdout = ''
    c.stdout.on('data', (d) => (stdout += d))
    c.stderr.resume()
    const timer = setTimeout(() => c.kill('SIGKILL'), 300_000)
    c.on('close', (status) => (clearTimeout(timer), resolve({ status, stdout })))
  })
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  await model.close()
  const calls = model.mainTurns().length - 1
  const ok = r.status === 0 && calls === CALLS
  if (!ok) process.stdout.write(`  (${mode}: exit ${r.status}, ${calls} of ${CALLS} calls reached the model)\n`)
  const times = hookTimes(home)
  return { ms, ok, preToolUse: times.pre, stop: times.stop, load: `${before}→${load()}` }
}

export async function sessionBench(rounds = Number(process.env.BENCH_SESSION_ROUNDS ?? 3)): Promise<void> {
  const floor = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
  })
  await new Promise<void>((r) => floor.listen(0, '127.0.0.1', r))
  const floorUrl = `http://127.0.0.1:${(floor.address() as { port: number }).port}/hook`
  // The service this bench starts listens on a port of its own, away from any the user's sessions use.
  const serviceEnv = {
    RATCHET_SERVICE_PORT: String(42000 + (process.pid % 1000)),
    XDG_CONFIG_HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-service-config-')),
  }
  const results: Record<Mode, RunResult[]> = {
    none: [],
    command: [],
    'command-no-reviewer': [],
    'command-node': [],
    'http-floor': [],
    'command-floor': [],
    service: [],
  }
  const skipped = new Set<Mode>()
  process.stdout.write(
    `\nWhole session in the real client (${CALLS} tool calls, mock model, ${rounds} rounds, transports interleaved; load average at start ${load()}, ${os.cpus().length} cores)\n`,
  )
  for (let round = 0; round < rounds; round++) {
    // Rotated each round: no transport always runs first (or right after another's clean-up).
    const order = MODES.map((_m, i) => MODES[(i + round) % MODES.length]).filter((m) => !skipped.has(m))
    for (const mode of order) {
      const r = await runOnce(mode, floorUrl, serviceEnv)
      if (!r) skipped.add(mode)
      else {
        results[mode].push(r)
        process.stdout.write(
          `  round ${round + 1} ${mode.padEnd(10)} ${(r.ms / 1000).toFixed(2)} s  load ${r.load}${r.ok ? '' : '  (incomplete)'}\n`,
        )
      }
    }
  }
  floor.close()
  const base = median(results.none.filter((r) => r.ok).map((r) => r.ms))
  const floorAdded = (median(results['http-floor'].filter((r) => r.ok).map((r) => r.ms)) - base) / CALLS
  process.stdout.write(
    `\n| transport | session (median) | added per tool call | vs the http floor | PreToolUse in the client's log (median, p90) | Stop wait (median) |\n|---|---|---|---|---|---|\n`,
  )
  for (const mode of MODES) {
    const ok = results[mode].filter((r) => r.ok)
    if (!ok.length) {
      process.stdout.write(`| ${mode} | ${skipped.has(mode) ? 'skipped' : 'no complete run'} | | | | |\n`)
      continue
    }
    const m = median(ok.map((r) => r.ms))
    const added = (m - base) / CALLS
    const hooks = ok.flatMap((r) => r.preToolUse).sort((a, b) => a - b)
    const hookText = hooks.length
      ? `${median(hooks)} ms, ${hooks[Math.floor(hooks.length * 0.9)]} ms (${hooks.length} calls)`
      : '—'
    const stops = ok.flatMap((r) => r.stop)
    const stopText = stops.length ? `${median(stops)} ms` : '—'
    process.stdout.write(
      `| ${mode} | ${(m / 1000).toFixed(2)} s | ${mode === 'none' ? '—' : `${added >= 0 ? '+' : ''}${added.toFixed(0)} ms`} | ${mode === 'none' || mode === 'http-floor' ? '—' : `${added - floorAdded >= 0 ? '+' : ''}${(added - floorAdded).toFixed(0)} ms`} | ${hookText} | ${stopText} |\n`,
    )
  }
  process.stdout.write(
    `load average at the end: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}\n`,
  )
  // The service this bench started: it would leave on its own when idle; it goes now.
  spawnSync(process.execPath, [path.join(ROOT, 'bin', 'ratchet'), 'service', 'stop'], {
    env: { ...process.env, ...serviceEnv },
    stdio: 'ignore',
  })
}

if (require.main === module) void sessionBench()
