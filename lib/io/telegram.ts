// Telegram, through node-telegram-bot-api 2.x (`Api`, which takes an `apiRoot`): the pause message
// with ✅/❌ buttons, edits after a decision, after-the-fact notices, and reading replies.
// Loaded only by the heartbeat and pause-and-ask, never on a hook's hot path.

import crypto from 'node:crypto'
import { Api, TelegramApiError } from 'node-telegram-bot-api'
import { fileOf } from './registry'
import { privateFileOnce } from './store'
import { maskSecrets } from '../core/secrets'
import type { PendingEntry } from '../core/pending'
import { labelButton, parseLabelButton, type LabelAnswer, type LabelAsk } from '../core/labels'

export type { TelegramConfig } from './telegram-config'
import type { TelegramConfig } from './telegram-config'

export function client(cfg: TelegramConfig): Api {
  // Bounded: a dead Telegram costs seconds, never a hang. 429 retry_after is honoured up to 30 s.
  return new Api(cfg.token, {
    apiRoot: cfg.apiUrl,
    timeoutMs: 10_000,
    maxRetries: 2,
    retryBackoffMs: 300,
    maxRetryAfterMs: 30_000,
  })
}

/** One line for logs and terminals, with the bot token never in it. */
export function describeError(e: unknown, cfg?: TelegramConfig): string {
  let msg: string
  if (e instanceof TelegramApiError)
    msg =
      e.errorCode === 401
        ? 'Telegram rejected the bot token (401 Unauthorized)'
        : `Telegram API error ${e.errorCode}: ${e.description}${e.retryAfter ? ` (retry after ${e.retryAfter}s)` : ''}`
  else msg = `Telegram unreachable: ${(e as Error)?.message ?? String(e)}`
  return cfg ? msg.split(cfg.token).join('<token>') : msg
}

// ---- sealed buttons ------------------------------------------------------------------------------
// A button carries HMAC(key, the entry's secret), not the secret: the queue and label-asks.json (which the agent
// can read) hold the secret, the key lives outside every project (0600, in the config folder), so reading the
// queue is not enough to forge a press.

/** The sealing key: read, or created once (exclusively: of two heartbeats at once, both end with the same key). */
export function buttonKey(configHome: string): Buffer {
  const file = fileOf({ stateDir: '', configHome }, 'telegramKey')
  try {
    return Buffer.from(privateFileOnce(file, () => crypto.randomBytes(32).toString('hex') + '\n').trim(), 'hex')
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`)
  }
}

/** What a button carries for a stored secret: 16 hex of HMAC-SHA256 (well under Telegram's 64-byte limit). */
export type Seal = (secret: string) => string
export function sealer(cfg: Pick<TelegramConfig, 'configHome'>): Seal {
  const key = buttonKey(cfg.configHome)
  return (secret) => crypto.createHmac('sha256', key).update(secret).digest('hex').slice(0, 16)
}

/** Equal in constant time (a timing difference must not reveal a seal digit by digit). */
export function sameSeal(a: string, b: string): boolean {
  return a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b))
}

export const callbackData = (e: PendingEntry, verdict: 'a' | 'd', seal: Seal) =>
  `pa:${e.id}:${seal(e.secret ?? '')}:${verdict}`

export function pauseMessage(e: PendingEntry): string {
  return maskSecrets(
    [
      `🔩 [PAUSE] I'm about to ${e.action}.`,
      `Trigger: ${e.trigger}`,
      `Context: ${e.context}`,
      `Severity: ${e.severity}${e.timeout ? ` (times out in ${Math.round(e.timeout / 60)} min)` : ' (waits for you)'} · ${e.id}`,
      '',
      'Reply ✅ to proceed, ❌ to cancel, or tell me what to change.',
    ].join('\n'),
  )
}

export function outcomeMessage(e: PendingEntry): string {
  const what =
    e.status === 'approved'
      ? '✅ Approved'
      : e.status === 'denied'
        ? '❌ Not approved'
        : e.status === 'timeout'
          ? e.timeout_outcome === 'proceed_safer'
            ? '⏱ Timed out: took the safer option'
            : '⏱ Timed out: not done'
          : e.status
  return maskSecrets(
    `🔩 ${e.action}\n${what}${e.decided_by && e.decided_by !== 'timeout' ? ` by ${e.decided_by}` : ''}${e.reply ? `\n“${e.reply}”` : ''} · ${e.id}`,
  )
}

