// The CLI as a user expects it: any subfolder finds the project (and a planted one does not), --json on every
// command that prints, a closed pipe ends quietly, explain says what the hook does. Over the built binaries.
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import type { Command } from 'commander'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildProgram } from '../../lib/cli/main'
import { BIN, initProject, preToolUse, runBin, tempProject } from '../support/fixtures'

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

/** A user's environment: no Claude Code variables, a home and config of the test's own. */
function userEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    NODE_ENV: undefined,
    ...extra,
  }
  for (const k of [
    'CLAUDE_PROJECT_DIR',
    'RATCHET_DIR',
    'CLAUDECODE',
    'CLAUDE_CODE_ENTRYPOINT',
    'CLAUDE_CODE_SESSION_ATTENDED',
  ])
    delete env[k]
  return env
}
const ratchet = (cwd: string, home: string, args: string[], extra: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync(BIN('ratchet'), args, { cwd, encoding: 'utf8', env: userEnv(home, extra) })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** A git project with a bare remote, initialised, with one paused push in the queue. */
function project(): { dir: string; home: string; remote: string } {
  const dir = tempProject()
  const home = tempProject('ratchet-home-')
  const remote = tempProject('ratchet-remote-')
  git(remote, 'init', '-q', '--bare')
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'config', 'user.email', 't@example.com')
  git(dir, 'config', 'user.name', 't')
  git(dir, 'remote', 'add', 'origin', remote)
  fs.mkdirSync(path.join(dir, 'src', 'deep'), { recursive: true })
  fs.writeFileSync(path.join(dir, 'src', 'deep', 'a.ts'), 'export {}\n')
  git(dir, 'add', '.')
  git(dir, 'commit', '-qm', 'first')
  initProject(dir, userEnv(home))
  return { dir, home, remote }
}

