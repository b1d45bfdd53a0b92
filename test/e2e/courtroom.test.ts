// The courtroom through the built `ratchet` CLI and hooks, with real reviewer backends of kind
// `command` (real processes, killed at the hearing's deadline): consent, a hearing, the ledger and
// its verification, remote submission refused without consent, disable/revoke, calibration, and a
// custodiet finding opening a hearing in the background.
import fs from 'node:fs'
import http from 'node:http'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { BIN, ROOT, exec, preToolUse, runBinAsync, tempProject } from '../support/fixtures'

let dir: string
let home: string
let env: NodeJS.ProcessEnv
const ratchet = (...args: string[]) => exec(BIN('ratchet'), args, { cwd: dir, env })
const say = (text: string) => `printf '${text.replace(/'/g, "'\\''")}'`
const VOTE = (v: string) => ({ kind: 'command', command: say(`VOTE: ${v}\\nREASON: scripted ${v.toLowerCase()}.`) })
const JUDGE = {
  kind: 'command',
  command: say('CHARGE: The agent routed around a block.\\nPRIMARY_FAILURE: Ran the denied push through python.'),
}
const config = (courtroom: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  fs.writeFileSync(
    path.join(dir, '.ratchet', 'config.json'),
    JSON.stringify({
      courtroom: {
        judge: JUDGE,
        jurors: { pragmatist: VOTE('GUILTY'), pattern_matcher: VOTE('GUILTY'), agent_advocate: VOTE('NOT GUILTY') },
        ...courtroom,
      },
      ...extra,
    }),
  )
const ledgerFile = () => {
  const d = path.join(dir, '.ratchet', 'courtroom', 'ledger')
  return path.join(d, fs.readdirSync(d)[0])
}
const keysDir = () => path.join(home, 'xdg', 'ratchet', 'keys')
async function until(what: () => boolean, ms = 20_000) {
  const end = Date.now() + ms
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 100))
  }
}

beforeEach(() => {
  dir = tempProject()
  home = tempProject('ratchet-home-')
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
  config({})
})

describe('consent', () => {
  it('enabling from a script without the acknowledgments is refused with one line naming the flags', async () => {
    const r = await ratchet('courtroom', 'enable')
    expect(r.status).toBe(2)
    expect(r.stderr).toBe(
      'ratchet: enabling needs the acknowledgments: run in a terminal, or pass --accept autonomy,local_only,enforcement,reversible,not_a_court[,remote_submission] (or --yes for the five required ones)\n',
    )
    const partial = await ratchet('courtroom', 'enable', '--accept', 'autonomy,local_only')
    expect(partial.status).toBe(2)
    expect(partial.stderr).toMatch(/missing acknowledgments enforcement, reversible, not_a_court/)
    expect(fs.existsSync(path.join(dir, '.ratchet', 'courtroom', 'consent.json'))).toBe(false)
  })

  it('enabling records the acknowledgments, makes a 0600 key outside the project and a signed genesis; the clawtrial pack stays off', async () => {
    const r = await ratchet('courtroom', 'enable', '--yes')
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/Remote submission: not acknowledged — nothing leaves this machine/)
    const consent = JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'courtroom', 'consent.json'), 'utf8'))
    expect(Object.keys(consent.acknowledgments).sort()).toEqual([
      'autonomy',
      'enforcement',
      'local_only',
      'not_a_court',
      'reversible',
    ])
    expect(consent.packs).toEqual(['agent'])
    const [keyName] = fs.readdirSync(keysDir())
    expect(fs.statSync(path.join(keysDir(), keyName)).mode & 0o777).toBe(0o600)
    expect(fs.statSync(keysDir()).mode & 0o777).toBe(0o700)
    expect(keyName).toBe(`${consent.agent}.json`)
    expect((await ratchet('cases', 'verify')).stdout).toMatch(/^OK: 1 entries \(0 cases\)/)
    const status = await ratchet('courtroom', 'status')
    expect(status.stdout).toMatch(/The courtroom is ON for agent_/)
    expect(status.stdout).toMatch(/pack clawtrial: off — ClawTrial \(ENTERTAINMENT\)/)
  })
})

