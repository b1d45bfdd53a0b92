// custodiet's reviewer backends. Each takes the prompt and returns the model's text (and token use):
//   claude   Claude with claude's own login. Where the environment holds the key `claude -p` would use
//            (ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, no Bedrock/Vertex/Foundry), the Messages API is called
//            with it directly: the same account, model and answer, without starting the client (~0.9 s of CPU
//            per review on the cores the session runs on; bench/reviewer-cpu.ts). Otherwise, or with
//            `"via": "cli"`, headless Claude Code: `claude -p --model haiku --output-format json --max-turns 1
//            --tools ""` with `--settings {"disableAllHooks":true}` so the child cannot run our hooks again;
//   http     the Anthropic Messages API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL), model configurable;
//   command  any command that reads the prompt on stdin and prints the verdict (local models).
// Always bounded by a timeout; a hung reviewer is killed with its whole process group (claude -p
// starts children of its own) and reported, never waited on forever.

import { spawn } from 'node:child_process'
import http from 'node:http'
import https from 'node:https'
import { RatchetError } from '../core/errors'

export interface ReviewerConfig {
  kind: 'claude' | 'http' | 'command' | 'none'
  /** For `claude`: "cli" always starts `claude -p`; "auto" (the default) calls the API when claude's key is at hand. */
  via?: 'auto' | 'cli'
  model?: string
  command?: string
  claudePath?: string
  timeoutSeconds?: number
  maxTokens?: number
}

export interface ReviewOutput {
  text: string
  input_tokens?: number
  output_tokens?: number
  /** What the reviewer reports it cost (claude -p prints total_cost_usd). */
  usd?: number
}

interface Ran {
  stdout: string
  stderr: string
  exitCode: number | null
  timedOut: boolean
}

/** Runs a command in its own process group; at the timeout the whole group is killed. */
export function runGroup(
  cmd: string,
  args: string[],
  o: { input: string; env: NodeJS.ProcessEnv; timeoutMs: number; shell?: boolean },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      env: o.env,
      detached: true,
      shell: o.shell ?? false,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    const killGroup = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig)
      } catch {
        /* already gone */
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      killGroup('SIGTERM')
      setTimeout(() => killGroup('SIGKILL'), 2000).unref()
    }, o.timeoutMs)
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      // Anything the reviewer left behind in its group goes with it.
      killGroup('SIGKILL')
      resolve({ stdout, stderr, exitCode: code, timedOut })
    })
    child.stdin.on('error', () => {})
    child.stdin.end(o.input)
  })
}

/**
 * The client's road: one headless turn with no tools, no session file, and no hooks (the child cannot run ours
 * again), the review's instructions as its whole system prompt; the prompt goes on stdin.
 */
export const claudeArgs = (model: string, system: string): string[] => [
  '-p',
  '--model',
  model,
  '--output-format',
  'json',
  '--max-turns',
  '1',
  '--tools',
  '',
  '--no-session-persistence',
  '--settings',
  '{"disableAllHooks":true}',
  '--system-prompt',
  system,
]

/** Marks the reviewer's own processes: our hooks step aside if they ever run inside it. */
const REVIEWER_ENV = 'RATCHET_REVIEWER'

