// The built executables, spawned as Claude Code spawns them, with real payload shapes.
import fs from 'node:fs'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { ROOT, hookSamples, initProject, preToolUse, runBin, tempProject } from '../support/fixtures'

let dir: string
let env: NodeJS.ProcessEnv
const state = (f: string) => path.join(dir, '.ratchet', f)
const activity = () =>
  fs
    .readFileSync(state('activity.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
const guard = (input: unknown) => runBin('preflight-check', input, { cwd: dir, env })
const denyReason = (stdout: string) => JSON.parse(stdout).hookSpecificOutput.permissionDecisionReason as string

beforeEach(() => {
  dir = tempProject()
  env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' }
})

describe('preflight-check', () => {
  it('a clean allow prints nothing, exits 0, and is logged', () => {
    const r = guard(preToolUse(dir, 'Bash', { command: 'ls -la' }))
    expect(r).toEqual({ status: 0, stdout: '', stderr: '' })
    expect(activity()).toMatchObject([
      { hook: 'preflight-check', tool: 'Bash', action: 'ls -la', decision: 'allow', classes: [], guardrails: [] },
    ])
    expect(typeof activity()[0].latency_ms).toBe('number')
  })

  it('check: denied once with the PRE-FLIGHT note, the identical retry runs, counted once', () => {
    const first = guard(preToolUse(dir, 'Bash', { command: 'git push origin feature', description: 'Push' }))
    expect(first.status).toBe(0)
    expect(JSON.parse(first.stdout).hookSpecificOutput.permissionDecision).toBe('deny')
    expect(denyReason(first.stdout)).toMatch(/^\[PRE-FLIGHT\] Action: git push origin feature\nTrigger: public surface/)
    // Same command, different description: still the identical action.
    const retry = guard(preToolUse(dir, 'Bash', { command: 'git  push origin feature', description: 'Push again' }))
    expect(retry).toEqual({ status: 0, stdout: '', stderr: '' })
    expect(activity().map((a) => a.decision)).toEqual(['check', 'proceeded_after_check'])
    const listed = runBin('ratchet', '', { cwd: dir, env, args: ['guardrails', 'list', '--json'] }) // a human looks: the fire log is folded in
    expect(JSON.parse(listed.stdout).guardrails.find((r: { id: string }) => r.id === 'RG-PUBLIC')).toMatchObject({
      fire_count: 1,
      last_fired: expect.any(String),
    })
    // The retry was used up: a third attempt is checked again.
    expect(
      JSON.parse(guard(preToolUse(dir, 'Bash', { command: 'git push origin feature' })).stdout).hookSpecificOutput
        .permissionDecision,
    ).toBe('deny')
  })

  it('a retry in another session is a new check', () => {
    fs.mkdirSync(path.join(dir, 'build')) // something to lose: deleting nothing is not irreversible
    guard(preToolUse(dir, 'Bash', { command: 'rm -rf build' }, 'A'))
    expect(guard(preToolUse(dir, 'Bash', { command: 'rm -rf build' }, 'B')).stdout).toContain('"deny"')
  })

  it('catastrophic: denied, and a retry is denied again', () => {
    for (let i = 0; i < 2; i++) {
      const r = guard(preToolUse(dir, 'Bash', { command: 'sudo rm -rf --no-preserve-root /' }))
      expect(denyReason(r.stdout)).toContain('Proceed: no.')
    }
  })

  it("self-protection: the agent cannot rewrite Ratchet's rules or hook settings", () => {
    for (const input of [
      preToolUse(dir, 'Write', { file_path: state('guardrails.json'), content: '[]' }),
      preToolUse(dir, 'Edit', {
        file_path: path.join(dir, '.claude', 'settings.json'),
        old_string: 'a',
        new_string: 'b',
        replace_all: false,
      }),
      preToolUse(dir, 'Bash', { command: "sed -i 's/hard/soft/' .ratchet/guardrails.json" }),
      preToolUse(dir, 'Bash', { command: 'echo "[]" > .ratchet/pending-actions.json' }),
    ]) {
      expect(denyReason(guard(input).stdout)).toContain("Ratchet's own rules")
    }
  })

  it('stale data: read first and the write is fine; after compaction it is checked again', () => {
    const file = path.join(dir, 'notes.md')
    fs.writeFileSync(file, 'old')
    const write = preToolUse(dir, 'Write', { file_path: file, content: 'new' })
    expect(denyReason(guard(write).stdout)).toContain('Trigger: stale data')
    guard(preToolUse(dir, 'Read', { file_path: file }))
    const edit = preToolUse(dir, 'Edit', { file_path: file, old_string: 'old', new_string: 'new', replace_all: false })
    expect(guard(edit).stdout).toBe('')
    expect(
      guard({ session_id: 'sess-1', hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' }).status,
    ).toBe(0)
    expect(denyReason(guard(edit).stdout)).toContain('stale data')
  })

  it('routing around a hard block is flagged: same effect, another tool or command', () => {
    fs.mkdirSync(path.join(dir, '.ratchet'))
    fs.writeFileSync(
      state('guardrails.json'),
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
    const key = path.join(dir, 'secrets', 'api.key')
    expect(denyReason(guard(preToolUse(dir, 'Write', { file_path: key, content: 'k' })).stdout)).toContain('GR-KEYS')
    // The same file through Bash: the rule only names Write/Edit, so it would run. It becomes a custodiet
    // checkpoint instead: this call, and the next, ask the user first.
    const cp = JSON.parse(
      guard(preToolUse(dir, 'Bash', { command: 'cp /tmp/k secrets/api.key' })).stdout,
    ).hookSpecificOutput
    expect(cp.permissionDecision).toBe('ask')
    expect(cp.permissionDecisionReason).toMatch(
      /After "Write .*api\.key" was blocked, the agent tried "cp \/tmp\/k secrets\/api\.key", which has the same effect/,
    )
    expect(activity().at(-1)).toMatchObject({ signals: ['route_around'], decision: 'custodiet_checkpoint' })
    expect(fs.existsSync(path.join(dir, '.ratchet', 'custodiet', 'sess-1.hold.json'))).toBe(true)
    expect(
      JSON.parse(guard(preToolUse(dir, 'Bash', { command: 'ls' })).stdout).hookSpecificOutput.permissionDecision,
    ).toBe('ask')
    // The denied Write created nothing, so it counts as no read.
    expect(JSON.parse(fs.readFileSync(state('sessions/sess-1.json'), 'utf8')).reads).toEqual({})
  })

  it('answering a check is not routing around it', () => {
    fs.mkdirSync(path.join(dir, 'build')) // something to lose: deleting nothing is not irreversible
    guard(preToolUse(dir, 'Bash', { command: 'rm -rf build' }))
    guard(preToolUse(dir, 'Bash', { command: 'ls build' }))
    expect(activity().some((a) => a.signals)).toBe(false)
  })

  it('records prompts at UserPromptSubmit for the scope check', () => {
    expect(
      guard({ session_id: 'sess-1', hook_event_name: 'UserPromptSubmit', prompt: 'fix the typo in README' }),
    ).toEqual({ status: 0, stdout: '', stderr: '' })
    expect(denyReason(guard(preToolUse(dir, 'WebSearch', { query: 'typo checker' })).stdout)).toContain(
      'scope beyond request',
    )
  })

  it.each([
    ['garbage', 'stdin is not a JSON hook payload'],
    ['', 'stdin was empty'],
    [
      JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: 'rm -rf /' }),
      'PreToolUse payload: tool_input',
    ],
  ])('malformed stdin %j: exit 2, one clear line, no stack trace', (input, message) => {
    const r = guard(input)
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^ratchet preflight-check: /)
    expect(r.stderr).toContain(message)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).not.toMatch(/\bat .*\.cjs:\d+/)
  })

  it('a broken guardrails.json is named in a notice and the protections keep working', () => {
    fs.mkdirSync(path.join(dir, '.ratchet'))
    fs.writeFileSync(state('guardrails.json'), '[{"id": "X", ')
    const cat = guard(preToolUse(dir, 'Bash', { command: 'rm -rf ~' }))
    const out = JSON.parse(cat.stdout)
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny')
    expect(out.systemMessage).toContain(`${state('guardrails.json')}: not valid JSON`)
    expect(out.systemMessage).toContain('using the packaged default rules')
    // The packaged soft rules still check, and the broken file is never rewritten.
    expect(
      JSON.parse(guard(preToolUse(dir, 'Bash', { command: 'git push' })).stdout).hookSpecificOutput.permissionDecision,
    ).toBe('deny')
    expect(fs.readFileSync(state('guardrails.json'), 'utf8')).toBe('[{"id": "X", ')
  })

  it('a guardrails.json broken after its rules were in force: those rules stay in force, and every call says so', () => {
    fs.mkdirSync(path.join(dir, '.ratchet'))
    const rules = [
      {
        id: 'GR-DEPLOY',
        pattern: 'custom_deploy',
        rule: 'Deploys go through CI.',
        severity: 'hard',
        match: { tools: ['Bash'], command: ['deploy-tool *'] },
      },
    ]
    fs.writeFileSync(state('guardrails.json'), JSON.stringify(rules))
    const deny = (command: string) => JSON.parse(guard(preToolUse(dir, 'Bash', { command })).stdout || '{}')
    expect(deny('deploy-tool prod').hookSpecificOutput.permissionDecisionReason).toContain('GR-DEPLOY')
    for (const [how, breakIt] of [
      ['half an edit', () => fs.writeFileSync(state('guardrails.json'), JSON.stringify(rules).slice(0, 40))],
      ['not a list of rules', () => fs.writeFileSync(state('guardrails.json'), '{"rules": 1}')],
      ['a folder', () => (fs.rmSync(state('guardrails.json')), fs.mkdirSync(state('guardrails.json')))],
    ] as const) {
      breakIt()
      const out = deny('deploy-tool prod')
      expect([how, out.hookSpecificOutput?.permissionDecision]).toEqual([how, 'deny'])
      expect(out.hookSpecificOutput.permissionDecisionReason).toContain('GR-DEPLOY: Deploys go through CI.')
      expect(out.systemMessage).toContain('the last rules that were valid stay in force until it is fixed')
      // Must stay quiet: what the rule does not name.
      expect(
        JSON.parse(guard(preToolUse(dir, 'Bash', { command: 'ls -la src' })).stdout || '{}').hookSpecificOutput,
      ).toBeUndefined()
      fs.rmSync(state('guardrails.json'), { recursive: true })
      fs.writeFileSync(state('guardrails.json'), JSON.stringify(rules))
      expect(deny('deploy-tool prod').systemMessage).toBeUndefined()
    }
    // Removed by the user: its rules go with it.
    fs.rmSync(state('guardrails.json'))
    expect(deny('deploy-tool prod').hookSpecificOutput).toBeUndefined()
  })

  it('one invalid rule is reported by index and field; the others still fire', () => {
    fs.mkdirSync(path.join(dir, '.ratchet'))
    fs.writeFileSync(
      state('guardrails.json'),
      JSON.stringify([
        { id: 'OK', pattern: 'git_push', rule: 'r', severity: 'hard' },
        { id: 'BAD', pattern: 'x', rule: 'r', severity: 'sometimes' },
      ]),
    )
    const out = JSON.parse(guard(preToolUse(dir, 'Bash', { command: 'git push' })).stdout)
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny')
    expect(out.hookSpecificOutput.permissionDecisionReason).toContain('OK')
    expect(out.systemMessage).toContain(`${state('guardrails.json')}: [1].severity`)
  })

  it('a human edit of guardrails.json takes effect on the next call (the derived index is never stale)', () => {
    fs.mkdirSync(path.join(dir, '.ratchet'))
    const rules = [{ id: 'P', pattern: 'git_push', rule: 'check pushes', severity: 'soft' }]
    fs.writeFileSync(state('guardrails.json'), JSON.stringify(rules))
    expect(guard(preToolUse(dir, 'Bash', { command: 'ls' })).stdout).toBe('') // validates, writes the index
    expect(fs.existsSync(state('.guardrails-index.json'))).toBe(true)
    expect(denyReason(guard(preToolUse(dir, 'Bash', { command: 'git push' })).stdout)).toContain('Proceed: not yet') // check; counters rewrite the file
    // The human turns it into a hard rule, then breaks a field: both are seen at once.
    const edited = JSON.parse(fs.readFileSync(state('guardrails.json'), 'utf8'))
    edited[0].severity = 'hard'
    fs.writeFileSync(state('guardrails.json'), JSON.stringify(edited, null, 2))
    expect(denyReason(guard(preToolUse(dir, 'Bash', { command: 'git push origin x' })).stdout)).toContain(
      'Proceed: no.',
    )
    edited[0].severity = 'sometimes'
    fs.writeFileSync(state('guardrails.json'), JSON.stringify(edited, null, 2))
    expect(JSON.parse(guard(preToolUse(dir, 'Bash', { command: 'ls' })).stdout).systemMessage).toContain('[0].severity')
  })

  it('an internal error never fails open on an action it could not check', () => {
    const blocker = path.join(dir, 'not-a-dir')
    fs.writeFileSync(blocker, '')
    const env2 = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: blocker }
    const r = runBin('preflight-check', preToolUse(dir, 'Bash', { command: 'touch x' }), { cwd: dir, env: env2 })
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny')
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecisionReason).toContain('could not check this action')
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    // Read-only tools are let through: a broken state folder must not freeze the agent entirely.
    const read = runBin('preflight-check', preToolUse(dir, 'Read', { file_path: path.join(dir, 'x') }), {
      cwd: dir,
      env: env2,
    })
    expect(read.stdout).toBe('')
  })

  it('every real PreToolUse sample from the claude CLI is handled', () => {
    for (const s of hookSamples().filter((s) => s.hook_event_name === 'PreToolUse')) {
      const r = guard({ ...s, cwd: dir })
      expect(r.status).toBe(0)
      expect(r.stderr).toBe('')
    }
  })

  it('--help explains itself instead of waiting for stdin', () => {
    const r = runBin('preflight-check', '', { args: ['--help'] })
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('preflight-check — Ratchet')
  })
})

