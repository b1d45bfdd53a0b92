// The case server under faults and behind a load balancer, bounded in count and time, on loopback:
//  - PostgreSQL restarted mid-load: a PostgreSQL cluster of this test's own (initdb in a temp folder, an
//    ephemeral port, as the postgres user), so the shared server is never disturbed. Agents keep submitting
//    and retry what was refused as unavailable; afterwards no accepted case is lost, none is there twice,
//    and the log's root, rebuilt from its leaves, is the signed one.
//  - Two `ratchet serve` instances behind nginx (Debian's) over one PostgreSQL schema: one log, appends
//    serialised in PostgreSQL, the same checkpoint and proofs from either instance.
// Figures (throughput, refusals seen during the restart) are printed, never asserted: npm run bench has them.
import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { canonicalJson } from '../../lib/core/courtroom/canonical'
import { appendLeaf, frontierRoot, leafHash, verifyInclusion, type Frontier } from '../../lib/core/transparency/merkle'
import { openPostgres } from '../../lib/server/db'
import { addKey } from '../../lib/server/keys'
import { sha256 } from '../../lib/server/log'
import { migrate } from '../../lib/server/schema'
import {
  Agent,
  PG_URL,
  freshStore,
  getJson,
  pgAvailable,
  post,
  skipped,
  spawnServe,
  submission,
  type ServeProcess,
  type Store,
} from '../support/serve'

const PG_BIN = '/usr/lib/postgresql/15/bin'
const CAN_INITDB =
  fs.existsSync(path.join(PG_BIN, 'initdb')) && process.getuid?.() === 0 && spawnSync('id', ['postgres']).status === 0
if (!CAN_INITDB)
  skipped(
    'PostgreSQL restarted mid-load',
    `needs ${PG_BIN}/initdb and root (to run a cluster of the test's own as the postgres user)`,
  )
const NGINX = spawnSync('nginx', ['-v']).status === 0
const SHARED_PG = await pgAvailable()
if (!NGINX || !SHARED_PG)
  skipped(
    'two instances behind nginx',
    !NGINX ? 'no nginx here (apt-get install nginx-light; .ci/run does)' : 'no PostgreSQL at 127.0.0.1:5432',
  )

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
  })
}

/** Submits one agent's next entries, retrying what the store could not take (503, a dropped connection) a bounded number of times. */
async function submitWithRetry(
  url: string,
  a: Agent,
  entries: number[],
  stats: { unavailable: number; errors: number },
): Promise<'accepted' | 'gave_up'> {
  for (let attempt = 0; attempt < 40; attempt++) {
    try {
      const r = await post(
        url,
        submission(
          url,
          entries.map((i) => a.envelopes[i]),
          a.key,
        ),
      )
      // A duplicate of what was sent: the first try committed and its answer was lost on the way.
      if (r.status === 201 || (r.status === 409 && r.body.reason === 'duplicate')) return 'accepted'
      if (r.status !== 503) throw new Error(`refused: ${JSON.stringify(r.body)}`)
      stats.unavailable++
    } catch (e) {
      if ((e as Error).message.startsWith('refused')) throw e
      stats.errors++
    }
    await new Promise((r) => setTimeout(r, 100 + attempt * 25))
  }
  return 'gave_up'
}

/** Rebuilds the tree from the stored leaves and checks it against the stored, signed head. */
async function logHolds(db: Awaited<ReturnType<typeof openPostgres>>) {
  const leaves = await db.all<{ idx: number; hash: string }>(
    `SELECT idx, hash FROM log_nodes WHERE level = 0 ORDER BY idx`,
  )
  let f: Frontier = { size: 0, hashes: [] }
  for (const l of leaves) f = appendLeaf(sha256, f, Buffer.from(l.hash, 'base64')).next
  const head = await db.one<{ size: number; root: string }>(`SELECT size, root FROM log_head WHERE id = 1`)
  return {
    leaves: leaves.length,
    size: Number(head!.size),
    rebuiltMatches: frontierRoot(sha256, f).toString('base64') === head!.root,
    contiguous: leaves.every((l, i) => Number(l.idx) === i),
  }
}