export async function runReviewer(
  cfg: ReviewerConfig,
  system: string,
  prompt: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ReviewOutput> {
  const timeout = (cfg.timeoutSeconds ?? 60) * 1000
  const childEnv = { ...env, [REVIEWER_ENV]: '1' }
  try {
    switch (cfg.kind) {
      case 'claude': {
        const road = claudeRoad(cfg, env)
        if (road.via === 'api') {
          const r = await messagesApi(road, cfg, system, prompt, timeout)
          // Only a model the API does not know (an alias this table lacks, a proxy's own names) goes to the client,
          // which knows its aliases; any other failure is the review's, as it would be the client's.
          if (r !== 'unknown-model') return r
        }
        const r = await runGroup(cfg.claudePath ?? 'claude', claudeArgs(cfg.model ?? 'haiku', system), {
          input: prompt,
          env: childEnv,
          timeoutMs: timeout,
        })
        if (r.timedOut) throw new RatchetError('reviewer_timeout', `claude reviewer timed out after ${timeout / 1000}s`)
        let out: {
          result?: string
          is_error?: boolean
          usage?: {
            input_tokens?: number
            output_tokens?: number
            cache_read_input_tokens?: number
            cache_creation_input_tokens?: number
          }
          subtype?: string
          total_cost_usd?: number
        }
        try {
          out = JSON.parse(r.stdout)
        } catch {
          throw new RatchetError(
            'reviewer',
            `claude reviewer printed no JSON (exit ${r.exitCode}): ${oneLine(r.stderr || r.stdout).slice(0, 200)}`,
          )
        }
        if (out.is_error || typeof out.result !== 'string')
          throw new RatchetError(
            'reviewer',
            `claude reviewer failed: ${out.subtype ?? 'error'} ${oneLine(String(out.result ?? '')).slice(0, 200)}`,
          )
        const u = out.usage
        return {
          text: out.result,
          input_tokens: u
            ? (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0)
            : undefined,
          output_tokens: u?.output_tokens,
          usd: typeof out.total_cost_usd === 'number' ? out.total_cost_usd : undefined,
        }
      }
      case 'http': {
        const key = env.ANTHROPIC_API_KEY
        if (!key) throw new RatchetError('reviewer', 'ANTHROPIC_API_KEY is not set for the http reviewer')
        const r = await messagesApi(
          { base: apiBase(env), headers: { 'x-api-key': key }, model: httpModel(cfg, env) },
          cfg,
          system,
          prompt,
          timeout,
        )
        if (r === 'unknown-model')
          throw new RatchetError('reviewer', `reviewer API does not know the model ${cfg.model}`)
        return r
      }
      case 'command': {
        if (!cfg.command) throw new RatchetError('reviewer', 'reviewer.kind is "command" but reviewer.command is empty')
        const r = await runGroup(cfg.command, [], {
          shell: true,
          input: `${system}\n\n${prompt}`,
          env: childEnv,
          timeoutMs: timeout,
        })
        if (r.timedOut)
          throw new RatchetError('reviewer_timeout', `reviewer command timed out after ${timeout / 1000}s`)
        if (r.exitCode !== 0)
          throw new RatchetError(
            'reviewer',
            `reviewer command exited ${r.exitCode}: ${oneLine(r.stderr).slice(0, 200)}`,
          )
        return { text: r.stdout }
      }
      default:
        throw new RatchetError('reviewer', 'no reviewer configured')
    }
  } catch (e) {
    if (e instanceof RatchetError) throw e
    throw new RatchetError('reviewer', `reviewer failed: ${oneLine((e as Error)?.message ?? String(e)).slice(0, 200)}`)
  }
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim()

const apiBase = (env: NodeJS.ProcessEnv) => (env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com').replace(/\/+$/, '')

/**
 * Claude Code's model aliases as the client this package supports resolves them (2.1.330: `claude -p --model haiku`
 * asks for claude-haiku-5-5), its ANTHROPIC_DEFAULT_*_MODEL variables winning as they do there.
 * test/e2e/claude-reviewer-aliases.test.ts holds this table to what the installed client asks for.
 */
export const ALIASES: Record<string, { env: string; model: string }> = {
  haiku: { env: 'ANTHROPIC_DEFAULT_HAIKU_MODEL', model: 'claude-haiku-5-5' },
  sonnet: { env: 'ANTHROPIC_DEFAULT_SONNET_MODEL', model: 'claude-sonnet-5-5' },
  opus: { env: 'ANTHROPIC_DEFAULT_OPUS_MODEL', model: 'claude-opus-5-5' },
}

/** The http reviewer's model: the configured one (an alias resolved as claude resolves it), haiku by default. */
export const httpModel = (cfg: ReviewerConfig, env: NodeJS.ProcessEnv): string =>
  modelId(cfg.model ?? 'haiku', env) ?? (cfg.model as string)

/** The API's id for a model named as Claude Code names it: an alias resolved, a full id as it is; else undefined. */
export function modelId(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const alias = ALIASES[name]
  return alias ? env[alias.env] || alias.model : /^claude-/.test(name) ? name : undefined
}

interface ApiRoad {
  via: 'api'
  base: string
  headers: Record<string, string>
  model: string
}

/**
 * How a `claude` reviewer reaches the model: the API, with the key and address `claude -p` would use, when the
 * environment holds them; the client otherwise (a login in its keychain or credentials file, a cloud provider, a
 * model name it alone resolves), or when the configuration says `"via": "cli"`.
 */
export function claudeRoad(cfg: ReviewerConfig, env: NodeJS.ProcessEnv): ApiRoad | { via: 'cli'; why: string } {
  if (cfg.via === 'cli') return { via: 'cli', why: 'custodiet.reviewer.via is "cli"' }
  for (const k of ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY'])
    if (/^(1|true|yes|on)$/i.test(env[k] ?? '')) return { via: 'cli', why: `${k} is set` }
  if (!env.ANTHROPIC_API_KEY && !env.ANTHROPIC_AUTH_TOKEN)
    return { via: 'cli', why: "no ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN: claude's own login" }
  const name = cfg.model ?? 'haiku'
  const model = modelId(name, env)
  if (!model) return { via: 'cli', why: `the model ${JSON.stringify(name)} is a name only claude resolves` }
  const base = apiBase(env)
  // Node's http client does not take a proxy from the environment; the client does, so a proxied API is its road.
  const proxy = proxyFor(base, env)
  if (proxy) return { via: 'cli', why: `${proxy} is set: claude reaches the API through the proxy` }
  // Claude Code's ANTHROPIC_CUSTOM_HEADERS ("Name: value" lines) go along, as the client sends them; the key after
  // them, so a custom header cannot stand in for it.
  const headers: Record<string, string> = {}
  for (const line of (env.ANTHROPIC_CUSTOM_HEADERS ?? '').split('\n')) {
    const m = /^\s*([\w-]+)\s*:\s*(.*?)\s*$/.exec(line)
    if (m) headers[m[1].toLowerCase()] = m[2]
  }
  // Both when both are set, as the client sends them.
  if (env.ANTHROPIC_API_KEY) headers['x-api-key'] = env.ANTHROPIC_API_KEY
  if (env.ANTHROPIC_AUTH_TOKEN) headers.authorization = `Bearer ${env.ANTHROPIC_AUTH_TOKEN}`
  return { via: 'api', base, headers, model }
}

/** The proxy variable that applies to `url`, if one does (NO_PROXY's hosts and domains, or `*`, excepted). */
export function proxyFor(url: string, env: NodeJS.ProcessEnv): string | undefined {
  const host = new URL(url).hostname.toLowerCase()
  const skip = (env.NO_PROXY ?? env.no_proxy ?? '')
    .split(/[\s,]+/)
    .map((x) =>
      x
        .trim()
        .toLowerCase()
        .replace(/^\*?\./, '')
        .replace(/:\d+$/, ''),
    )
    .filter(Boolean)
  if (skip.some((d) => d === '*' || host === d || host.endsWith(`.${d}`))) return undefined
  const https = url.startsWith('https:')
  const names = [
    ...(https ? ['HTTPS_PROXY', 'https_proxy'] : ['HTTP_PROXY', 'http_proxy']),
    ...(https ? ['HTTP_PROXY', 'http_proxy'] : []),
    'ALL_PROXY',
    'all_proxy',
  ]
  return names.find((n) => env[n])
}

/**
 * POSTs JSON and reads the answer, with node's own http(s) client: `fetch` would load undici first, ~80 ms of CPU
 * in a process that exists for this one request.
 */
function postJson(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url)
    const client = u.protocol === 'https:' ? https : http
    const req = client.request(
      u,
      { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
        res.on('error', reject)
      },
    )
    const timer = setTimeout(
      () => req.destroy(new RatchetError('reviewer_timeout', `reviewer timed out after ${timeoutMs / 1000}s`)),
      timeoutMs,
    )
    req.on('close', () => clearTimeout(timer))
    req.on('error', (e: NodeJS.ErrnoException) =>
      reject(
        e instanceof RatchetError
          ? e
          : new RatchetError('reviewer', `reviewer API at ${u.origin}: ${e.code ?? e.message}`),
      ),
    )
    req.end(body)
  })
}

/** One Messages API call; 'unknown-model' when the API answers that the model does not exist. */
async function messagesApi(
  road: Omit<ApiRoad, 'via'>,
  cfg: ReviewerConfig,
  system: string,
  prompt: string,
  timeout: number,
): Promise<ReviewOutput | 'unknown-model'> {
  const res = await postJson(
    `${road.base}/v1/messages`,
    { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...road.headers },
    JSON.stringify({
      model: road.model,
      max_tokens: cfg.maxTokens ?? 400,
      system,
      messages: [{ role: 'user', content: prompt }],
    }),
    timeout,
  )
  let body: {
    content?: { type: string; text?: string }[]
    usage?: { input_tokens?: number; output_tokens?: number }
    error?: { type?: string; message?: string }
  } = {}
  try {
    body = JSON.parse(res.text)
  } catch {
    /* not JSON: said below by the status */
  }
  if (res.status === 404 && body.error?.type === 'not_found_error' && /model/i.test(body.error.message ?? ''))
    return 'unknown-model'
  if (res.status < 200 || res.status > 299)
    throw new RatchetError('reviewer', `reviewer API answered ${res.status}: ${body.error?.message ?? ''}`.trim())
  return {
    text: (body.content ?? [])
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join('\n'),
    input_tokens: body.usage?.input_tokens,
    output_tokens: body.usage?.output_tokens,
  }
}
