// npm run bench — start-up cost of the hooks against bare `node -e ''`, measured in the same run and
// interleaved (bare, hook, bare, hook, …) so machine noise hits both alike. Reports medians and ratios,
// peak RSS ratios, and the in-process decision time with 1,000 guardrails.
//
//   npm run bench                 all benchmarks
//   BENCH_RUNS=60 npm run bench   more samples

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { decide } from '../hooks/preflight-check/decide'
import { compileRules, validateGuardrails, type Guardrail } from '../lib/core/guardrails'
import { approvalLatency } from './approval-latency'
import { run as minePatterns } from './pattern-detect'

const ROOT = path.resolve(__dirname, '..')
const RUNS = Number(process.env.BENCH_RUNS ?? 60)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

/** 1,000 rules: a mix of detector rules and glob rules, none of which match `ls -la`. */
export function manyGuardrails(n = 1000): Guardrail[] {
  const out: Guardrail[] = []
  const patterns = ['git_push', 'file_delete', 'deploy', 'package_publish', 'db_destroy', 'irreversible', 'public_surface']
  for (let i = 0; i < n; i++) {
    const base = { id: `GR-${String(i + 1).padStart(4, '0')}`, source: `INC-${(i % 97) + 1}`, trigger: `synthetic rule ${i}`, rule: `Synthetic rule number ${i}: verify before acting.`, severity: 'soft' as const, added: '2026-11-01', last_fired: null, fire_count: 0 }
    if (i % 3 === 0) out.push({ ...base, pattern: patterns[i % patterns.length] })
    else if (i % 3 === 1) out.push({ ...base, pattern: `custom_${i}`, match: { tools: ['Bash'], command: [`deploy-tool-${i} *`, `release-${i}*`] } })
    else out.push({ ...base, pattern: `custom_${i}`, match: { tools: ['Write', 'Edit'], paths: [`config/service-${i}/**`, `**/secret-${i}.env`] } })
  }
  return out
}

