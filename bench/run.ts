// npm run bench — start-up cost of the hooks against bare `node -e ''`, honestly:
//  - a clean environment (PATH and HOME only); start-up variables such as NODE_EXTRA_CA_CERTS, when the
//    calling shell has them, are measured in a separate table;
//  - each case runs immediately after its own bare-node run, and the ratio is the median of those pairs;
//  - wall time (what the agent waits) beside CPU time and peak RSS, read inside each child;
//  - a fire case uses a fresh session per call, so every run pays for recording the fire;
//  - a detached reviewer started by one case finishes before the next baseline runs;
//  - the decision's in-process time cold (first call in a fresh process) beside warm;
//  - calls the fast path cannot settle are measured twice: answered by the warm decision process (the default,
//    lib/runtime/warm.ts), with that process's CPU time for the call added to the hook's (read from
//    /proc/<pid>/task/*/schedstat around each call), and decided in the hook's own process (RATCHET_WARM=0: the
//    first such call of a project, and machines without the warm process).
//
//   npm run bench                 all benchmarks
//   BENCH_RUNS=60 npm run bench   more samples
//   BENCH_HOOKS_ONLY=1 npm run bench   only the hook start-up table

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Guardrail } from '../lib/core/guardrails'
import { approvalLatency } from './approval-latency'
import { run as minePatterns, transcripts as mineTranscripts } from './pattern-detect'
import { run as stopWait } from './custodiet-stop'
import { sessionBench } from './session'
import { reviewerCpu } from './reviewer-cpu'

const ROOT = path.resolve(__dirname, '..')
const RUNS = Number(process.env.BENCH_RUNS ?? 60)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

/** 1,000 rules: a mix of detector rules and glob rules, none of which match `ls -la`. */
export function manyGuardrails(n = 1000): Guardrail[] {
  const out: Guardrail[] = []
  const patterns = [
    'git_push',
    'file_delete',
    'deploy',
    'package_publish',
    'db_destroy',
    'irreversible',
    'public_surface',
  ]
  for (let i = 0; i < n; i++) {
    const base = {
      id: `GR-${String(i + 1).padStart(4, '0')}`,
      source: `INC-${(i % 97) + 1}`,
      trigger: `synthetic rule ${i}`,
      rule: `Synthetic rule number ${i}: verify before acting.`,
      severity: 'soft' as const,
      added: '2026-11-01',
      last_fired: null,
      fire_count: 0,
    }
    if (i % 3 === 0) out.push({ ...base, pattern: patterns[i % patterns.length] })
    else if (i % 3 === 1)
      out.push({
        ...base,
        pattern: `custom_${i}`,
        match: { tools: ['Bash'], command: [`deploy-tool-${i} *`, `release-${i}*`] },
      })
    else
      out.push({
        ...base,
        pattern: `custom_${i}`,
        match: { tools: ['Write', 'Edit'], paths: [`config/service-${i}/**`, `**/secret-${i}.env`] },
      })
  }
  return out
}