describe.skipIf(!CAN_INITDB)('PostgreSQL restarted mid-load', () => {
  let dataDir: string
  let sockDir: string
  let port: number
  const pgctl = (...args: string[]) =>
    execFileSync('runuser', ['-u', 'postgres', '--', path.join(PG_BIN, 'pg_ctl'), '-D', dataDir, ...args], {
      stdio: 'ignore',
      timeout: 60_000,
    })
  /** The restart runs beside the load (the submitting clients keep going while PostgreSQL is down). */
  const restart = () =>
    new Promise<void>((resolve, reject) =>
      execFile(
        'runuser',
        [
          '-u',
          'postgres',
          '--',
          path.join(PG_BIN, 'pg_ctl'),
          '-D',
          dataDir,
          '-m',
          'fast',
          '-w',
          '-l',
          path.join(path.dirname(dataDir), 'log'),
          '-o',
          `-p ${port} -k ${sockDir} -c listen_addresses=127.0.0.1`,
          'restart',
        ],
        { timeout: 60_000 },
        (e) => (e ? reject(e) : resolve()),
      ),
    )
  beforeAll(async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-pg-'))
    fs.chmodSync(base, 0o755)
    dataDir = path.join(base, 'data')
    sockDir = path.join(base, 'sock')
    fs.mkdirSync(sockDir)
    execFileSync('chown', ['-R', 'postgres:postgres', base])
    port = await freePort()
    execFileSync(
      'runuser',
      [
        '-u',
        'postgres',
        '--',
        path.join(PG_BIN, 'initdb'),
        '-D',
        dataDir,
        '-A',
        'trust',
        '-U',
        'postgres',
        '--no-sync',
      ],
      { stdio: 'pipe', timeout: 60_000 },
    )
    pgctl(
      '-o',
      `-p ${port} -k ${sockDir} -c listen_addresses=127.0.0.1 -c fsync=on`,
      '-l',
      path.join(base, 'log'),
      '-w',
      'start',
    )
  }, 90_000)
  afterAll(() => {
    try {
      pgctl('-m', 'immediate', '-w', 'stop')
    } catch {
      /* already down */
    }
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
  })

  it('no accepted case lost, none accepted twice, the log whole', async () => {
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`
    const setup = await openPostgres(url)
    await migrate(setup)
    const agents = Array.from({ length: 4 }, () => new Agent())
    for (const a of agents) await addKey(setup, a.key!.public, { agent: a.agent })
    await setup.close()
    const srv = await spawnServe(['--port', '0', '--db', url])
    const stats = { unavailable: 0, errors: 0 }
    const PER_AGENT = 15
    let restarted: Promise<void> | undefined
    let sent = 0
    const started = Date.now()
    try {
      const accepted = new Map<Agent, number>(agents.map((a) => [a, 0]))
      await Promise.all(
        agents.map(async (a) => {
          expect(await submitWithRetry(srv.url, a, [0], stats), srv.stderr()).toBe('accepted')
          for (let i = 0; i < PER_AGENT && Date.now() - started < 60_000; i++) {
            a.addCase()
            // Fast shutdown: connections are cut mid-transaction, then PostgreSQL comes back.
            if (++sent === 20 && !restarted) restarted = restart()
            expect(
              await submitWithRetry(srv.url, a, [a.envelopes.length - 1], stats),
              `gave up; the server said: ${srv.stderr().slice(-2000)}`,
            ).toBe('accepted')
            accepted.set(a, accepted.get(a)! + 1)
          }
        }),
      )
      await restarted
      expect(restarted).toBeDefined()
      expect(sent).toBe(agents.length * PER_AGENT)
      const db = await openPostgres(url)
      try {
        for (const a of agents) {
          const rows = await db.all<{ seq: number; entry_hash: string }>(
            `SELECT seq, entry_hash FROM entries WHERE agent_id = ? ORDER BY seq`,
            [a.agent],
          )
          // Every case this agent was told was accepted is there, exactly once, in order.
          expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: accepted.get(a)! + 1 }, (_, i) => i))
          const cases = await db.one<{ n: number }>(`SELECT COUNT(*) AS n FROM cases WHERE anonymized_agent_id = ?`, [
            a.agent,
          ])
          expect(Number(cases!.n)).toBe(accepted.get(a))
        }
        const total = [...accepted.values()].reduce((s, n) => s + n + 1, 0)
        expect(await logHolds(db)).toEqual({ leaves: total, size: total, rebuiltMatches: true, contiguous: true })
      } finally {
        await db.close()
      }
      process.stderr.write(
        `FIGURES pg-restart: ${sent} submissions, ${stats.unavailable} answered 503 and ${stats.errors} cut off during the restart (all retried), ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      )
    } finally {
      await srv.stop()
    }
  }, 120_000)
})

