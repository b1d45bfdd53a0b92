// The Telegram bot token lives outside the project; `ratchet doctor` warns when the agent could read it.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolvePaths } from '../../lib/io/paths'
import { telegramConfig, telegramTokenFile, telegramTokenWarnings } from '../../lib/io/telegram-config'
import { BIN, exec, tempProject } from '../support/fixtures'

describe('the Telegram bot token', () => {
  it('is read from ~/.config/ratchet/telegram.json when the environment has none', () => {
    const home = tempProject('ratchet-home-')
    const env = { HOME: home }
    fs.mkdirSync(path.dirname(telegramTokenFile(env)), { recursive: true })
    fs.writeFileSync(telegramTokenFile(env), JSON.stringify({ token: '123:user-file-token', chat_id: 42 }), {
      mode: 0o600,
    })
    expect(telegramConfig(env, {})).toEqual({
      token: '123:user-file-token',
      chatId: '42',
      apiUrl: undefined,
      approvers: ['42'],
      configHome: path.dirname(telegramTokenFile(env)),
    })
    expect(
      telegramConfig({ ...env, RATCHET_TELEGRAM_TOKEN: '9:env', RATCHET_TELEGRAM_CHAT_ID: '7' }, {}),
    ).toMatchObject({ token: '9:env', chatId: '7' })
  })

  it('takes the Bot API address and the approvers only from the private per-user file', () => {
    const home = tempProject('ratchet-home-')
    const env = {
      HOME: home,
      RATCHET_TELEGRAM_TOKEN: '9:env',
      RATCHET_TELEGRAM_CHAT_ID: '-100123',
      RATCHET_TELEGRAM_API_URL: 'http://evil.example',
    }
    const project = { telegram: { api_url: 'http://evil.example', approvers: [666] } }
    // Neither the environment nor the project (both in the agent's reach) says where the token goes.
    expect(telegramConfig(env, project)).toMatchObject({
      token: '9:env',
      chatId: '-100123',
      apiUrl: undefined,
      approvers: [],
    })
    const file = telegramTokenFile(env)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, JSON.stringify({ api_url: 'http://127.0.0.1:8081', approvers: [1001, '1002'] }), {
      mode: 0o600,
    })
    expect(telegramConfig(env, project)).toMatchObject({ apiUrl: 'http://127.0.0.1:8081', approvers: ['1001', '1002'] })
    // Readable by others (or inside the project): its address and approvers are not trusted.
    fs.chmodSync(file, 0o644)
    expect(telegramConfig(env, project)).toMatchObject({ apiUrl: undefined, approvers: [] })
    fs.chmodSync(file, 0o600)
    expect(telegramConfig(env, project, path.dirname(path.dirname(file)))).toMatchObject({
      apiUrl: undefined,
      approvers: [],
    })
    // A private chat (positive id, the user's own) has its user as the approver by default; a group has none.
    fs.writeFileSync(file, '{}', { mode: 0o600 })
    expect(telegramConfig({ ...env, RATCHET_TELEGRAM_CHAT_ID: '4242' }, {})).toMatchObject({ approvers: ['4242'] })
    expect(telegramConfig(env, {})).toMatchObject({ approvers: [] })
  })

  it('doctor warns (without failing) when the token is in the project, or its file is readable by others', async () => {
    const dir = tempProject()
    const home = tempProject('ratchet-home-')
    fs.mkdirSync(path.join(dir, '.ratchet'))
    fs.writeFileSync(
      path.join(dir, '.ratchet', 'config.json'),
      JSON.stringify({ telegram: { token: '123:in-project-token', chat_id: 1 } }),
    )
    const env = { HOME: home, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' }
    fs.mkdirSync(path.dirname(telegramTokenFile(env)), { recursive: true })
    fs.writeFileSync(telegramTokenFile(env), '{}', { mode: 0o644 })
    fs.chmodSync(telegramTokenFile(env), 0o644)
    const warnings = telegramTokenWarnings(resolvePaths(env, dir), env)
    expect(warnings).toEqual([
      expect.stringContaining('readable by the agent: move it to'),
      expect.stringContaining('chmod 600'),
    ])
    expect(warnings.join('\n')).not.toContain('in-project-token')
    const r = await exec(BIN('ratchet'), ['doctor'], { cwd: dir, env: { ...process.env, ...env } })
    expect(r.stdout).toMatch(/! telegram token +the Telegram bot token is in .*config\.json, readable by the agent/)
    expect(r.stdout + r.stderr).not.toContain('in-project-token')
  })
})
