// State files as an adversary leaves them: a FIFO where a file should be never hangs a hook, and a
// rule index that was not built from guardrails.json is ignored.
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { beforeEach, describe, expect, it } from 'vitest'
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
