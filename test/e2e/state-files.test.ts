// State files as an adversary leaves them: a FIFO where a file should be never hangs a hook, and a
// rule index that was not built from guardrails.json is ignored.
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { beforeEach, describe, expect, it } from 'vitest'
import { STATE_FILES } from '../../lib/io/registry'
import { BIN, exec, preToolUse, tempProject } from '../support/fixtures'

let dir: string
const env = () => ({ ...process.env, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' })
const guard = (command: string, session = 's1') =>
  exec(BIN('preflight-check'), [], {
    cwd: dir,
    env: env(),
    input: JSON.stringify(preToolUse(dir, 'Bash', { command }, session)),
    timeoutMs: 20_000,
  })
const decision = (stdout: string) => (stdout ? JSON.parse(stdout).hookSpecificOutput?.permissionDecision : 'allow')
const mkfifo = (p: string) => execFileSync('mkfifo', [p])

beforeEach(() => {
  dir = tempProject()
  fs.mkdirSync(path.join(dir, '.ratchet'))
  fs.mkdirSync(path.join(dir, 'build'))
  fs.copyFileSync(path.join(__dirname, '..', '..', 'guardrails.json'), path.join(dir, '.ratchet', 'guardrails.json'))
})

describe('non-regular files are refused, never waited on', () => {
  it.each([
    ['.ratchet/config.json', (p: string) => mkfifo(p)],
    ['.ratchet/guardrails.json', (p: string) => (fs.rmSync(p), mkfifo(p))],
    ['.ratchet/pending-actions.json', (p: string) => mkfifo(p)],
    ['.ratchet/.guardrails-index.json', (p: string) => mkfifo(p)],
    // Written, not read, on this call: an append used to block in open(2) until a reader came.
    ['.ratchet/fires.jsonl', (p: string) => mkfifo(p)],
    ['.ratchet/sessions/s1.json', (p: string) => (fs.mkdirSync(path.dirname(p), { recursive: true }), mkfifo(p))],
    ['.ratchet/capabilities.json', (p: string) => mkfifo(p)],
  ])('a FIFO at %s: the hook still decides, in bounded time', async (rel, plant) => {
    plant(path.join(dir, rel))
    const r = await guard('rm -rf build')
    expect(r.status).toBe(0)
    expect(decision(r.stdout)).toBe('deny')
  })

  it('a FIFO at the .git/HEAD of a folder named with git -C: the hook still decides', async () => {
    const other = path.join(dir, 'other')
    fs.mkdirSync(path.join(other, '.git'), { recursive: true })
    mkfifo(path.join(other, '.git', 'HEAD'))
    const r = await guard(`git -C ${other} push --force origin main`)
    expect(r.status).toBe(0)
    expect(decision(r.stdout)).toBe('deny')
  })

  // Reconciled with exfil's brief (a planted FIFO must not brick the session): the guard still decides every
  // call as it would (rm -rf build is stopped), the log is not written, and the user is told on every call,
  // naming the file; planting one is itself refused (test/e2e/state-fifo.test.ts). Never a hang.
  it('a FIFO at the activity log: decisions as before, the user is told on every call naming the file, never a hang', async () => {
    mkfifo(path.join(dir, '.ratchet', 'activity.jsonl'))
    for (const [command, want] of [
      ['rm -rf build', 'deny'],
      ['ls', 'allow'],
    ]) {
      const r = await guard(command)
      expect(r.status).toBe(0)
      expect(decision(r.stdout) ?? 'allow').toBe(want)
      expect(JSON.parse(r.stdout).systemMessage).toMatch(
        /activity\.jsonl is a FIFO, not a regular file: refusing to write it/,
      )
      expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /)
    }
    expect(fs.readFileSync(path.join(dir, '.ratchet', 'errors.log'), 'utf8')).toMatch(/activity\.jsonl is a FIFO/)
  })

  it('doctor names a FIFO at guardrails.json and the queue in one line each, and finishes', async () => {
    fs.rmSync(path.join(dir, '.ratchet', 'guardrails.json'))
    mkfifo(path.join(dir, '.ratchet', 'guardrails.json'))
    mkfifo(path.join(dir, '.ratchet', 'pending-actions.json'))
    const r = await exec(BIN('ratchet'), ['doctor'], {
      cwd: dir,
      env: { ...env(), RATCHET_CLAUDE_BIN: '/bin/false' },
      timeoutMs: 60_000,
    })
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/✗ guardrails +\S*guardrails\.json is a FIFO, not a regular file/)
    expect(r.stdout).toMatch(/✗ pending-actions +\S*pending-actions\.json is a FIFO, not a regular file/)
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at |internal error/)
  })

  it('the CLI names the FIFO in one line instead of hanging', async () => {
    mkfifo(path.join(dir, '.ratchet', 'pending-actions.json'))
    const r = await exec(BIN('ratchet'), ['pending', 'list'], { cwd: dir, env: env(), timeoutMs: 20_000 })
    expect(r.status).toBe(6)
    expect(r.stderr).toMatch(/^ratchet: .*pending-actions\.json is a FIFO, not a regular file: refusing to read it/)
  })
})

