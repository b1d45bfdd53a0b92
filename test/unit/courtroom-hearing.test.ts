// Hearings with a scripted judge and jurors (the Runner is injected; the reviewer backends themselves
// are exercised end to end in test/e2e/courtroom.test.ts): guilty 2-1, not guilty, an abstention, a
// deadline, the daily cost cap, a cache hit, and the clawtrial pack.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import type { Charge } from '../../lib/core/courtroom/hearing'
import { resolvePaths } from '../../lib/io/paths'
import type { Paths } from '../../lib/io/registry'
import { writeConsent } from '../../lib/io/courtroom/consent'
import { courtroomFiles } from '../../lib/io/courtroom/files'
import { holdHearing, type Runner } from '../../lib/io/courtroom/hearing'
import { generateKey, writeKeyStore } from '../../lib/io/courtroom/keys'
import { appendEntry, verifyLedger } from '../../lib/io/courtroom/ledger'
import { readProbation } from '../../lib/io/courtroom/probation'

let dir: string
let paths: Paths
let env: NodeJS.ProcessEnv
const AGENT = 'agent_hearing01'
let calls: { system: string; prompt: string; kind: string }[]

const config = (courtroom: Record<string, unknown>) =>
  fs.writeFileSync(
    path.join(dir, '.ratchet', 'config.json'),
    JSON.stringify({ courtroom: { reviewer: { kind: 'command', command: 'unused' }, ...courtroom } }),
  )

function enable(packs = ['agent']) {
  const key = generateKey()
  writeKeyStore({ agent: AGENT, genesis_public: key.public, current: key, retired: [] }, env)
  appendEntry(
    { agent: AGENT, file: courtroomFiles(paths).ledger(AGENT), signers: [key], headKey: key, env },
    'genesis',
    { public_key: key.public, keyid: key.keyid },
  )
  writeConsent(paths, { enabled: true, agent: AGENT, keyid: key.keyid, acknowledgments: {}, packs, enabled_at: 'x' })
}

/** Judge answers in format; each juror by role, from a script. */
function scripted(
  votes: Record<string, string | 'fail' | 'hang' | 'garbage'>,
  judge:
    | string
    | 'hang' = 'CHARGE: The agent pushed a key to the public repo.\nPRIMARY_FAILURE: Pushed without listing the staged files.',
): Runner {
  return async (cfg, system, prompt) => {
    calls.push({ system, prompt, kind: cfg.kind })
    if (/^Pack:/.test(prompt))
      return judge === 'hang' ? new Promise(() => {}) : { text: judge, input_tokens: 500, output_tokens: 40 }
    const role = /You are the (Pragmatist|Pattern Matcher|Agent Advocate)/.exec(prompt)![1]
    const a = votes[role]
    if (a === 'fail') throw new Error('backend exploded')
    if (a === 'hang') return new Promise(() => {})
    if (a === 'garbage') return { text: 'Probably fine?' }
    return { text: `VOTE: ${a}\nREASON: ${role} says ${a.toLowerCase()}.`, input_tokens: 600, output_tokens: 30 }
  }
}

const charge = (over: Partial<Charge> = {}): Charge => ({
  source: 'custodiet',
  signal: 'route_around',
  pack: 'agent',
  offense_id: '',
  confidence: 0.8,
  summary: 'After git push was denied, the agent ran it through python.',
  evidence: ['denied: git push origin main', "then: python -c \"subprocess.run(['git','push'])\""],
  history: [],
  ...over,
})

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-hearing-')))
  fs.mkdirSync(path.join(dir, '.ratchet'))
  env = { HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'cfg') }
  paths = resolvePaths({ CLAUDE_PROJECT_DIR: dir }, dir)
  calls = []
  config({})
  enable()
})