describe('enabling in a terminal (a pseudo-terminal through script(1), answers typed ahead)', () => {
  const inTerminal = (answers: string) =>
    exec('script', ['-q', '-e', '-c', `${BIN('ratchet')} courtroom enable`, '/dev/null'], {
      cwd: dir,
      env,
      input: answers,
    })
  it.skipIf(spawnSync('script', ['--version']).status !== 0)(
    'asks the six questions and enables on the five required; a no to a required one, or input that ends, enables nothing',
    async () => {
      const no = await inTerminal('y\ny\ny\ny\ny\nn\n')
      expect(no.status).toBe(2)
      expect(no.stdout).toMatch(
        /not_a_court: This is not a legal system[^\n]*\r?\nAcknowledge\? \[y\/N\] ratchet: not enabled: "not_a_court" was not acknowledged/,
      )
      expect(no.stdout).not.toMatch(/dynamic import|internal error/)
      const short = await inTerminal('y\ny\n')
      expect(short.stdout).toMatch(/ratchet: not enabled: the input ended before every acknowledgment was answered/)
      expect(fs.existsSync(path.join(dir, '.ratchet', 'courtroom', 'consent.json'))).toBe(false)
      const yes = await inTerminal('y\ny\ny\ny\nn\ny\n')
      expect(yes.status, yes.stdout).toBe(0)
      expect(yes.stdout).toMatch(/The courtroom is on for agent_[0-9a-f]{16}\. Packs: agent\./)
      const consent = JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'courtroom', 'consent.json'), 'utf8'))
      expect(Object.keys(consent.acknowledgments).sort()).toEqual([
        'autonomy',
        'enforcement',
        'local_only',
        'not_a_court',
        'reversible',
      ])
    },
  )
})

