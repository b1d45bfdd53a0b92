// The seed's loop, end to end: incident logged → pattern found → guardrail proposed → human approves
// → enforced next session → fires counted → weekly review. Plus approval over (a fake) Telegram.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BIN, exec, preToolUse, tempProject } from '../support/fixtures'
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram'

let dir: string
let env: NodeJS.ProcessEnv
const run = (bin: string, args: string[], input?: string) =>
  exec(BIN(bin), args, { cwd: dir, env: { ...process.env, ...env }, input })
const guardrails = () => JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'guardrails.json'), 'utf8'))

beforeEach(async () => {
  dir = tempProject()
  env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', HOME: tempProject('ratchet-home-') }
  expect((await run('ratchet', ['init', '--project-dir', dir])).status).toBe(0)
})

describe('the incident loop', () => {
  it('incident → pattern → proposal → approval → enforced → counted → weekly review', async () => {
    // 1. Two incidents of one class.
    await run('ratchet', [
      'incident',
      'add',
      '--title',
      'Pushed private screenshots to the public repo',
      '--severity',
      'P1',
      '--class',
      'git_push',
      '--prevention',
      'List staged files before any push.',
    ])
    await run('ratchet', [
      'incident',
      'add',
      '--title',
      'Pushed a .env to the public repo',
      '--severity',
      'P2',
      '--class',
      'git_push',
    ])
    expect((await run('ratchet', ['incident', 'list'])).stdout).toMatch(
      /INC-001 {2}P1 {2}open .*git_push {2}Pushed private screenshots/,
    )
    // 2-3. pattern-detect finds the recurrence and proposes a rule citing both: the prevention as a check.
    const mined = await run('pattern-detect', [])
    expect(mined.stdout).toContain('PD-001  2 incidents of class git_push: INC-001, INC-002')
    expect(guardrails().some((g: { source?: string }) => g.source?.includes('INC-001'))).toBe(false) // never applied without a human
    // Running again proposes nothing new.
    expect((await run('pattern-detect', [])).stdout).toContain('No new findings')
    // 4. The human approves.
    const approved = await run('ratchet', ['proposals', 'approve', 'PD-001'])
    expect(approved.stdout).toContain('added GR-001 to guardrails.json')
    // A check that asks for the prevention's evidence — not a hard deny of every push.
    expect(guardrails().find((g: { id: string }) => g.id === 'GR-001')).toMatchObject({
      source: 'INC-001, INC-002 (PD-001)',
      pattern: 'git_push',
      severity: 'soft',
      decision: 'check',
      rule: 'List staged files before any push.',
      check: expect.stringContaining('quote what it showed'),
    })
    // 5. Enforced in the next session.
    const push = await exec(BIN('preflight-check'), [], {
      cwd: dir,
      env: { ...process.env, ...env },
      input: JSON.stringify(preToolUse(dir, 'Bash', { command: 'git push origin feature' }, 'next-session')),
    })
    const reason = JSON.parse(push.stdout).hookSpecificOutput.permissionDecisionReason
    expect(reason).toContain('prior incident INC-001, INC-002')
    expect(reason).toContain('Rule: GR-001 (from INC-001, INC-002 (PD-001)): List staged files before any push.')
    expect(reason).toContain('quote what it showed')
    // 6. Counted (folded from the fire log when a human looks).
    const listed = await run('ratchet', ['guardrails', 'list', '--json'])
    expect(JSON.parse(listed.stdout).guardrails.find((g: { id: string }) => g.id === 'GR-001').fire_count).toBe(1)
    // 7. The weekly review shows it, in text, JSON and a self-contained HTML page.
    const html = path.join(dir, 'review.html')
    const report = await run('ratchet', ['report', '--html', html])
    expect(report.stdout).toMatch(/GR-001 +1 · +0 · +0 · +- · /)
    expect(report.stdout).toContain('✗ 5. At least 2 guardrails added from pattern-detect — 1 added')
    const page = fs.readFileSync(html, 'utf8')
    expect(page).toContain('<svg role="img" aria-label="Guardrail fires per day"')
    expect(page).toContain('No fires labelled yet, so no false-positive rate')
    expect(page).not.toMatch(/<script|src=|href="http/)
    const json = JSON.parse((await run('pattern-detect', ['--report', 'weekly', '--json'])).stdout)
    expect(json.rules.find((r: { id: string }) => r.id === 'GR-001')).toMatchObject({ fires: 1, stale: false })
  })

  it('closing an incident can derive a guardrail that cites it', async () => {
    await run('ratchet', [
      'incident',
      'add',
      '--title',
      'Cron job ran in UTC, not local time',
      '--severity',
      'P2',
      '--class',
      'timezone_dependent_action',
    ])
    const closed = await run('ratchet', [
      'incident',
      'close',
      'INC-001',
      '--guardrail',
      'Verify the timezone from context.json. Do not assume.',
    ])
    expect(closed.stdout).toContain('Added GR-001 (soft, pattern timezone_dependent_action) citing INC-001')
    const cron = await exec(BIN('preflight-check'), [], {
      cwd: dir,
      env: { ...process.env, ...env },
      input: JSON.stringify(preToolUse(dir, 'Bash', { command: 'crontab jobs.txt' })),
    })
    expect(JSON.parse(cron.stdout).hookSpecificOutput.permissionDecisionReason).toContain('prior incident INC-001')
    expect(JSON.parse((await run('ratchet', ['incident', 'show', 'INC-001', '--json'])).stdout)).toMatchObject({
      status: 'closed',
      guardrail: 'GR-001',
    })
  })

  it('mines transcripts too, and skips unreadable activity lines', async () => {
    const tdir = path.join(dir, 'transcripts')
    fs.mkdirSync(tdir)
    for (const s of ['a', 'b']) {
      const lines = Array.from({ length: 3 }, (_, i) =>
        JSON.stringify({
          type: 'assistant',
          sessionId: s,
          timestamp: '2026-11-20T10:00:00Z',
          message: {
            role: 'assistant',
            content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `fly deploy --app web-${i}` } }],
          },
        }),
      )
      fs.writeFileSync(path.join(tdir, `${s}.jsonl`), lines.join('\n') + '\n{"type":"mystery"}\n{broken')
    }
    fs.appendFileSync(path.join(dir, '.ratchet', 'activity.jsonl'), '{not json\n')
    const r = JSON.parse((await run('pattern-detect', ['--transcripts', tdir, '--json'])).stdout)
    expect(r).toMatchObject({ bad_lines: 1, transcript_calls: 6 })
    // Deploys are public surface: RG-PUBLIC is in force, so nothing new is proposed for them.
    expect(r.proposed.map((p: { key: string }) => p.key)).not.toContain('repeated-unguarded:deploy')
  })

  const preflight = (command: string, session: string) =>
    exec(BIN('preflight-check'), [], {
      cwd: dir,
      env: { ...process.env, ...env },
      input: JSON.stringify(preToolUse(dir, 'Bash', { command }, session)),
    })
  const decision = (r: { stdout: string }) =>
    r.stdout ? (JSON.parse(r.stdout).hookSpecificOutput?.permissionDecision ?? 'allow') : 'allow'

  it('retries after checks weaken nothing; repeated self-approved force pushes become a proposed pause', async () => {
    // Three sessions, each: a force push the user asked for by name is checked, and the agent retries it (it
    // approves itself). (Unasked, a force push that overwrites a remote branch waits for a human instead.)
    for (const [i, session] of ['a', 'b', 'a'].entries()) {
      const cmd = `git push --force origin feature-${i}`
      await exec(BIN('preflight-check'), [], {
        cwd: dir,
        env: { ...process.env, ...env },
        input: JSON.stringify({
          session_id: session,
          transcript_path: '',
          cwd: dir,
          hook_event_name: 'UserPromptSubmit',
          prompt: `rebase feature-${i} and force-push feature-${i}`,
        }),
      })
      expect(decision(await preflight(cmd, session))).toBe('deny')
      expect(decision(await preflight(cmd, session))).toBe('allow')
    }
    const mined = JSON.parse((await run('pattern-detect', ['--json'])).stdout)
    const keys = mined.proposed.map((p: { key: string }) => p.key)
    // No "make RG-IRREVERSIBLE / RG-PUBLIC a warning": retrying after a check is the check working.
    expect(keys.filter((k: string) => k.startsWith('false-positive'))).toEqual([])
    const pause = mined.proposed.find((p: { key: string }) => p.key === 'pattern-pause:git_history_rewrite')
    expect(pause).toMatchObject({
      guardrail: { pattern: 'git_history_rewrite', decision: 'pause' },
      evidence: { count: 3, sessions: 2 },
    })
    expect(pause.title).toContain('approved its own')
    // The report does not call the retries false positives, and keeps the never-fired catastrophic rule.
    const report = await run('ratchet', ['report'])
    expect(report.stdout).toContain('False-positive rate, from human labels: n/a (no fires labelled yet)')
    expect(report.stdout).toMatch(/Quiet \(never fired; .*\): .*RG-CATASTROPHIC/)
    expect(report.stdout).not.toMatch(/candidates for removal\): .*RG-CATASTROPHIC/)
    // Approved, the next force push pauses for a human instead of being self-approved.
    await run('ratchet', ['proposals', 'approve', pause.id])
    const next = await preflight('git push --force origin feature-9', 'c')
    expect(JSON.parse(next.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(/pa-[0-9a-f]+/)
    expect(decision(await preflight('git push --force origin feature-9', 'c'))).toBe('deny')
  }, 120_000)

  it('the false-positive rate comes from human labels; needless labels propose a warning', async () => {
    // Fires of a rule of the user's own (deleting files that exist), to label.
    fs.writeFileSync(
      path.join(dir, '.ratchet', 'guardrails.json'),
      JSON.stringify(
        [
          ...guardrails(),
          {
            id: 'GR-010',
            pattern: 'file_delete',
            rule: 'Ask before deleting anything.',
            severity: 'soft',
            match: { command: ['rm *'] },
          },
        ],
        null,
        2,
      ),
    )
    for (let i = 0; i < 4; i++) {
      fs.writeFileSync(path.join(dir, `tmp-${i}.log`), 'scratch\n')
      expect(decision(await preflight(`rm tmp-${i}.log`, `s${i}`))).toBe('deny')
    }
    const list = await run('ratchet', ['report', 'label', '--json'])
    const fires = JSON.parse(list.stdout) as { id: string; rules: string[] }[]
    const gr = fires.filter((f) => f.rules.includes('GR-010'))
    expect(gr.length).toBeGreaterThanOrEqual(3)
    for (const f of gr.slice(0, 3))
      expect(
        (await run('ratchet', ['report', 'label', f.id, 'needless', '--note', 'log files are scratch'])).status,
      ).toBe(0)
    // The agent cannot label: preflight treats it as an edit of Ratchet's own state.
    expect(decision(await preflight(`ratchet report label ${gr[0].id} needless`, 'agent'))).toBe('deny')
    const report = JSON.parse((await run('pattern-detect', ['--report', 'weekly', '--json'])).stdout)
    expect(report.rules.find((r: { id: string }) => r.id === 'GR-010')).toMatchObject({
      labelled: 3,
      needless: 3,
      fpRate: 1,
    })
    expect(report.labelled).toBe(3)
    const html = path.join(dir, 'review.html')
    await run('ratchet', ['report', '--html', html])
    expect(fs.readFileSync(html, 'utf8')).toContain('<svg role="img" aria-label="False-positive rate per guardrail"')
    const mined = JSON.parse((await run('pattern-detect', ['--json'])).stdout)
    expect(mined.proposed.find((p: { key: string }) => p.key.startsWith('false-positive:GR-010'))).toMatchObject({
      change: { id: 'GR-010', decision: 'warn' },
    })
    // RG-IRREVERSIBLE fired on the same calls: a protected built-in needs more human evidence than 3 labels.
    expect(mined.proposed.filter((p: { key: string }) => p.key.startsWith('false-positive:RG-'))).toEqual([])
  }, 120_000)
})