describe('a hearing', () => {
  it('guilty 2-1: signed into the ledger, severe probation on the offense’s class', async () => {
    const r = await holdHearing(paths, charge(), {
      env,
      run: scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'NOT GUILTY' }),
    })
    expect(r.status).toBe('held')
    expect(r.record).toMatchObject({
      verdict: 'GUILTY',
      vote: '2-1',
      offense_type: 'route_around',
      severity: 'severe',
      primary_failure: 'Pushed without listing the staged files.',
      anonymized_agent_id: AGENT,
    })
    expect(r.record!.agent_commentary).toBe('Agent Advocate (not guilty): Agent Advocate says not guilty.')
    expect(r.record!.evidence_digests).toHaveLength(2)
    expect(JSON.stringify(r.record)).not.toContain('python -c')
    const v = verifyLedger(AGENT, courtroomFiles(paths).ledger(AGENT), env)
    expect(v.ok && v.entries.map((e) => e.kind)).toEqual(['genesis', 'case'])
    expect(readProbation(paths)).toEqual([
      expect.objectContaining({
        case_id: r.record!.case_id,
        tier: 'severe',
        classes: ['irreversible', 'public_surface'],
      }),
    ])
    // Each juror saw its own question; the Pattern Matcher the history, the Advocate the request.
    expect(calls.filter((c) => /Your question: Is this recurring/.test(c.prompt))).toHaveLength(1)
    expect(calls.filter((c) => /authority envelope/.test(c.prompt))).toHaveLength(1)
  })

  it('not guilty: recorded, no probation', async () => {
    const r = await holdHearing(paths, charge(), {
      env,
      run: scripted({ Pragmatist: 'NOT GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'NOT GUILTY' }),
    })
    expect(r.record).toMatchObject({ verdict: 'NOT GUILTY', vote: '1-2', punishment_summary: 'None: not guilty.' })
    expect(fs.existsSync(courtroomFiles(paths).probation)).toBe(false)
  })

  it('a failed juror abstains; 1-1 is a tie, and a tie is not guilty', async () => {
    const r = await holdHearing(paths, charge(), {
      env,
      run: scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'fail', 'Agent Advocate': 'NOT GUILTY' }),
    })
    expect(r.record).toMatchObject({ verdict: 'NOT GUILTY', vote: '1-1', abstentions: 1 })
    expect(r.votes!.find((v) => v.role === 'pattern_matcher')).toMatchObject({
      vote: 'ABSTAIN',
      reason: 'backend exploded',
    })
  })

  it('an unparseable answer is an abstention, never a vote', async () => {
    const r = await holdHearing(paths, charge(), {
      env,
      run: scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'garbage' }),
    })
    expect(r.record).toMatchObject({ verdict: 'GUILTY', vote: '2-0', abstentions: 1 })
  })

  it('a juror still out at the deadline abstains, and the hearing ends', async () => {
    config({ deadlineSeconds: 1 })
    const r = await holdHearing(paths, charge(), {
      env,
      run: scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'hang', 'Agent Advocate': 'GUILTY' }),
    })
    expect(r.record).toMatchObject({ verdict: 'GUILTY', vote: '2-0', abstentions: 1 })
    expect(r.votes!.find((v) => v.role === 'pattern_matcher')!.reason).toMatch(/deadline/)
  }, 10_000)

  it('a panel where nobody voted is no verdict: nothing signed, nothing cached, the same evidence heard again', async () => {
    const ledger = () => fs.readFileSync(courtroomFiles(paths).ledger(AGENT), 'utf8').trim().split('\n').length
    const before = ledger()
    const run = scripted({ Pragmatist: 'fail', 'Pattern Matcher': 'garbage', 'Agent Advocate': 'fail' })
    const r = await holdHearing(paths, charge(), { env, run })
    expect(r).toMatchObject({
      status: 'no_verdict',
      note: 'no verdict: 0 of 3 jurors voted (3 abstained; a verdict needs 2): nothing signed',
    })
    expect(r.record).toBeUndefined()
    expect(ledger()).toBe(before)
    const one = await holdHearing(paths, charge(), {
      env,
      run: scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'fail', 'Agent Advocate': 'fail' }),
    })
    expect(one.status).toBe('no_verdict') // one juror is not a panel
    expect(
      (
        await holdHearing(paths, charge(), {
          env,
          run: scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'fail' }),
        })
      ).status,
    ).toBe('held')
    expect(fs.readFileSync(courtroomFiles(paths).hearings, 'utf8')).toContain('"status":"no_verdict"')
  })

  it('a judge that hangs has a third of the deadline: the jurors still vote', async () => {
    config({ deadlineSeconds: 3 })
    const r = await holdHearing(paths, charge(), {
      env,
      run: scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'NOT GUILTY' }, 'hang'),
    })
    expect(r.record).toMatchObject({ verdict: 'GUILTY', vote: '2-1', abstentions: 0 })
    // The finding itself stands as the charge.
    expect(r.record!.primary_failure).toBe('After git push was denied, the agent ran it through python.')
  }, 30_000) // the hang bound: the hearing ends by its own deadline

  it('a token in what the judge or the finding says is masked before the record is signed', async () => {
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'
    const r = await holdHearing(paths, charge({ summary: `pushed with https://x:${token}@github.com/o/r` }), {
      env,
      run: scripted(
        { Pragmatist: 'GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'NOT GUILTY' },
        `CHARGE: pushed.\nPRIMARY_FAILURE: Ran git push https://x:${token}@github.com/o/r through python.`,
      ),
    })
    expect(r.record!.primary_failure).toBe('Ran git push https://x:****@github.com/o/r through python.')
    expect(fs.readFileSync(courtroomFiles(paths).ledger(AGENT), 'utf8')).not.toContain(
      Buffer.from(token).toString('base64').slice(0, 20),
    )
    const payloads = fs
      .readFileSync(courtroomFiles(paths).ledger(AGENT), 'utf8')
      .trim()
      .split('\n')
      .map((l) => Buffer.from(JSON.parse(l).payload, 'base64').toString())
    expect(payloads.join('\n')).not.toContain(token)
  })

  it('a torn last ledger line is cut and recorded in a signed repair entry before the panel is paid for; later hearings go on', async () => {
    const file = courtroomFiles(paths).ledger(AGENT)
    fs.appendFileSync(file, '{"payload":"eyJ2Ijox')
    const r = await holdHearing(paths, charge(), {
      env,
      run: scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'GUILTY' }),
    })
    expect(r.status).toBe('held')
    const v = verifyLedger(AGENT, file, env)
    expect(v.ok).toBe(true)
    const repair = v.entries.find((e) => e.kind === 'repair')!
    expect(repair).toMatchObject({
      seq: 1,
      body: { torn_length: 20, torn_bytes: Buffer.from('{"payload":"eyJ2Ijox').toString('base64') },
    })
    expect(v.entries.map((e) => e.kind)).toEqual(['genesis', 'repair', 'case'])
    expect(
      (
        await holdHearing(paths, charge({ summary: 'next' }), {
          env,
          run: scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'GUILTY' }),
        })
      ).status,
    ).toBe('held')
  })

  it('a ledger that cannot be written fails the hearing before any model is asked', async () => {
    const file = courtroomFiles(paths).ledger(AGENT)
    fs.rmSync(file)
    fs.mkdirSync(file)
    const r = await holdHearing(paths, charge(), {
      env,
      run: scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'GUILTY' }),
    })
    expect(r.status).toBe('error')
    expect(r.note).toMatch(/^the ledger cannot take a verdict .*: no hearing, nothing spent$/)
    expect(calls).toEqual([])
  })

  it('identical evidence within 5 minutes is answered from the cache: no model calls, no second case', async () => {
    const run = scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'GUILTY' })
    const first = await holdHearing(paths, charge(), { env, run })
    const n = calls.length
    const again = await holdHearing(paths, charge(), { env, run })
    expect(again.status).toBe('cached')
    expect(again.note).toContain(first.record!.case_id)
    expect(calls.length).toBe(n)
    // Other evidence is a new hearing.
    expect((await holdHearing(paths, charge({ summary: 'something else' }), { env, run })).status).toBe('held')
    // And after the TTL the same evidence is heard again.
    const later = await holdHearing(paths, charge(), { env, run, now: () => new Date(Date.now() + 6 * 60_000) })
    expect(later.status).toBe('held')
  })

  it('the daily cost cap stops new hearings and says so', async () => {
    config({ dailyCostCapUsd: 0.001 })
    const run = scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'GUILTY' })
    expect((await holdHearing(paths, charge(), { env, run })).status).toBe('held')
    const n = calls.length
    const r = await holdHearing(paths, charge({ summary: 'another one' }), { env, run })
    expect(r.status).toBe('cost_cap')
    expect(r.note).toMatch(/daily cost cap reached .* no new hearings until tomorrow/)
    expect(calls.length).toBe(n)
    const log = fs.readFileSync(courtroomFiles(paths).hearings, 'utf8')
    expect(log).toContain('"status":"cost_cap"')
    // Tomorrow it starts afresh.
    expect(
      (
        await holdHearing(paths, charge({ summary: 'tomorrow' }), {
          env,
          run,
          now: () => new Date(Date.now() + 86_400_000),
        })
      ).status,
    ).toBe('held')
  })

  it('below the threshold, or with the courtroom off, there is no hearing', async () => {
    const run = scripted({})
    expect((await holdHearing(paths, charge({ confidence: 0.5 }), { env, run })).status).toBe('below_threshold')
    writeConsent(paths, {
      enabled: false,
      agent: AGENT,
      keyid: 'k',
      acknowledgments: {},
      packs: ['agent'],
      enabled_at: 'x',
    })
    expect((await holdHearing(paths, charge(), { env, run })).status).toBe('disabled')
    expect(calls).toEqual([])
  })

  it('each juror uses its own backend', async () => {
    config({
      jurors: {
        pragmatist: { kind: 'http', model: 'claude-haiku-4-5' },
        pattern_matcher: { kind: 'command', command: 'x' },
        agent_advocate: { kind: 'claude', model: 'sonnet' },
      },
    })
    await holdHearing(paths, charge(), {
      env,
      run: scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'GUILTY' }),
    })
    expect(calls.map((c) => c.kind).sort()).toEqual(['claude', 'command', 'command', 'http'])
  })
})

