// The seed's loop, end to end: incident logged → pattern found → guardrail proposed → human approves
// → enforced next session → fires counted → weekly review. Plus approval over (a fake) Telegram.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BIN, exec, preToolUse, tempProject } from '../support/fixtures'
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram'

let dir: string
let env: NodeJS.ProcessEnv
const run = (bin: string, args: string[], input?: string) => exec(BIN(bin), args, { cwd: dir, env: { ...process.env, ...env }, input })
const guardrails = () => JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'guardrails.json'), 'utf8'))

beforeEach(async () => {
  dir = tempProject()
  env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', HOME: tempProject('ratchet-home-') }
  expect((await run('ratchet', ['init', '--project-dir', dir])).status).toBe(0)
})

describe('the incident loop', () => {
  it('incident → pattern → proposal → approval → enforced → counted → weekly review', async () => {
    // 1. Two incidents of one class.
    await run('ratchet', ['incident', 'add', '--title', 'Pushed private screenshots to the public repo', '--severity', 'P1', '--class', 'git_push', '--prevention', 'List staged files before any push.'])
    await run('ratchet', ['incident', 'add', '--title', 'Pushed a .env to the public repo', '--severity', 'P2', '--class', 'git_push'])
    expect((await run('ratchet', ['incident', 'list'])).stdout).toMatch(/INC-001 {2}P1 {2}open .*git_push {2}Pushed private screenshots/)
    // 2-3. pattern-detect finds the recurrence and proposes a hard rule citing both.
    const mined = await run('pattern-detect', [])
    expect(mined.stdout).toContain('PD-001  2 incidents of class git_push: INC-001, INC-002')
    expect(guardrails().some((g: { source?: string }) => g.source?.includes('INC-001'))).toBe(false) // never applied without a human
    // Running again proposes nothing new.
    expect((await run('pattern-detect', [])).stdout).toContain('No new findings')
    // 4. The human approves.
    const approved = await run('ratchet', ['proposals', 'approve', 'PD-001'])
    expect(approved.stdout).toContain('added GR-001 to guardrails.json')
    expect(guardrails().find((g: { id: string }) => g.id === 'GR-001')).toMatchObject({ source: 'INC-001, INC-002 (PD-001)', pattern: 'git_push', severity: 'hard', rule: 'List staged files before any push.' })
    // 5. Enforced in the next session.
    const push = await exec(BIN('preflight-check'), [], { cwd: dir, env: { ...process.env, ...env }, input: JSON.stringify(preToolUse(dir, 'Bash', { command: 'git push origin feature' }, 'next-session')) })
    const reason = JSON.parse(push.stdout).hookSpecificOutput.permissionDecisionReason
    expect(reason).toContain('prior incident INC-001, INC-002')
    expect(reason).toContain('Rule: GR-001 (from INC-001, INC-002 (PD-001)): List staged files before any push.')
    // 6. Counted (folded from the fire log when a human looks).
    await run('ratchet', ['guardrails', 'list'])
    expect(guardrails().find((g: { id: string }) => g.id === 'GR-001').fire_count).toBe(1)
    // 7. The weekly review shows it, in text, JSON and a self-contained HTML page.
    const html = path.join(dir, 'review.html')
    const report = await run('ratchet', ['report', '--html', html])
    expect(report.stdout).toMatch(/GR-001 +1 · +0 · +0 · +0%/)
    expect(report.stdout).toContain('✗ 5. At least 2 guardrails added from pattern-detect — 1 added')
    const page = fs.readFileSync(html, 'utf8')
    expect(page).toContain('<svg role="img" aria-label="Guardrail fires per day"')
    expect(page).toContain('<svg role="img" aria-label="False-positive rate per guardrail"')
    expect(page).not.toMatch(/<script|src=|href="http/)
    const json = JSON.parse((await run('pattern-detect', ['--report', 'weekly', '--json'])).stdout)
    expect(json.rules.find((r: { id: string }) => r.id === 'GR-001')).toMatchObject({ fires: 1, stale: false })
  })

  it('closing an incident can derive a guardrail that cites it', async () => {
    await run('ratchet', ['incident', 'add', '--title', 'Cron job ran in UTC, not local time', '--severity', 'P2', '--class', 'timezone_dependent_action'])
    const closed = await run('ratchet', ['incident', 'close', 'INC-001', '--guardrail', 'Verify the timezone from context.json. Do not assume.'])
    expect(closed.stdout).toContain('Added GR-001 (soft, pattern timezone_dependent_action) citing INC-001')
    const cron = await exec(BIN('preflight-check'), [], { cwd: dir, env: { ...process.env, ...env }, input: JSON.stringify(preToolUse(dir, 'Bash', { command: 'crontab jobs.txt' })) })
    expect(JSON.parse(cron.stdout).hookSpecificOutput.permissionDecisionReason).toContain('prior incident INC-001')
    expect(JSON.parse((await run('ratchet', ['incident', 'show', 'INC-001', '--json'])).stdout)).toMatchObject({ status: 'closed', guardrail: 'GR-001' })
  })

  it('mines transcripts too, and skips unreadable activity lines', async () => {
    const tdir = path.join(dir, 'transcripts')
    fs.mkdirSync(tdir)
    for (const s of ['a', 'b']) {
      const lines = Array.from({ length: 3 }, (_, i) => JSON.stringify({ type: 'assistant', sessionId: s, timestamp: '2026-11-20T10:00:00Z', message: { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `fly deploy --app web-${i}` } }] } }))
      fs.writeFileSync(path.join(tdir, `${s}.jsonl`), lines.join('\n') + '\n{"type":"mystery"}\n{broken')
    }
    fs.appendFileSync(path.join(dir, '.ratchet', 'activity.jsonl'), '{not json\n')
    const r = JSON.parse((await run('pattern-detect', ['--transcripts', tdir, '--json'])).stdout)
    expect(r).toMatchObject({ bad_lines: 1, transcript_calls: 6 })
    expect(r.proposed.map((p: { key: string }) => p.key)).toContain('repeated-unguarded:deploy')
  })

  it('a rule passed nearly every time is proposed as a warning (false positive), applied on approval', async () => {
    const log = path.join(dir, '.ratchet', 'activity.jsonl')
    const lines = []
    for (let i = 0; i < 6; i++) {
      lines.push(JSON.stringify({ time: '2026-11-20T10:00:00Z', hook: 'preflight-check', event: 'PreToolUse', session: `s${i}`, guardrails: ['RG-STALE'], classes: ['stale_data'], decision: 'check' }))
      lines.push(JSON.stringify({ time: '2026-11-20T10:00:01Z', hook: 'preflight-check', event: 'PreToolUse', session: `s${i}`, guardrails: ['RG-STALE'], classes: ['stale_data'], decision: 'proceeded_after_check' }))
    }
    fs.appendFileSync(log, lines.join('\n') + '\n')
    expect((await run('pattern-detect', [])).stdout).toContain('RG-STALE was passed 6 of 6 times (100%): make it a warning')
    await run('ratchet', ['proposals', 'approve', 'PD-001'])
    expect(guardrails().find((g: { id: string }) => g.id === 'RG-STALE')).toMatchObject({ decision: 'warn' })
  })
})