function project(name: string, rules?: Guardrail[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ratchet-bench-${name}-`))
  fs.mkdirSync(path.join(dir, '.ratchet'))
  fs.writeFileSync(path.join(dir, 'README.md'), '# bench\n')
  // What the fire case deletes: it must exist, or deleting it is not irreversible and nothing fires.
  fs.mkdirSync(path.join(dir, 'build'))
  fs.writeFileSync(path.join(dir, 'build', 'app.js'), 'built\n')
  fs.copyFileSync(path.join(ROOT, 'guardrails.json'), path.join(dir, '.ratchet', 'guardrails.json'))
  if (rules) fs.writeFileSync(path.join(dir, '.ratchet', 'guardrails.json'), JSON.stringify(rules, null, 2))
  return dir
}

// Start-up is measured in a clean environment: only PATH and HOME (plus each case's own variables), so
// neither the baseline nor the hook pays for what the caller's shell happens to export. Variables that
// change Node's start-up cost are measured separately, below the clean table.
const CONFIG_HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-config-'))
const CLEAN: NodeJS.ProcessEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? os.tmpdir(),
  XDG_CONFIG_HOME: CONFIG_HOME,
}
const STARTUP_VARS = [
  'NODE_EXTRA_CA_CERTS',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_COMPILE_CACHE',
  'NODE_V8_COVERAGE',
  'NODE_DEBUG',
  'NODE_PENDING_DEPRECATION',
  'UV_THREADPOOL_SIZE',
]
const startupVars = (): NodeJS.ProcessEnv =>
  Object.fromEntries(STARTUP_VARS.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]))

// CPU time and peak RSS come from inside the child (RUSAGE_SELF covers the whole process, Node's own
// start-up included), so they hold up on a loaded machine where wall time does not.
const PROBE = path.join(os.tmpdir(), `ratchet-bench-probe-${process.pid}.cjs`)
fs.writeFileSync(
  PROBE,
  `process.on('exit', () => { const u = process.resourceUsage(); require('fs').writeSync(2, '\\nRATCHET_PROBE ' + (u.userCPUTime + u.systemCPUTime) + ' ' + u.maxRSS + '\\n') })\n`,
)

interface Case {
  label: string
  /** The executable (a bin/ launcher); run directly, as Claude Code runs it. */
  bin: string
  /** The payload, or a function of the round (a fresh session per round, for instance). */
  input?: string | ((round: number) => string)
  env?: NodeJS.ProcessEnv
  /** Waits until work the call left running (a detached reviewer) is done, so it never overlaps a baseline. */
  settle?: (round: number) => void
  /** What the hook's stdout must be for the case to measure what it says (checked on every timed run). */
  expect?: (stdout: string) => boolean
  /** Answered by the warm process of this state folder: its CPU time for each call is the hook's too. */
  warm?: string
}

/** The warm process serving `stateDir` (its keys in the bench's config folder), once it is up. */
function warmPid(stateDir: string, maxMs = 15_000): number {
  const dir = path.join(CONFIG_HOME, 'ratchet', 'warm')
  const until = Date.now() + maxMs
  for (;;) {
    for (const f of fs.existsSync(dir) ? fs.readdirSync(dir).filter((x) => x.endsWith('.json')) : []) {
      try {
        const { pid } = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))
        if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(stateDir)) return pid
      } catch {}
    }
    if (Date.now() > until) throw new Error(`no warm process for ${stateDir}: is /dev/shm there?`)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50)
  }
}

/** The resident memory of the warm processes the cases used. */
function warmRss(cases: Case[]): string {
  const dirs = [...new Set(cases.map((c) => c.warm).filter((d): d is string => !!d))]
  return dirs
    .map((d) => {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${warmPid(d)}/status`, 'utf8'))?.[1])
      return `${(kb / 1024).toFixed(1)} MB (${path.basename(path.dirname(d))})`
    })
    .join(', ')
}

/** CPU time (ms) of every thread of `pid` so far. */
function threadCpu(pid: number): number {
  let ns = 0
  for (const t of fs.readdirSync(`/proc/${pid}/task`))
    ns += Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0])
  return ns / 1e6
}

interface Samples {
  wall: number[]
  bareWall: number[]
  cpu: number[]
  bareCpu: number[]
  rss: number[]
  bareRss: number[]
}

const inputOf = (c: Case, i: number) => (typeof c.input === 'function' ? c.input(i) : (c.input ?? ''))
const WARM = 3

function wall(
  cmd: string,
  args: string[],
  input: string,
  env: NodeJS.ProcessEnv,
  expect?: (stdout: string) => boolean,
): number {
  const t = process.hrtime.bigint()
  const r = spawnSync(cmd, args, { input, env })
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (r.status !== 0 && r.status !== 2) throw new Error(`${cmd} exited ${r.status}: ${r.stderr}`)
  // A case measures what its label says, or the bench stops (a "fire" that fired nothing went unnoticed once).
  if (expect && !expect(String(r.stdout)))
    throw new Error(`${cmd}: the output is not what the case measures: ${String(r.stdout).slice(0, 300) || '(empty)'}`)
  return ms
}

function probed(args: string[], input: string, env: NodeJS.ProcessEnv): { cpu: number; rss: number } {
  const r = spawnSync(process.execPath, ['-r', PROBE, ...args], { input, env })
  const m = /RATCHET_PROBE (\d+) (\d+)/.exec(String(r.stderr))
  if (!m) throw new Error(`no probe output from ${args.join(' ')}: ${r.stderr}`)
  return { cpu: Number(m[1]) / 1000, rss: Number(m[2]) }
}

