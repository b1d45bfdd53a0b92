// pause-and-ask, the heartbeat and the queue, with the real node-telegram-bot-api client talking to
// a local fake of the Telegram Bot API.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BIN, exec, preToolUse, runBinAsync, tempProject } from '../support/fixtures'
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram'
import { FAKE } from '../support/fake-secrets'
import { heartbeatOnce } from '../../lib/cli/approvals'
import { resolvePaths } from '../../lib/io/paths'
import type { PendingEntry } from '../../lib/core/pending'

let dir: string
let tg: FakeTelegram
let env: NodeJS.ProcessEnv

const queue = (): PendingEntry[] =>
  JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'pending-actions.json'), 'utf8'))
const run = (bin: string, args: string[]) => exec(BIN(bin), args, { cwd: dir, env: { ...process.env, ...env } })
const paths = () => resolvePaths({ ...env }, dir)
const beat = (now?: Date) => heartbeatOnce(paths(), { env: { ...env }, ...(now ? { now: () => now } : {}) })
const ask = async (action: string, severity = 'destructive') =>
  JSON.parse(
    (await run('pause-and-ask', ['--action', action, '--trigger', 'test', '--context', 'ctx', '--severity', severity]))
      .stdout,
  )
const buttons = (m: { reply_markup?: { inline_keyboard?: { callback_data?: string }[][] } }) =>
  (m.reply_markup?.inline_keyboard ?? []).flat().map((b) => b.callback_data!)

beforeEach(async () => {
  dir = tempProject()
  tg = await startFakeTelegram()
  env = {
    CLAUDE_PROJECT_DIR: dir,
    RATCHET_DIR: '',
    RATCHET_TELEGRAM_TOKEN: tg.token,
    RATCHET_TELEGRAM_CHAT_ID: tg.chatId,
    XDG_CONFIG_HOME: tg.xdg(),
  }
})
afterEach(async () => {
  await tg.close()
})