describe('approval over Telegram', () => {
  let tg: FakeTelegram
  afterEach(async () => {
    await tg?.close()
  })
  it('the heartbeat runs pattern-detect, asks on Telegram, and a ✅ adds the guardrail', async () => {
    tg = await startFakeTelegram()
    Object.assign(env, { RATCHET_TELEGRAM_TOKEN: tg.token, RATCHET_TELEGRAM_CHAT_ID: tg.chatId, RATCHET_TELEGRAM_API_URL: tg.url })
    await run('ratchet', ['incident', 'add', '--title', 'Dropped the staging db', '--severity', 'P1', '--class', 'db_destroy'])
    await run('ratchet', ['incident', 'add', '--title', 'Truncated the sessions table', '--severity', 'P1', '--class', 'db_destroy'])
    const first = JSON.parse((await run('ratchet', ['heartbeat', '--json'])).stdout)
    expect(first.notices).toEqual(expect.arrayContaining([expect.stringMatching(/^pattern-detect: \d+ events, 1 new proposals$/), 'weekly digest']))
    const ask = tg.messages.find((m) => m.text.includes('add a guardrail: 2 incidents of class db_destroy'))!
    expect(ask.text).toContain('🔩 [PAUSE]')
    expect(tg.messages.some((m) => m.text.startsWith('🔩 Ratchet weekly review'))).toBe(true)
    tg.tap(ask.message_id, ask.reply_markup!.inline_keyboard![0][0].callback_data!)
    await run('ratchet', ['heartbeat'])
    const added = guardrails().find((g: { source?: string }) => g.source?.includes('INC-001, INC-002'))
    expect(added).toMatchObject({ pattern: 'db_destroy', severity: 'hard' })
    expect(JSON.parse((await run('ratchet', ['proposals', 'list', '--all', '--json'])).stdout)[0]).toMatchObject({ status: 'approved', decided_by: 'telegram:@owner' })
    // Idempotent: the next heartbeat neither mines again today nor re-sends the digest.
    const again = JSON.parse((await run('ratchet', ['heartbeat', '--json'])).stdout)
    expect(again.notices).toEqual([])
  })
})
