// The Telegram bot token lives outside the project; `ratchet doctor` warns when the agent could read it.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolvePaths } from '../../lib/io/state'
import { telegramConfig, telegramTokenFile, telegramTokenWarnings } from '../../lib/io/telegram-config'
import { BIN, exec, tempProject } from '../support/fixtures'

describe('the Telegram bot token', () => {
  it('is read from ~/.config/ratchet/telegram.json when the environment has none', () => {
    const home = tempProject('ratchet-home-')
    const env = { HOME: home }
    fs.mkdirSync(path.dirname(telegramTokenFile(env)), { recursive: true })
    fs.writeFileSync(telegramTokenFile(env), JSON.stringify({ token: '123:user-file-token', chat_id: 42 }), { mode: 0o600 })
    expect(telegramConfig(env, {})).toEqual({ token: '123:user-file-token', chatId: '42', apiUrl: undefined })
    expect(telegramConfig({ ...env, RATCHET_TELEGRAM_TOKEN: '9:env', RATCHET_TELEGRAM_CHAT_ID: '7' }, {})).toMatchObject({ token: '9:env', chatId: '7' })
  })

  it('doctor warns (without failing) when the token is in the project, or its file is readable by others', async () => {
    const dir = tempProject()
    const home = tempProject('ratchet-home-')
    fs.mkdirSync(path.join(dir, '.ratchet'))
    fs.writeFileSync(path.join(dir, '.ratchet', 'config.json'), JSON.stringify({ telegram: { token: '123:in-project-token', chat_id: 1 } }))
    const env = { HOME: home, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' }
    fs.mkdirSync(path.dirname(telegramTokenFile(env)), { recursive: true })
    fs.writeFileSync(telegramTokenFile(env), '{}', { mode: 0o644 })
    fs.chmodSync(telegramTokenFile(env), 0o644)
    const warnings = telegramTokenWarnings(resolvePaths(env, dir), env)
    expect(warnings).toEqual([expect.stringContaining('readable by the agent: move it to'), expect.stringContaining('chmod 600')])
    expect(warnings.join('\n')).not.toContain('in-project-token')
    const r = await exec(BIN('ratchet'), ['doctor'], { cwd: dir, env: { ...process.env, ...env } })
    expect(r.stdout).toMatch(/! telegram token +the Telegram bot token is in .*config\.json, readable by the agent/)
    expect(r.stdout + r.stderr).not.toContain('in-project-token')
  })
})