/** Each hook run immediately after its own bare-node run, so both see the same machine. */
function measure(c: Case, extraEnv: NodeJS.ProcessEnv = {}, runs = RUNS): Samples {
  const s: Samples = { wall: [], bareWall: [], cpu: [], bareCpu: [], rss: [], bareRss: [] }
  const env = { ...CLEAN, ...extraEnv }
  for (let i = -WARM; i < runs; i++) {
    // The first calls start the warm process; the timed ones are answered by it.
    if (i === 0 && c.warm) warmPid(c.warm)
    const bare = wall(process.execPath, ['-e', ''], '', env)
    const hook = wall(
      c.bin,
      [],
      inputOf(c, i + WARM),
      { ...env, ...c.env },
      c.expect && ((out) => c.expect!(out) || (console.error(`case "${c.label}"`), false)),
    )
    c.settle?.(i + WARM)
    if (i < 0) continue // warms the page cache
    s.bareWall.push(bare)
    s.wall.push(hook)
  }
  const pid = c.warm ? warmPid(c.warm) : 0
  for (let i = 0; i < runs; i++) {
    const bare = probed(['-e', ''], '', env)
    const before = pid ? threadCpu(pid) : 0
    const hook = probed([c.bin], inputOf(c, runs + WARM + i), { ...env, ...c.env })
    const warmCpu = pid ? threadCpu(pid) - before : 0
    c.settle?.(runs + WARM + i)
    s.bareCpu.push(bare.cpu)
    s.cpu.push(hook.cpu + warmCpu)
    s.bareRss.push(bare.rss)
    s.rss.push(hook.rss)
  }
  return s
}

/** The median of per-pair ratios: machine drift hits both runs of a pair alike and cancels out. */
const pairedRatio = (xs: number[], base: number[]) => median(xs.map((x, i) => x / base[i]))

interface Row {
  label: string
  s: Samples
}

function table(rows: Row[]): string[] {
  const head = `  ${'case'.padEnd(46)} ${'wall ms'.padStart(8)} ${'× bare'.padStart(7)}  ${'CPU ms'.padStart(7)} ${'× bare'.padStart(7)}  ${'RSS MB'.padStart(7)} ${'× bare'.padStart(7)}`
  const lines = [head]
  const b = rows[0].s
  lines.push(
    `  ${"bare node -e ''".padEnd(46)} ${median(b.bareWall).toFixed(1).padStart(8)} ${'1.00'.padStart(7)}  ${median(b.bareCpu).toFixed(1).padStart(7)} ${'1.00'.padStart(7)}  ${(median(b.bareRss) / 1024).toFixed(1).padStart(7)} ${'1.00'.padStart(7)}`,
  )
  for (const { label, s } of rows)
    lines.push(
      `  ${label.padEnd(46)} ${median(s.wall).toFixed(1).padStart(8)} ${pairedRatio(s.wall, s.bareWall).toFixed(2).padStart(7)}  ${median(s.cpu).toFixed(1).padStart(7)} ${pairedRatio(s.cpu, s.bareCpu).toFixed(2).padStart(7)}  ${(median(s.rss) / 1024).toFixed(1).padStart(7)} ${(median(s.rss) / median(s.bareRss)).toFixed(2).padStart(7)}`,
    )
  return lines
}

/** Waits (Linux: /proc) until no process mentions `needle` on its command line; elsewhere, a fixed pause. */
function waitForExit(needle: string, maxMs = 15_000): void {
  const until = Date.now() + maxMs
  const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
  if (!fs.existsSync('/proc/self/cmdline')) return void pause(1000)
  for (;;) {
    let running = false
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue
      try {
        if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle)) running = true
      } catch {}
      if (running) break
    }
    if (!running) return
    if (Date.now() > until) throw new Error(`a detached process for ${needle} still runs after ${maxMs} ms`)
    pause(20)
  }
}

const RUN_ID = `${process.pid}-${Date.now().toString(36)}`
let fireCalls = 0
const LS_1000 = 'preflight-check, 1,000 rules, ls -la (fast path)'
const NOFIRE_FULL = 'preflight-check, 1,000 rules, npm test (full engine)'
const EDIT_FULL = 'preflight-check, 1,000 rules, Edit of a read file'
const FIRE_ONE = 'preflight-check, 1,000 rules, one rule fires'
const FIRE_MANY = 'preflight-check, 1,000 rules, rm -rf fires 96'
/** The same call decided in the hook's own process (RATCHET_WARM=0), beside the warm process's answer. */
const OWN = ' (own process)'

