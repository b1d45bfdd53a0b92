// Self-protection in best-effort mode (no OS sandbox: `ratchet init --no-sandbox`), at the hook boundary: the built
// bin/preflight-check, spawned as Claude Code spawns it, in a temp project with real files, real symlinks, real
// hard links, real archives and patches and a real git repository. The coarse screen must deny every form below on
// the first attempt and on an identical retry (a self-protection deny is never a check), and leave the look-alikes
// alone (reading Ratchet's files, `ls .claude`, editing a file that mentions ".ratchet"). The forms in LIMITS get past
// the screen: its stated limits (docs/residual-risk.md), each held at the kernel in sandbox mode
// (test/e2e/claude-floor-kernel.test.ts runs them there with every hook off). The last test prints the counts.
// Here: every form that needs real files, and the first two of each family; every form without files also runs
// through the whole decision in-process (test/unit/self-protection-forms.test.ts), which is where a new spelling goes.

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { preToolUse, runBin, tempProject } from '../support/fixtures'
import { LIMITS, QUIET, STOP, UNREADABLE, endToEnd, type Call } from '../support/self-protection-forms'

let dir: string
let home: string
let env: NodeJS.ProcessEnv
const SELF = /would change Ratchet's own rules/

interface Outcome {
  decision: 'allow' | 'deny' | 'ask'
  reason: string
}

function guard(tool: string, input: Record<string, unknown>, session = 'sp'): Outcome {
  const r = runBin('preflight-check', preToolUse(dir, tool, input, session), { cwd: dir, env })
  if (r.status !== 0) throw new Error(`preflight-check exited ${r.status}: ${r.stderr}`)
  if (!r.stdout.trim()) return { decision: 'allow', reason: '' }
  const out = JSON.parse(r.stdout).hookSpecificOutput ?? {}
  return {
    decision: out.permissionDecision ?? 'allow',
    reason: out.permissionDecisionReason ?? out.additionalContext ?? '',
  }
}

const sh = (cmd: string) =>
  execFileSync('bash', ['-c', cmd], {
    cwd: dir,
    env: {
      ...process.env,
      HOME: home,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@x',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@x',
    },
    stdio: 'pipe',
  })

const counts: Record<string, { tried: number; held: number; quiet: number; quietOk: number }> = {}
const count = (family: string) => (counts[family] ??= { tried: 0, held: 0, quiet: 0, quietOk: 0 })

function call(c: Call, session?: string): Outcome {
  return typeof c === 'string' ? guard('Bash', { command: c }, session) : guard(c.tool, c.input, session)
}

function prepare(setup: string | undefined): void {
  // A fresh project each time: the previous case's files, links and git state are gone.
  sh('find . -mindepth 1 -maxdepth 1 -exec rm -rf {} +')
  fs.mkdirSync(path.join(dir, '.ratchet'), { recursive: true })
  fs.writeFileSync(path.join(dir, '.ratchet', 'guardrails.json'), '[]\n')
  // Best-effort mode: no sandbox holds the line, so what is tried here meets the reader alone.
  fs.writeFileSync(path.join(dir, '.ratchet', 'config.json'), '{"floor": "best-effort"}\n')
  fs.mkdirSync(path.join(dir, '.claude'), { recursive: true })
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), '{}\n')
  if (!setup) return
  if (setup.startsWith('GIT')) {
    sh(
      'mkdir -p src && echo a > src/a.txt && printf "activity.jsonl\\nsessions/\\n*.lock\\n" > .ratchet/.gitignore && git init -q && git add -A && git commit -qm init',
    )
    // The user's own, uncommitted rule edit (and an untracked file in the state folder): what discarding would lose.
    if (setup === 'GIT')
      sh(
        'echo \'[{"id":"GR-9","pattern":"git_push","rule":"mine","severity":"hard"}]\' > .ratchet/guardrails.json && echo x > src/a.txt && echo n > .ratchet/notes.md && echo "{}" > .ratchet/activity.jsonl',
      )
    else sh('git add -A && git commit -qm clean --allow-empty')
    return
  }
  sh(setup)
}