describe('session-start', () => {
  it('injects the active guardrails, hard first, at most five lines plus a count', () => {
    fs.mkdirSync(path.join(dir, '.ratchet'))
    const rules = [
      ...Array.from({ length: 6 }, (_, i) => ({
        id: `S${i}`,
        pattern: 'git_push',
        rule: `soft ${i}`,
        severity: 'soft',
      })),
      { id: 'H1', source: 'INC-003', pattern: 'commit_to_public_repo', rule: 'hard one', severity: 'hard' },
    ]
    fs.writeFileSync(state('guardrails.json'), JSON.stringify(rules))
    fs.writeFileSync(
      state('pending-actions.json'),
      JSON.stringify([
        { id: 'pa-1', action: 'send the release email', severity: 'destructive', status: 'pending' },
        { id: 'pa-0', action: 'x', status: 'approved' },
      ]),
    )
    const r = runBin(
      'session-start',
      { session_id: 's', hook_event_name: 'SessionStart', source: 'startup', cwd: dir },
      { cwd: dir, env },
    )
    expect(r.status).toBe(0)
    const ctx: string = JSON.parse(r.stdout).hookSpecificOutput.additionalContext
    const lines = ctx.split('\n')
    // The project's rules first (its incident learnings), then the always-on built-ins.
    expect(lines[0]).toContain('Active guardrails (7 from this project + 7 built-in)')
    expect(lines[1]).toBe('- HARD H1 (INC-003): hard one')
    expect(lines.filter((l) => l.startsWith('- SOFT'))).toHaveLength(4)
    expect(ctx).toContain('…and 9 more')
    expect(ctx).toContain('Pending approvals (1)')
    expect(ctx).toContain('pa-1: send the release email [destructive]')
    expect(ctx).not.toContain('pa-0')
  })

  it('a project whose floor was never set up is held: every call is refused, naming the fix, until a human acts', () => {
    const r = runBin(
      'session-start',
      { session_id: 's', hook_event_name: 'SessionStart', source: 'startup' },
      { cwd: dir, env },
    )
    const ctx: string = JSON.parse(r.stdout).hookSpecificOutput.additionalContext
    expect(ctx).toContain('Floor: sandboxed')
    expect(ctx).toMatch(/HELD: .*npx ratchet-guard init.*npx ratchet-guard floor confirm/)
    const denied = guard(preToolUse(dir, 'Bash', { command: 'ls' }))
    expect(denyReason(denied.stdout)).toMatch(/Held: .*sandbox\.enabled is not set.*`npx ratchet-guard init`/)
    // Set up as a user does: the next session runs.
    initProject(dir, env)
    runBin('session-start', { session_id: 's2', hook_event_name: 'SessionStart', source: 'startup' }, { cwd: dir, env })
    expect(guard(preToolUse(dir, 'Bash', { command: 'ls' }, 's2')).stdout).toBe('')
  })

  it('with no project rules, shows the packaged defaults', () => {
    const r = runBin(
      'session-start',
      { session_id: 's', hook_event_name: 'SessionStart', source: 'startup' },
      { cwd: dir, env },
    )
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain('HARD RG-CATASTROPHIC')
  })

  it('SessionStart with source compact forgets reads', () => {
    initProject(dir, env)
    const file = path.join(dir, 'a.txt')
    fs.writeFileSync(file, 'x')
    guard(preToolUse(dir, 'Read', { file_path: file }))
    const edit = preToolUse(dir, 'Edit', { file_path: file, old_string: 'x', new_string: 'y', replace_all: false })
    expect(guard(edit).stdout).toBe('')
    runBin(
      'session-start',
      { session_id: 'sess-1', hook_event_name: 'SessionStart', source: 'compact' },
      { cwd: dir, env },
    )
    expect(guard(edit).stdout).toContain('stale data')
  })
})

