// npm run bench:serve — the case server's figures on this machine, reported, never asserted:
//  - the embedded store's cold start (spawn to the start-up line, and to the first answered /health) and
//    resident memory (VmRSS, VmHWM) idle and after the load, of the real `ratchet serve` process;
//  - verified submissions per second and latency percentiles, each submission one signed entry checked
//    (two Ed25519 signatures, the chain) and appended to the log, from concurrent agents over loopback,
//    on the embedded store and on PostgreSQL (a schema of its own, dropped after), with and without Redis;
//  - reads (the case list, a case with its signatures) per second.
//
//   npm run bench:serve                 everything (through vite-node: canonicalize, which the courtroom signs with, is ESM only)
//   BENCH_SUBMISSIONS=400 BENCH_AGENTS=8 npm run bench:serve

import fs from 'node:fs'
import os from 'node:os'
import {
  Agent,
  REDIS_URL,
  dropPrefix,
  freshStore,
  pgAvailable,
  post,
  redisAvailable,
  spawnServe,
  submission,
  type Engine,
} from '../test/support/serve'
import { addKey } from '../lib/server/keys'

const SUBMISSIONS = Number(process.env.BENCH_SUBMISSIONS ?? 300)
const AGENTS = Number(process.env.BENCH_AGENTS ?? 4)
const READS = Number(process.env.BENCH_READS ?? 300)
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]
const mem = (pid: number) => {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? 0)
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
}
const cpu = (pid: number) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(f[11]) + Number(f[12])) / 100 // utime + stime, clock ticks of 10 ms
}

async function coldStart(): Promise<void> {
  const runs: { line: number; health: number; cpu: number; rss: number }[] = []
  for (let i = 0; i < 5; i++) {
    const store = await freshStore('sqlite')
    await store.db.close()
    const t0 = process.hrtime.bigint()
    const srv = await spawnServe(['--port', '0', ...store.arg])
    const line = Number(process.hrtime.bigint() - t0) / 1e6
    await fetch(`${srv.url}/health`)
    const health = Number(process.hrtime.bigint() - t0) / 1e6
    runs.push({ line, health, cpu: cpu(srv.child.pid!), rss: mem(srv.child.pid!).rss })
    await srv.stop()
    await store.drop()
  }
  const med = (k: keyof (typeof runs)[0]) =>
    pct(
      runs.map((r) => r[k]),
      50,
    )
  console.log(`\nEmbedded store (SQLite), cold start of \`ratchet serve\` over 5 starts on a fresh folder (median):`)
  console.log(
    `  to the start-up line ${med('line').toFixed(0)} ms, to the first /health answer ${med('health').toFixed(0)} ms, CPU ${(med('cpu') * 1000).toFixed(0)} ms, RSS ${med('rss').toFixed(0)} MB`,
  )
}

async function load(engine: Engine, redis: boolean): Promise<void> {
  const store = await freshStore(engine)
  const prefix = `ratchet-bench:${process.pid}:`
  const agents = Array.from({ length: AGENTS }, () => new Agent())
  for (const a of agents) await addKey(store.db, a.key!.public, { agent: a.agent })
  const srv = await spawnServe([
    '--port',
    '0',
    ...store.arg,
    '--per-key-per-minute',
    '1000000',
    '--per-ip-per-minute',
    '1000000',
    ...(redis ? ['--redis', REDIS_URL, '--redis-prefix', prefix] : []),
  ])
  const pid = srv.child.pid!
  try {
    for (const a of agents)
      if ((await post(srv.url, submission(srv.url, a.envelopes, a.key))).status !== 201)
        throw new Error('genesis refused')
    const idle = mem(pid)
    const per = Math.ceil(SUBMISSIONS / AGENTS)
    // Signed beforehand, so the figure is the server's, not the client's signing.
    const bodies = agents.map((a) => Array.from({ length: per }, () => a.addCase()).map((env) => ({ a, env })))
    const lat: number[] = []
    const cpu0 = cpu(pid)
    const t0 = process.hrtime.bigint()
    await Promise.all(
      bodies.map(async (list) => {
        for (const { a, env } of list) {
          const s = process.hrtime.bigint()
          const r = await post(srv.url, submission(srv.url, [env], a.key))
          if (r.status !== 201) throw new Error(`refused: ${JSON.stringify(r.body)}`)
          lat.push(Number(process.hrtime.bigint() - s) / 1e6)
        }
      }),
    )
    const secs = Number(process.hrtime.bigint() - t0) / 1e9
    const serverCpu = cpu(pid) - cpu0
    const after = mem(pid)
    const rl: number[] = []
    const r0 = process.hrtime.bigint()
    const caseId = JSON.parse(Buffer.from(bodies[0][0].env.payload, 'base64').toString()).body.case_id
    for (let i = 0; i < READS; i++) {
      const s = process.hrtime.bigint()
      await (
        await fetch(i % 2 ? `${srv.url}/api/v1/public/cases?limit=20` : `${srv.url}/api/v1/public/cases/${caseId}`)
      ).text()
      rl.push(Number(process.hrtime.bigint() - s) / 1e6)
    }
    const rsecs = Number(process.hrtime.bigint() - r0) / 1e9
    console.log(
      `\n${engine}${redis ? ' + Redis' : ''}: ${lat.length} verified submissions from ${AGENTS} concurrent agents in ${secs.toFixed(2)} s`,
    )
    console.log(
      `  ${(lat.length / secs).toFixed(0)} submissions/s; latency p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms, max ${Math.max(...lat).toFixed(1)} ms; server CPU ${((serverCpu / lat.length) * 1000).toFixed(2)} ms per submission`,
    )
    console.log(
      `  reads (case list and one case, one client): ${(READS / rsecs).toFixed(0)}/s, p99 ${pct(rl, 99).toFixed(1)} ms`,
    )
    console.log(
      `  server RSS ${idle.rss.toFixed(0)} MB idle, ${after.rss.toFixed(0)} MB after the load (peak ${after.peak.toFixed(0)} MB)`,
    )
  } finally {
    await srv.stop()
    await store.drop()
    if (redis) await dropPrefix(REDIS_URL, prefix)
  }
}

async function main() {
  console.log(`Case server on ${os.cpus().length} cores (${os.cpus()[0].model}), Node ${process.version}`)
  await coldStart()
  await load('sqlite', false)
  const pg = await pgAvailable()
  const rd = await redisAvailable()
  if (pg) await load('postgres', false)
  else console.log('\npostgres: skipped (no PostgreSQL at 127.0.0.1:5432)')
  if (pg && rd) await load('postgres', true)
  else console.log('\npostgres + Redis: skipped')
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
