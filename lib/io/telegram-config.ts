// Where the Telegram settings come from. Kept apart from telegram.ts so the hooks can ask "is
// Telegram configured?" without loading the Telegram client.
//
// The bot token is a secret the agent must not read: it lives outside the project, in the environment
// (RATCHET_TELEGRAM_TOKEN, set where the heartbeat runs, not in the agent's shell) or in
// ~/.config/ratchet/telegram.json (0600). A token in the project's .ratchet/config.json still works,
// but `ratchet doctor` warns: anything in the project is readable by the agent.

import fs from 'node:fs'
import path from 'node:path'
import { readRegularFile } from './store'
import { configHomeOf, readConfig, type Paths } from './state'
import { fileOf } from './registry'

export interface TelegramConfig {
  token: string
  chatId: string
  apiUrl?: string
}

type TelegramFields = { token?: string; chat_id?: string | number; api_url?: string }

/** The per-user file outside any project: $XDG_CONFIG_HOME/ratchet/telegram.json, else ~/.config/… */
export function telegramTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  return fileOf({ stateDir: '', configHome: configHomeOf(env) }, 'telegramToken')
}

function userTelegram(env: NodeJS.ProcessEnv): TelegramFields {
  try {
    const raw = JSON.parse(readRegularFile(telegramTokenFile(env)))
    return raw && typeof raw === 'object' ? (raw as TelegramFields) : {}
  } catch {
    return {}
  }
}

/** Env first, then the per-user file, then (discouraged) the project's config.json. */
export function telegramConfig(env: NodeJS.ProcessEnv, config: { telegram?: TelegramFields }): TelegramConfig | null {
  const user = env.RATCHET_TELEGRAM_TOKEN && env.RATCHET_TELEGRAM_CHAT_ID ? {} : userTelegram(env)
  const token = env.RATCHET_TELEGRAM_TOKEN || user.token || config.telegram?.token
  const chat = env.RATCHET_TELEGRAM_CHAT_ID || user.chat_id || config.telegram?.chat_id
  const chatId = chat !== undefined && chat !== '' ? String(chat) : undefined
  if (!token || !chatId) return null
  return { token, chatId, apiUrl: env.RATCHET_TELEGRAM_API_URL || user.api_url || config.telegram?.api_url }
}

/** The Telegram settings of this project (env first, then .ratchet/config.json), or null. */
export function configuredTelegram(paths: Paths, env = process.env): TelegramConfig | null {
  return telegramConfig(env, readConfig(paths).config as { telegram?: TelegramFields })
}

/** Where the bot token is exposed to the agent, for `ratchet doctor` (empty: nothing to warn about). */
export function telegramTokenWarnings(paths: Paths, env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = []
  const inProject = (readConfig(paths).config as { telegram?: TelegramFields }).telegram?.token
  if (inProject) out.push(`the Telegram bot token is in ${paths.config}, readable by the agent: move it to ${telegramTokenFile(env)} (mode 0600) or RATCHET_TELEGRAM_TOKEN in the heartbeat's environment`)
  const file = telegramTokenFile(env)
  try {
    const st = fs.statSync(file)
    if (st.mode & 0o077) out.push(`${file} is readable by other users (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it`)
    if (file.startsWith(paths.projectDir + path.sep)) out.push(`${file} is inside the project, readable by the agent`)
  } catch {
    /* no per-user file */
  }
  return out
}
