// A local fake of the Telegram Bot API (127.0.0.1 only) for the real node-telegram-bot-api client:
// POST /bot<token>/<method> with urlencoded or JSON bodies, the {ok, result} envelope, long-polled
// getUpdates, and the methods Ratchet uses. Tests drive it like a phone: tap a button, reply to a
// message, or make the API fail.

import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import type { AddressInfo } from 'node:net'

export interface SentMessage {
  message_id: number
  chat_id: string
  text: string
  reply_markup?: { inline_keyboard?: { text: string; callback_data?: string }[][] }
  edits: string[]
}

type Fault = { status: number; body: unknown; times: number }

export interface FakeTelegram {
  url: string
  token: string
  chatId: string
  messages: SentMessage[]
  calls: { method: string; params: Record<string, unknown> }[]
  answers: { callback_query_id: string; text?: string }[]
  /** Press an inline button of a sent message (from the configured chat unless told otherwise). */
  tap(messageId: number, data: string, opts?: { chatId?: string; from?: string; fromId?: number }): number
  /** Reply with text to a sent message. */
  reply(messageId: number, text: string, opts?: { chatId?: string; from?: string; fromId?: number }): number
  /**
   * An XDG_CONFIG_HOME whose ratchet/telegram.json (0600) points the client at this fake: the Bot API address is
   * taken only from there (never from the project or the environment). `apiUrl` overrides it (a dead port).
   */
  xdg(opts?: { apiUrl?: string; approvers?: (string | number)[] }): string
  /** Deliver an update again (Telegram may redeliver). */
  redeliver(updateId: number): void
  /** The next `times` calls of `method` fail with this HTTP status and body. */
  fail(method: string, status: number, body: unknown, times?: number): void
  /** Every call of `method` answers only after this long (a slow API). */
  slow(method: string, ms: number): void
  close(): Promise<void>
}

export async function startFakeTelegram(
  token = '123456:TEST-token-abcdefghijklmnopqrstuvwxyz',
  chatId = '4242',
): Promise<FakeTelegram> {
  const messages: SentMessage[] = []
  const calls: FakeTelegram['calls'] = []
  const answers: FakeTelegram['answers'] = []
  const updates: Record<string, unknown>[] = []
  const faults = new Map<string, Fault>()
  const delays = new Map<string, number>()
  const waiters = new Set<() => void>()
  let nextUpdate = 1000
  let nextMessage = 1
  const wake = () => {
    for (const w of waiters) w()
    waiters.clear()
  }

  const push = (u: Record<string, unknown>) => {
    const id = nextUpdate++
    updates.push({ update_id: id, ...u })
    wake()
    return id
  }

  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', async () => {
      const send = (status: number, payload: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload))
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '')
      if (!m) return send(404, { ok: false, error_code: 404, description: 'Not Found' })
      if (m[1] !== token) return send(401, { ok: false, error_code: 401, description: 'Unauthorized' })
      const method = m[2]
      const params = parseBody(req.headers['content-type'] ?? '', body)
      calls.push({ method, params })
      if (delays.get(method)) await new Promise((r) => setTimeout(r, delays.get(method)))
      const fault = faults.get(method)
      if (fault && fault.times > 0) {
        fault.times--
        return send(fault.status, fault.body)
      }
      const ok = (result: unknown) => send(200, { ok: true, result })
      switch (method) {
        case 'getMe':
          return ok({ id: 1, is_bot: true, first_name: 'Ratchet', username: 'ratchet_test_bot' })
        case 'sendMessage': {
          const msg: SentMessage = {
            message_id: nextMessage++,
            chat_id: String(params.chat_id),
            text: String(params.text),
            reply_markup: params.reply_markup as SentMessage['reply_markup'],
            edits: [],
          }
          messages.push(msg)
          return ok({
            message_id: msg.message_id,
            date: Math.floor(Date.now() / 1000),
            chat: { id: Number(msg.chat_id), type: 'private' },
            text: msg.text,
            reply_markup: msg.reply_markup,
          })
        }
        case 'editMessageText': {
          const msg = messages.find(
            (x) => x.message_id === Number(params.message_id) && x.chat_id === String(params.chat_id),
          )
          if (!msg)
            return send(400, { ok: false, error_code: 400, description: 'Bad Request: message to edit not found' })
          msg.edits.push(String(params.text))
          msg.reply_markup = params.reply_markup as SentMessage['reply_markup']
          return ok({
            message_id: msg.message_id,
            chat: { id: Number(msg.chat_id), type: 'private' },
            date: 0,
            text: params.text,
          })
        }
        case 'answerCallbackQuery':
          answers.push({ callback_query_id: String(params.callback_query_id), text: params.text as string | undefined })
          return ok(true)
        case 'getUpdates': {
          const offset = Number(params.offset ?? 0)
          const timeout = Math.min(Number(params.timeout ?? 0), 30)
          const pending = () => updates.filter((u) => (u.update_id as number) >= offset)
          if (!pending().length && timeout > 0) {
            await new Promise<void>((resolve) => {
              const t = setTimeout(resolve, timeout * 1000)
              waiters.add(() => {
                clearTimeout(t)
                resolve()
              })
            })
          }
          return ok(pending())
        }
        default:
          return send(400, { ok: false, error_code: 400, description: `Bad Request: method ${method} not faked` })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const user = (name = 'owner', id = 4242) => ({ id, is_bot: false, first_name: name, username: name })

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    chatId,
    messages,
    calls,
    answers,
    xdg: (o = {}) => {
      const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-xdg-')))
      fs.mkdirSync(path.join(home, 'ratchet'), { mode: 0o700 })
      fs.writeFileSync(
        path.join(home, 'ratchet', 'telegram.json'),
        JSON.stringify({
          api_url: o.apiUrl ?? `http://127.0.0.1:${port}`,
          ...(o.approvers ? { approvers: o.approvers } : {}),
        }),
        { mode: 0o600 },
      )
      return home
    },
    tap: (messageId, data, o = {}) =>
      push({
        callback_query: {
          id: `cb${nextUpdate}`,
          from: user(o.from, o.fromId),
          chat_instance: 'x',
          data,
          message: { message_id: messageId, date: 0, chat: { id: Number(o.chatId ?? chatId), type: 'private' } },
        },
      }),
    reply: (messageId, text, o = {}) =>
      push({
        message: {
          message_id: nextMessage++,
          date: 0,
          chat: { id: Number(o.chatId ?? chatId), type: 'private' },
          from: user(o.from, o.fromId),
          text,
          reply_to_message: { message_id: messageId, date: 0, chat: { id: Number(chatId), type: 'private' } },
        },
      }),
    redeliver: (updateId) => {
      const u = updates.find((x) => x.update_id === updateId)
      if (u) updates.push({ ...u })
      wake()
    },
    fail: (method, status, body, times = 1) => faults.set(method, { status, body, times }),
    slow: (method, ms) => void delays.set(method, ms),
    close: () =>
      new Promise((resolve) => {
        wake()
        server.closeAllConnections?.()
        server.close(() => resolve())
      }),
  }
}

function parseBody(type: string, body: string): Record<string, unknown> {
  if (!body) return {}
  if (type.includes('application/json')) return JSON.parse(body)
  const out: Record<string, unknown> = {}
  for (const [k, v] of new URLSearchParams(body)) {
    // The client JSON-encodes structured fields (reply_markup, allowed_updates) in form bodies.
    out[k] = /^[[{]/.test(v) ? safeJson(v) : v
  }
  return out
}

function safeJson(v: string): unknown {
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}