function queuePush(dir: string, home: string, session: string): string {
  fs.writeFileSync(path.join(dir, '.env'), 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n')
  git(dir, 'add', '-f', '.env')
  git(dir, 'commit', '-qm', 'env')
  const r = runBin('preflight-check', preToolUse(dir, 'Bash', { command: 'git push origin main' }, session), {
    cwd: dir,
    env: userEnv(home, { CLAUDE_PROJECT_DIR: dir }),
  })
  expect(r.stdout).toContain('queued for a human decision')
  const list = JSON.parse(ratchet(dir, home, ['pending', 'list', '--json']).stdout)
  // The seal of its Telegram buttons stays in the queue (as in pending show): the agent can run list.
  expect(fs.readFileSync(path.join(dir, '.ratchet', 'pending-actions.json'), 'utf8')).toContain('"secret"')
  expect(list[0]).not.toHaveProperty('secret')
  return list[0].id
}

describe('the project is found from any subfolder', () => {
  let p: ReturnType<typeof project>
  let id: string
  beforeAll(() => {
    p = project()
    id = queuePush(p.dir, p.home, 'sub-1')
  })

  it('from src/deep, pending list, log, guardrails list and doctor see the project, and no state folder appears there', () => {
    const deep = path.join(p.dir, 'src', 'deep')
    const list = ratchet(deep, p.home, ['pending', 'list'])
    expect(list.stdout).toContain(id)
    expect(ratchet(deep, p.home, ['log']).stdout).toContain('git push origin main')
    expect(ratchet(deep, p.home, ['guardrails', 'list']).stdout.split('\n')[0]).toBe(
      path.join(p.dir, '.ratchet', 'guardrails.json'),
    )
    const doc = JSON.parse(ratchet(deep, p.home, ['doctor', '--no-probe', '--json']).stdout)
    expect(doc.checks.find((c: { name: string }) => c.name === 'state folder')).toMatchObject({
      ok: true,
      detail: path.join(p.dir, '.ratchet'),
    })
    expect(doc.checks.filter((c: { name: string; ok: boolean }) => c.name.startsWith('hook ') && !c.ok)).toEqual([])
    expect(fs.existsSync(path.join(deep, '.ratchet'))).toBe(false)
    expect(fs.existsSync(path.join(p.dir, 'src', '.ratchet'))).toBe(false)
  })

  it('a .ratchet/ planted in a subfolder (a forged approval in it) does not shadow the project: its queue stays the one shown and decided', () => {
    const sub = path.join(p.dir, 'src')
    fs.mkdirSync(path.join(sub, '.ratchet'))
    fs.writeFileSync(path.join(sub, '.ratchet', 'pending-actions.json'), '[]')
    fs.mkdirSync(path.join(sub, '.claude'))
    fs.writeFileSync(
      path.join(sub, '.claude', 'settings.json'),
      fs.readFileSync(path.join(p.dir, '.claude', 'settings.json')),
    )
    try {
      expect(ratchet(path.join(sub, 'deep'), p.home, ['pending', 'list']).stdout).toContain(id)
      expect(ratchet(sub, p.home, ['pending', 'list']).stdout).toContain(id)
      expect(
        JSON.parse(ratchet(sub, p.home, ['doctor', '--no-probe', '--json']).stdout).checks.find(
          (c: { name: string }) => c.name === 'state folder',
        ).detail,
      ).toBe(path.join(p.dir, '.ratchet'))
    } finally {
      fs.rmSync(path.join(sub, '.ratchet'), { recursive: true })
      fs.rmSync(path.join(sub, '.claude'), { recursive: true })
    }
  })

  it("a FIFO planted as a subfolder's .claude/settings.json does not hang a command run below it", () => {
    const sub = path.join(p.dir, 'src', 'deep')
    fs.mkdirSync(path.join(sub, '.claude'))
    execFileSync('mkfifo', [path.join(sub, '.claude', 'settings.json')])
    try {
      // A generous bound that only catches a hang.
      const r = spawnSync(BIN('ratchet'), ['pending', 'list'], {
        cwd: sub,
        encoding: 'utf8',
        env: userEnv(p.home),
        timeout: 20_000,
      })
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain(id)
    } finally {
      fs.rmSync(path.join(sub, '.claude'), { recursive: true })
    }
  })

  it('must stay quiet: a folder with no project above it (up to its git toplevel) is not given one, and looking creates nothing', () => {
    const lone = tempProject('ratchet-lone-')
    git(lone, 'init', '-q')
    fs.mkdirSync(path.join(lone, 'src'))
    const r = ratchet(path.join(lone, 'src'), p.home, ['doctor', '--no-probe', '--json'])
    expect(r.status).toBe(1)
    expect(JSON.parse(r.stdout).checks.find((c: { name: string }) => c.name === 'state folder')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('does not exist: no Ratchet project here'),
    })
    expect(ratchet(path.join(lone, 'src'), p.home, ['pending', 'list']).stdout).toMatch(/^Nothing is waiting/)
    // What would record something says where it looked, and records nothing.
    for (const args of [
      ['heartbeat'],
      ['incident', 'add', '--title', 't', '--severity', 'P3', '--class', 'public_surface'],
      ['guardrails', 'add', '--rule', 'r', '--pattern', 'git_push'],
    ]) {
      const w = ratchet(path.join(lone, 'src'), p.home, args)
      expect(w.status, args.join(' ')).toBe(4)
      expect(w.stderr).toBe(
        `ratchet: no Ratchet project in ${path.join(lone, 'src')} or a folder above it (up to the git toplevel): run this in the project, or \`npx ratchet-guard init\` there first\n`,
      )
    }
    expect(fs.readdirSync(lone).sort()).toEqual(['.git', 'src'])
    expect(fs.readdirSync(path.join(lone, 'src'))).toEqual([])
  })

  it('the walk stops at the git toplevel: a project nested in an initialised folder is its own', () => {
    const inner = path.join(p.dir, 'vendor', 'lib')
    fs.mkdirSync(inner, { recursive: true })
    git(inner, 'init', '-q')
    try {
      expect(ratchet(inner, p.home, ['pending', 'list']).stdout).toMatch(/^Nothing is waiting/)
      expect(fs.existsSync(path.join(inner, '.ratchet'))).toBe(false)
    } finally {
      fs.rmSync(path.join(p.dir, 'vendor'), { recursive: true })
    }
  })

  it('a human approves from a subfolder, and the agent then runs exactly that push', () => {
    const r = ratchet(path.join(p.dir, 'src'), p.home, ['pending', 'approve', id, '--json'])
    expect(r.status, r.stderr).toBe(0)
    const entry = JSON.parse(r.stdout).entry
    expect(entry).toMatchObject({ id, status: 'approved' })
    expect(entry).not.toHaveProperty('secret')
    // Named for who approved: the account at the terminal, even with $USER unset.
    expect(entry.decided_by).toBe(`terminal:${require('node:os').userInfo().username}`)
  })
})

