// `ratchet serve` and its clients as a user runs them: the built CLI, a real hearing (reviewer backends of
// kind `command`), the operator enrolling the agent's key, `ratchet cases submit --server` keeping each
// receipt beside the ledger, and `ratchet cases verify --server` catching what the ledger alone cannot:
// a local rollback, a cut tail, a ledger signed again under a new key; and a server that rewrites its
// history or its log key.
import crypto from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DsseEnvelope } from '../../lib/core/courtroom/canonical'
import { nextEntry, type Entry } from '../../lib/core/courtroom/chain'
import { appendLeaf, frontierRoot, type Frontier } from '../../lib/core/transparency/merkle'
import { checkpointText, signNote } from '../../lib/core/transparency/note'
import { generateKey, writeKeyStore, type KeyStore } from '../../lib/io/courtroom/keys'
import { envelopeFor, writeHead } from '../../lib/io/courtroom/ledger'
import { envelopeHash } from '../../lib/core/courtroom/chain'
import { nodeCrypto } from '../../lib/io/courtroom/keys'
import { sha256 } from '../../lib/server/log'
import { BIN, exec, tempProject } from '../support/fixtures'
import { spawnServe, type ServeProcess } from '../support/serve'

let dir: string
let home: string
let data: string
let env: NodeJS.ProcessEnv
let srv: ServeProcess
const ratchet = (...args: string[]) => exec(BIN('ratchet'), args, { cwd: dir, env })
const say = (text: string) => `printf '${text.replace(/'/g, "'\\''")}'`
const VOTE = (v: string) => ({ kind: 'command', command: say(`VOTE: ${v}\\nREASON: scripted ${v.toLowerCase()}.`) })
const JUDGE = {
  kind: 'command',
  command: say('CHARGE: The agent routed around a block.\\nPRIMARY_FAILURE: Ran the denied push through python.'),
}
const ledgerDir = () => path.join(dir, '.ratchet', 'courtroom', 'ledger')
const ledgerFile = () => path.join(ledgerDir(), fs.readdirSync(ledgerDir())[0])
const agentId = () => fs.readdirSync(ledgerDir())[0].replace(/\.jsonl$/, '')
const headFile = () => path.join(home, 'xdg', 'ratchet', 'heads', `${agentId()}.json`)
const json = (r: { stdout: string }) => JSON.parse(r.stdout)

async function hear(summary: string) {
  const r = await ratchet('courtroom', 'hear', '--offense', 'route_around', '--summary', summary, '--json')
  expect(JSON.parse(r.stdout).status, r.stderr).toBe('held')
}

beforeEach(async () => {
  dir = tempProject()
  home = tempProject('ratchet-home-')
  data = path.join(home, 'server')
  fs.mkdirSync(path.join(dir, '.ratchet'))
  env = {
    ...process.env,
    NODE_ENV: undefined,
    CLAUDECODE: undefined,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'xdg'),
    CLAUDE_PROJECT_DIR: dir,
    RATCHET_DIR: '',
  }
  fs.writeFileSync(
    path.join(dir, '.ratchet', 'config.json'),
    JSON.stringify({
      courtroom: {
        judge: JUDGE,
        jurors: { pragmatist: VOTE('GUILTY'), pattern_matcher: VOTE('GUILTY'), agent_advocate: VOTE('NOT GUILTY') },
      },
    }),
  )
  srv = await spawnServe(['--port', '0', '--data', data], env)
})
afterEach(async () => {
  await srv.stop()
  fs.rmSync(dir, { recursive: true, force: true })
  fs.rmSync(home, { recursive: true, force: true })
})

async function enabledAndEnrolled(cases: number) {
  expect((await ratchet('courtroom', 'enable', '--yes', '--accept', 'remote_submission')).status).toBe(0)
  for (let i = 0; i < cases; i++) await hear(`push denied, then run through python (${i})`)
  const key = await ratchet('courtroom', 'key')
  const pub = key.stdout.trim().split('\n').pop()!
  expect(json(await ratchet('courtroom', 'key', '--json'))).toMatchObject({ agent: agentId(), public_key: pub })
  const added = await ratchet('serve', 'keys', 'add', pub, '--data', data, '--agent', agentId(), '--json')
  expect(json(added), added.stderr).toMatchObject({ added: true, agent_id: agentId(), enrolled_by: 'operator' })
}