export async function sendPause(
  api: Api,
  cfg: TelegramConfig,
  e: PendingEntry,
  seal: Seal = sealer(cfg),
): Promise<number> {
  const m = await api.sendMessage({
    chat_id: cfg.chatId,
    text: pauseMessage(e),
    reply_markup: {
      inline_keyboard: [
        [
          { text: '✅ Proceed', callback_data: callbackData(e, 'a', seal) },
          { text: '❌ Cancel', callback_data: callbackData(e, 'd', seal) },
        ],
      ],
    },
  })
  return m.message_id
}

export async function showOutcome(api: Api, cfg: TelegramConfig, e: PendingEntry): Promise<void> {
  if (e.message_id === undefined) return
  await api.editMessageText({
    chat_id: cfg.chatId,
    message_id: e.message_id,
    text: outcomeMessage(e),
    reply_markup: { inline_keyboard: [] },
  })
}

export async function sendNotice(api: Api, cfg: TelegramConfig, text: string): Promise<void> {
  await api.sendMessage({ chat_id: cfg.chatId, text: maskSecrets(text) })
}

// ---- "was this check needed?" (the weekly review's label sample) -----------------------------------

const ANSWER_TEXT: Record<LabelAnswer, string> = { needed: '✅ Needed', needless: '🙅 Not needed', skip: '⏭ Skipped' }

/** The fire as the human judges it: the rule (and what it says), the action (masked), when, what the hook did. */
export function labelMessage(a: LabelAsk, ruleText: (id: string) => string | undefined): string {
  const f = a.fire
  const rules = f.rules.map((r) => (ruleText(r) ? `${r} — ${ruleText(r)}` : r)).join('\n  ')
  const when = f.time ? `${f.time.slice(0, 16).replace('T', ' ')} UTC` : 'unknown'
  return maskSecrets(
    [
      '🔩 Was this check needed?',
      `Rule: ${rules}`,
      `Action: ${f.action ?? '(not recorded)'}`,
      `When: ${when}${f.session ? ` · session ${f.session.slice(0, 8)}` : ''}`,
      `Decision: ${f.decision ?? 'stopped'} · ${a.id}`,
    ].join('\n'),
  )
}

export async function sendLabelAsk(
  api: Api,
  cfg: TelegramConfig,
  a: LabelAsk,
  ruleText: (id: string) => string | undefined,
): Promise<number> {
  const sealed = { id: a.id, secret: sealer(cfg)(a.secret) }
  const m = await api.sendMessage({
    chat_id: cfg.chatId,
    text: labelMessage(a, ruleText),
    reply_markup: {
      inline_keyboard: [
        [
          { text: ANSWER_TEXT.needed, callback_data: labelButton(sealed, 'needed') },
          { text: ANSWER_TEXT.needless, callback_data: labelButton(sealed, 'needless') },
          { text: 'Skip', callback_data: labelButton(sealed, 'skip') },
        ],
      ],
    },
  })
  return m.message_id
}

/** After the press: the same message, with the answer in place of the buttons. */
export async function showLabelAnswer(
  api: Api,
  cfg: TelegramConfig,
  a: LabelAsk,
  ruleText: (id: string) => string | undefined,
): Promise<void> {
  if (a.message_id === undefined || !a.answer) return
  await api.editMessageText({
    chat_id: cfg.chatId,
    message_id: a.message_id,
    text: `${labelMessage(a, ruleText)}\n${ANSWER_TEXT[a.answer]}${a.answered_by ? ` by ${a.answered_by.replace(/^telegram:/, '')}` : ''}`,
    reply_markup: { inline_keyboard: [] },
  })
}

// ---- reading updates ---------------------------------------------------------------------------

