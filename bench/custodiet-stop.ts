// `npm run bench:custodiet-stop` (also part of `npm run bench`): how long the end of a turn waits for custodiet.
// Turns of a session driven through the built hook as Claude Code runs it (one process per event:
// UserPromptSubmit, PostToolUse of an Edit, Stop), with the scripted stand-in reviewer (test/support/bin/claude,
// answering OK at once; a real model takes 5-15 s). The Stop hook's wall time is what the client waits before the
// turn ends. Two settings, in the same rounds: the gate (custodiet.stopGate: "block", the default before issue 23)
// and the background review (the default). Between turns the background review is let finish, as a user's think
// time would, so each turn starts alike.
//
//   BENCH_TURNS=20 npm run bench:custodiet-stop

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const ROOT = path.resolve(__dirname, '..')
const BIN = path.join(ROOT, 'bin', 'custodiet')
const STAND_IN = path.join(ROOT, 'test', 'support', 'bin', 'claude')
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

type Mode = 'block' | 'background'

function project(mode: Mode): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ratchet-bench-stop-${mode}-`))
  fs.mkdirSync(path.join(dir, '.ratchet'))
  fs.copyFileSync(path.join(ROOT, 'guardrails.json'), path.join(dir, '.ratchet', 'guardrails.json'))
  fs.writeFileSync(
    path.join(dir, '.ratchet', 'config.json'),
    JSON.stringify({
      custodiet: {
        every: 0,
        reviewer: { kind: 'claude', claudePath: STAND_IN, timeoutSeconds: 60 },
        ...(mode === 'block' ? { stopGate: 'block' } : {}),
      },
    }),
  )
  return dir
}

function hook(dir: string, payload: Record<string, unknown>): { ms: number; stdout: string } {
  const input = JSON.stringify({ session_id: 'bench-stop', transcript_path: '/dev/null', cwd: dir, ...payload })
  const t = process.hrtime.bigint()
  const r = spawnSync(BIN, [], {
    input,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CLAUDE_PROJECT_DIR: dir,
      RATCHET_DIR: path.join(dir, '.ratchet'),
      FAKE_REVIEWER_MODE: 'ok',
    },
    encoding: 'utf8',
  })
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (r.status !== 0) throw new Error(`custodiet ${payload.hook_event_name} failed: ${r.stderr}`)
  return { ms, stdout: r.stdout }
}

/** Until the session's background review (if any) has recorded its verdict, bounded. */
function settle(dir: string, reviews: number): void {
  const file = path.join(dir, '.ratchet', 'custodiet', 'bench-stop.json')
  for (let i = 0; i < 600; i++) {
    try {
      const s = JSON.parse(fs.readFileSync(file, 'utf8'))
      if (!s.reviewing && s.reviews.length >= reviews) return
    } catch {}
    pause(50)
  }
  throw new Error('the background review did not finish in 30 s')
}

export function run(turns = Number(process.env.BENCH_TURNS ?? 12)): string[] {
  const dirs = { block: project('block'), background: project('background') }
  const waits: Record<Mode, number[]> = { block: [], background: [] }
  const bare: number[] = []
  const loads: number[] = []
  for (let i = 0; i < turns; i++) {
    for (const mode of ['block', 'background'] as Mode[]) {
      const dir = dirs[mode]
      hook(dir, { hook_event_name: 'UserPromptSubmit', prompt: `fix the typo in file ${i}` })
      hook(dir, {
        hook_event_name: 'PostToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: path.join(dir, `f${i}.md`), old_string: 'a', new_string: 'b' },
        tool_response: {},
        tool_use_id: `t${i}`,
      })
      loads.push(os.loadavg()[0])
      const stop = hook(dir, { hook_event_name: 'Stop', stop_hook_active: false })
      if (stop.stdout !== '') throw new Error(`an on-scope turn was held (${mode}): ${stop.stdout}`)
      waits[mode].push(stop.ms)
      settle(dir, i + 1)
    }
    // Bare node in the same round: the floor any command hook pays on this machine, now.
    const t = process.hrtime.bigint()
    spawnSync(process.execPath, ['-e', ''], { env: { PATH: process.env.PATH, HOME: process.env.HOME } })
    bare.push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  for (const d of Object.values(dirs)) fs.rmSync(d, { recursive: true, force: true })
  const row = (label: string, xs: number[]) =>
    `  ${label.padEnd(58)} median ${median(xs).toFixed(0).padStart(5)} ms   max ${Math.max(...xs)
      .toFixed(0)
      .padStart(5)} ms`
  const bg = waits.background
  return [
    `\nThe end of a turn that edited something: the Stop hook's wall time, ${turns} turns per setting (load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}; scripted stand-in reviewer, a real model takes 5-15 s):`,
    row('gate on (custodiet.stopGate: "block"; waits for the review)', waits.block),
    row('background (the default; the review runs after the turn)', bg),
    row("bare `node -e ''` in the same rounds, for reference", bare),
    `  target: the end of a turn waits ≤ 100 ms for Ratchet without the gate: median ${median(bg) <= 100 ? 'met' : 'NOT met'}, max ${Math.max(...bg) <= 100 ? 'met' : 'NOT met'} (over bare node, paired by round: median ${median(bg.map((x, i) => x - bare[i])).toFixed(0)} ms)`,
  ]
}

if (require.main === module) console.log(run().join('\n'))