describe('packaging', () => {
  it.each(['preflight-check', 'preflight-check.fast', 'session-start'])(
    'loading %s does not pull in heavy Node built-ins (start-up is the hot path)',
    (hook) => {
      // A file entry point: `node -e` itself loads crypto, which would hide the very thing we check.
      const probe = path.join(tempProject(), 'probe.cjs')
      const heavy = /^NativeModule (crypto|child_process|tty|net|http|https|perf_hooks|zlib|stream)$/
      fs.writeFileSync(
        probe,
        `require(${JSON.stringify(path.join(ROOT, 'dist', hook + '.cjs'))}); console.log(JSON.stringify({ loaded: process.moduleLoadList.length, heavy: process.moduleLoadList.filter((m) => ${heavy}.test(m)) }))`,
      )
      const r = JSON.parse(spawnSync(process.execPath, [probe], { encoding: 'utf8' }).stdout)
      expect(r.loaded).toBeGreaterThan(10)
      expect(r.heavy).toEqual([])
    },
  )

  it('ships pending-actions.json as an empty queue and guardrails.json as valid rules', () => {
    expect(JSON.parse(fs.readFileSync(path.join(ROOT, 'pending-actions.json'), 'utf8'))).toEqual([])
    expect(JSON.parse(fs.readFileSync(path.join(ROOT, 'guardrails.json'), 'utf8')).length).toBeGreaterThan(0)
  })
})