describe('ratchet serve, as a user runs it', () => {
  it('a real hearing’s case: submitted, listed, shown, counted, on the dashboard’s data, its inclusion proven by verify --server', async () => {
    expect(srv.info).toMatchObject({
      store: `sqlite:${path.join(data, 'cases.sqlite')}`,
      cache: 'none',
      trust_on_first_use: false,
    })
    expect(String(srv.info.log_key)).toMatch(/^[^+\s]+\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/)
    await enabledAndEnrolled(1)
    const sent = await ratchet('cases', 'submit', '--server', srv.url, '--json')
    expect(json(sent), sent.stderr).toMatchObject({
      ok: true,
      sent: 2,
      cases_sent: 1,
      already: 0,
      pinned_now: true,
      tree_size: 2,
    })
    const again = await ratchet('cases', 'submit', '--server', srv.url)
    expect(again.stdout).toMatch(/^Nothing to send: the 2 entries of agent_[0-9a-f]{16} are already on/)
    const caseId = JSON.parse(
      fs
        .readFileSync(ledgerFile(), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => Buffer.from(JSON.parse(l).payload, 'base64').toString())[1],
    ).body.case_id
    const list = await (await fetch(`${srv.url}/api/v1/public/cases`)).json()
    expect(list.cases.map((c: { case_id: string }) => c.case_id)).toEqual([caseId])
    const one = await (await fetch(`${srv.url}/api/v1/public/cases/${caseId}`)).json()
    expect(one).toMatchObject({
      verdict: 'GUILTY',
      vote: '2-1',
      primary_failure: 'Ran the denied push through python.',
      trust: 'enrolled',
    })
    expect(await (await fetch(`${srv.url}/api/v1/public/statistics`)).json()).toMatchObject({
      total_cases: 1,
      log: { size: 2 },
    })
    expect((await fetch(`${srv.url}/dashboard`)).headers.get('content-type')).toMatch(/text\/html/)
    const receipts = fs
      .readFileSync(path.join(dir, '.ratchet', 'courtroom', 'receipts', `${agentId()}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(receipts.map((r) => [r.seq, r.leaf_index, r.server])).toEqual([
      [0, 0, srv.url],
      [1, 1, srv.url],
    ])
    expect(receipts[1].checkpoint).toMatch(/\n2\n/)
    const v = await ratchet('cases', 'verify', '--server', srv.url)
    expect(v.stdout, v.stderr).toMatch(
      /^OK: 2 entries of agent_[0-9a-f]{16} proven in http:\/\/127\.0\.0\.1:\d+'s log \(checkpoint of 2, consistent with the last one seen here\)/,
    )
    expect(v.status).toBe(0)
    expect(json(await ratchet('cases', 'verify', '--server', srv.url, '--json'))).toMatchObject({
      ok: true,
      proven: 2,
      unsent: 0,
      problems: [],
    })
    const keys = json(await ratchet('serve', 'keys', 'list', '--data', data, '--json'))
    expect(keys).toEqual([
      expect.objectContaining({ agent_id: agentId(), case_count: 1, enrolled_by: 'operator', revoked_at: null }),
    ])
  })

  it('nothing leaves the machine without the remote-submission acknowledgment, or for a key the operator did not enroll', async () => {
    expect((await ratchet('courtroom', 'enable', '--yes')).status).toBe(0)
    await hear('x')
    const refused = await ratchet('cases', 'submit', '--server', srv.url)
    expect({ status: refused.status, stderr: refused.stderr }).toEqual({
      status: 5,
      stderr:
        'ratchet: not sent: remote submission was not acknowledged (npx ratchet-guard courtroom enable --accept remote_submission). Nothing left this machine.\n',
    })
    await ratchet('courtroom', 'enable', '--accept', 'remote_submission')
    const unknown = await ratchet('cases', 'submit', '--server', srv.url)
    expect(unknown.status).toBe(8)
    expect(unknown.stderr).toMatch(
      /^ratchet: http:\/\/127\.0\.0\.1:\d+ refused seq 0: unknown_key — key [0-9a-f]{32} is not enrolled here \(the operator runs: npx ratchet-guard serve keys add <public key>\)\n$/,
    )
    expect((await (await fetch(`${srv.url}/api/v1/log/checkpoint`)).text()).split('\n')[1]).toBe('0')
    const bad = await ratchet('serve', 'keys', 'add', 'not-a-key', '--data', data)
    expect({ status: bad.status, stderr: bad.stderr }).toEqual({
      status: 2,
      stderr:
        'ratchet: "not-a-key" is not an Ed25519 public key (32 bytes, base64: the last line of `npx ratchet-guard courtroom key`)\n',
    })
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as net.AddressInfo).port
        s.close(() => resolve(port))
      })
    })
    const gone = await ratchet('cases', 'submit', '--server', `http://127.0.0.1:${closed}`)
    expect(gone.stderr).toBe(
      `ratchet: http://127.0.0.1:${closed}: not reachable (ECONNREFUSED); nothing was changed here\n`,
    )
  })

  it('revoking a key on the server stops its submissions; rotation arrives as the ledger’s own record', async () => {
    await enabledAndEnrolled(1)
    expect((await ratchet('cases', 'submit', '--server', srv.url)).status).toBe(0)
    expect((await ratchet('courtroom', 'rotate-key')).status).toBe(0)
    await hear('after the rotation')
    expect(json(await ratchet('cases', 'submit', '--server', srv.url, '--json'))).toMatchObject({
      sent: 2,
      cases_sent: 1,
    })
    const keys = json(await ratchet('serve', 'keys', 'list', '--data', data, '--json')) as {
      key_id: string
      enrolled_by: string
      retired_at: string | null
    }[]
    expect(keys.map((k) => [k.enrolled_by, !!k.retired_at])).toEqual([
      ['operator', true],
      ['rotation', false],
    ])
    const revoked = await ratchet('serve', 'keys', 'revoke', keys[1].key_id.slice(0, 10), '--data', data)
    expect(revoked.stdout).toMatch(new RegExp(`^Revoked ${keys[1].key_id} \\(`))
    await hear('after the revocation')
    const r = await ratchet('cases', 'submit', '--server', srv.url)
    expect(r.stderr).toMatch(/refused seq 4: key_revoked — key [0-9a-f]{32} was revoked on /)
  })
})

describe('verify --server catches what the ledger alone cannot', () => {
  let saved: { ledger: string; head: string }
  beforeEach(async () => {
    await enabledAndEnrolled(1)
    saved = { ledger: fs.readFileSync(ledgerFile(), 'utf8'), head: fs.readFileSync(headFile(), 'utf8') }
    await hear('second')
    await hear('third')
    expect((await ratchet('cases', 'submit', '--server', srv.url)).status).toBe(0)
  })

  it('a local rollback to an older genuine state (ledger and head together)', async () => {
    fs.writeFileSync(ledgerFile(), saved.ledger)
    fs.writeFileSync(headFile(), saved.head)
    expect((await ratchet('cases', 'verify')).status).toBe(0) // the ledger alone cannot tell
    const v = await ratchet('cases', 'verify', '--server', srv.url)
    expect(v.status).toBe(1)
    expect(v.stdout).toMatch(/^FAILED: \d+ problems between the local ledger of agent_[0-9a-f]{16} and /)
    expect(v.stdout).toMatch(
      /seq 2: the log holds seq 2 \(case, leaf 2\) and the local ledger does not: the ledger was rolled back or cut short/,
    )
    expect(v.stdout).toMatch(/seq 3: the log holds seq 3/)
  })

  it('the tail cut together with the head', async () => {
    const lines = fs.readFileSync(ledgerFile(), 'utf8').split('\n').filter(Boolean)
    fs.writeFileSync(ledgerFile(), lines.slice(0, 3).join('\n') + '\n')
    fs.rmSync(headFile())
    expect((await ratchet('cases', 'verify')).status).toBe(0)
    const v = json(await ratchet('cases', 'verify', '--server', srv.url, '--json'))
    expect(v.ok).toBe(false)
    expect(v.problems.map((p: { seq: number }) => p.seq)).toEqual([3, 3])
  })

  it('the ledger re-signed under a new key (key store and head replaced too)', async () => {
    const agent = agentId()
    const entries = fs
      .readFileSync(ledgerFile(), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(Buffer.from(JSON.parse(l).payload, 'base64').toString()) as Entry)
    const key = generateKey()
    let last: { seq: number; hash: string } | null = null
    const out: string[] = []
    for (const e of entries) {
      const body = e.kind === 'genesis' ? { ...e.body, public_key: key.public, keyid: key.keyid } : e.body
      const env: DsseEnvelope = envelopeFor(nextEntry(last, agent, e.kind, body, e.at), [key])
      out.push(JSON.stringify(env))
      last = { seq: e.seq, hash: envelopeHash(nodeCrypto, env) }
    }
    fs.writeFileSync(ledgerFile(), out.join('\n') + '\n')
    const store: KeyStore = { agent, genesis_public: key.public, current: key, retired: [] }
    writeKeyStore(store, env)
    writeHead(agent, { agent, seq: last!.seq, hash: last!.hash, at: new Date().toISOString() }, key, env)
    expect((await ratchet('cases', 'verify')).stdout).toMatch(/^OK: 4 entries/) // self-consistent under the new key
    const v = await ratchet('cases', 'verify', '--server', srv.url)
    expect(v.status).toBe(1)
    for (const seq of [0, 1, 2, 3])
      expect(v.stdout).toContain(
        `seq ${seq}: seq ${seq} differs from the entry the log holds (leaf ${seq}): the local ledger was rewritten or signed again under another key`,
      )
    // And it cannot be sent as if nothing happened.
    expect((await ratchet('cases', 'submit', '--server', srv.url)).stderr).toMatch(
      /not sent: .* disagree with the local ledger: seq 0 differs/,
    )
  })

  it('a server that rewrites its history (a leaf replaced, the tree rebuilt and signed again with its own key)', async () => {
    expect((await ratchet('cases', 'verify', '--server', srv.url)).status).toBe(0)
    const Database = require('better-sqlite3')
    const db = new Database(path.join(data, 'cases.sqlite'))
    const leaves = (
      db.prepare('SELECT idx, hash FROM log_nodes WHERE level = 0 ORDER BY idx').all() as { hash: string }[]
    ).map((r) => Buffer.from(r.hash, 'base64'))
    leaves[1] = crypto.randomBytes(32)
    let f: Frontier = { size: 0, hashes: [] }
    db.prepare('DELETE FROM log_nodes').run()
    for (const l of leaves) {
      const r = appendLeaf(sha256, f, l)
      for (const n of r.nodes)
        db.prepare('INSERT INTO log_nodes (level, idx, hash) VALUES (?, ?, ?)').run(
          n.level,
          n.index,
          n.hash.toString('base64'),
        )
      f = r.next
    }
    const meta = Object.fromEntries(
      (db.prepare('SELECT k, v FROM meta').all() as { k: string; v: string }[]).map((r) => [r.k, r.v]),
    )
    const root = frontierRoot(sha256, f)
    const note = signNote(
      sha256,
      checkpointText({ origin: meta.log_name, size: f.size, root: root.toString('base64') }),
      { name: meta.log_name, publicKey: Buffer.from(meta.log_public_key, 'base64') },
      (m) => crypto.sign(null, m, crypto.createPrivateKey(meta.log_private_key)),
    )
    db.prepare('UPDATE log_head SET root = ?, frontier = ?, checkpoint = ? WHERE id = 1').run(
      root.toString('base64'),
      JSON.stringify(f.hashes.map((x) => x.toString('base64'))),
      note,
    )
    db.close()
    const v = await ratchet('cases', 'verify', '--server', srv.url)
    expect({ status: v.status, stderr: v.stderr }).toEqual({
      status: 5,
      stderr: expect.stringMatching(
        /^ratchet: http:\/\/127\.0\.0\.1:\d+: two different roots for the same size 4: the log forked|its log of 4 entries does not extend/,
      ),
    })
  })

  it('a server whose log key changed (the log re-keyed under the same address)', async () => {
    expect((await ratchet('cases', 'verify', '--server', srv.url)).status).toBe(0)
    const port = srv.port
    await srv.stop()
    const Database = require('better-sqlite3')
    const db = new Database(path.join(data, 'cases.sqlite'))
    const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519')
    db.prepare("UPDATE meta SET v = ? WHERE k = 'log_public_key'").run(
      Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('base64'),
    )
    db.prepare("UPDATE meta SET v = ? WHERE k = 'log_private_key'").run(
      privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    )
    db.close()
    srv = await spawnServe(['--port', String(port), '--data', data], env)
    const v = await ratchet('cases', 'verify', '--server', srv.url)
    expect(v.status).toBe(5)
    expect(v.stderr).toMatch(
      /its log key is not the one pinned here on \d{4}-\d{2}-\d{2} .*not the log this machine knew/,
    )
  })
})