function project(name: string, rules?: Guardrail[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ratchet-bench-${name}-`))
  fs.mkdirSync(path.join(dir, '.ratchet'))
  fs.copyFileSync(path.join(ROOT, 'guardrails.json'), path.join(dir, '.ratchet', 'guardrails.json'))
  if (rules) fs.writeFileSync(path.join(dir, '.ratchet', 'guardrails.json'), JSON.stringify(rules, null, 2))
  return dir
}

const RSS_PROBE = path.join(os.tmpdir(), `ratchet-rss-probe-${process.pid}.cjs`)
fs.writeFileSync(RSS_PROBE, `process.on('exit', () => require('fs').writeSync(2, '\\nRSS_KB=' + process.resourceUsage().maxRSS + '\\n'))\n`)

interface Case {
  label: string
  cmd: string
  args: string[]
  /** The payload, or a function of the round (a fresh session per round, for instance). */
  input?: string | ((round: number) => string)
  env?: NodeJS.ProcessEnv
}

const inputOf = (c: Case, i: number) => (typeof c.input === 'function' ? c.input(i) : (c.input ?? ''))

function measure(cases: Case[]): Map<string, { ms: number[]; rss: number[] }> {
  const res = new Map(cases.map((c) => [c.label, { ms: [] as number[], rss: [] as number[] }]))
  for (let i = 0; i < RUNS + 3; i++) {
    for (const c of cases) {
      const t = process.hrtime.bigint()
      const r = spawnSync(c.cmd, c.args, { input: inputOf(c, i), env: { ...process.env, ...c.env } })
      const ms = Number(process.hrtime.bigint() - t) / 1e6
      if (i < 3) continue // warm the page cache
      if (r.status !== 0 && r.status !== 2) throw new Error(`${c.label} exited ${r.status}: ${r.stderr}`)
      res.get(c.label)!.ms.push(ms)
      // RSS is sampled in a separate run with the probe preloaded, so it does not skew the timings.
    }
  }
  for (const c of cases) {
    for (let i = 0; i < 5; i++) {
      const r = spawnSync(process.execPath, ['-r', RSS_PROBE, ...(c.cmd === process.execPath ? c.args : [c.cmd, ...c.args])], { input: inputOf(c, 1000 + i), env: { ...process.env, ...c.env } })
      const m = /RSS_KB=(\d+)/.exec(String(r.stderr))
      if (m) res.get(c.label)!.rss.push(Number(m[1]))
    }
  }
  return res
}

function report(title: string, res: Map<string, { ms: number[]; rss: number[] }>, baseline: string): string[] {
  const base = res.get(baseline)!
  const lines = [`\n${title}`]
  for (const [label, r] of res) {
    // Median of per-round ratios: each hook run is paired with the bare run just before it, so
    // drift in machine load cancels out (a ratio of medians swings by ±0.1 on this kind of machine).
    const ratio = median(r.ms.map((ms, i) => ms / base.ms[i]))
    const rss = r.rss.length && base.rss.length ? median(r.rss) / median(base.rss) : NaN
    lines.push(`  ${label.padEnd(44)} ${median(r.ms).toFixed(1).padStart(7)} ms  ${ratio.toFixed(2)}× bare (paired)   peak RSS ${(median(r.rss) / 1024).toFixed(1)} MB (${rss.toFixed(2)}×)`)
  }
  return lines
}

function hookCases(): Case[] {
  const small = project('default')
  const large = project('1000', manyGuardrails())
  const bin = path.join(ROOT, 'bin', 'preflight-check')
  const payload = (cwd: string, command: string) => JSON.stringify({ session_id: 'bench', transcript_path: '/dev/null', cwd, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: 'toolu_bench' })
  const env = (dir: string) => ({ CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: path.join(dir, '.ratchet') })
  return [
    { label: "bare node -e ''", cmd: process.execPath, args: ['-e', ''] },
    { label: 'preflight-check, default rules, allow', cmd: bin, args: [], input: payload(small, 'ls -la'), env: env(small) },
    { label: 'preflight-check, 1,000 rules, allow', cmd: bin, args: [], input: payload(large, 'ls -la'), env: env(large) },
    { label: 'preflight-check, 1,000 rules, check fires', cmd: bin, args: [], input: payload(large, 'rm -rf build'), env: env(large) },
    { label: 'session-start, default rules', cmd: path.join(ROOT, 'bin', 'session-start'), args: [], input: JSON.stringify({ session_id: 'bench', hook_event_name: 'SessionStart', source: 'startup', cwd: small }), env: env(small) },
    ...custodietCases(),
  ]
}

/** custodiet's PostToolUse path: an ordinary call, and a call that launches a background review. */
function custodietCases(): Case[] {
  const quiet = project('custodiet')
  const busy = project('custodiet-launch')
  // A quick local reviewer: the launching call pays for the spawn, never for the review itself.
  fs.writeFileSync(path.join(busy, '.ratchet', 'config.json'), JSON.stringify({ custodiet: { every: 1, reviewer: { kind: 'command', command: "cat >/dev/null; echo '## Compliance Check: OK'" } } }))
  const post = (cwd: string, session: string) => JSON.stringify({ session_id: session, transcript_path: '/dev/null', cwd, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: path.join(cwd, 'README.md') }, tool_response: { type: 'text' }, tool_use_id: 'toolu_bench' })
  const bin = path.join(ROOT, 'bin', 'custodiet')
  const env = (dir: string) => ({ CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: path.join(dir, '.ratchet') })
  return [
    { label: 'custodiet PostToolUse, ordinary call', cmd: bin, args: [], input: post(quiet, 'bench'), env: env(quiet) },
    // A fresh session each round, with every: 1, so every measured call launches a review.
    { label: 'custodiet PostToolUse, launches a review', cmd: bin, args: [], input: (i) => post(busy, `bench-${i}`), env: env(busy) },
  ]
}

function inProcess(): string[] {
  const rules = validateGuardrails(manyGuardrails()).rules
  const t0 = performance.now()
  const index = compileRules(rules)
  const compileMs = performance.now() - t0
  const ctx = { projectDir: '/p', homeDir: '/home/u', stateDir: '/p/.ratchet', session: { reads: {}, prompts: [] }, fileExists: () => true, currentBranch: () => 'feature' }
  const calls = [
    { tool_name: 'Bash', tool_input: { command: 'ls -la' } },
    { tool_name: 'Bash', tool_input: { command: 'git push origin feature' } },
    { tool_name: 'Write', tool_input: { file_path: '/p/src/app.ts', content: 'x' } },
  ]
  const lines = ['\nIn-process decision (classify + match + note), 1,000 guardrails, after compile:']
  lines.push(`  compile 1,000 rules once per process: ${compileMs.toFixed(2)} ms`)
  for (const call of calls) {
    const opts = { checkWindowMs: 600_000, checks: {}, fingerprint: 'x', now: Date.now() }
    for (let i = 0; i < 2000; i++) decide(call, ctx, index, opts) // warm
    const n = 20000
    const t = performance.now()
    for (let i = 0; i < n; i++) decide(call, ctx, index, opts)
    const us = ((performance.now() - t) / n) * 1000
    lines.push(`  ${(call.tool_name + ' ' + JSON.stringify(call.tool_input)).slice(0, 60).padEnd(60)} ${us.toFixed(1).padStart(6)} µs (${us < 100 ? 'under' : 'OVER'} the 0.1 ms target)`)
  }
  return lines
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'preflight-check.cjs'))) throw new Error('run npm run build first')
  const out: string[] = [`Ratchet benchmarks — node ${process.version}, ${os.cpus().length} cores, ${RUNS} interleaved runs each (medians)`]
  const res = measure(hookCases())
  out.push(...report('Hook start-up, fresh process per call (as Claude Code runs it):', res, "bare node -e ''"))
  const bare = res.get("bare node -e ''")!.ms
  const r1000 = median(res.get('preflight-check, 1,000 rules, allow')!.ms.map((ms, i) => ms / bare[i]))
  out.push(`  target ≤ 1.25× bare node with 1,000 guardrails: ${r1000 <= 1.25 ? 'met' : 'NOT met'} (${r1000.toFixed(2)}×)`)
  const rLaunch = median(res.get('custodiet PostToolUse, launches a review')!.ms.map((ms, i) => ms / bare[i]))
  out.push(`  target ≤ 1.3× bare node for custodiet's PostToolUse, the launching call included: ${rLaunch <= 1.3 ? 'met' : 'NOT met'} (${rLaunch.toFixed(2)}×)`)
  out.push(...inProcess())
  out.push(...(await approvalLatency()))
  out.push(...minePatterns(Number(process.env.BENCH_EVENTS ?? 1_000_000)))
  console.log(out.join('\n'))
}

if (require.main === module)
  main().catch((e) => {
    console.error(`bench failed: ${e.message}`)
    process.exitCode = 1
  })