describe('--json on every command that prints', () => {
  /** Every runnable leaf of the command tree, as `a b c`. */
  const leaves = (c: Command, prefix: string[] = []): { name: string; cmd: Command }[] =>
    c.commands.flatMap((s) => {
      const n = [...prefix, s.name()]
      // A parent that also runs (report) counts as a leaf too.
      return [
        ...((s as unknown as { _hidden?: boolean })._hidden || s.name() === 'help'
          ? []
          : s.commands.length && !(s as unknown as { _actionHandler?: unknown })._actionHandler
            ? []
            : [{ name: n.join(' '), cmd: s }]),
        ...leaves(s, n),
      ]
    })
  // `serve` and `service` are their own programs (dist/serve.cjs, dist/service.cjs) that parse their own arguments
  // (`service status --json`); nothing else may lack --json.
  const EXEMPT = new Set(['serve', 'service'])

  it('each command in the tree takes --json', () => {
    const missing = leaves(buildProgram())
      .filter((l) => !EXEMPT.has(l.name) && !l.cmd.options.some((o) => o.long === '--json'))
      .map((l) => l.name)
    expect(missing).toEqual([])
  })

  it('and each prints one parseable JSON document (or nothing, with the error on stderr) when run with it', () => {
    const p = project()
    const id = queuePush(p.dir, p.home, 'json-1')
    const run = (args: string[]) => ratchet(p.dir, p.home, [...args, '--json'])
    // The arguments each needs, in an order where what one makes the next uses.
    const ARGS: Record<string, string[][]> = {
      init: [[]],
      'floor confirm': [['--yes']],
      'floor allow': [['registry.example.com']],
      'floor probe': [],
      'guardrails add': [['--rule', 'ask first', '--pattern', 'git_push']],
      'guardrails explain': [['--command', 'git push origin main']],
      doctor: [['--no-probe']],
      heartbeat: [[], ['--cron-line']],
      'pending show': [[id]],
      'pending approve': [[id]],
      'pending deny': [['pa-nope']],
      'custodiet release': [['--all']],
      'courtroom enable': [['--yes']],
      'courtroom key': [[]],
      'courtroom rotate-key': [[]],
      'courtroom hear': [],
      'courtroom clear': [['case-nope']],
      'courtroom calibrate': [],
      'courtroom disable': [[]],
      'courtroom revoke': [[]],
      'cases show': [['c-nope']],
      'cases verify': [[]],
      'cases export': [[]],
      'cases submit': [],
      'incident add': [['--title', 't', '--severity', 'P3', '--class', 'public_surface']],
      'incident show': [['INC-001']],
      'incident close': [['INC-001']],
      'proposals show': [['p-nope']],
      'proposals approve': [['p-nope']],
      'proposals reject': [['p-nope']],
      'report label': [[]],
      uninstall: [[]],
    }
    // Needs the model or a server, proven elsewhere: floor probe (claude), hear and calibrate (the panel), submit.
    const order = leaves(buildProgram())
      .map((l) => l.name)
      .filter((n) => !EXEMPT.has(n))
    // init first (the rest need the project), uninstall last.
    order.sort((a, b) => (a === 'init' ? -1 : b === 'init' ? 1 : a === 'uninstall' ? 1 : b === 'uninstall' ? -1 : 0))
    const ran: string[] = []
    for (const name of order) {
      for (const args of ARGS[name] ?? [[]]) {
        const r = run([...name.split(' '), ...args])
        const where = `ratchet ${name} ${args.join(' ')} --json`
        if (r.status === 0) {
          // `log` prints the activity log's own lines: one JSON document per line.
          const docs = name === 'log' ? r.stdout.split('\n').filter(Boolean) : [r.stdout]
          for (const d of docs) expect(() => JSON.parse(d), `${where}: ${r.stdout.slice(0, 200)}`).not.toThrow()
          ran.push(name)
        } else {
          // A refusal is one line on stderr and nothing a script would mistake for a result.
          expect(r.stdout, where).toBe('')
          expect(r.stderr, where).toMatch(/^ratchet: [^\n]+\n$/)
        }
      }
    }
    // The commands a script relies on did succeed (not just fail cleanly).
    for (const n of [
      'init',
      'doctor',
      'pending list',
      'pending show',
      'pending approve',
      'guardrails explain',
      'guardrails list',
      'log',
      'report',
      'custodiet status',
      'custodiet release',
      'floor status',
      'courtroom enable',
      'courtroom status',
      'courtroom disable',
      'incident add',
      'incident close',
      'heartbeat',
      'uninstall',
    ])
      expect(ran).toContain(n)
  }, 120_000)
})

