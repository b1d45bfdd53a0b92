// A local stand-in for the Anthropic Messages API, enough for the real `claude` CLI to run offline
// (see ../shared/reference/claude-code-hooks.md §6). It streams SSE exactly as the API does, plays a
// scripted sequence of tool calls, and records every request so a test can see what the model saw.
// Listens on 127.0.0.1 only.

import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type Step = { tool: string; input: Record<string, unknown>; text?: string } | { text: string }

export interface MessagesRequest {
  model?: string
  system?: unknown
  tools?: unknown[]
  messages: { role: string; content: string | { type: string; [k: string]: unknown }[] }[]
  [k: string]: unknown
}

export interface MockModel {
  url: string
  /** Every POST /v1/messages body, in order. */
  requests: MessagesRequest[]
  /** Main-turn requests only (those that carry tools). */
  mainTurns(): MessagesRequest[]
  /** The tool_result blocks the model received, in order. */
  toolResults(): { tool_use_id: string; content: string; is_error: boolean }[]
  close(): Promise<void>
}

/**
 * `script(request)` picks the next step. The default plays `steps` in order, choosing by how many
 * assistant messages already hold a tool_use (not by the last message: hook context arrives as
 * extra messages after a tool_result).
 */
export async function startMockModel(
  steps: Step[],
  opts: { respond?: (req: MessagesRequest) => Step | undefined | Promise<Step | undefined> } = {},
): Promise<MockModel> {
  const requests: MessagesRequest[] = []
  let ids = 0
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', async () => {
      if (req.method === 'POST' && req.url?.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 100 }))
        return
      }
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            type: 'error',
            error: { type: 'not_found_error', message: `no route ${req.method} ${req.url}` },
          }),
        )
        return
      }
      let parsed: MessagesRequest
      try {
        parsed = JSON.parse(body)
      } catch {
        res.writeHead(400).end()
        return
      }
      requests.push(parsed)
      let step: Step | undefined = await opts.respond?.(parsed)
      if (!step) {
        if (!parsed.tools?.length)
          step = { text: 'Ratchet test session' } // side query (titles etc.)
        else {
          const done = parsed.messages.filter(
            (m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_use'),
          ).length
          step = steps[done] ?? { text: 'Done.' }
        }
      }
      if (parsed.stream !== true) {
        // A plain (non-streaming) Messages API call, as an HTTP reviewer makes it.
        const text = 'text' in step && step.text ? step.text : ''
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `msg_${++ids}`,
            type: 'message',
            role: 'assistant',
            model: parsed.model,
            content: [{ type: 'text', text }],
            stop_reason: 'end_turn',
            usage: { input_tokens: 321, output_tokens: 45 },
          }),
        )
        return
      }
      stream(res, parsed.model ?? 'claude-mock', step, `toolu_mock${String(++ids).padStart(6, '0')}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    mainTurns: () => requests.filter((r) => r.tools?.length),
    toolResults: () => {
      const seen = new Map<string, { tool_use_id: string; content: string; is_error: boolean }>()
      for (const r of requests)
        for (const m of r.messages)
          if (Array.isArray(m.content))
            for (const b of m.content)
              if (b.type === 'tool_result') {
                const content = typeof b.content === 'string' ? b.content : JSON.stringify(b.content)
                seen.set(String(b.tool_use_id), { tool_use_id: String(b.tool_use_id), content, is_error: !!b.is_error })
              }
      return [...seen.values()]
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

function stream(res: http.ServerResponse, model: string, step: Step, toolId: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  const usage = { input_tokens: 120, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
  send('message_start', {
    type: 'message_start',
    message: {
      id: `msg_${toolId}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  })
  let index = 0
  const text = 'tool' in step ? step.text : step.text
  if (text) {
    send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
    send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } })
    send('content_block_stop', { type: 'content_block_stop', index })
    index++
  }
  if ('tool' in step) {
    send('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: toolId, name: step.tool, input: {} },
    })
    send('content_block_delta', {
      type: 'content_block_delta',
      index,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(step.input) },
    })
    send('content_block_stop', { type: 'content_block_stop', index })
  }
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: 'tool' in step ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: 12 },
  })
  send('message_stop', { type: 'message_stop' })
  res.end()
}

/** Environment for running the real claude CLI offline against the mock, with HOME in a temp folder. */
export function claudeEnv(modelUrl: string, home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const k of Object.keys(env))
    if (
      k.startsWith('CLAUDE') ||
      k.startsWith('ANTHROPIC') ||
      k === 'RATCHET_DIR' ||
      k === 'NODE_ENV' ||
      k === 'VITEST' ||
      k.startsWith('VITEST_')
    )
      delete env[k]
  return {
    ...env,
    HOME: home,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test-dummy',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...extra,
  }
}
