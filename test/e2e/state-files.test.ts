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
const guard = (command: string, session = 's1') => exec(BIN('preflight-check'), [], { cwd: dir, env: env(), input: JSON.stringify(preToolUse(dir, 'Bash', { command }, session)), timeoutMs: 20_000 })
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
    const real = JSON.parse(fs.readFileSync(index(), 'utf8'))
    expect(real.hash).toMatch(/^[0-9a-f]{16}$/)
    fs.writeFileSync(index(), JSON.stringify({ key: '1:2:3', hash: '0123456789abcdef', rules: [] }))
    expect(decision((await guard('rm -rf build', 's2')).stdout)).toBe('deny')
    // Rebuilt from the real file.
    expect(JSON.parse(fs.readFileSync(index(), 'utf8')).rules.length).toBe(real.rules.length)
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
    for (const f of ['pending-actions.json', '.gitignore']) expect(fs.statSync(path.join(dir, '.ratchet', f)).mode & 0o777, f).toBe(0o600)
    // A fresh project: everything init creates is private from the start.
    const fresh = tempProject()
    expect((await exec(BIN('ratchet'), ['init'], { cwd: fresh, env: { ...process.env, CLAUDE_PROJECT_DIR: fresh, RATCHET_DIR: '', HOME: fresh }, timeoutMs: 30_000 })).status).toBe(0)
    expect(fs.statSync(path.join(fresh, '.ratchet')).mode & 0o777).toBe(0o700)
    for (const f of ['guardrails.json', 'pending-actions.json', '.gitignore']) expect(fs.statSync(path.join(fresh, '.ratchet', f)).mode & 0o777, f).toBe(0o600)
  })

  it("git ignores every machine-written file the registry lists (and their locks, temps and corrupt copies); only human-authored ones stay trackable", async () => {
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
    for (const extra of ['guardrails.json.lock', 'guardrails.json.1.abc.tmp', 'pending-actions.json.corrupt-2026', 'labels.json.lock.stale-1-x']) {
      fs.writeFileSync(path.join(dir, '.ratchet', extra), '')
      rels.push(path.join('.ratchet', extra))
    }
    const ignored = new Set(execFileSync('git', ['check-ignore', '--no-index', ...rels], { cwd: dir, encoding: 'utf8' }).trim().split('\n'))
    const trackable = new Set(STATE_FILES.filter((s) => s.tracked && s.root === 'state').map((s) => path.join('.ratchet', s.name)))
    for (const rel of rels) expect(ignored.has(rel), `${rel} ${trackable.has(rel) ? 'must stay trackable' : 'must be ignored'}`).toBe(!trackable.has(rel))
    expect([...trackable].sort()).toEqual(['.ratchet/.gitignore', '.ratchet/config.json', '.ratchet/guardrails.json', '.ratchet/incidents.json'])
  })
})