describe('approval over Telegram', () => {
  let tg: FakeTelegram
  afterEach(async () => {
    await tg?.close()
  })
  it('the heartbeat runs pattern-detect, asks on Telegram, and a ✅ adds the guardrail', async () => {
    tg = await startFakeTelegram()
    Object.assign(env, {
      RATCHET_TELEGRAM_TOKEN: tg.token,
      RATCHET_TELEGRAM_CHAT_ID: tg.chatId,
      XDG_CONFIG_HOME: tg.xdg(),
    })
    await run('ratchet', [
      'incident',
      'add',
      '--title',
      'Dropped the staging db',
      '--severity',
      'P1',
      '--class',
      'db_destroy',
    ])
    await run('ratchet', [
      'incident',
      'add',
      '--title',
      'Truncated the sessions table',
      '--severity',
      'P1',
      '--class',
      'db_destroy',
    ])
    const first = JSON.parse((await run('ratchet', ['heartbeat', '--json'])).stdout)
    expect(first.notices).toEqual(
      expect.arrayContaining([expect.stringMatching(/^pattern-detect: \d+ events, 1 new proposals$/), 'weekly digest']),
    )
    const ask = tg.messages.find((m) => m.text.includes('add a guardrail: 2 incidents of class db_destroy'))!
    expect(ask.text).toContain('🔩 [PAUSE]')
    expect(tg.messages.some((m) => m.text.startsWith('🔩 Ratchet weekly review'))).toBe(true)
    tg.tap(ask.message_id, ask.reply_markup!.inline_keyboard![0][0].callback_data!)
    await run('ratchet', ['heartbeat'])
    const added = guardrails().find((g: { source?: string }) => g.source?.includes('INC-001, INC-002'))
    // No prevention named: a pause (a human decides each one), not a deny.
    expect(added).toMatchObject({ pattern: 'db_destroy', severity: 'soft', decision: 'pause' })
    expect(JSON.parse((await run('ratchet', ['proposals', 'list', '--all', '--json'])).stdout)[0]).toMatchObject({
      status: 'approved',
      decided_by: 'telegram:@owner',
    })
    // Idempotent: the next heartbeat neither mines again today nor re-sends the digest.
    const again = JSON.parse((await run('ratchet', ['heartbeat', '--json'])).stdout)
    expect(again.notices).toEqual([])
  })
})
