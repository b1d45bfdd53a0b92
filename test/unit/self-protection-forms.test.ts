// Every self-protection form of test/support/self-protection-forms.ts, through the whole decision in this process:
// the facts the hook gathers (gather.ts, from a temp project in best-effort mode) and the pure decision
// (compose.ts). Each form that needs no files made first is here; the hook boundary (test/e2e/self-protection.test.ts)
// runs the forms that need real links, archives and git state, and the first two of each family, through the built bin.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decidePreToolUse } from '../../hooks/preflight-check/compose'
import { gatherFacts } from '../../hooks/preflight-check/gather'
import { resolvePaths } from '../../lib/io/paths'
import { ROOT } from '../support/fixtures'
import { QUIET, STOP, UNREADABLE, type Call } from '../support/self-protection-forms'

const SELF = /would change Ratchet's own rules/
let dir: string
let home: string
let env: NodeJS.ProcessEnv
const savedHome = process.env.HOME

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-self-unit-')))
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-self-unit-home-')))
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true })
  fs.writeFileSync(path.join(home, '.claude', 'settings.json'), '{}\n')
  fs.mkdirSync(path.join(dir, '.ratchet'), { recursive: true })
  fs.writeFileSync(path.join(dir, '.ratchet', 'guardrails.json'), '[]\n')
  // Best-effort mode: no sandbox holds the line, so what is tried here meets the reader alone.
  fs.writeFileSync(path.join(dir, '.ratchet', 'config.json'), '{"floor": "best-effort"}\n')
  fs.mkdirSync(path.join(dir, '.claude'), { recursive: true })
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), '{}\n')
  env = { ...process.env, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', HOME: home }
  process.env.HOME = home
})

afterAll(() => {
  process.env.HOME = savedHome
  fs.rmSync(dir, { recursive: true, force: true })
  fs.rmSync(home, { recursive: true, force: true })
})

/** The decision on a first call, and on its identical retry (the check it may have issued counts as answered). */
function decideTwice(c: Call): { first: { kind: string; reason: string }; retry: { kind: string; reason: string } } {
  const [tool_name, tool_input] = typeof c === 'string' ? ['Bash', { command: c }] : [c.tool, c.input]
  const payload = {
    session_id: 'sp',
    transcript_path: path.join(dir, 't.jsonl'),
    cwd: dir,
    hook_event_name: 'PreToolUse' as const,
    tool_name,
    tool_input,
  }
  // The package's folder is where the bundle runs from (dist/); here, the source checkout the e2e test's bin runs in.
  const facts = { ...gatherFacts(payload, resolvePaths(env, dir), env), packageDir: ROOT }
  const out = (f: typeof facts) => {
    const d = decidePreToolUse(payload, f).decision
    return { kind: d.kind, reason: 'reason' in d ? String(d.reason) : d.kind === 'allow' ? (d.context ?? '') : '' }
  }
  return {
    first: out(facts),
    retry: out({
      ...facts,
      session: { ...facts.session, checks: { ...facts.session.checks, [facts.fingerprint]: facts.now } },
    }),
  }
}

const label = (c: Call) =>
  (typeof c === 'string' ? c : `${c.tool} ${JSON.stringify(c.input)}`).replace(/\n/g, '⏎').slice(0, 120)

describe('self-protection by effect: denied on the first attempt and on an identical retry', () => {
  it.each(STOP.filter((c) => !c.setup).map((c) => [`[${c.family}] ${label(c.call)}`, c.call] as const))(
    '%s',
    (_l, call) => {
      const { first, retry } = decideTwice(call)
      expect(first).toMatchObject({ kind: 'deny', reason: expect.stringMatching(SELF) })
      expect(retry).toMatchObject({ kind: 'deny', reason: expect.stringMatching(SELF) })
    },
  )
})

describe('look-alikes stay clear of self-protection', () => {
  it.each(QUIET.filter((c) => !c.setup).map((c) => [`[${c.family}] ${label(c.call)}`, c.call] as const))(
    '%s',
    (_l, call) => {
      expect(decideTwice(call).first.reason).not.toMatch(SELF)
    },
  )
})

describe('unreadable commands: never a silent allow; the note says what could not be read', () => {
  it.each(UNREADABLE.map((c) => [label(c), c] as const))('%s', (_l, call) => {
    const { first } = decideTwice(call)
    expect(first.kind).toBe('deny')
    expect(first.reason).toMatch(
      /could not (read|be parsed)|computed|piped into|not visible|nested more than|defined and (run|used)|process substitution|eval of/,
    )
  })
  it.each(['echo "$(date)"', 'git log --format=%H', 'ls $HOME', 'echo $PATH'])('%s stays allowed', (c) => {
    expect(decideTwice(c).first).toEqual({ kind: 'allow', reason: '' })
  })
})