describe('the rule index is bound to the content of guardrails.json', () => {
  const index = () => path.join(dir, '.ratchet', '.guardrails-index.json')

  it('an index copied from elsewhere (other content) is ignored: every rule still applies', async () => {
    expect(decision((await guard('rm -rf build')).stdout)).toBe('deny') // builds the index
    const real = fs.readFileSync(index(), 'utf8')
    expect(JSON.parse(real).hash).toMatch(/^[0-9a-f]{16}$/)
    fs.writeFileSync(
      index(),
      JSON.stringify({ v: 3, key: '1:2:3', hash: '0123456789abcdef', tunings: [], dir: {} }).slice(0, -1) + '\n}\n',
    )
    expect(decision((await guard('rm -rf build', 's2')).stdout)).toBe('deny')
    // Rebuilt from the real file.
    expect(fs.readFileSync(index(), 'utf8')).toBe(real)
  })

  it('a touch (same content) only re-stamps the index', async () => {
    await guard('ls')
    const before = JSON.parse(fs.readFileSync(index(), 'utf8'))
    const later = new Date(Date.now() + 5000)
    fs.utimesSync(path.join(dir, '.ratchet', 'guardrails.json'), later, later)
    expect(decision((await guard('rm -rf build', 's3')).stdout)).toBe('deny')
    const after = JSON.parse(fs.readFileSync(index(), 'utf8'))
    expect(after.hash).toBe(before.hash)
    expect(after.key).not.toBe(before.key)
  })
})

describe('the registry drives the state folder', () => {
  const init = () => exec(BIN('ratchet'), ['init'], { cwd: dir, env: { ...env(), HOME: dir }, timeoutMs: 30_000 })

  it('`ratchet init` makes the state folder 0700 and its files 0600, tightening a folder an older install left 0755', async () => {
    fs.chmodSync(path.join(dir, '.ratchet'), 0o755)
    fs.chmodSync(path.join(dir, '.ratchet', 'guardrails.json'), 0o644)
    expect((await init()).status).toBe(0)
    expect(fs.statSync(path.join(dir, '.ratchet')).mode & 0o777).toBe(0o700)
    for (const f of ['pending-actions.json', '.gitignore'])
      expect(fs.statSync(path.join(dir, '.ratchet', f)).mode & 0o777, f).toBe(0o600)
    // A fresh project: everything init creates is private from the start.
    const fresh = tempProject()
    expect(
      (
        await exec(BIN('ratchet'), ['init'], {
          cwd: fresh,
          env: { ...process.env, CLAUDE_PROJECT_DIR: fresh, RATCHET_DIR: '', HOME: fresh },
          timeoutMs: 30_000,
        })
      ).status,
    ).toBe(0)
    expect(fs.statSync(path.join(fresh, '.ratchet')).mode & 0o777).toBe(0o700)
    for (const f of ['guardrails.json', 'pending-actions.json', '.gitignore'])
      expect(fs.statSync(path.join(fresh, '.ratchet', f)).mode & 0o777, f).toBe(0o600)
  })

  it('git ignores every machine-written file the registry lists (and their locks, temps and corrupt copies); only human-authored ones stay trackable', async () => {
    execFileSync('git', ['init', '-q'], { cwd: dir })
    fs.rmSync(path.join(dir, '.ratchet'), { recursive: true })
    expect((await init()).status).toBe(0)
    const rels: string[] = []
    for (const s of STATE_FILES) {
      if (s.root !== 'state' || s.name.endsWith('/')) continue
      const rel = path.join('.ratchet', s.name.replace('{id}', '123'))
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
      if (!fs.existsSync(path.join(dir, rel))) fs.writeFileSync(path.join(dir, rel), '{}')
      rels.push(rel)
    }
    for (const extra of [
      'guardrails.json.lock',
      'guardrails.json.1.abc.tmp',
      'pending-actions.json.corrupt-2026',
      'labels.json.lock.stale-1-x',
    ]) {
      fs.writeFileSync(path.join(dir, '.ratchet', extra), '')
      rels.push(path.join('.ratchet', extra))
    }
    const ignored = new Set(
      execFileSync('git', ['check-ignore', '--no-index', ...rels], { cwd: dir, encoding: 'utf8' })
        .trim()
        .split('\n'),
    )
    const trackable = new Set(
      STATE_FILES.filter((s) => s.tracked && s.root === 'state').map((s) => path.join('.ratchet', s.name)),
    )
    // The vendored package tarball (install from a local file): tracked, so every clone installs the same.
    fs.mkdirSync(path.join(dir, '.ratchet', 'vendor'), { recursive: true })
    fs.writeFileSync(path.join(dir, '.ratchet', 'vendor', 'ratchet-guard-0.1.0.tgz'), '')
    expect(
      execFileSync('git', ['check-ignore', '--no-index', '-v', '-n', '.ratchet/vendor/ratchet-guard-0.1.0.tgz'], {
        cwd: dir,
        encoding: 'utf8',
      }),
    ).toMatch(/:!vendor\/\*\t/)
    for (const rel of rels)
      expect(ignored.has(rel), `${rel} ${trackable.has(rel) ? 'must stay trackable' : 'must be ignored'}`).toBe(
        !trackable.has(rel),
      )
    expect([...trackable].sort()).toEqual([
      '.ratchet/.gitignore',
      '.ratchet/config.json',
      '.ratchet/guardrails.json',
      '.ratchet/incidents.json',
      '.ratchet/vendor/',
    ])
  })
})