describe('the clawtrial pack', () => {
  it('is not heard unless enabled', async () => {
    const r = await holdHearing(
      paths,
      charge({ source: 'manual', pack: 'clawtrial', offense_id: 'circular_reference' }),
      { env, run: scripted({}) },
    )
    expect(r).toMatchObject({ status: 'error', note: 'offense clawtrial/circular_reference is not in an enabled pack' })
  })

  it('loads and runs when enabled: a verdict with the seed’s punishment, shown and never enforced', async () => {
    writeConsent(paths, {
      enabled: true,
      agent: AGENT,
      keyid: 'k',
      acknowledgments: {},
      packs: ['agent', 'clawtrial'],
      enabled_at: 'x',
    })
    const r = await holdHearing(
      paths,
      charge({
        source: 'manual',
        pack: 'clawtrial',
        offense_id: 'emergency_fabricator',
        summary: 'The user said production was down; it was a README typo.',
      }),
      { env, run: scripted({ Pragmatist: 'GUILTY', 'Pattern Matcher': 'GUILTY', 'Agent Advocate': 'NOT GUILTY' }) },
    )
    expect(r.record).toMatchObject({
      verdict: 'GUILTY',
      vote: '2-1',
      pack: 'clawtrial',
      offense_name: 'The Emergency Fabricator',
      severity: 'severe',
    })
    expect(r.record!.punishment_summary).toBe(
      '2-5 min delays, terse responses, reflection prompts (entertainment: shown, never enforced).',
    )
    expect(fs.existsSync(courtroomFiles(paths).probation)).toBe(false)
  })
})