function hookCases(): Case[] {
  const small = project('default')
  const large = project('1000', manyGuardrails())
  const bin = path.join(ROOT, 'bin', 'preflight-check')
  const payload = (cwd: string, tool: Record<string, unknown>, session = 'bench') =>
    JSON.stringify({
      session_id: session,
      transcript_path: '/dev/null',
      cwd,
      hook_event_name: 'PreToolUse',
      ...tool,
      tool_use_id: 'toolu_bench',
    })
  const bash = (command: string) => ({ tool_name: 'Bash', tool_input: { command } })
  const env = (dir: string) => ({ CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: path.join(dir, '.ratchet') })
  // Reads and plain read-only commands are settled by the fast path (hooks/preflight-check/fast.ts); `npm test`
  // fires nothing either but needs the full engine: both are measured, so neither hides the other.
  const silent = (out: string) => out === ''
  const fired = (out: string) => out.includes('[PRE-FLIGHT]') && out.includes('"deny"')
  // The commonest write: an Edit of a file the session has read (else the stale-data check fires). 333 of the
  // 1,000 rules are path rules of Write and Edit; none matches README.md.
  const readFirst = spawnSync(bin, [], {
    input: payload(
      large,
      { tool_name: 'Read', tool_input: { file_path: path.join(large, 'README.md') } },
      'bench-edit',
    ),
    env: { ...CLEAN, ...env(large) },
  })
  if (readFirst.status !== 0) throw new Error(`the Edit case's Read failed: ${readFirst.stderr}`)
  return [
    {
      label: 'preflight-check, default rules, ls -la',
      bin,
      input: payload(small, bash('ls -la')),
      env: env(small),
      expect: silent,
    },
    { label: LS_1000, bin, input: payload(large, bash('ls -la')), env: env(large), expect: silent },
    {
      label: 'preflight-check, 1,000 rules, Read (fast path)',
      bin,
      input: payload(large, { tool_name: 'Read', tool_input: { file_path: path.join(large, 'README.md') } }),
      env: env(large),
      expect: silent,
    },
    // Calls the fast path cannot settle: answered by the warm process (its CPU time included), and decided in
    // the hook's own process.
    ...fullEngine([
      { label: NOFIRE_FULL, bin, input: payload(large, bash('npm test')), env: env(large), expect: silent },
      // A fresh session per call: every measured call fires the rules (rm -rf of an existing folder: RG-IRREVERSIBLE
      // and the file_delete rules among the 1,000) and pays for recording it and for the fired rules' texts.
      // (Numbered per call, not per round: the second table below would otherwise repeat sessions, and an
      // identical retry in a session is let through, which measured a cheaper path under the fire label.)
      {
        label: EDIT_FULL,
        bin,
        input: payload(
          large,
          {
            tool_name: 'Edit',
            tool_input: { file_path: path.join(large, 'README.md'), old_string: '# bench', new_string: '# Bench' },
          },
          'bench-edit',
        ),
        env: env(large),
        expect: silent,
      },
      // One project rule (a command glob) fires, in a fresh session per call.
      {
        label: FIRE_ONE,
        bin,
        input: () => payload(large, bash('deploy-tool-1 prod'), `bench-fire-${RUN_ID}-${++fireCalls}`),
        env: env(large),
        expect: fired,
      },
      {
        label: FIRE_MANY,
        bin,
        input: () => payload(large, bash('rm -rf build'), `bench-fire-${RUN_ID}-${++fireCalls}`),
        env: env(large),
        expect: fired,
      },
    ]),
    {
      label: 'session-start, default rules',
      bin: path.join(ROOT, 'bin', 'session-start'),
      input: JSON.stringify({ session_id: 'bench', hook_event_name: 'SessionStart', source: 'startup', cwd: small }),
      env: env(small),
    },
    ...custodietCases(),
  ]
}

/** Each case twice: answered by the warm process (the default), and in the hook's own process (RATCHET_WARM=0). */
function fullEngine(cases: Case[]): Case[] {
  return cases.flatMap((c) => [
    { ...c, warm: c.env!.RATCHET_DIR },
    { ...c, label: c.label + OWN, env: { ...c.env, RATCHET_WARM: '0' } },
  ])
}

