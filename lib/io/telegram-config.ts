// Where the Telegram settings come from. Kept apart from telegram.ts so the hooks can ask "is
// Telegram configured?" without loading the Telegram client.
//
// The bot token is a secret the agent must not read: it lives outside the project, in the environment
// (RATCHET_TELEGRAM_TOKEN, set where the heartbeat runs, not in the agent's shell) or in
// ~/.config/ratchet/telegram.json (0600). A token in the project's .ratchet/config.json still works,
// but `ratchet doctor` warns: anything in the project is readable by the agent.
//
// What decides where the token goes and whose presses count comes only from that per-user file, and only
// when it is private (a regular file, ours, mode 0600, outside the project): `api_url` (the Bot API server;
// from the project or the environment the agent could point the notifier at its own server and be handed the
// token) and `approvers` (Telegram user ids whose presses and replies decide; in a private chat, whose id is
// the user's, that user by default; in a group nobody until listed).

import fs from 'node:fs'
import path from 'node:path'
import { readRegularFile } from './store'
import { configHomeOf } from './paths'
import { readConfig } from './config'
import type { Paths } from './registry'
import { fileOf } from './registry'

export interface TelegramConfig {
  token: string
  chatId: string
  apiUrl?: string
  /** Telegram user ids whose presses and replies count. Empty: nobody's (the terminal still decides). */
  approvers: string[]
  /** The per-user config folder: the key that seals buttons lives there (telegram.ts). */
  configHome: string
}

type TelegramFields = { token?: string; chat_id?: string | number; api_url?: string; approvers?: (string | number)[] }

/** The per-user file outside any project: $XDG_CONFIG_HOME/ratchet/telegram.json, else ~/.config/… */
export function telegramTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  return fileOf({ stateDir: '', configHome: configHomeOf(env) }, 'telegramToken')
}

/** The per-user file's fields, and whether it is private enough to say where the token goes and who decides. */
function userTelegram(env: NodeJS.ProcessEnv, projectDir?: string): { fields: TelegramFields; trusted: boolean } {
  const file = telegramTokenFile(env)
  try {
    const raw = JSON.parse(readRegularFile(file))
    const st = fs.statSync(file)
    const mine = typeof process.getuid !== 'function' || st.uid === process.getuid()
    const inside = !!projectDir && (file + path.sep).startsWith(projectDir + path.sep)
    return {
      fields: raw && typeof raw === 'object' ? (raw as TelegramFields) : {},
      trusted: mine && !(st.mode & 0o077) && !inside,
    }
  } catch {
    return { fields: {}, trusted: false }
  }
}

/** A private chat's id is its user's id (positive); a group's is negative and has no default approver. */
const defaultApprovers = (chatId: string): string[] => (/^[1-9]\d*$/.test(chatId) ? [chatId] : [])

/** Env first, then the per-user file, then (discouraged) the project's config.json. */
export function telegramConfig(
  env: NodeJS.ProcessEnv,
  config: { telegram?: TelegramFields },
  projectDir?: string,
): TelegramConfig | null {
  const { fields: user, trusted } = userTelegram(env, projectDir)
  const fromEnv = !!(env.RATCHET_TELEGRAM_TOKEN && env.RATCHET_TELEGRAM_CHAT_ID)
  const token = env.RATCHET_TELEGRAM_TOKEN || user.token || config.telegram?.token
  const chat = env.RATCHET_TELEGRAM_CHAT_ID || (fromEnv ? undefined : user.chat_id) || config.telegram?.chat_id
  const chatId = chat !== undefined && chat !== '' ? String(chat) : undefined
  if (!token || !chatId) return null
  const listed =
    trusted && Array.isArray(user.approvers) ? user.approvers.map(String).filter((x) => /^-?\d+$/.test(x)) : undefined
  return {
    token,
    chatId,
    apiUrl: trusted && typeof user.api_url === 'string' && user.api_url ? user.api_url : undefined,
    approvers: listed ?? defaultApprovers(chatId),
    configHome: configHomeOf(env),
  }
}

/** The Telegram settings of this project (env first, then .ratchet/config.json), or null. */
export function configuredTelegram(paths: Paths, env = process.env): TelegramConfig | null {
  return telegramConfig(env, readConfig(paths).config as { telegram?: TelegramFields }, paths.projectDir)
}

/** Where the bot token is exposed to the agent, for `ratchet doctor` (empty: nothing to warn about). */
export function telegramTokenWarnings(paths: Paths, env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = []
  const project = (readConfig(paths).config as { telegram?: TelegramFields }).telegram
  if (project?.token)
    out.push(
      `the Telegram bot token is in ${paths.config}, readable by the agent: move it to ${telegramTokenFile(env)} (mode 0600) or RATCHET_TELEGRAM_TOKEN in the heartbeat's environment`,
    )
  if (project?.api_url || env.RATCHET_TELEGRAM_API_URL)
    out.push(
      `the Telegram API address is taken only from ${telegramTokenFile(env)} (api_url, mode 0600): the one in ${project?.api_url ? paths.config : 'RATCHET_TELEGRAM_API_URL'} is ignored`,
    )
  const file = telegramTokenFile(env)
  try {
    const st = fs.statSync(file)
    if (st.mode & 0o077)
      out.push(
        `${file} is readable by other users (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it (until then its api_url and approvers are ignored)`,
      )
    if (file.startsWith(paths.projectDir + path.sep)) out.push(`${file} is inside the project, readable by the agent`)
  } catch {
    /* no per-user file */
  }
  const cfg = configuredTelegram(paths, env)
  if (cfg && !cfg.approvers.length)
    out.push(
      `no Telegram approvers: in a group chat list the user ids whose presses count as "approvers": [id, …] in ${file}; until then only the terminal decides`,
    )
  return out
}
