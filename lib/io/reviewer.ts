// custodiet's reviewer backends. Each takes the prompt and returns the model's text (and token use):
//   claude   headless Claude Code: `claude -p --model haiku --output-format json --max-turns 1 --tools ""`
//            with `--settings {"disableAllHooks":true}` so the child cannot run our hooks again;
//   http     the Anthropic Messages API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL), model configurable;
//   command  any command that reads the prompt on stdin and prints the verdict (local models).
// Always bounded by a timeout; a hung reviewer is killed with its whole process group (claude -p
// starts children of its own) and reported, never waited on forever.

import { spawn } from 'node:child_process'
import { RatchetError } from '../core/errors'

export interface ReviewerConfig {
  kind: 'claude' | 'http' | 'command' | 'none'
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
        const args = [
          '-p',
          '--model',
          cfg.model ?? 'haiku',
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
        const r = await runGroup(cfg.claudePath ?? 'claude', args, { input: prompt, env: childEnv, timeoutMs: timeout })
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
        const base = (env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com').replace(/\/+$/, '')
        const key = env.ANTHROPIC_API_KEY
        if (!key) throw new RatchetError('reviewer', 'ANTHROPIC_API_KEY is not set for the http reviewer')
        const res = await fetch(`${base}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
          body: JSON.stringify({
            model: cfg.model ?? 'claude-haiku-4-5',
            max_tokens: cfg.maxTokens ?? 400,
            system,
            messages: [{ role: 'user', content: prompt }],
          }),
          signal: AbortSignal.timeout(timeout),
        })
        const body = (await res.json().catch(() => ({}))) as {
          content?: { type: string; text?: string }[]
          usage?: { input_tokens?: number; output_tokens?: number }
          error?: { message?: string }
        }
        if (!res.ok)
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
    const err = e as Error & { name?: string }
    if (err.name === 'TimeoutError' || err.name === 'AbortError')
      throw new RatchetError('reviewer_timeout', `reviewer timed out after ${timeout / 1000}s`)
    throw new RatchetError('reviewer', `reviewer failed: ${oneLine(err.message ?? String(e)).slice(0, 200)}`)
  }
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim()