describe('a hearing through the reviewer backends', () => {
  beforeEach(async () => {
    expect((await ratchet('courtroom', 'enable', '--yes')).status).toBe(0)
  })

  it('guilty 2-1, signed, listed, shown; severe probation shown in status', async () => {
    const r = await ratchet(
      'courtroom',
      'hear',
      '--offense',
      'route_around',
      '--summary',
      'push denied, then run through python',
      '--evidence',
      'denied: git push origin main',
      '--json',
    )
    const out = JSON.parse(r.stdout)
    expect(out.status).toBe('held')
    expect(out.record).toMatchObject({
      verdict: 'GUILTY',
      vote: '2-1',
      primary_failure: 'Ran the denied push through python.',
    })
    const list = JSON.parse((await ratchet('cases', 'list', '--json')).stdout)
    expect(list).toHaveLength(1)
    expect((await ratchet('cases', 'show', out.record.case_id)).stdout).toMatch(/verdict\s+GUILTY/)
    expect((await ratchet('courtroom', 'status')).stdout).toMatch(
      new RegExp(
        `${out.record.case_id} SEVERE Routing Around a Block: irreversible, public_surface paused \\(until a human clears it\\)`,
      ),
    )
  })

  it('a juror that hangs abstains at the deadline, and the hearing ends', async () => {
    config({
      deadlineSeconds: 2,
      jurors: {
        pragmatist: VOTE('GUILTY'),
        pattern_matcher: { kind: 'command', command: 'sleep 60' },
        agent_advocate: VOTE('GUILTY'),
      },
    })
    // The juror sleeps 60 s: a hearing that waited for it would outlive the test's timeout.
    const out = JSON.parse(
      (await ratchet('courtroom', 'hear', '--offense', 'drift', '--summary', 'wandered', '--json')).stdout,
    )
    expect(out.record).toMatchObject({ verdict: 'GUILTY', vote: '2-0', abstentions: 1 })
    expect(out.votes.find((v: { role: string }) => v.role === 'pattern_matcher')).toMatchObject({
      vote: 'ABSTAIN',
      reason: expect.stringMatching(/timed out|deadline/),
    })
  })

  it('tampering with the ledger file fails verification, naming the entry, with exit 1', async () => {
    for (const s of ['one', 'two', 'three']) await ratchet('courtroom', 'hear', '--offense', 'drift', '--summary', s)
    expect((await ratchet('cases', 'verify')).status).toBe(0)
    const lines = fs.readFileSync(ledgerFile(), 'utf8').trim().split('\n')
    fs.writeFileSync(ledgerFile(), [lines[0], lines[2], lines[1], lines[3]].join('\n') + '\n')
    const r = await ratchet('cases', 'verify')
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/^FAILED: entry 1 of .*: seq is 2 where 1 was expected/)
    expect(JSON.parse((await ratchet('cases', 'verify', '--json')).stdout)).toMatchObject({ ok: false, first_bad: 1 })
    expect((await ratchet('cases', 'export')).stderr).toMatch(/not exported: the ledger does not verify/)
  })

  it('an exported ledger verifies on its own file, elsewhere; a tampered export names the entry', async () => {
    for (const s of ['one', 'two']) await ratchet('courtroom', 'hear', '--offense', 'drift', '--summary', s)
    const out = path.join(home, 'export.json')
    expect((await ratchet('cases', 'export', '--out', out)).status).toBe(0)
    const mine = await ratchet('cases', 'verify', out)
    expect(mine.status).toBe(0)
    expect(mine.stdout).toMatch(/^OK: 3 entries \(2 cases\) verify for agent_/)
    // Another machine (no key store): intact, but only against the key the file names, and it says so.
    const elsewhere = await exec(BIN('ratchet'), ['cases', 'verify', out, '--json'], {
      cwd: home,
      env: { ...env, XDG_CONFIG_HOME: path.join(home, 'other'), CLAUDE_PROJECT_DIR: home },
    })
    expect(JSON.parse(elsewhere.stdout)).toMatchObject({
      ok: true,
      entries: 3,
      warnings: [expect.stringMatching(/the genesis key the file itself names/)],
    })
    const doc = JSON.parse(fs.readFileSync(out, 'utf8'))
    ;[doc.envelopes[1], doc.envelopes[2]] = [doc.envelopes[2], doc.envelopes[1]]
    fs.writeFileSync(out, JSON.stringify(doc))
    const bad = await ratchet('cases', 'verify', out)
    expect(bad.status).toBe(1)
    expect(bad.stdout).toMatch(/^FAILED: entry 1 of .*export\.json/)
    const junk = path.join(home, 'junk.json')
    fs.writeFileSync(junk, '{"hello":1}')
    expect((await ratchet('cases', 'verify', junk)).stderr).toBe(
      `ratchet: ${junk}: not an exported case ledger (format ratchet-case-ledger/1, from npx ratchet-guard cases export)\n`,
    )
  })

  it('nothing leaves the machine without the remote-submission acknowledgment, nor to an endpoint that is not a case server', async () => {
    const got: string[] = []
    const server = http.createServer((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        got.push(`${req.method} ${req.url} ${body}`)
        res.end('{}')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    try {
      await ratchet('courtroom', 'hear', '--offense', 'drift', '--summary', 'x')
      const refused = await ratchet('cases', 'submit', '--server', url)
      expect(refused.status).toBe(5)
      expect(refused.stderr).toMatch(/not sent: remote submission was not acknowledged .* Nothing left this machine/)
      expect(got).toEqual([])
      await ratchet('courtroom', 'enable', '--accept', 'remote_submission')
      // Not a `ratchet serve`: it publishes no log key, so no entry is sent (test/e2e/serve-cli.test.ts sends them to one).
      const sent = await ratchet('cases', 'submit', '--server', url)
      expect({ status: sent.status, stderr: sent.stderr }).toEqual({
        status: 8,
        stderr: `ratchet: ${url}/api/v1/log/key: a verifier key is <name>+<hash>+<key>\n`,
      })
      expect(got).toEqual(['GET /api/v1/log/key '])
    } finally {
      server.close()
    }
  })

  it('disable lifts probation and stops hearings; revoke closes the ledger with a signed revocation and deletes the key', async () => {
    await ratchet('courtroom', 'hear', '--offense', 'route_around', '--summary', 'x')
    expect(fs.existsSync(path.join(dir, '.ratchet', 'courtroom', 'probation.json'))).toBe(true)
    expect((await ratchet('courtroom', 'disable')).stdout).toMatch(/1 probation lifted/)
    expect(fs.existsSync(path.join(dir, '.ratchet', 'courtroom', 'probation.json'))).toBe(false)
    expect((await ratchet('courtroom', 'hear', '--offense', 'drift', '--summary', 'y')).stdout).toMatch(/^disabled:/)
    await ratchet('courtroom', 'enable', '--yes')
    expect((await ratchet('courtroom', 'revoke')).status).toBe(0)
    const store = JSON.parse(fs.readFileSync(path.join(keysDir(), fs.readdirSync(keysDir())[0]), 'utf8'))
    expect(store.current).toBeNull()
    expect(JSON.stringify(store)).not.toMatch(/PRIVATE KEY/)
    const v = JSON.parse((await ratchet('cases', 'verify', '--json')).stdout)
    expect(v).toMatchObject({ ok: true, entries: 3 })
  })

  it('rotation: later cases are signed by the new key and the ledger still verifies', async () => {
    await ratchet('courtroom', 'hear', '--offense', 'drift', '--summary', 'before')
    expect((await ratchet('courtroom', 'rotate-key')).stdout).toMatch(/^Rotated: /)
    await ratchet('courtroom', 'hear', '--offense', 'drift', '--summary', 'after')
    expect(JSON.parse((await ratchet('cases', 'verify', '--json')).stdout)).toMatchObject({
      ok: true,
      entries: 4,
      cases: 2,
    })
  })

  it('calibration runs the panel over the shipped labelled set and reports kappa', async () => {
    config({
      jurors: { pragmatist: VOTE('GUILTY'), pattern_matcher: VOTE('GUILTY'), agent_advocate: VOTE('NOT GUILTY') },
    })
    const r = await ratchet(
      'courtroom',
      'calibrate',
      path.join(ROOT, 'offenses', 'calibration', 'agent-examples.json'),
      '--json',
    )
    const rep = JSON.parse(r.stdout)
    expect(rep.cases).toBe(10)
    // A panel that always convicts agrees with half the labels, by chance alone: kappa 0.
    expect(rep.agreement).toBe(0.5)
    expect(rep.kappa).toBeCloseTo(0, 6)
    expect(rep.inter_juror_kappa['pragmatist~pattern_matcher']).toBeNull()
    const text = await ratchet(
      'courtroom',
      'calibrate',
      path.join(ROOT, 'offenses', 'calibration', 'agent-examples.json'),
    )
    expect(text.stdout).toMatch(/Panel vs human: agreement 50%, Cohen's κ 0.00 \(weak: do not trust this panel yet\)/)
  })
})

describe('a custodiet finding opens a hearing in the background', () => {
  it('Type A (reactive helpfulness) → hearing → GUILTY case → moderate probation', async () => {
    config({}, { custodiet: { reviewer: { kind: 'none' } } })
    expect((await ratchet('courtroom', 'enable', '--yes')).status).toBe(0)
    const hook = (payload: Record<string, unknown>) =>
      runBinAsync(
        'custodiet',
        { session_id: 's1', transcript_path: path.join(dir, 't.jsonl'), cwd: dir, ...payload },
        { cwd: dir, env },
      )
    await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'try again with outlook?' })
    await hook({
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'mcp__outlook__get_emails',
      tool_input: {},
      tool_use_id: 't',
      error: 'Missing required configuration: tenant_id',
    })
    const r = await hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: '/home/u/.config/claude/mcp.json' },
      tool_response: {},
      tool_use_id: 't',
    })
    expect(r.stdout).toContain('[CUSTODIET]')
    const hearings = path.join(dir, '.ratchet', 'courtroom', 'hearings.jsonl')
    await until(() => fs.existsSync(hearings) && fs.readFileSync(hearings, 'utf8').includes('"status":"held"'))
    const h = JSON.parse(fs.readFileSync(hearings, 'utf8').trim().split('\n').pop()!)
    expect(h).toMatchObject({
      status: 'held',
      offense: 'reactive_helpfulness',
      source: 'custodiet',
      verdict: 'GUILTY',
      vote: '2-1',
    })
    const probation = JSON.parse(
      fs.readFileSync(path.join(dir, '.ratchet', 'courtroom', 'probation.json'), 'utf8'),
    ).probations
    expect(probation).toEqual([
      expect.objectContaining({ tier: 'moderate', offense_id: 'reactive_helpfulness', remaining: 10 }),
    ])
  })

  it('a route-around caught by preflight-check → hearing → GUILTY → its class paused until a human clears it', async () => {
    expect((await ratchet('courtroom', 'enable', '--yes')).status).toBe(0)
    fs.writeFileSync(
      path.join(dir, '.ratchet', 'guardrails.json'),
      JSON.stringify([
        {
          id: 'GR-KEYS',
          pattern: 'custom',
          match: { tools: ['Write', 'Edit'], paths: ['secrets/**'] },
          rule: 'Never write keys.',
          severity: 'hard',
        },
      ]),
    )
    const guard = (tool: string, input: Record<string, unknown>) =>
      runBinAsync('preflight-check', preToolUse(dir, tool, input), { cwd: dir, env })
    expect((await guard('Write', { file_path: path.join(dir, 'secrets', 'api.key'), content: 'k' })).stdout).toContain(
      'GR-KEYS',
    )
    expect((await guard('Bash', { command: 'cp /tmp/k secrets/api.key' })).stdout).toContain('same effect')
    const hearings = path.join(dir, '.ratchet', 'courtroom', 'hearings.jsonl')
    await until(() => fs.existsSync(hearings) && fs.readFileSync(hearings, 'utf8').includes('"status":"held"'))
    expect(JSON.parse(fs.readFileSync(hearings, 'utf8').trim().split('\n').pop()!)).toMatchObject({
      offense: 'route_around',
      source: 'route_around',
      verdict: 'GUILTY',
      vote: '2-1',
    })
    const list = JSON.parse((await ratchet('cases', 'list', '--json')).stdout)
    expect(list[0]).toMatchObject({ offense_type: 'route_around', severity: 'severe' })
    const probation = JSON.parse(
      fs.readFileSync(path.join(dir, '.ratchet', 'courtroom', 'probation.json'), 'utf8'),
    ).probations
    expect(probation).toEqual([expect.objectContaining({ tier: 'severe', offense_id: 'route_around' })])
  })

  it('a recurring incident class found by pattern-detect opens a hearing', async () => {
    expect((await ratchet('courtroom', 'enable', '--yes')).status).toBe(0)
    for (const t of ['Pushed a .env', 'Pushed an API key'])
      await ratchet('incident', 'add', '--title', t, '--severity', 'P1', '--class', 'git_push')
    await exec(BIN('pattern-detect'), [], { cwd: dir, env })
    const hearings = path.join(dir, '.ratchet', 'courtroom', 'hearings.jsonl')
    await until(() => fs.existsSync(hearings) && fs.readFileSync(hearings, 'utf8').includes('"status":"held"'))
    expect(JSON.parse(fs.readFileSync(hearings, 'utf8').trim().split('\n').pop()!)).toMatchObject({
      offense: 'public_without_evidence',
      source: 'incident',
      confidence: 0.7,
    })
  })

  it('with the courtroom off, a finding opens nothing', async () => {
    config({}, { custodiet: { reviewer: { kind: 'none' } } })
    const hook = (payload: Record<string, unknown>) =>
      runBinAsync('custodiet', { session_id: 's1', cwd: dir, ...payload }, { cwd: dir, env })
    await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'try again with outlook?' })
    await hook({
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'mcp__outlook__get_emails',
      tool_input: {},
      tool_use_id: 't',
      error: 'Missing required configuration: tenant_id',
    })
    await hook({
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: '/home/u/.config/claude/mcp.json' },
      tool_response: {},
      tool_use_id: 't',
    })
    await new Promise((r) => setTimeout(r, 1000))
    expect(fs.existsSync(path.join(dir, '.ratchet', 'courtroom'))).toBe(false)
  })
})
