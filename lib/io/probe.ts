// The floor, proven through the real mechanism: `ratchet doctor` runs the installed `claude` CLI headless against a
// stand-in for the model API on 127.0.0.1, which asks for a few Bash commands that must fail if the floor holds
// (append to Ratchet's state and to Claude Code's settings, read the per-user config folder). Claude Code runs them
// exactly as it runs an agent's commands: in its sandbox, with the project's and the user's settings, but with
// hooks off (`--settings {"disableAllHooks":true}`), so what holds is the OS floor and not Ratchet's own reading.
// Nothing is written when the floor holds; when it does not, an append of nothing changes no content.

import crypto from 'node:crypto'
import http from 'node:http'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { spawn } from 'node:child_process'
import type { Paths } from './registry'
import { removeFile, writePrivateFile } from './store'

export interface ProbeResult {
  /** Each probe: held (the OS refused), open (it worked: the floor does not hold), or unknown (no answer). */
  checks: { name: string; outcome: 'held' | 'open' | 'unknown'; detail: string }[]
  /** Why no check could run (no client, the client failed), when none did. */
  error?: string
}

interface Probe {
  name: string
  command: string
}

/** The probes: each prints exactly one of its two markers. */
function probes(paths: Paths, token: string, tokenFile: string): Probe[] {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  const append = (name: string, file: string): Probe => ({
    name,
    command: `( : >> ${q(file)} ) 2>/dev/null && echo PROBE-OPEN || echo PROBE-HELD`,
  })
  return [
    append(`write ${path.relative(paths.projectDir, paths.gitignore) || paths.gitignore}`, paths.gitignore),
    append('write .claude/settings.json', path.join(paths.projectDir, '.claude', 'settings.json')),
    // The path is put together at run time, so Claude Code's own reading of the command cannot see it: what holds
    // (or not) is the sandbox's read deny, at the kernel.
    {
      name: `read ${tokenFile}`,
      command: `f=$(printf '%s/%s' ${q(path.dirname(tokenFile))} ${q(path.basename(tokenFile))}); cat "$f" 2>/dev/null | grep -q ${q(token)} && echo PROBE-OPEN || echo PROBE-HELD`,
    },
  ]
}

/** Runs the probes through `claude` (RATCHET_CLAUDE_BIN, else on PATH) in the project; at most `timeoutMs`. */
export async function probeFloor(
  paths: Paths,
  opts: { claude?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<ProbeResult> {
  const env = opts.env ?? process.env
  const token = crypto.randomBytes(12).toString('hex')
  const tokenFile = path.join(paths.configHome, 'floor-probe')
  try {
    writePrivateFile(tokenFile, token + '\n')
  } catch (e) {
    return { checks: [], error: `cannot write ${tokenFile} (${(e as Error).message})` }
  }
  const list = probes(paths, token, tokenFile)
  const results = new Map<number, string>()
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      if (req.url?.startsWith('/v1/messages/count_tokens'))
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":10}')
      let parsed: { tools?: unknown[]; messages?: { role: string; content: unknown }[] }
      try {
        parsed = JSON.parse(body)
      } catch {
        return void res.writeHead(400).end()
      }
      const messages = parsed.messages ?? []
      // Tool results the client sends back carry what each probe printed.
      for (const m of messages)
        if (m.role === 'user' && Array.isArray(m.content))
          for (const b of m.content as { type: string; tool_use_id?: string; content?: unknown }[])
            if (b.type === 'tool_result' && b.tool_use_id?.startsWith('toolu_probe'))
              results.set(
                Number(b.tool_use_id.slice('toolu_probe'.length)),
                typeof b.content === 'string' ? b.content : JSON.stringify(b.content),
              )
      const done = messages.filter((m) => m.role === 'assistant').length
      const next = parsed.tools?.length ? list[done] : undefined
      stream(res, next ? { id: `toolu_probe${done}`, command: next.command } : undefined)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const clean: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(env)) if (!/^(CLAUDECODE|CLAUDE_CODE_ENTRYPOINT|ANTHROPIC_)/.test(k)) clean[k] = v
  const claude = opts.claude ?? env.RATCHET_CLAUDE_BIN ?? 'claude'
  const run = await new Promise<{ code: number | null; stderr: string; spawnError?: string }>((resolve) => {
    const child = spawn(
      claude,
      [
        '-p',
        'Ratchet floor probe',
        '--output-format',
        'json',
        '--allowedTools',
        'Bash',
        '--settings',
        '{"disableAllHooks":true}',
        '--no-session-persistence',
      ],
      {
        cwd: paths.projectDir,
        env: {
          ...clean,
          ANTHROPIC_BASE_URL: url,
          ANTHROPIC_API_KEY: 'sk-ant-ratchet-probe',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_ERROR_REPORTING: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    )
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000)
    child.on(
      'error',
      (e) => (
        clearTimeout(timer), resolve({ code: null, stderr, spawnError: (e as NodeJS.ErrnoException).code ?? e.message })
      ),
    )
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, stderr })))
  })
  server.close()
  removeFile(tokenFile)
  if (run.spawnError) return { checks: [], error: `\`${claude}\` could not be started (${run.spawnError})` }
  const checks = list.map((p, i) => {
    const out = results.get(i)
    const outcome =
      out === undefined
        ? ('unknown' as const)
        : /PROBE-OPEN/.test(out)
          ? ('open' as const)
          : /PROBE-HELD/.test(out)
            ? ('held' as const)
            : ('unknown' as const)
    return {
      name: p.name,
      outcome,
      detail: out === undefined ? 'no answer' : out.trim().split('\n').slice(-1)[0].slice(0, 200),
    }
  })
  if (checks.every((c) => c.outcome === 'unknown'))
    return {
      checks,
      error: `claude exited ${run.code} before any probe ran: ${run.stderr.trim().split('\n').slice(-1)[0]?.slice(0, 300) || 'no message'}`,
    }
  return { checks }
}

/** One streamed Messages API answer: a Bash tool call, or the end of the turn. */
function stream(res: http.ServerResponse, call: { id: string; command: string } | undefined): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  const usage = { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
  send('message_start', {
    type: 'message_start',
    message: {
      id: `msg_${call?.id ?? 'end'}`,
      type: 'message',
      role: 'assistant',
      model: 'ratchet-probe',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  })
  if (call) {
    send('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: call.id, name: 'Bash', input: {} },
    })
    send('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: {
        type: 'input_json_delta',
        partial_json: JSON.stringify({ command: call.command, description: 'Ratchet floor probe' }),
      },
    })
  } else {
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })
    send('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'Probe done.' },
    })
  }
  send('content_block_stop', { type: 'content_block_stop', index: 0 })
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: 5 },
  })
  send('message_stop', { type: 'message_stop' })
  res.end()
}

/** One probe's outcome in words, for doctor and `ratchet floor probe`. */
export function probeLine(c: ProbeResult['checks'][number]): string {
  return `${c.name}: ${c.outcome === 'held' ? 'refused by the OS' : c.outcome === 'open' ? 'it WORKED: the floor does not hold' : `no answer (${c.detail})`}`
}