describe.skipIf(!NGINX || !SHARED_PG)('two instances behind nginx over one PostgreSQL', () => {
  let store: Store
  let nginx: ChildProcess | undefined
  let prefix: string
  const instances: ServeProcess[] = []
  afterAll(async () => {
    for (const i of instances) await i.stop()
    if (nginx && nginx.exitCode === null)
      await new Promise<void>((r) => (nginx!.once('exit', () => r()), nginx!.kill('SIGQUIT')))
    await store?.drop()
    if (prefix) fs.rmSync(prefix, { recursive: true, force: true })
  })

  it('one log: the same checkpoint and proofs from either instance, appends serialised in PostgreSQL', async () => {
    store = await freshStore('postgres')
    const lbPort = await freePort()
    const origin = `http://127.0.0.1:${lbPort}`
    for (let i = 0; i < 2; i++)
      instances.push(await spawnServe(['--port', '0', ...store.arg, '--origin', origin, '--trust-proxy']))
    prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-nginx-'))
    fs.writeFileSync(
      path.join(prefix, 'nginx.conf'),
      `worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
user root;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body; proxy_temp_path ${prefix}/proxy; fastcgi_temp_path ${prefix}/fastcgi; uwsgi_temp_path ${prefix}/uwsgi; scgi_temp_path ${prefix}/scgi;
  upstream cases { server 127.0.0.1:${instances[0].port}; server 127.0.0.1:${instances[1].port}; }
  server {
    listen 127.0.0.1:${lbPort};
    location / { proxy_pass http://cases; proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for; proxy_set_header X-Request-Id $request_id; proxy_next_upstream off; }
  }
}
`,
    )
    nginx = spawn('nginx', ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-g', 'daemon off;'], {
      stdio: 'ignore',
    })
    const end = Date.now() + 10_000
    while (
      !(await fetch(`${origin}/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > end)
        throw new Error(
          `nginx did not start: ${fs.existsSync(path.join(prefix, 'error.log')) ? fs.readFileSync(path.join(prefix, 'error.log'), 'utf8') : ''}`,
        )
      await new Promise((r) => setTimeout(r, 100))
    }
    const agents = Array.from({ length: 4 }, () => new Agent())
    for (const a of agents) await addKey(store.db, a.key!.public, { agent: a.agent })
    // Each agent's entries go one request at a time; the agents at once, through the balancer.
    await Promise.all(
      agents.map(async (a) => {
        const r0 = await post(origin, submission(origin, a.envelopes, a.key))
        expect(r0.status, JSON.stringify(r0.body)).toBe(201)
        for (let i = 0; i < 6; i++) {
          const r = await post(origin, submission(origin, [a.addCase()], a.key))
          expect(r.status, JSON.stringify(r.body)).toBe(201)
        }
      }),
    )
    const served = await Promise.all(
      instances.map(async (i) =>
        Number(
          /ratchet_submissions_total\{outcome="accepted",reason="accepted"\} (\d+)/.exec(
            await (await fetch(`${i.url}/metrics`)).text(),
          )?.[1] ?? 0,
        ),
      ),
    )
    expect(served[0] + served[1]).toBe(28)
    expect(served.every((n) => n > 0)).toBe(true) // both instances took appends
    const cps = await Promise.all(instances.map(async (i) => (await fetch(`${i.url}/api/v1/log/checkpoint`)).text()))
    expect(cps[0]).toBe(cps[1])
    expect(cps[0].split('\n')[1]).toBe('28')
    const keys = await Promise.all(instances.map(async (i) => (await fetch(`${i.url}/api/v1/log/key`)).text()))
    expect(keys[0]).toBe(keys[1])
    const root = Buffer.from(cps[0].split('\n')[2], 'base64')
    for (const a of agents) {
      const logged = (await getJson(`${origin}/api/v1/public/agents/${a.agent}/entries`)).body.entries as {
        seq: number
        leaf_index: number
      }[]
      for (const l of logged) {
        const proofs = await Promise.all(
          instances.map(
            async (i) =>
              (await getJson(`${i.url}/api/v1/log/proof/inclusion?index=${l.leaf_index}&size=28`)).body
                .inclusion_proof as string[],
          ),
        )
        expect(proofs[0]).toEqual(proofs[1])
        expect(
          verifyInclusion(
            sha256,
            l.leaf_index,
            28,
            leafHash(sha256, Buffer.from(canonicalJson(a.envelopes[l.seq]))),
            proofs[0].map((p) => Buffer.from(p, 'base64')),
            root,
          ).ok,
        ).toBe(true)
      }
    }
    const db = store.db
    expect(await logHolds(db as Awaited<ReturnType<typeof openPostgres>>)).toEqual({
      leaves: 28,
      size: 28,
      rebuiltMatches: true,
      contiguous: true,
    })
    // A submission signed for one instance's own address is refused through the balancer: the origin is the balancer's.
    const b = new Agent()
    await addKey(store.db, b.key!.public, { agent: b.agent })
    expect((await post(origin, submission(instances[0].url, b.envelopes, b.key))).body.reason).toBe('wrong_origin')
    expect(PG_URL).toMatch(/^postgres/)
  }, 90_000)
})