describe('a reader that goes away', () => {
  const p = { dir: '', home: '' }
  beforeAll(() => {
    Object.assign(p, project())
    for (let i = 0; i < 40; i++)
      ratchet(p.dir, p.home, [
        'incident',
        'add',
        '--title',
        `incident number ${i} `.repeat(20),
        '--severity',
        'P3',
        '--class',
        'public_surface',
      ])
  })

  /** `ratchet … | head -1` through a real pipe that head closes after its first line. */
  function pipedToHead(args: string[]): Promise<{ line: string; stderr: string; status: number | null }> {
    return new Promise((resolve) => {
      const child = spawn('sh', ['-c', `"$0" "$@" 2>"$ERRFILE" | head -1`, BIN('ratchet'), ...args], {
        cwd: p.dir,
        env: { ...userEnv(p.home), ERRFILE: path.join(p.home, 'err') },
      })
      let out = ''
      child.stdout.on('data', (d) => (out += d))
      child.on('close', (status) =>
        resolve({ line: out.split('\n')[0], stderr: fs.readFileSync(path.join(p.home, 'err'), 'utf8'), status }),
      )
    })
  }

  it.each([
    [['incident', 'list']],
    [['--help']],
    [['guardrails', 'patterns']],
    [['incident', 'list', '--json']],
    [['doctor', '--no-probe']],
  ])('ratchet %j | head -1 prints its first line and no stack trace', async (args) => {
    const r = await pipedToHead(args)
    expect(r.line).not.toBe('')
    expect(r.stderr).toBe('')
  })

  it('must stay quiet the other way too: the whole output still arrives when the reader reads it all', () => {
    const r = ratchet(p.dir, p.home, ['incident', 'list'])
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(40)
  })
})

