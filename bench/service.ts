// The resident decision service over many calls, and what a call that waits on git costs while it waits.
//
//   npx tsx bench/service.ts              20,000 calls (BENCH_SERVICE_CALLS=n for another count)
//
// 1. Memory: the service's resident set (VmRSS) at 0, 1k, 5k and 20k ordinary calls of one session, with the
//    load average beside each line. The calls are a mix of everyday Bash commands, reads and edits.
// 2. Waiting on git: a push whose git takes a second (a wrapper that sleeps first). CPU time spent by the
//    service (its /proc stat, before and after the call) and by the command transport's hook process (its
//    rusage, through python's RUSAGE_CHILDREN) with the warm process answering: with a git that answers at
//    once, and with the slow one. The difference is what waiting costs.

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { ensureService, stopService } from '../lib/io/service'

const ROOT = path.resolve(__dirname, '..')
const load = () => os.loadavg()[0].toFixed(2)
const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-service-')))
const PORT = 45000 + (process.pid % 1000)
const base: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: home,
  XDG_CONFIG_HOME: path.join(home, 'cfg'),
  RATCHET_SERVICE_PORT: String(PORT),
  RATCHET_SERVICE_LOG: path.join(home, 'service.log'),
}

function project(name: string): string {
  const dir = path.join(home, name)
  fs.mkdirSync(path.join(dir, '.ratchet'), { recursive: true })
  fs.copyFileSync(path.join(ROOT, 'guardrails.json'), path.join(dir, '.ratchet', 'guardrails.json'))
  fs.writeFileSync(path.join(dir, 'README.md'), '# bench\n')
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@x',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@x',
  }
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env })
  execFileSync('git', ['add', '-A'], { cwd: dir, env })
  execFileSync('git', ['commit', '-qm', 'init'], { cwd: dir, env })
  execFileSync('git', ['init', '-q', '--bare', path.join(home, `${name}.git`)], { env })
  execFileSync('git', ['remote', 'add', 'origin', path.join(home, `${name}.git`)], { cwd: dir, env })
  return dir
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
function ask(body: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: PORT,
        path: '/hook/preflight-check',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let t = ''
        res.on('data', (c) => (t += c))
        res.on('end', () => resolve(t))
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
/** utime + stime of a process, in ms (the kernel counts in ticks of 10 ms). */
const cpu = (pid: number) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100
}

/** A git that sleeps a second before doing anything: what a push to a slow remote looks like to the hook. */
function slowGitPath(): string {
  const dir = path.join(home, 'slow-bin')
  fs.mkdirSync(dir, { recursive: true })
  const git = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
  fs.writeFileSync(path.join(dir, 'git'), `#!/bin/sh\nsleep 1\nexec ${git} "$@"\n`, { mode: 0o755 })
  return `${dir}:${process.env.PATH}`
}

/** CPU of one command-hook process (ms of user+system, from its rusage), the warm process answering. */
function hookCpu(dir: string, payload: unknown, env: NodeJS.ProcessEnv): number {
  const file = path.join(home, 'payload.json')
  fs.writeFileSync(file, JSON.stringify(payload))
  const py =
    'import resource,subprocess,sys\nsubprocess.run([sys.argv[1]], stdin=open(sys.argv[2],"rb"), capture_output=True, cwd=sys.argv[3])\nr=resource.getrusage(resource.RUSAGE_CHILDREN)\nprint((r.ru_utime+r.ru_stime)*1000)'
  return Number(
    execFileSync('python3', ['-c', py, path.join(ROOT, 'bin', 'preflight-check'), file, dir], {
      env,
      encoding: 'utf8',
    }).trim(),
  )
}

