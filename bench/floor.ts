// What the floor costs in whole sessions of the real client: bare claude, claude with only its sandbox on, Ratchet in
// best-effort mode (hooks, no sandbox) and Ratchet as `init` writes it (hooks + floor), interleaved round by round in
// one run, each with a 1-call and an N-call session of ordinary Bash commands against the local mock of the model API.
// CPU is the claude process tree's user+sys as /usr/bin/time reports it (what it waited for: hooks, bwrap, socat);
// background processes a hook detaches (the warm process, custodiet's reviewer) are not in it.
//   npm run bench:floor                 BENCH_ROUNDS=3 BENCH_CALLS=10 by default
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { claudeEnv, startMockModel } from '../test/support/mock-anthropic'

const ROOT = path.resolve(__dirname, '..')
const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CALLS = Number(process.env.BENCH_CALLS ?? 10)

type Mode = 'bare claude' | 'sandbox only' | 'Ratchet best-effort' | 'Ratchet + floor'
const MODES: Mode[] = ['bare claude', 'sandbox only', 'Ratchet best-effort', 'Ratchet + floor']

function project(mode: Mode): { dir: string; home: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-floor-')))
  const dir = path.join(base, 'project')
  const home = path.join(base, 'home')
  fs.mkdirSync(dir)
  fs.mkdirSync(home)
  const sh = (cmd: string) =>
    spawnSync('sh', ['-c', cmd], {
      cwd: dir,
      stdio: 'ignore',
      env: {
        ...process.env,
        HOME: home,
        GIT_AUTHOR_NAME: 'a',
        GIT_AUTHOR_EMAIL: 'a@b',
        GIT_COMMITTER_NAME: 'a',
        GIT_COMMITTER_EMAIL: 'a@b',
      },
    })
  fs.writeFileSync(path.join(dir, 'README.md'), '# demo\n')
  sh('git init -q -b main && git add -A && git commit -qm init')
  if (mode === 'sandbox only') {
    fs.mkdirSync(path.join(dir, '.claude'))
    fs.writeFileSync(
      path.join(dir, '.claude', 'settings.json'),
      JSON.stringify({ sandbox: { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false } }),
    )
  }
  if (mode.startsWith('Ratchet')) {
    const r = spawnSync(
      path.join(ROOT, 'bin', 'ratchet'),
      ['init', '--project-dir', dir, ...(mode === 'Ratchet best-effort' ? ['--no-sandbox'] : [])],
      { env: { ...process.env, HOME: home }, encoding: 'utf8' },
    )
    if (r.status !== 0) throw new Error(r.stderr)
  }
  return { dir, home }
}

async function session(mode: Mode, calls: number): Promise<{ wall: number; cpu: number }> {
  const { dir, home } = project(mode)
  const steps = Array.from({ length: calls }, (_, i) => ({
    tool: 'Bash',
    input: { command: `echo line ${i} >> notes.txt && ls`, description: 'work' },
  }))
  const model = await startMockModel([...steps, { text: 'Done.' }])
  const out = path.join(dir, '..', 'time.txt')
  const t = Date.now()
  await new Promise<void>((resolve) => {
    const c = spawn(
      '/usr/bin/time',
      ['-o', out, '-f', '%e %U %S', CLAUDE, '-p', 'add the notes', '--output-format', 'json', '--allowedTools', 'Bash'],
      { cwd: dir, env: claudeEnv(model.url, home, { RATCHET_CLAUDE_BIN: CLAUDE }), stdio: 'ignore' },
    )
    c.on('close', () => resolve())
  })
  const wall = Date.now() - t
  await model.close()
  const [, user, sys] = fs.readFileSync(out, 'utf8').trim().split('\n').pop()!.split(' ').map(Number)
  if (model.toolResults().length !== calls)
    throw new Error(`${mode}: ${model.toolResults().length} of ${calls} calls ran`)
  return { wall, cpu: (user + sys) * 1000 }
}

async function main() {
  const rows: Record<string, { wall: number[]; cpu: number[] }> = {}
  const load0 = os.loadavg()[0]
  for (let r = 0; r < ROUNDS; r++)
    for (const mode of MODES)
      for (const calls of [1, CALLS]) {
        const s = await session(mode, calls)
        ;(rows[`${mode}|${calls}`] ??= { wall: [], cpu: [] }).wall.push(s.wall)
        rows[`${mode}|${calls}`].cpu.push(s.cpu)
      }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
  const m = (mode: Mode, calls: number, k: 'wall' | 'cpu') => med(rows[`${mode}|${calls}`][k])
  console.log(
    `Floor cost in the real client (claude ${spawnSync(CLAUDE, ['--version'], { encoding: 'utf8' }).stdout.trim()}), ${ROUNDS} rounds interleaved, medians; load ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}`,
  )
  console.log(
    '| mode | 1-call session wall / CPU (ms) | per extra call wall / CPU (ms) | per session over bare, CPU | per call over bare, CPU |',
  )
  console.log('|---|---|---|---|---|')
  for (const mode of MODES) {
    const perCall = (k: 'wall' | 'cpu') => (m(mode, CALLS, k) - m(mode, 1, k)) / (CALLS - 1)
    const bareCall = (m('bare claude', CALLS, 'cpu') - m('bare claude', 1, 'cpu')) / (CALLS - 1)
    console.log(
      `| ${mode} | ${m(mode, 1, 'wall').toFixed(0)} / ${m(mode, 1, 'cpu').toFixed(0)} | ${perCall('wall').toFixed(0)} / ${perCall('cpu').toFixed(0)} | ${(m(mode, 1, 'cpu') - m('bare claude', 1, 'cpu')).toFixed(0)} | ${(perCall('cpu') - bareCall).toFixed(0)} |`,
    )
  }
}

void main()