describe('pause-and-ask', () => {
  it('queues, notifies with the seed’s message and ✅/❌ buttons, and masks secrets', async () => {
    const r = await ask('deploy with API_KEY=sk-live-abcdefghijklmnop1234 to prod')
    expect(r).toEqual({ id: expect.stringMatching(/^pa-[0-9a-f]{8}$/), status: 'pending' })
    const [m] = tg.messages
    expect(m.text).toMatch(
      /^🔩 \[PAUSE\] I'm about to deploy with API_KEY=sk-l…\*\*\*\* to prod\.\nTrigger: test\nContext: ctx\n/,
    )
    expect(m.text).not.toContain('abcdefghijklmnop1234')
    expect(m.text).toContain('Reply ✅ to proceed, ❌ to cancel, or tell me what to change.')
    expect(buttons(m)).toEqual([
      expect.stringMatching(new RegExp(`^pa:${r.id}:[0-9a-f]{16}:a$`)),
      expect.stringMatching(/:d$/),
    ])
    expect(queue()[0]).toMatchObject({
      id: r.id,
      status: 'pending',
      notified: true,
      message_id: m.message_id,
      severity: 'destructive',
      timeout: null,
      decided_at: null,
      decided_by: null,
      reply: null,
    })
  })

  it('✅ approves: status, edited message, answered tap', async () => {
    const { id } = await ask('send the newsletter')
    tg.tap(tg.messages[0].message_id, buttons(tg.messages[0])[0])
    const r = await beat()
    expect(r.decided).toEqual([id])
    expect((await run('pause-and-ask', ['status', id])).stdout).toBe('approved\n')
    expect(queue()[0]).toMatchObject({ status: 'approved', decided_by: 'telegram:@owner' })
    expect(tg.messages[0].edits[0]).toContain('✅ Approved by telegram:@owner')
    expect(tg.messages[0].reply_markup?.inline_keyboard).toEqual([])
    expect(tg.answers).toEqual([{ callback_query_id: expect.any(String), text: 'Approved ✅' }])
  })

  it('❌ denies', async () => {
    const { id } = await ask('drop the cache')
    tg.tap(tg.messages[0].message_id, buttons(tg.messages[0])[1])
    await beat()
    expect((await run('pause-and-ask', ['status', id])).stdout).toBe('denied\n')
  })

  it('a text reply is the human’s instructions and does not approve; a plain "yes" does', async () => {
    const a = await ask('post the announcement')
    const b = await ask('tag the release')
    tg.reply(tg.messages[0].message_id, 'not yet, fix the typo in the title first')
    tg.reply(tg.messages[1].message_id, 'yes')
    await beat()
    expect((await run('pause-and-ask', ['status', a.id])).stdout).toBe(
      'denied\nreply: not yet, fix the typo in the title first\n',
    )
    expect((await run('pause-and-ask', ['status', b.id])).stdout).toBe('approved\nreply: yes\n')
  })

  it('only the configured chat may decide; others are ignored and logged', async () => {
    const { id } = await ask('rotate the keys')
    tg.tap(tg.messages[0].message_id, buttons(tg.messages[0])[0], { chatId: '666', from: 'mallory' })
    const r = await beat()
    expect(r.decided).toEqual([])
    expect(queue()[0].status).toBe('pending')
    const log = fs.readFileSync(path.join(dir, '.ratchet', 'activity.jsonl'), 'utf8')
    expect(log).toContain('"decision":"unauthorized"')
    expect(log).toContain('mallory')
    void id
  })

  it('a stale or forged button can never decide another action', async () => {
    const first = await ask('first action')
    const second = await ask('second action')
    const [approveFirst] = buttons(tg.messages[0])
    // Forge: the first action's secret with the second's id.
    tg.tap(tg.messages[1].message_id, approveFirst.replace(first.id, second.id))
    tg.tap(tg.messages[0].message_id, approveFirst)
    tg.tap(tg.messages[0].message_id, approveFirst) // a second tap on a decided action
    await beat()
    expect(queue().map((e) => e.status)).toEqual(['approved', 'pending'])
    expect(tg.answers.map((a) => a.text)).toEqual([
      'This button is no longer valid.',
      'Approved ✅',
      'Already decided (approved)',
    ])
  })

  it('the queue (readable by the agent) holds no valid button: a press carrying its secret decides nothing', async () => {
    const { id } = await ask('wire the money')
    const [approve] = buttons(tg.messages[0])
    const secret = queue()[0].secret!
    expect(secret).toMatch(/^[0-9a-f]+$/)
    // The button carries a seal of the secret (an HMAC with a key outside the project), not the secret.
    expect(approve).not.toContain(secret)
    tg.tap(tg.messages[0].message_id, `pa:${id}:${secret}:a`)
    tg.tap(tg.messages[0].message_id, `pa:${id}:${secret.slice(0, 16).padEnd(16, '0')}:a`)
    const r = await beat()
    expect(r.decided).toEqual([])
    expect(queue()[0].status).toBe('pending')
    expect(tg.answers.map((a) => a.text)).toEqual([
      'This button is no longer valid.',
      'This button is no longer valid.',
    ])
    // The key is private, outside the project.
    const key = path.join(env.XDG_CONFIG_HOME!, 'ratchet', 'telegram-key')
    expect(fs.statSync(key).mode & 0o777).toBe(0o600)
    expect(key.startsWith(dir)).toBe(false)
  })

  it('only approvers decide: a member of the configured chat who is not one changes nothing, by button or reply', async () => {
    const { id } = await ask('drop the prod table')
    const m = tg.messages[0]
    tg.tap(m.message_id, buttons(m)[0], { from: 'eve', fromId: 666 })
    tg.reply(m.message_id, 'yes', { from: 'eve', fromId: 666 })
    const r = await beat()
    expect(r.decided).toEqual([])
    expect(queue()[0].status).toBe('pending')
    expect(r.ignored.join('\n')).toMatch(/from @eve in chat 4242, not an approver \(approvers: 4242\)/)
    expect(tg.answers.map((a) => a.text)).toEqual(['Only an approver can decide this.'])
    // The approver's own press still works.
    tg.tap(m.message_id, buttons(m)[0])
    expect((await beat()).decided).toEqual([id])
  })

  it('in a group chat only the listed approvers decide', async () => {
    await tg.close()
    tg = await startFakeTelegram(undefined, '-100777')
    env = { ...env, RATCHET_TELEGRAM_CHAT_ID: tg.chatId, XDG_CONFIG_HOME: tg.xdg({ approvers: [1001] }) }
    const { id } = await ask('rotate the root password')
    const m = tg.messages[0]
    tg.tap(m.message_id, buttons(m)[0], { from: 'member', fromId: 4242 })
    expect((await beat()).decided).toEqual([])
    tg.tap(m.message_id, buttons(m)[0], { from: 'lead', fromId: 1001 })
    expect((await beat()).decided).toEqual([id])
    expect(queue()[0]).toMatchObject({ status: 'approved', decided_by: 'telegram:@lead' })
  })

  it('the Bot API address comes only from the private per-user file: neither the environment nor the project can send the token elsewhere', async () => {
    const evil = await startFakeTelegram(tg.token, tg.chatId)
    try {
      fs.mkdirSync(path.join(dir, '.ratchet'), { recursive: true })
      fs.writeFileSync(path.join(dir, '.ratchet', 'config.json'), JSON.stringify({ telegram: { api_url: evil.url } }))
      // The agent's own command sets the address in its environment.
      const agentEnv = { ...process.env, ...env, RATCHET_TELEGRAM_API_URL: evil.url }
      const q = JSON.parse(
        (await exec(BIN('pause-and-ask'), ['--action', 'push to prod'], { cwd: dir, env: agentEnv })).stdout,
      )
      await exec(BIN('ratchet'), ['heartbeat', '--notify', q.id], { cwd: dir, env: agentEnv })
      expect(evil.calls).toEqual([])
      expect(tg.messages.map((x) => x.text)).toEqual([expect.stringContaining('push to prod')])
    } finally {
      await evil.close()
    }
  })

  it('a redelivered update is applied once', async () => {
    const { id } = await ask('merge to main')
    const u = tg.tap(tg.messages[0].message_id, buttons(tg.messages[0])[1])
    await beat()
    tg.redeliver(u)
    await beat()
    const decisions = fs
      .readFileSync(path.join(dir, '.ratchet', 'activity.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.pending_id === id && l.decision === 'denied')
    expect(decisions).toHaveLength(1)
  })

  it('two heartbeats at once lose nothing and decide once', async () => {
    await ask('a')
    await ask('b')
    tg.tap(tg.messages[0].message_id, buttons(tg.messages[0])[0])
    tg.tap(tg.messages[1].message_id, buttons(tg.messages[1])[1])
    const runs = await Promise.all([
      run('ratchet', ['heartbeat', '--json']),
      run('ratchet', ['heartbeat', '--json']),
      run('ratchet', ['heartbeat', '--json']),
    ])
    expect(runs.map((r) => r.status)).toEqual([0, 0, 0])
    const decided = runs.flatMap((r) => JSON.parse(r.stdout).decided)
    expect(decided.sort()).toEqual(
      queue()
        .map((e) => e.id)
        .sort(),
    )
    expect(queue().map((e) => e.status)).toEqual(['approved', 'denied'])
  })

  it('status --wait blocks until the decision and exits 0 only when approved', async () => {
    const { id } = await ask('ship it')
    const waiting = run('pause-and-ask', ['status', id, '--wait', '--interval', '100'])
    await new Promise((r) => setTimeout(r, 400))
    tg.tap(tg.messages[0].message_id, buttons(tg.messages[0])[0])
    await beat()
    const r = await waiting
    expect(r).toMatchObject({ status: 0, stdout: 'approved\n' })
  })
})

describe('timeouts (injected clock)', () => {
  const later = (ms: number) => new Date(Date.now() + ms)
  it('destructive waits forever', async () => {
    await ask('delete the bucket', 'destructive')
    await beat(later(365 * 24 * 3600_000))
    expect(queue()[0].status).toBe('pending')
  })
  it('time-sensitive: 4 hours, then timeout and the action is not done', async () => {
    await ask('renew the certificate', 'time-sensitive')
    await beat(later(4 * 3600_000 - 60_000))
    expect(queue()[0].status).toBe('pending')
    const r = await beat(later(4 * 3600_000 + 1000))
    expect(r.timedOut).toHaveLength(1)
    expect(queue()[0]).toMatchObject({ status: 'timeout', timeout_outcome: 'not_done', decided_by: 'timeout' })
    expect(tg.messages[0].edits[0]).toContain('Timed out: not done')
  })
  it('informational: 30 minutes, then the safer option, and the human is told after the fact', async () => {
    await ask('use the cached build', 'informational')
    await beat(later(31 * 60_000))
    expect(queue()[0]).toMatchObject({ status: 'timeout', timeout_outcome: 'proceed_safer', notice_sent: true })
    expect(tg.messages.map((m) => m.text).at(-1)).toMatch(/^⏱ No answer within 30 min on "use the cached build"/)
    // Told once.
    await beat(later(40 * 60_000))
    expect(tg.messages.filter((m) => m.text.startsWith('⏱'))).toHaveLength(1)
  })
})

describe('Telegram failing', () => {
  it('a 5xx on send keeps the action queued; the next heartbeat delivers it', async () => {
    tg.fail('sendMessage', 502, { ok: false, error_code: 502, description: 'Bad Gateway' }, 3)
    const r = await run('pause-and-ask', ['--action', 'x', '--severity', 'destructive'])
    expect(r.status).toBe(0)
    expect(r.stderr).toContain('Telegram')
    expect(r.stderr).toContain('queued anyway')
    expect(queue()[0]).toMatchObject({ status: 'pending', notified: false, notify_attempts: 1 })
    const b = await beat()
    expect(b.notified).toHaveLength(1)
    expect(queue()[0].notified).toBe(true)
  })
  it('429 with retry_after is retried by the client', async () => {
    tg.fail(
      'sendMessage',
      429,
      { ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } },
      1,
    )
    await ask('y')
    expect(queue()[0].notified).toBe(true)
  })
  it('a bad token is reported clearly and never printed', async () => {
    env.RATCHET_TELEGRAM_TOKEN = '999:wrong-token-value-xyz'
    const r = await run('ratchet', ['heartbeat'])
    await ask('z')
    const hb = await run('ratchet', ['heartbeat'])
    expect(hb.stdout).toContain('Telegram rejected the bot token (401 Unauthorized)')
    expect(hb.stdout + hb.stderr + r.stdout).not.toContain('wrong-token-value-xyz')
    expect(hb.status).toBe(1)
  })
  it('Telegram unreachable: queued, and decidable at the terminal', async () => {
    env.XDG_CONFIG_HOME = tg.xdg({ apiUrl: 'http://127.0.0.1:9' }) // nothing listens there
    const { id } = await ask('w')
    expect(queue()[0].notified).toBe(false)
    const d = await run('ratchet', ['pending', 'approve', id, '--note', 'ok from the terminal'])
    expect(d.stdout).toContain(`Approved ${id}`)
    expect((await run('pause-and-ask', ['status', id])).stdout).toBe('approved\nreply: ok from the terminal\n')
  })
})

describe('preflight-check integration', () => {
  const rules = [
    {
      id: 'GR-PAUSE',
      source: 'INC-004',
      pattern: 'custom',
      match: { command: ['touch release-*'] },
      rule: 'Releases need a human yes.',
      severity: 'hard',
      decision: 'pause',
    },
  ]
  beforeEach(() => {
    fs.mkdirSync(path.join(dir, '.ratchet'), { recursive: true })
    fs.writeFileSync(path.join(dir, '.ratchet', 'guardrails.json'), JSON.stringify(rules))
    fs.writeFileSync(path.join(dir, '.ratchet', 'config.json'), JSON.stringify({ firstUsePause: false }))
  })
  const hook = (input: unknown) => runBinAsync('preflight-check', input, { cwd: dir, env })
  const reason = (stdout: string) => JSON.parse(stdout).hookSpecificOutput?.permissionDecisionReason as string

  it('a pause rule queues exactly this call, notifies, and denies naming the id', async () => {
    const r = await hook(preToolUse(dir, 'Bash', { command: 'touch release-1.txt' }))
    const e = queue()[0]
    expect(reason(r.stdout)).toContain(`Pending: ${e.id} (time-sensitive) — the human has been asked on Telegram`)
    expect(e).toMatchObject({
      status: 'pending',
      session_id: 'sess-1',
      tool: 'Bash',
      action: 'run touch release-1.txt',
    })
    // The queue keeps masked text and the fingerprint, never the raw tool input (issue 9 item 4).
    expect(e).not.toHaveProperty('input')
    // The retry before a decision does not queue a duplicate.
    await hook(preToolUse(dir, 'Bash', { command: 'touch release-1.txt' }))
    expect(queue()).toHaveLength(1)
    // The background notifier sent the message.
    for (let i = 0; i < 50 && !tg.messages.length; i++) await new Promise((res) => setTimeout(res, 100))
    expect(tg.messages[0].text).toContain("I'm about to run touch release-1.txt")
  })

  it('approved: exactly that call runs once, the outcome is told once, a different call is still paused', async () => {
    await hook(preToolUse(dir, 'Bash', { command: 'touch release-1.txt' }))
    const id = queue()[0].id
    await run('ratchet', ['pending', 'approve', id, '--note', 'go'])
    const other = await hook(preToolUse(dir, 'Bash', { command: 'touch release-2.txt' }))
    expect(reason(other.stdout)).toContain('Pending: pa-')
    // The outcome reached the session with that (denied) call, once.
    expect(reason(other.stdout)).toContain(`[RATCHET] Approved by terminal:`)
    const same = await hook(preToolUse(dir, 'Bash', { command: 'touch release-1.txt', description: 'retry' }))
    expect(JSON.parse(same.stdout).hookSpecificOutput).toEqual({
      hookEventName: 'PreToolUse',
      additionalContext: expect.stringContaining(`Running ${id}, approved by terminal:`),
    })
    expect(queue().find((e) => e.id === id)).toMatchObject({ status: 'consumed' })
    const again = await hook(preToolUse(dir, 'Bash', { command: 'touch release-1.txt' }))
    expect(reason(again.stdout)).toContain('Pending: pa-')
  })

  it('the first use of a capability pauses (the seed’s mandatory pause), later uses do not', async () => {
    fs.writeFileSync(path.join(dir, '.ratchet', 'config.json'), '{}')
    fs.writeFileSync(path.join(dir, '.ratchet', 'guardrails.json'), '[]')
    const first = await hook(preToolUse(dir, 'Bash', { command: 'npm publish' }))
    expect(reason(first.stdout)).toContain('first use of a new capability (package_publish)')
    const id = queue()[0].id
    await run('ratchet', ['pending', 'approve', id])
    expect((await hook(preToolUse(dir, 'Bash', { command: 'npm publish' }))).stdout).toContain('approved by')
    // A later use is not a first use: no new pause (the always-on built-in RG-PUBLIC may still check it).
    const later = (await hook(preToolUse(dir, 'Bash', { command: 'npm publish --tag next' }))).stdout
    expect(later).not.toContain('first use')
    expect(queue()).toHaveLength(1)
  })
})

describe('the weekly review asks "was this check needed?" with buttons; the FP rate comes from the presses', () => {
  const rules = [
    {
      id: 'GR-KEYS',
      pattern: 'custom',
      match: { tools: ['Write'], paths: ['secrets/**'] },
      rule: 'Never write keys.',
      severity: 'hard',
    },
    {
      id: 'GR-REL',
      pattern: 'custom',
      match: { command: ['touch release-*'] },
      rule: 'Check releases.',
      severity: 'soft',
    },
  ]
  beforeEach(async () => {
    fs.mkdirSync(path.join(dir, '.ratchet'), { recursive: true })
    fs.writeFileSync(path.join(dir, '.ratchet', 'guardrails.json'), JSON.stringify(rules))
    fs.writeFileSync(path.join(dir, '.ratchet', 'config.json'), JSON.stringify({ firstUsePause: false }))
    // Four fires through the real preflight-check hook: two rules, different actions.
    for (const input of [
      ['Write', { file_path: path.join(dir, 'secrets', 'a.key'), content: 'x' }],
      ['Bash', { command: 'touch release-1.txt' }],
      ['Write', { file_path: path.join(dir, 'secrets', 'b.key'), content: 'y' }],
      ['Bash', { command: 'touch release-2.txt' }],
    ] as const)
      expect(
        JSON.parse(
          (await runBinAsync('preflight-check', preToolUse(dir, input[0], input[1]), { cwd: dir, env })).stdout,
        ).hookSpecificOutput?.permissionDecision,
      ).toBe('deny')
  })
  const asks = () => tg.messages.filter((m) => m.text.startsWith('🔩 Was this check needed?'))
  const fireOf = (m: { text: string }) => /· (F-[0-9a-f]{8})$/m.exec(m.text)![1]
  const report = async () => JSON.parse((await run('ratchet', ['report', '--json'])).stdout)
  const labels = () => JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'labels.json'), 'utf8'))

  it('sample → buttons → press → label recorded → the report’s FP rate changes; nothing is asked twice', async () => {
    expect((await report()).fpRate).toBeNull()
    // The heartbeat's weekly slot sends the digest and a small sample, each with three buttons.
    const hb = await run('ratchet', ['heartbeat', '--json'])
    expect(hb.status).toBe(0)
    expect(tg.messages.some((m) => m.text.startsWith('🔩 Ratchet weekly review'))).toBe(true)
    expect(asks()).toHaveLength(3)
    const first = asks()[0]
    expect(first.text).toMatch(/Rule: GR-(KEYS — Never write keys|REL — Check releases)\./)
    expect(first.text).toMatch(/Action: .*(secrets\/[ab]\.key|touch release-\d\.txt)/)
    expect(first.text).toMatch(/When: \d{4}-\d\d-\d\d \d\d:\d\d UTC/)
    expect(first.text).toMatch(/Decision: (deny|check) · F-/)
    expect(buttons(first).map((b) => b.split(':')[3])).toEqual(['n', 'x', 's'])
    // Another heartbeat, and the review sent again by hand twice at once: each fire is asked once.
    await run('ratchet', ['heartbeat', '--json'])
    await Promise.all([run('ratchet', ['report', '--telegram']), run('ratchet', ['report', '--telegram'])])
    const ids = asks().map(fireOf)
    expect(ids).toHaveLength(4)
    expect(new Set(ids).size).toBe(4)

    // Presses: needed on one, not needed on another; the heartbeat takes them like approvals.
    const [a, b, c] = asks()
    const bButtons = buttons(b)
    tg.tap(a.message_id, buttons(a)[0])
    tg.tap(b.message_id, bButtons[1])
    tg.tap(c.message_id, buttons(c)[2]) // skip: no label
    await beat()
    expect(labels().map((l: { id: string; label: string; by: string }) => [l.id, l.label, l.by])).toEqual([
      [fireOf(a), 'needed', 'telegram:@owner'],
      [fireOf(b), 'needless', 'telegram:@owner'],
    ])
    expect(a.edits.at(-1)).toContain('✅ Needed by @owner')
    expect(tg.answers.map((x) => x.text)).toEqual(['Labelled: needed', 'Labelled: not needed', 'Skipped'])
    const r = await report()
    expect(r.labelled).toBe(2)
    expect(r.fpRate).toBe(0.5)
    expect((await run('ratchet', ['report'])).stdout).toContain(
      'False-positive rate, from human labels: 50% (2 fires labelled)',
    )

    // A second press of the same fire changes nothing.
    expect(buttons(b)).toEqual([]) // the buttons are gone from the edited message
    tg.tap(b.message_id, bButtons[0])
    await beat()
    expect(labels()).toHaveLength(2)
    expect(labels()[1].label).toBe('needless')
    expect(tg.answers.at(-1)!.text).toBe('Already answered (needless)')
  }, 90_000)

  it('the action in the message is masked: a key in the stopped command never reaches Telegram', async () => {
    const cmd = `touch release-3.txt && curl -H "Authorization: token ${FAKE.github}" https://api.github.com/user`
    await runBinAsync('preflight-check', preToolUse(dir, 'Bash', { command: cmd }), { cwd: dir, env })
    await run('ratchet', ['report', '--telegram'])
    // A sample of three from five fires: ask until the one with the key has been sent.
    for (let i = 0; i < 3 && !asks().some((m) => m.text.includes('release-3')); i++)
      await run('ratchet', ['report', '--telegram'])
    const m = asks().find((x) => x.text.includes('release-3'))!
    expect(m.text).toContain('Action: ')
    expect(tg.messages.map((x) => x.text).join('\n')).not.toContain(FAKE.github)
  }, 60_000)

  it('a press from another chat, or a forged button, labels nothing', async () => {
    await run('ratchet', ['report', '--telegram'])
    const [a] = asks()
    tg.tap(a.message_id, buttons(a)[1], { chatId: '999', from: 'mallory' })
    // The right chat, but a guessed secret: no ask matches.
    tg.tap(a.message_id, buttons(a)[1].replace(/:[0-9a-f]{16}:/, ':0123456789abcdef:'))
    const r = await beat()
    expect(r.ignored.join('\n')).toMatch(/from @mallory in chat 999, not the configured chat/)
    expect(r.ignored.join('\n')).toContain('This button is no longer valid.')
    expect(fs.existsSync(path.join(dir, '.ratchet', 'labels.json'))).toBe(false)
    expect((await report()).labelled).toBe(0)
  }, 60_000)

  it('the agent cannot label: the CLI refuses inside Claude Code, and writing the labels file is stopped', async () => {
    const [fire] = JSON.parse((await run('ratchet', ['report', 'label', '--json'])).stdout)
    const agent = await exec(BIN('ratchet'), ['report', 'label', fire.id, 'needless'], {
      cwd: dir,
      env: { ...process.env, ...env, CLAUDECODE: '1' },
    })
    expect(agent.status).not.toBe(0)
    expect(agent.stderr).toContain("npx ratchet-guard report label is the user's to run")
    expect(fs.existsSync(path.join(dir, '.ratchet', 'labels.json'))).toBe(false)
    const forged = JSON.stringify([{ ...fire, label: 'needless', by: 'cli', at: new Date().toISOString() }])
    const calls = [
      ['Write', { file_path: path.join(dir, '.ratchet', 'labels.json'), content: forged }, 'deny'],
      ['Bash', { command: `echo '${forged}' > .ratchet/labels.json` }, 'deny'],
      ['Bash', { command: `ratchet report label ${fire.id} needless` }, 'deny'],
      // Interpreter code: in sandbox mode the kernel refuses the write (the reader leaves it); in best-effort mode
      // the coarse screen refuses it.
      ['Bash', { command: `python3 -c "open('.ratchet/labels.json','w').write('[]')"` }, 'floor'],
      ['Bash', { command: `node -e "require('fs').writeFileSync('.ratchet/label-asks.json','[]')"` }, 'floor'],
    ] as const
    const decide = async (tool: string, input: object) =>
      (await runBinAsync('preflight-check', preToolUse(dir, tool, input as Record<string, unknown>), { cwd: dir, env }))
        .stdout
    for (const [tool, input, want] of calls) {
      const out = await decide(tool, input)
      if (want === 'deny')
        expect([tool, input, JSON.parse(out).hookSpecificOutput?.permissionDecision]).toEqual([tool, input, 'deny'])
      else expect([tool, input, out]).toEqual([tool, input, ''])
    }
    fs.writeFileSync(
      path.join(dir, '.ratchet', 'config.json'),
      JSON.stringify({
        ...JSON.parse(
          fs.existsSync(path.join(dir, '.ratchet', 'config.json'))
            ? fs.readFileSync(path.join(dir, '.ratchet', 'config.json'), 'utf8')
            : '{}',
        ),
        floor: 'best-effort',
      }),
    )
    for (const [tool, input] of calls)
      expect([tool, input, JSON.parse(await decide(tool, input)).hookSpecificOutput?.permissionDecision]).toEqual([
        tool,
        input,
        'deny',
      ])
  }, 60_000)
})