async function main(): Promise<void> {
  const total = Number(process.env.BENCH_SERVICE_CALLS ?? 20_000)
  const dir = project('p')
  const envOf = (extra: NodeJS.ProcessEnv = {}) =>
    Object.fromEntries(
      Object.entries({ ...base, CLAUDE_PROJECT_DIR: dir, ...extra }).filter(
        (e): e is [string, string] => typeof e[1] === 'string',
      ),
    )
  const up = await ensureService({ session_id: 'bench', env: envOf(), cwd: dir, ppid: process.pid }, base, 15_000)
  if (!up.ok) throw new Error(up.why)
  const pid = up.pid
  const mix = [
    { tool_name: 'Bash', tool_input: { command: 'ls -la' } },
    { tool_name: 'Bash', tool_input: { command: 'npm test' } },
    { tool_name: 'Read', tool_input: { file_path: path.join(dir, 'README.md') } },
    {
      tool_name: 'Edit',
      tool_input: { file_path: path.join(dir, 'README.md'), old_string: 'bench', new_string: 'bench' },
    },
    { tool_name: 'Bash', tool_input: { command: 'git status --short' } },
    { tool_name: 'Bash', tool_input: { command: 'grep -rn TODO src | head' } },
  ]
  const lines = [
    `\nThe resident service over ${total.toLocaleString('en')} calls (pid ${pid}; load average at start ${load()}):`,
    '| calls | RSS | load |',
    '|---|---|---|',
  ]
  const marks = new Set([0, 1000, 5000, total])
  const t = Date.now()
  for (let i = 0; i <= total; i++) {
    if (marks.has(i)) {
      lines.push(`| ${i.toLocaleString('en')} | ${rss(pid).toFixed(1)} MB | ${load()} |`)
      if (process.env.BENCH_VERBOSE) console.error(lines[lines.length - 1])
    }
    if (i === total) break
    // A fresh session now and then: the service keeps per-session state (replay ids), which must stay bounded too.
    await ask({
      session_id: 'bench',
      transcript_path: '/dev/null',
      cwd: dir,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      ...mix[i % mix.length],
      tool_use_id: `toolu_${i}`,
    })
  }
  lines.push(`(${((Date.now() - t) / total).toFixed(2)} ms per call, one at a time, including the round trip)`)
  if (process.env.BENCH_VERBOSE) console.error(lines[lines.length - 1], 'alive:', fs.existsSync(`/proc/${pid}`))

  // Waiting on git: the service.
  const slow = slowGitPath()
  const push = (id: string) => ({
    session_id: id,
    transcript_path: '/dev/null',
    cwd: dir,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'git push origin main' },
    tool_use_id: `toolu_${id}`,
  })
  const serviceCpu = async (id: string, env: Record<string, string>) => {
    const r = await ensureService({ session_id: id, env, cwd: dir, ppid: process.pid }, base, 15_000)
    if (!r.ok) {
      const alive = fs.existsSync(`/proc/${pid}`)
      const probe = execFileSync(
        'sh',
        [
          '-c',
          `curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST -H 'content-type: application/json' -d '{}' http://127.0.0.1:${PORT}/register; echo " rc=$?"`,
        ],
        { encoding: 'utf8' },
      )
      throw new Error(
        `${r.why} (pid ${pid} alive: ${alive}, fds: ${alive ? fs.readdirSync(`/proc/${pid}/fd`).length : '-'}, a fresh connection: ${probe.trim()})`,
      )
    }
    if (r.pid !== pid) lines.push(`(the service was replaced: pid ${pid} → ${r.pid})`)
    const c0 = cpu(r.pid)
    const w0 = Date.now()
    await ask(push(id))
    return { cpu: cpu(r.pid) - c0, wall: Date.now() - w0 }
  }
  const fast = await serviceCpu('git-fast', envOf())
  const slowS = await serviceCpu('git-slow', envOf({ PATH: slow }))
  lines.push(
    '',
    `A push whose git answers at once, and one whose git takes a second (load average ${load()}):`,
    '| who waits | git at once: CPU | slow git: CPU (wall) |',
    '|---|---|---|',
  )
  lines.push(`| the service (whole process, 10 ms ticks) | ${fast.cpu} ms | ${slowS.cpu} ms (${slowS.wall} ms) |`)
  // The command transport: the hook process, the warm process answering (the first call starts it).
  const hookEnv = { ...base, CLAUDE_PROJECT_DIR: dir }
  hookCpu(dir, push('warm-up'), hookEnv)
  await new Promise((r) => setTimeout(r, 1500))
  const hf = hookCpu(dir, push('hook-fast'), hookEnv)
  const hs = hookCpu(dir, push('hook-slow'), { ...hookEnv, PATH: slow })
  lines.push(`| the command hook's process, warm process answering | ${hf.toFixed(1)} ms | ${hs.toFixed(1)} ms |`)
  console.log(lines.join('\n'))
  const log = fs.readFileSync(base.RATCHET_SERVICE_LOG!, 'utf8').trim()
  if (log) console.log(`The service said on stderr:\n${log}`)
  stopService(base)
  // The warm process the command hook started ends with the bench (its keys name its pid).
  const warm = path.join(home, 'cfg', 'ratchet', 'warm')
  for (const f of fs.existsSync(warm) ? fs.readdirSync(warm).filter((x) => x.endsWith('.json')) : []) {
    try {
      process.kill(JSON.parse(fs.readFileSync(path.join(warm, f), 'utf8')).pid, 'SIGKILL')
    } catch {}
  }
  agent.destroy()
}

if (require.main === module)
  main().catch((e) => {
    console.error(`bench failed: ${e.message}`)
    if (fs.existsSync(base.RATCHET_SERVICE_LOG!)) console.error(fs.readFileSync(base.RATCHET_SERVICE_LOG!, 'utf8'))
    process.exitCode = 1
  })