/** custodiet's PostToolUse path: an ordinary call, and a call that launches a background review. */
function custodietCases(): Case[] {
  const quiet = project('custodiet')
  const busy = project('custodiet-launch')
  // A quick local reviewer: the launching call pays for the spawn, never for the review itself.
  fs.writeFileSync(
    path.join(busy, '.ratchet', 'config.json'),
    JSON.stringify({
      custodiet: { every: 1, reviewer: { kind: 'command', command: "cat >/dev/null; echo '## Compliance Check: OK'" } },
    }),
  )
  const post = (cwd: string, session: string) =>
    JSON.stringify({
      session_id: session,
      transcript_path: '/dev/null',
      cwd,
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: path.join(cwd, 'README.md') },
      tool_response: { type: 'text' },
      tool_use_id: 'toolu_bench',
    })
  const bin = path.join(ROOT, 'bin', 'custodiet')
  const env = (dir: string) => ({ CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: path.join(dir, '.ratchet') })
  const launch = (i: number) => `bench-launch-${RUN_ID}-${i}`
  return [
    { label: 'custodiet PostToolUse, ordinary call', bin, input: post(quiet, 'bench'), env: env(quiet) },
    // A fresh session each round, with every: 1, so every measured call launches a review; the review
    // finishes before the next baseline starts.
    {
      label: 'custodiet PostToolUse, launches a review',
      bin,
      input: (i) => post(busy, launch(i)),
      env: env(busy),
      settle: (i) => waitForExit(launch(i)),
    },
  ]
}

/**
 * The decision itself, in-process: cold is the first call in a fresh process (what every hook run
 * pays: nothing is warm), warm is the steady state after many calls. A small bundle of the decision
 * core, run in fresh processes.
 */