export interface TgUpdate {
  update_id: number
  message?: {
    message_id: number
    chat: { id: number | string }
    from?: { id: number; username?: string; first_name?: string }
    text?: string
    reply_to_message?: { message_id: number }
  }
  callback_query?: {
    id: string
    from: { id: number; username?: string; first_name?: string }
    data?: string
    message?: { message_id: number; chat: { id: number | string } }
  }
}

export type Interpretation =
  | { kind: 'decide'; id: string; verdict: 'approved' | 'denied'; by: string; reply?: string; callbackId?: string }
  | { kind: 'label'; id: string; secret: string; answer: LabelAnswer; by: string; callbackId: string }
  | { kind: 'ignore'; why: string; callbackId?: string }
  | { kind: 'unauthorized'; from: string; chat: string; callbackId?: string; notApprover?: boolean }

const who = (f?: { id: number; username?: string; first_name?: string }) =>
  f ? (f.username ? `@${f.username}` : (f.first_name ?? String(f.id))) : 'unknown'

/** Who may decide, and how a button's seal is checked: from the private per-user config (telegram-config.ts). */
export interface Deciders {
  chatId: string
  approvers: string[]
  seal: Seal
}

/**
 * Pure: what one update means for the queue. Only the configured chat, and in it only an approver's press or
 * reply, may decide; a button must carry the seal of the very action it names. A label press comes back with
 * the seal it carried: the caller checks it against the ask (label-asks.json holds the unsealed secret).
 */
export function interpret(
  u: TgUpdate,
  d: Deciders,
  entries: PendingEntry[],
  approves: (t: string) => boolean,
  denies: (t: string) => boolean,
): Interpretation {
  const approver = (f?: { id: number }) => !!f && d.approvers.includes(String(f.id))
  if (u.callback_query) {
    const q = u.callback_query
    const chat = String(q.message?.chat.id ?? '')
    if (chat !== d.chatId) return { kind: 'unauthorized', from: who(q.from), chat, callbackId: q.id }
    if (!approver(q.from)) return { kind: 'unauthorized', from: who(q.from), chat, callbackId: q.id, notApprover: true }
    // A label button (the weekly review's "was this check needed?"); its seal is checked against the ask.
    const l = parseLabelButton(q.data ?? '')
    if (l) return { kind: 'label', ...l, by: who(q.from), callbackId: q.id }
    const m = /^pa:([\w-]+):([0-9a-f]+):([ad])$/.exec(q.data ?? '')
    if (!m) return { kind: 'ignore', why: `unknown button ${JSON.stringify(q.data)}`, callbackId: q.id }
    const e = entries.find((x) => x.id === m[1])
    // A stale or forged tap: the seal must be the one sent with this very action.
    if (!e?.secret || !sameSeal(d.seal(e.secret), m[2]))
      return { kind: 'ignore', why: `button for ${m[1]} does not match any action`, callbackId: q.id }
    return {
      kind: 'decide',
      id: e.id,
      verdict: m[3] === 'a' ? 'approved' : 'denied',
      by: who(q.from),
      callbackId: q.id,
    }
  }
  if (u.message) {
    const msg = u.message
    const chat = String(msg.chat.id)
    if (chat !== d.chatId) return { kind: 'unauthorized', from: who(msg.from), chat }
    const text = (msg.text ?? '').trim()
    const target = msg.reply_to_message
      ? entries.find((e) => e.message_id === msg.reply_to_message!.message_id)
      : undefined
    if (!target)
      return {
        kind: 'ignore',
        why: msg.reply_to_message ? 'reply to a message that is not a pause' : 'not a reply to a pause message',
      }
    if (!approver(msg.from)) return { kind: 'unauthorized', from: who(msg.from), chat, notApprover: true }
    if (!text) return { kind: 'ignore', why: 'empty reply' }
    // A reply is the human's instructions; it approves only if it plainly says so.
    if (approves(text)) return { kind: 'decide', id: target.id, verdict: 'approved', by: who(msg.from), reply: text }
    return {
      kind: 'decide',
      id: target.id,
      verdict: 'denied',
      by: who(msg.from),
      reply: denies(text) ? undefined : text,
    }
  }
  return { kind: 'ignore', why: 'update type not used' }
}