beforeAll(() => {
  dir = tempProject('ratchet-self-')
  home = tempProject('ratchet-self-home-')
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true })
  fs.writeFileSync(path.join(home, '.claude', 'settings.json'), '{}\n')
  fs.mkdirSync(path.join(dir, '.ratchet'), { recursive: true })
  env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', HOME: home }
})

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
  fs.rmSync(home, { recursive: true, force: true })
})

describe('self-protection by effect: denied on the first attempt and on an identical retry', () => {
  endToEnd(STOP).forEach((c, i) => {
    const label = typeof c.call === 'string' ? c.call : `${c.call.tool} ${JSON.stringify(c.call.input)}`
    it(`[${c.family}] ${label.replace(/\n/g, '⏎').slice(0, 120)}`, () => {
      prepare(c.setup)
      count(c.family).tried++
      const session = `s${i}`
      const first = call(c.call, session)
      const retry = call(c.call, session)
      // A hard link is broken when Ratchet itself rewrites guardrails.json (it writes by rename, e.g. folding
      // fire counts): the retry then writes a file of its own, which changes nothing protected.
      const unlinked =
        !!c.setup?.startsWith('ln .ratchet/') &&
        fs.statSync(path.join(dir, 'hl.json')).ino !== fs.statSync(path.join(dir, '.ratchet', 'guardrails.json')).ino
      const retryHeld = (retry.decision === 'deny' && SELF.test(retry.reason)) || unlinked
      const held = first.decision === 'deny' && SELF.test(first.reason) && retryHeld
      if (held) count(c.family).held++
      expect(first).toMatchObject({ decision: 'deny', reason: expect.stringMatching(SELF) })
      expect(retryHeld, JSON.stringify(retry)).toBe(true)
    })
  })
})

describe("best-effort mode: the coarse screen's stated limits get past it (held at the kernel in sandbox mode)", () => {
  LIMITS.forEach((c, i) => {
    const label = typeof c.call === 'string' ? c.call : `${c.call.tool} ${JSON.stringify(c.call.input)}`
    it(`[${c.family}] ${label.replace(/\n/g, '⏎').slice(0, 120)}`, () => {
      prepare(c.setup)
      count(`limit: ${c.family}`).tried++
      expect(call(c.call, `l${i}`).reason).not.toMatch(SELF)
    })
  })
})

describe('look-alikes stay clear of self-protection', () => {
  endToEnd(QUIET).forEach((c, i) => {
    const label = typeof c.call === 'string' ? c.call : `${c.call.tool} ${JSON.stringify(c.call.input)}`
    it(`[${c.family}] ${label.replace(/\n/g, '⏎').slice(0, 120)}`, () => {
      prepare(c.setup)
      count(c.family).quiet++
      const r = call(c.call, `q${i}`)
      if (!SELF.test(r.reason)) count(c.family).quietOk++
      expect(r.reason).not.toMatch(SELF)
    })
  })
})

describe('unreadable commands: never a silent allow; the note says what could not be read', () => {
  UNREADABLE.slice(0, 4).forEach((c, i) => {
    it(`${String(c).replace(/\n/g, '⏎').slice(0, 100)}`, () => {
      prepare(undefined)
      count('unreadable forms').tried++
      const first = call(c, `u${i}`)
      if (first.decision !== 'allow') count('unreadable forms').held++
      expect(first.decision).toBe('deny')
      expect(first.reason).toMatch(
        /could not (read|be parsed)|computed|piped into|not visible|nested more than|defined and (run|used)|process substitution|eval of/,
      )
    })
  })
  it.each(['echo "$(date)"', 'git log --format=%H', 'ls $HOME', 'echo $PATH'])('%s stays allowed', (c) => {
    prepare(undefined)
    count('unreadable forms').quiet++
    const r = call(c, 'uq')
    if (r.decision === 'allow') count('unreadable forms').quietOk++
    expect(r).toEqual({ decision: 'allow', reason: '' })
  })
})

afterAll(() => {
  const rows = Object.entries(counts).map(
    ([f, c]) => `${f.padEnd(26)} stop ${c.held}/${c.tried}   quiet ${c.quietOk}/${c.quiet}`,
  )
  console.log(`self-protection / unreadable at the hook boundary:\n${rows.join('\n')}`)
})
