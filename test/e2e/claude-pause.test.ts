// The real claude CLI: a risky call is paused, the human approves on (a fake) Telegram, the heartbeat
// applies it, and the retried call runs — in one session.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, ROOT, exec, tempProject } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram'

describe('pause-and-ask inside the real claude CLI', () => {
  let model: MockModel
  let tg: FakeTelegram
  let project: string
  let result: { status: number | null; stdout: string; stderr: string }
  const approvals: string[] = []

  beforeAll(async () => {
    project = tempProject('ratchet-claude-pause-')
    const home = tempProject('ratchet-home-')
    tg = await startFakeTelegram()
    const tgEnv = { RATCHET_TELEGRAM_TOKEN: tg.token, RATCHET_TELEGRAM_CHAT_ID: tg.chatId, XDG_CONFIG_HOME: tg.xdg() }
    // init in the environment claude runs in: the floor guards the config folder that environment names.
    expect(
      (
        await exec(BIN('ratchet'), ['init', '--project-dir', project], {
          env: { ...process.env, ...tgEnv, HOME: home },
        })
      ).status,
    ).toBe(0)
    fs.writeFileSync(
      path.join(project, '.ratchet', 'guardrails.json'),
      JSON.stringify([
        {
          id: 'GR-REL',
          source: 'INC-004',
          pattern: 'custom',
          match: { command: ['touch release-*'] },
          rule: 'Releases need a human yes.',
          severity: 'hard',
          decision: 'pause',
        },
      ]),
    )
    // This run stands for an attended session: deny and retry, not the headless defer (claude-defer.test.ts).
    fs.writeFileSync(path.join(project, '.ratchet', 'config.json'), JSON.stringify({ headlessDefer: false }))
    const release = { tool: 'Bash', input: { command: 'touch release-1.0.txt', description: 'Cut the release' } }
    model = await startMockModel([release, release, { text: 'Released.' }], {
      // Before the model's second turn, the human taps ✅ on the phone and the heartbeat runs.
      respond: async (req) => {
        const turns = req.messages.filter(
          (m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_use'),
        ).length
        if (!req.tools?.length || turns !== 1 || approvals.length) return undefined
        for (let i = 0; i < 100 && !tg.messages.length; i++) await new Promise((r) => setTimeout(r, 50))
        const m = tg.messages[0]
        tg.tap(m.message_id, m.reply_markup!.inline_keyboard![0][0].callback_data!)
        const hb = await exec(BIN('ratchet'), ['heartbeat', '--json'], {
          cwd: project,
          env: { ...process.env, ...tgEnv, CLAUDE_PROJECT_DIR: project, HOME: home },
        })
        approvals.push(...JSON.parse(hb.stdout).decided)
        return undefined
      },
    })
    result = await exec(
      path.join(ROOT, 'node_modules', '.bin', 'claude'),
      ['-p', 'cut the 1.0 release', '--output-format', 'json', '--allowedTools', 'Bash'],
      { cwd: project, env: claudeEnv(model.url, home, tgEnv) },
    )
  }, 180_000)

  afterAll(async () => {
    await model?.close()
    await tg?.close()
  })

  it('the first attempt is paused with the pending id, the human is asked on Telegram', () => {
    expect(result.status, result.stderr).toBe(0)
    const [first] = model.toolResults()
    expect(first.is_error).toBe(true)
    expect(first.content).toMatch(/Pending: pa-[0-9a-f]{8} \(time-sensitive\) — the human has been asked on Telegram/)
    expect(tg.messages[0].text).toContain("🔩 [PAUSE] I'm about to run touch release-1.0.txt")
  })

  it('after the tap, the retried call runs, once, and the message shows the outcome', () => {
    expect(approvals).toHaveLength(1)
    const [, second] = model.toolResults()
    expect(second.is_error).toBe(false)
    expect(fs.existsSync(path.join(project, 'release-1.0.txt'))).toBe(true)
    const q = JSON.parse(fs.readFileSync(path.join(project, '.ratchet', 'pending-actions.json'), 'utf8'))
    expect(q).toMatchObject([{ id: approvals[0], status: 'consumed', decided_by: 'telegram:@owner' }])
    expect(tg.messages[0].edits[0]).toContain('✅ Approved')
  })
})
