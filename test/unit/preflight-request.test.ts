// The user's request counts (issue 10 item 4), and approvals bind exactly (issue 9 item 4).
import { describe, expect, it } from 'vitest'
import { requestedBy } from '../../hooks/preflight-check/request'
import { decidePreToolUse } from '../../hooks/preflight-check/compose'
import type { PreflightFacts } from '../../hooks/preflight-check/facts'
import { withBuiltins } from '../../lib/core/builtins'
import { compileRules } from '../../lib/core/rule-match'
import { fingerprint } from '../../lib/core/fingerprint'
import type { Finding } from '../../lib/core/actions/types'

const f = (pattern: string, cls: Finding['class'] = 'public_surface', catastrophic = false): Finding => ({
  class: cls,
  pattern,
  detail: pattern,
  ...(catastrophic ? { catastrophic } : {}),
})
const PUSH = [f('git_push'), f('commit_to_public_repo')]

describe('requestedBy', () => {
  it.each([
    ['fix the typo in README.md and push', PUSH, true],
    ['push the branch', PUSH, true],
    ["don't push, just commit it", PUSH, false],
    ['do not push anything yet', PUSH, false],
    // "else" forbids only what the request did not name: scope (lib/core/actions/scope.ts) judges the names.
    ['push a new branch feature/x. Do not push anything else.', PUSH, true],
    ['commit it. Do not push anything else.', PUSH, false],
    ["don't push anything other than the docs branch", PUSH, false],
    ['commit it', [f('git_push')], false],
    ['push the branch', [...PUSH, f('git_history_rewrite', 'irreversible')], false],
    ['force-push the branch', [...PUSH, f('git_history_rewrite', 'irreversible')], true],
    ['force push to main', [...PUSH, f('git_history_rewrite', 'irreversible', true)], false],
    ['delete the build folder', [f('file_delete', 'irreversible')], true],
    ['never delete anything', [f('file_delete', 'irreversible')], false],
    ['publish it', [f('package_publish')], true],
    ['publish it', [f('package_publish'), f('unrequested_web', 'scope_beyond_request')], false],
    ['tell me what the build does', [f('file_delete', 'irreversible')], false],
    ['', PUSH, false],
  ])('%j asks for %j → %s', (prompt, findings, expected) => {
    expect(requestedBy(prompt, findings as Finding[], ['/p/build'])).toBe(expected)
  })

  it.each([
    ['tidy up and commit', ['/p/notes.txt'], false],
    ['delete notes.txt', ['/p/notes.txt'], true],
    ['remove the old logs folder', ['/p/old/logs'], true],
    ['delete notes.txt', ['/p/notes.txt', '/p/todo.md'], false],
    ['delete the notes', ['/p/notes.txt.bak'], false],
  ])('a deletion is covered only when the prompt names its target: %j %j → %s', (prompt, targets, expected) => {
    expect(requestedBy(prompt, [f('file_delete', 'irreversible')], targets)).toBe(expected)
  })
})

const facts = (prompt: string, over: Partial<PreflightFacts> = {}): PreflightFacts => ({
  now: 1_800_000_000_000,
  fingerprint: 'fp',
  projectDir: '/p',
  homeDir: '/home/u',
  stateDir: '/p/.ratchet',
  rules: compileRules(withBuiltins([]).rules),
  problems: [],
  fallback: false,
  session: { reads: {}, prompts: ['earlier: never push', prompt], checks: {} },
  queue: { undelivered: [] },
  hold: null,
  config: { checkWindowMs: 600_000, defer: false, telegram: false },
  fileExists: () => true,
  currentBranch: () => 'feature',
  ...over,
})
const run = (command: string, prompt: string) =>
  decidePreToolUse({ session_id: 's', tool_name: 'Bash', tool_input: { command }, cwd: '/p' }, facts(prompt))

describe('a request answers a generic check, nothing more', () => {
  it.each([
    ['git push origin feature', 'fix the typo and push the branch', 'allow'],
    ['git push origin feature', "fix the typo, don't push", 'check'],
    ['git push origin feature', 'fix the typo', 'check'],
    // Overwriting a remote branch loses what it holds there: asked for by name, a check that names it; else a human.
    ['git push --force origin feature', 'push the branch', 'pause'],
    ['git push --force origin feature', "reword the last commit on feature. Don't push anything.", 'pause'],
    ['git push --force-with-lease origin feature', 'rebase feature on main and force-push feature', 'check'],
    ['git push origin +feature', 'overwrite the feature branch on origin with mine', 'check'],
    ['git push --force origin main', 'force push to main', 'deny'],
    ['rm -rf ~', 'delete everything in my home folder', 'deny'],
  ])('%s after %j → %s', (command, prompt, verdict) => {
    const out = run(command, prompt)
    expect(out.verdict).toBe(verdict)
    if (verdict === 'allow') expect(out.record).toMatchObject({ requested: true })
  })
})

describe('the fingerprint keeps every byte that changes meaning', () => {
  const fp = (command: string, extra: Record<string, unknown> = {}) => fingerprint('Bash', { command, ...extra })
  it.each([
    ['touch a b', 'touch a\nb'],
    ['echo "a  b"', 'echo "a b"'],
    ["rm 'a b'", 'rm a b'],
    ['git push origin main', 'git push origin  main; rm -rf x'],
  ])('%j and %j differ', (a, b) => expect(fp(a)).not.toBe(fp(b)))
  it('cosmetic fields and surrounding whitespace do not count', () => {
    expect(fp('npm test', { description: 'run tests', timeout: 5 })).toBe(fp('  npm test\n'))
  })
})

describe('the fingerprint: blanks the shell reads as one separator do not count', () => {
  it.each([
    ['git  push origin\tfeature', 'git push origin feature'],
    ['echo "a  b"  x', 'echo "a  b" x'],
    ["echo 'a\\'  b", "echo 'a\\' b"],
  ])('%j ≡ %j', (a, b) => {
    expect(fingerprint('Bash', { command: a })).toBe(fingerprint('Bash', { command: b }))
  })
})