async function decisionTimes(): Promise<string[]> {
  const { build } = await import('esbuild')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-decide-'))
  const rulesFile = path.join(dir, 'rules.json')
  fs.writeFileSync(rulesFile, JSON.stringify(manyGuardrails()))
  const out = path.join(dir, 'decide.cjs')
  await build({
    entryPoints: [path.join(__dirname, 'decide-probe.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: out,
    logLevel: 'warning',
    mainFields: ['module', 'main'],
    conditions: ['import'],
  })
  const runs = Math.max(9, Math.round(RUNS / 3))
  const probe = (k: number) => {
    const r = spawnSync(process.execPath, [out, rulesFile, String(k)], { env: CLEAN, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`decide probe failed: ${r.stderr}`)
    return JSON.parse(r.stdout) as { label: string; cold: number; warm: number; compile: number; count: number }
  }
  const lines = [
    `\nThe decision in-process (classify + match + note), 1,000 guardrails; median of ${runs} fresh processes per call:`,
  ]
  const count = probe(0).count
  for (let k = 0; k < count; k++) {
    const rs = Array.from({ length: runs }, () => probe(k))
    const cold = median(rs.map((r) => r.cold))
    const warm = median(rs.map((r) => r.warm))
    if (k === 0)
      lines.push(`  compile 1,000 rules (once per process): ${median(rs.map((r) => r.compile)).toFixed(2)} ms`)
    lines.push(
      `  ${rs[0].label.padEnd(60)} cold ${(cold * 1000).toFixed(0).padStart(6)} µs   warm ${(warm * 1000).toFixed(1).padStart(6)} µs${warm < 0.1 ? '' : '  (warm is over the 0.1 ms target)'}`,
    )
  }
  fs.rmSync(dir, { recursive: true, force: true })
  return lines
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'preflight-check.cjs'))) throw new Error('run npm run build first')
  const out: string[] = [
    `Ratchet benchmarks — node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}, ${RUNS} runs per case, each right after its own bare-node run (medians)`,
  ]
  out.push('\nHook start-up, a fresh process per call as Claude Code runs it; clean environment (PATH and HOME only).')
  out.push(
    'Wall time is what the agent waits; CPU time (user + system, all threads) holds up better on a busy machine.',
  )
  const cases = hookCases()
  const rows = cases.map((c) => ({ label: c.label, s: measure(c) }))
  out.push(...table(rows))
  const get = (label: string) => rows.find((r) => r.label === label)!.s
  const target = (what: string, s: Samples, max: number) => {
    const w = pairedRatio(s.wall, s.bareWall)
    const c = pairedRatio(s.cpu, s.bareCpu)
    return `  target ${what} ≤ ${max}× bare node: wall ${w.toFixed(2)}× ${w <= max ? 'met' : 'NOT met'}, CPU ${c.toFixed(2)}× ${c <= max ? 'met' : 'NOT met'}`
  }
  out.push(
    target('with 1,000 guardrails, a call that fires nothing (a read-only command: fast path)', get(LS_1000), 1.25),
  )
  out.push(
    target(
      'with 1,000 guardrails, a call that fires nothing (through the full engine: npm test)',
      get(NOFIRE_FULL),
      1.25,
    ),
  )
  out.push(
    target('with 1,000 guardrails, a call that fires nothing (through the full engine: Edit)', get(EDIT_FULL), 1.25),
  )
  out.push(target('with 1,000 guardrails, a call that fires a rule (one rule)', get(FIRE_ONE), 1.5))
  out.push(
    target(
      'with 1,000 guardrails, a call that fires a rule (worst case: a delete, 96 rules, loss evidence)',
      get(FIRE_MANY),
      1.5,
    ),
  )
  out.push(
    target(
      "custodiet's PostToolUse, the launching call included",
      get('custodiet PostToolUse, launches a review'),
      1.3,
    ),
  )
  // The same calls where no warm process answers: the first such call of a project, RATCHET_WARM=0, no /dev/shm.
  out.push("  without the warm process (decided in the hook's own process), for reference:")
  for (const [label, max] of [
    [NOFIRE_FULL, 1.25],
    [EDIT_FULL, 1.25],
    [FIRE_ONE, 1.5],
    [FIRE_MANY, 1.5],
  ] as const)
    out.push('  ' + target(label.replace('preflight-check, 1,000 rules, ', ''), get(label + OWN), max))
  const rssWorst = Math.max(
    ...rows.filter((r) => r.label.startsWith('preflight-check')).map((r) => median(r.s.rss) / median(r.s.bareRss)),
  )
  out.push(
    `  target peak RSS ≤ 1.3× bare node (preflight-check, worst case): ${rssWorst.toFixed(2)}× ${rssWorst <= 1.3 ? 'met' : 'NOT met'}`,
  )
  out.push(
    `  the warm process itself stays resident while calls come (it ends after 10 idle minutes): ${warmRss(cases)}`,
  )

  const vars = startupVars()
  if (Object.keys(vars).length) {
    out.push(
      `\nThe same, with this shell's start-up variables (${Object.keys(vars).join(', ')}); both the baseline and the hook pay for them:`,
    )
    const some = cases.filter((c) => c.label.startsWith('preflight-check, 1,000'))
    out.push(...table(some.map((c) => ({ label: c.label, s: measure(c, vars) }))))
  }

  // BENCH_HOOKS_ONLY=1: only the start-up table (repeated runs on a shared machine).
  if (process.env.BENCH_HOOKS_ONLY !== '1') {
    out.push(...(await decisionTimes()))
    out.push(...(await approvalLatency()))
    out.push(...minePatterns(Number(process.env.BENCH_EVENTS ?? 1_000_000)))
    out.push(...mineTranscripts())
    out.push(...stopWait())
  }
  console.log(out.join('\n'))
  fs.rmSync(PROBE, { force: true })
  // The warm processes the bench started end with it.
  const keys = path.join(CONFIG_HOME, 'ratchet', 'warm')
  for (const f of fs.existsSync(keys) ? fs.readdirSync(keys).filter((x) => x.endsWith('.json')) : []) {
    try {
      process.kill(JSON.parse(fs.readFileSync(path.join(keys, f), 'utf8')).pid, 'SIGKILL')
    } catch {}
  }
  fs.rmSync(CONFIG_HOME, { recursive: true, force: true })
  // A whole session in the real client, per transport (BENCH_SESSION=0 skips it; BENCH_HOOKS_ONLY=1 too).
  if (process.env.BENCH_SESSION !== '0' && process.env.BENCH_HOOKS_ONLY !== '1') {
    await sessionBench()
    await reviewerCpu()
  }
}

if (require.main === module)
  main().catch((e) => {
    console.error(`bench failed: ${e.message}`)
    process.exitCode = 1
  })