describe('a state file with bad content: one line naming the file and the field, nothing lost, nothing let through', () => {
  const cli = (...args: string[]) =>
    exec(BIN('ratchet'), args, { cwd: dir, env: { ...env(), RATCHET_CLAUDE_BIN: '/bin/false' }, timeoutMs: 60_000 })
  it.each([
    [
      'pending-actions.json',
      '[{"id":7,"status":"pending","severity":"destructive","action":"x"}]',
      ['pending', 'list'],
      6,
      /^ratchet: \S*pending-actions\.json: \[0\]\.id: expected a string$/m,
    ],
    [
      'pending-actions.json',
      '[{"id":"pa-1","status":"pen',
      ['pending', 'list'],
      6,
      /^ratchet: \S*pending-actions\.json: not valid JSON/m,
    ],
    [
      'incidents.json',
      '[{"id":"INC-001","title":"t","severity":"P9"}]',
      ['incident', 'list'],
      6,
      /^ratchet: \S*incidents\.json: \[0\]\.severity: expected P1, P2 or P3$/m,
    ],
    [
      'incidents.json',
      '[{"id":"INC-001","title":"t","severity":"P9"}]',
      ['doctor'],
      1,
      /^✗ incidents\.json +\S*incidents\.json: \[0\]\.severity: expected P1, P2 or P3$/m,
    ],
    [
      'schedule.json',
      '{"mined_at":',
      ['doctor'],
      1,
      /^! schedule\.json +\S*schedule\.json: not valid JSON .*moved aside and started afresh when next written\)$/m,
    ],
    [
      'config.json',
      '{"checkWindowSeconds":"soon"}',
      ['doctor'],
      1,
      /✗ config +\S*config\.json: checkWindowSeconds: expected number$/m,
    ],
    [
      'guardrails.json',
      '[{"id":7,"pattern":"x","rule":"r","severity":"hard"}]',
      ['guardrails', 'list'],
      0,
      /\S*guardrails\.json: \[0\]\.id: expected string/,
    ],
  ])('%s = %s: `ratchet %s` answers in one line', async (name, text, args, status, line) => {
    const file = path.join(dir, '.ratchet', name)
    fs.writeFileSync(file, text)
    const r = await cli(...args)
    expect(r.status).toBe(status)
    expect(r.stdout + r.stderr).toMatch(line)
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at |internal error/)
    // Never rewritten by a reader: the human's (or the machine's) bytes are still there to fix.
    expect(fs.readFileSync(file, 'utf8')).toBe(text)
    // …and the guard still stops what it must.
    expect(decision((await guard('rm -rf build', `bad-${name}`)).stdout)).toBe('deny')
  })
})