describe('explain says what the hook does', () => {
  // Each command is judged by explain and by the real hook (a fresh session each, so no earlier check counts).
  const CASES: { command: string; setup?: (dir: string) => void }[] = [
    { command: 'ls -la' },
    { command: 'git status' },
    { command: 'git push origin main' },
    { command: 'git push --force origin main' },
    { command: 'rm -rf src' },
    { command: 'npm publish' },
    { command: 'curl -X POST https://api.example.com/data -d @src/deep/a.ts' },
    {
      command: 'git push origin main',
      setup: (dir) => (
        fs.writeFileSync(path.join(dir, '.env'), 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n'),
        git(dir, 'add', '-f', '.env'),
        git(dir, 'commit', '-qm', 'env')
      ),
    },
    { command: 'cat .ratchet/pending-actions.json' },
    { command: 'ratchet pending approve pa-1' },
  ]
  it.each(CASES.map((c, i) => [i, c.command, c] as const))('%i: %s', (i, _name, c) => {
    const p = project()
    c.setup?.(p.dir)
    const ex = ratchet(p.dir, p.home, ['guardrails', 'explain', '--json', '--command', c.command])
    expect(ex.status, ex.stderr).toBe(0)
    const explained = JSON.parse(ex.stdout)
    const hook = runBin('preflight-check', preToolUse(p.dir, 'Bash', { command: c.command }, `table-${i}`), {
      cwd: p.dir,
      env: userEnv(p.home, { CLAUDE_PROJECT_DIR: p.dir }),
    })
    expect(hook.status).toBe(0)
    const said = hook.stdout ? JSON.parse(hook.stdout).hookSpecificOutput : undefined
    const kind = said?.permissionDecision ?? 'allow'
    expect(
      explained.decision.kind === 'allow' ? 'allow' : explained.decision.kind,
      `${c.command}: explain ${explained.verdict}, hook ${kind}`,
    ).toBe(kind)
    // The verdict the hook logged is the one explain named.
    const logged = fs
      .readFileSync(path.join(p.dir, '.ratchet', 'activity.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.session === `table-${i}`)
    if (logged.length) expect(explained.verdict).toBe(logged.at(-1).decision)
    // And the same words: the reason the agent reads is the one explain printed.
    if (said?.permissionDecisionReason)
      expect(explained.decision.reason.replace(/\nPending: .*$/s, '')).toBe(
        said.permissionDecisionReason.replace(/\nPending: .*$/s, ''),
      )
  })
})

describe('doctor tells the truth about every dependency', () => {
  const CLAUDE = path.join(__dirname, '..', '..', 'node_modules', '.bin', 'claude')
  const checks = (r: { stdout: string }) =>
    JSON.parse(r.stdout).checks as { name: string; ok: boolean; warn?: boolean; detail: string }[]
  const find = (r: { stdout: string }, name: string) => checks(r).filter((c) => c.name === name)

  it('no claude client is a problem (✗, exit 1); a current one is named with its version', () => {
    const p = project()
    const none = ratchet(p.dir, p.home, ['doctor', '--no-probe', '--json'], {
      RATCHET_CLAUDE_BIN: path.join(p.dir, 'no-claude'),
    })
    expect(none.status).toBe(1)
    expect(find(none, 'claude client')).toEqual([
      {
        name: 'claude client',
        ok: false,
        detail: expect.stringContaining('did not answer (ENOENT): install Claude Code'),
      },
    ])
    const text = ratchet(p.dir, p.home, ['doctor', '--no-probe'], { RATCHET_CLAUDE_BIN: path.join(p.dir, 'no-claude') })
    expect(text.stdout).toMatch(/^✗ claude client/m)
    const some = ratchet(p.dir, p.home, ['doctor', '--no-probe', '--json'], { RATCHET_CLAUDE_BIN: CLAUDE })
    expect(find(some, 'claude client')[0]).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^\d+\.\d+\.\d+: honours/),
    })
  }, 60_000)

  it("the sandbox's tools: missing bubblewrap and socat are named (a problem in sandbox mode), present ones pass", () => {
    const p = project()
    const bin = tempProject('ratchet-nobwrap-')
    for (const tool of [process.execPath, execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()])
      fs.symlinkSync(tool, path.join(bin, path.basename(tool)))
    const without = ratchet(p.dir, p.home, ['doctor', '--no-probe', '--json'], { PATH: bin })
    expect(find(without, 'sandbox tools')).toEqual([
      { name: 'sandbox tools', ok: false, warn: false, detail: expect.stringContaining('bwrap and socat not found') },
    ])
    const withTools = ratchet(p.dir, p.home, ['doctor', '--no-probe', '--json'])
    expect(find(withTools, 'sandbox tools')[0]).toMatchObject({
      ok: true,
      detail: 'bubblewrap and socat present, and bubblewrap makes a sandbox',
    })
  }, 60_000)

  it("the reviewer: on, which model, its key, today's calls and cost against the cap; off when configured off", () => {
    const p = project()
    const today = new Date().toISOString().slice(0, 10)
    fs.mkdirSync(path.join(p.dir, '.ratchet', 'custodiet'), { recursive: true })
    fs.writeFileSync(
      path.join(p.dir, '.ratchet', 'custodiet', 'cost-daily.json'),
      JSON.stringify({ [today]: { calls: 7, input_tokens: 9000, output_tokens: 700, usd: 0.0123 } }),
    )
    const r = ratchet(p.dir, p.home, ['doctor', '--no-probe', '--json'], { ANTHROPIC_API_KEY: 'sk-ant-test' })
    // With claude's key at hand the review asks the API itself, and says so.
    expect(find(r, 'reviewer')[0].detail).toMatch(
      /^on: the Anthropic API with claude's key \(claude-haiku-5-5; `claude -p` where the key is not in the session's environment\) reviews the session in the background, a paid model call each; at most \$2\.00 or 500 calls a day/,
    )
    expect(find(r, 'reviewer key')[0]).toMatchObject({ ok: true, detail: "claude's login: ANTHROPIC_API_KEY is set" })
    expect(r.stdout).not.toContain('sk-ant-test')
    expect(find(r, 'reviewer cost')[0]).toMatchObject({
      ok: true,
      detail: 'today 7 calls, $0.0123 of $2.00 (or 500 calls)',
    })
    // No key anywhere: said, as a warning (a keychain login cannot be seen from here).
    const nokey = ratchet(p.dir, p.home, ['doctor', '--no-probe', '--json'], { ANTHROPIC_API_KEY: '' })
    expect(find(nokey, 'reviewer')[0].detail).toMatch(/^on: claude -p --model haiku reviews the session/)
    expect(find(nokey, 'reviewer key')[0]).toMatchObject({
      ok: false,
      warn: true,
      detail: expect.stringContaining('no login found for claude'),
    })
    // The cap reached: reviews are off until tomorrow, and doctor says so.
    fs.writeFileSync(
      path.join(p.dir, '.ratchet', 'custodiet', 'cost-daily.json'),
      JSON.stringify({ [today]: { calls: 500, input_tokens: 1, output_tokens: 1, usd: 1 } }),
    )
    expect(find(ratchet(p.dir, p.home, ['doctor', '--no-probe', '--json']), 'reviewer cost')[0]).toMatchObject({
      warn: true,
      detail: expect.stringContaining('cap REACHED'),
    })
    // Off: one line, nothing about keys or cost.
    fs.writeFileSync(
      path.join(p.dir, '.ratchet', 'config.json'),
      JSON.stringify({ custodiet: { reviewer: { kind: 'none' } } }),
    )
    const off = ratchet(p.dir, p.home, ['doctor', '--no-probe', '--json'])
    expect(find(off, 'reviewer')[0].detail).toMatch(/^off/)
    expect(find(off, 'reviewer key')).toEqual([])
  }, 90_000)

  it('init says the reviewer is on and what it costs at most per day; the weekly report shows what it spent', () => {
    const p = project()
    const again = ratchet(p.dir, p.home, ['init'])
    expect(again.stdout).toContain(
      'Reviewer (custodiet): on: claude -p --model haiku reviews the session in the background, a paid model call each; at most $2.00 or 500 calls a day',
    )
    expect(JSON.parse(ratchet(p.dir, p.home, ['init', '--json']).stdout).reviewer).toEqual({
      on: true,
      reviewer: 'claude -p --model haiku',
      daily_cap: { usd: 2, calls: 500 },
    })
    const today = new Date().toISOString().slice(0, 10)
    fs.mkdirSync(path.join(p.dir, '.ratchet', 'custodiet'), { recursive: true })
    fs.writeFileSync(
      path.join(p.dir, '.ratchet', 'custodiet', 'cost-daily.json'),
      JSON.stringify({
        '2020-01-01': { calls: 99, input_tokens: 1, output_tokens: 1, usd: 9 },
        [today]: { calls: 4, input_tokens: 1, output_tokens: 1, usd: 0.02 },
      }),
    )
    const rep = ratchet(p.dir, p.home, ['report'])
    // This week's spend only: the old day is outside the period.
    expect(rep.stdout).toContain(
      `Reviewer (custodiet): claude -p --model haiku — 4 model calls, $0.0200 in the period (most in a day: $0.0200 on ${today}); daily cap $2.00 or 500 calls`,
    )
    expect(JSON.parse(ratchet(p.dir, p.home, ['report', '--json']).stdout).reviewer.total).toEqual({
      calls: 4,
      usd: 0.02,
    })
  }, 60_000)
})
