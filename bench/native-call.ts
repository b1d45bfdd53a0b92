// One hook call, end to end as Claude Code makes it (`/bin/sh -c <command>` with the payload on stdin), for the
// three commands a PreToolUse registration can run: /bin/true (the least a command hook costs), preflight-check
// through the compiled client (native/hook-client.c, the warm process answering), and preflight-check through the
// node launcher (the same guard without the client; the warm process answering it too). Interleaved, so a busy
// machine slows them alike; the load average is printed with the figures (the machine may be shared).
//
//   npm run bench:native-call             BENCH_CALLS=n calls per command (default 60)

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { NATIVE_CLIENT } from '../lib/core/manifest'
import { guardedCommand } from '../lib/core/settings'

const ROOT = path.resolve(__dirname, '..')
const CALLS = Number(process.env.BENCH_CALLS ?? 60)
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-native-')))
const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-native-home-')))
fs.mkdirSync(path.join(dir, '.ratchet'))
fs.copyFileSync(path.join(ROOT, 'guardrails.json'), path.join(dir, '.ratchet', 'guardrails.json'))
fs.writeFileSync(path.join(dir, 'README.md'), '# bench\n')
const env = { ...process.env, CLAUDE_PROJECT_DIR: dir, HOME: home, XDG_CONFIG_HOME: path.join(home, 'cfg') }
const launcher = JSON.stringify(path.join(ROOT, 'bin', 'preflight-check'))
const commands: Record<string, string> = {
  '/bin/true': 'exec /bin/true',
  native: guardedCommand(
    'preflight-check',
    launcher,
    undefined,
    undefined,
    JSON.stringify(path.join(ROOT, 'dist', NATIVE_CLIENT.file)),
  ),
  node: guardedCommand('preflight-check', launcher, undefined, undefined, ''),
}
if (!fs.existsSync(path.join(ROOT, 'dist', NATIVE_CLIENT.file))) {
  process.stdout.write(`no ${NATIVE_CLIENT.file} in dist/ (no C compiler at build time?): nothing to compare\n`)
  process.exit(0)
}
// An everyday Bash call the fast path does not settle, so both preflight-check commands hand it to the warm process.
const payload = (i: number) =>
  JSON.stringify({
    session_id: 'bench',
    transcript_path: '/dev/null',
    cwd: dir,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: `npm test -- --grep case${i}` },
    tool_use_id: `t${i}`,
  })
const call = (cmd: string, i: number) => {
  const t = process.hrtime.bigint()
  const r = spawnSync('/bin/sh', ['-c', cmd], { cwd: dir, env, input: payload(i), encoding: 'utf8' })
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (r.status !== 0) throw new Error(`${cmd.slice(0, 60)}… exited ${r.status}: ${r.stderr}`)
  return ms
}
// Starts the warm process, and waits for it (its keys).
call(commands.node, -1)
for (const until = Date.now() + 15_000; Date.now() < until; ) {
  const d = path.join(home, 'cfg', 'ratchet', 'warm')
  if (fs.existsSync(d) && fs.readdirSync(d).some((f) => f.endsWith('.json'))) break
  spawnSync('sleep', ['0.05'])
}
const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]))
const before = os.loadavg()[0]
for (let i = 0; i < CALLS; i++) for (const [name, cmd] of Object.entries(commands)) times[name].push(call(cmd, i))
process.stdout.write(
  `\nOne PreToolUse call through /bin/sh -c, ${CALLS} each, interleaved (load average ${before.toFixed(2)} → ${os.loadavg()[0].toFixed(2)}, ${os.cpus().length} cores; spawn from node included alike)\n\n| command | median | p90 |\n|---|---|---|\n`,
)
for (const [name, xs] of Object.entries(times))
  process.stdout.write(`| ${name} | ${pct(xs, 0.5).toFixed(1)} ms | ${pct(xs, 0.9).toFixed(1)} ms |\n`)
// The warm process this bench started, by the pid in its keys.
const warmDir = path.join(home, 'cfg', 'ratchet', 'warm')
for (const f of fs.readdirSync(warmDir).filter((x) => x.endsWith('.json'))) {
  try {
    process.kill(JSON.parse(fs.readFileSync(path.join(warmDir, f), 'utf8')).pid, 'SIGKILL')
  } catch {}
}
fs.rmSync(dir, { recursive: true, force: true })
fs.rmSync(home, { recursive: true, force: true })
