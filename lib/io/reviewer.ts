// custodiet's reviewer backends. Each takes the prompt and returns the model's text (and token use):
//   claude   headless Claude Code: `claude -p --model haiku --output-format json --max-turns 1 --tools ""`
//            with `--settings {"disableAllHooks":true}` so the child cannot run our hooks again;
//   http     the Anthropic Messages API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL), model configurable;
//   command  any command that reads the prompt on stdin and prints the verdict (local models).
// Always bounded by a timeout; a hung reviewer is killed and reported, never waited on forever.

import { execa } from 'execa'
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
}

/** Marks the reviewer's own processes: our hooks step aside if they ever run inside it. */
const REVIEWER_ENV = 'RATCHET_REVIEWER'

export async function runReviewer(cfg: ReviewerConfig, system: string, prompt: string, env: NodeJS.ProcessEnv = process.env): Promise<ReviewOutput> {
  const timeout = (cfg.timeoutSeconds ?? 60) * 1000
  const childEnv = { ...env, [REVIEWER_ENV]: '1' }
  try {
    switch (cfg.kind) {
      case 'claude': {
        const args = ['-p', '--model', cfg.model ?? 'haiku', '--output-format', 'json', '--max-turns', '1', '--tools', '', '--no-session-persistence', '--settings', '{"disableAllHooks":true}', '--system-prompt', system]
        const r = await execa(cfg.claudePath ?? 'claude', args, { input: prompt, env: childEnv, timeout, reject: false, extendEnv: false, forceKillAfterDelay: 2000 })
        if (r.timedOut) throw new RatchetError('reviewer_timeout', `claude reviewer timed out after ${timeout / 1000}s`)
        let out: { result?: string; is_error?: boolean; usage?: { input_tokens?: number; output_tokens?: number }; subtype?: string }
        try {
          out = JSON.parse(r.stdout)
        } catch {
          throw new RatchetError('reviewer', `claude reviewer printed no JSON (exit ${r.exitCode}): ${oneLine(r.stderr || r.stdout).slice(0, 200)}`)
        }
        if (out.is_error || typeof out.result !== 'string') throw new RatchetError('reviewer', `claude reviewer failed: ${out.subtype ?? 'error'} ${oneLine(String(out.result ?? '')).slice(0, 200)}`)
        return { text: out.result, input_tokens: out.usage?.input_tokens, output_tokens: out.usage?.output_tokens }
      }
      case 'http': {
        const base = (env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com').replace(/\/+$/, '')
        const key = env.ANTHROPIC_API_KEY
        if (!key) throw new RatchetError('reviewer', 'ANTHROPIC_API_KEY is not set for the http reviewer')
        const res = await fetch(`${base}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
          body: JSON.stringify({ model: cfg.model ?? 'claude-haiku-4-5', max_tokens: cfg.maxTokens ?? 400, system, messages: [{ role: 'user', content: prompt }] }),
          signal: AbortSignal.timeout(timeout),
        })
        const body = (await res.json().catch(() => ({}))) as { content?: { type: string; text?: string }[]; usage?: { input_tokens?: number; output_tokens?: number }; error?: { message?: string } }
        if (!res.ok) throw new RatchetError('reviewer', `reviewer API answered ${res.status}: ${body.error?.message ?? ''}`.trim())
        return { text: (body.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('\n'), input_tokens: body.usage?.input_tokens, output_tokens: body.usage?.output_tokens }
      }
      case 'command': {
        if (!cfg.command) throw new RatchetError('reviewer', 'reviewer.kind is "command" but reviewer.command is empty')
        const r = await execa(cfg.command, { shell: true, input: `${system}\n\n${prompt}`, env: childEnv, timeout, reject: false, forceKillAfterDelay: 2000 })
        if (r.timedOut) throw new RatchetError('reviewer_timeout', `reviewer command timed out after ${timeout / 1000}s`)
        if (r.exitCode !== 0) throw new RatchetError('reviewer', `reviewer command exited ${r.exitCode}: ${oneLine(r.stderr).slice(0, 200)}`)
        return { text: r.stdout }
      }
      default:
        throw new RatchetError('reviewer', 'no reviewer configured')
    }
  } catch (e) {
    if (e instanceof RatchetError) throw e
    const err = e as Error & { name?: string }
    if (err.name === 'TimeoutError' || err.name === 'AbortError') throw new RatchetError('reviewer_timeout', `reviewer timed out after ${timeout / 1000}s`)
    throw new RatchetError('reviewer', `reviewer failed: ${oneLine(err.message ?? String(e)).slice(0, 200)}`)
  }
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim()
