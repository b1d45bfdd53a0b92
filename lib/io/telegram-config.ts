// Where the Telegram settings come from. Kept apart from telegram.ts so the hooks can ask "is
// Telegram configured?" without loading the Telegram client.

import { readConfig, type Paths } from './state'

export interface TelegramConfig {
  token: string
  chatId: string
  apiUrl?: string
}

/** Env wins over .ratchet/config.json: RATCHET_TELEGRAM_TOKEN, RATCHET_TELEGRAM_CHAT_ID, RATCHET_TELEGRAM_API_URL. */
export function telegramConfig(env: NodeJS.ProcessEnv, config: { telegram?: { token?: string; chat_id?: string | number; api_url?: string } }): TelegramConfig | null {
  const token = env.RATCHET_TELEGRAM_TOKEN || config.telegram?.token
  const chatId = env.RATCHET_TELEGRAM_CHAT_ID || (config.telegram?.chat_id !== undefined ? String(config.telegram.chat_id) : undefined)
  if (!token || !chatId) return null
  return { token, chatId, apiUrl: env.RATCHET_TELEGRAM_API_URL || config.telegram?.api_url }
}

/** The Telegram settings of this project (env first, then .ratchet/config.json), or null. */
export function configuredTelegram(paths: Paths, env = process.env): TelegramConfig | null {
  return telegramConfig(env, readConfig(paths).config as { telegram?: { token?: string; chat_id?: string; api_url?: string } })
}
