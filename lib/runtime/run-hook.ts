// Runs one hook invocation: read stdin → validate → handle within a time budget → render.
//
// Claude Code treats a crash, exit 1 or a kill at the timeout as "carry on" (fail open). So the
// runtime always decides something itself: if the handler throws or overruns its budget, the hook's
// declared failure policy decides, the human gets one line on stderr, and the stack goes to the log.

import type { Decision } from '../core/decision'
import { parsePayload, type HookPayload } from '../core/payloads'
import { render, renderBlockingError, renderNotice, oneLine, type Rendered } from './render'
import { readStdinSync, stdinIsTerminal, writeAll } from './stdio'

export interface HookIO {
  readStdin(): Promise<string>
  stdinIsTTY: boolean
  argv: string[]
  write(r: Rendered): void
  /** Ends the process now (used only when the budget runs out while work is stuck). */
  exitNow(code: number): void
  logError(hook: string, error: unknown): void
  /**
   * Decide by the failure policy without running the handler, for this reason: the call was already tried
   * elsewhere (the warm process, lib/runtime/warm.ts) and overran, so running it again would overrun too.
   */
  failNow?: string
}

export interface HookSpec {
  name: string
  /** What `--help` prints. */
  help: string
  /** Events this hook handles; any other is ignored (exit 0, one line on stderr). */
  events: readonly string[]
  /** Time the handler may take; keep it well under the registered timeout. */
  budgetMs: number
  /** When stdin is not a usable payload: block (exit 2) or let it pass with a notice. */
  onMalformed: 'block' | 'allow'
  /** The decision when the handler throws or overruns. */
  onFailure(payload: HookPayload, why: string): Decision
  handle(payload: HookPayload): Decision | Promise<Decision>
}

export async function runHook(spec: HookSpec, io: HookIO): Promise<void> {
  if (io.argv.includes('--help') || io.argv.includes('-h') || io.stdinIsTTY) {
    io.write({ exitCode: 0, stdout: spec.help.trimEnd() + '\n', stderr: '' })
    return
  }
  let timer: NodeJS.Timeout | undefined
  let settled = false
  const finish = (r: Rendered) => {
    if (settled) return
    settled = true
    if (timer) clearTimeout(timer)
    io.write(r)
  }

  let payload: HookPayload | undefined
  const budget = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), spec.budgetMs)
    timer.unref?.()
  })

  const failed = (why: string, error?: unknown): Rendered => {
    if (error !== undefined) io.logError(spec.name, error)
    if (!payload) return renderBlockingError(`ratchet ${spec.name}: ${why}; blocked to be safe`)
    const r = render(payload.hook_event_name, spec.onFailure(payload, why))
    return { ...r, stderr: r.stderr + oneLine(`ratchet ${spec.name}: ${why}`) + '\n' }
  }

  const work = (async (): Promise<Rendered> => {
    const text = await io.readStdin()
    const parsed = parsePayload(text)
    if (!parsed.ok) {
      const line = `ratchet ${spec.name}: ${parsed.error.message}`
      return spec.onMalformed === 'block' ? renderBlockingError(`${line}; blocked to be safe`) : renderNotice(line)
    }
    payload = parsed.value
    if (!spec.events.includes(payload.hook_event_name))
      return renderNotice(
        `ratchet ${spec.name}: ignoring ${payload.hook_event_name} (handles ${spec.events.join(', ')})`,
      )
    if (io.failNow) return failed(io.failNow)
    return render(payload.hook_event_name, await spec.handle(payload))
  })()

  try {
    const outcome = await Promise.race([work, budget])
    if (outcome === 'timeout') {
      finish(failed(`ran out of its ${spec.budgetMs} ms budget`))
      io.exitNow(0)
      return
    }
    finish(outcome)
  } catch (e) {
    const missing = !!(e as { incompleteInstall?: unknown })?.incompleteInstall
    finish(
      failed(
        missing
          ? oneLine((e as Error).message)
          : `internal error: ${oneLine((e as Error)?.message ?? String(e))} (details in the state folder's errors.log)`,
        e,
      ),
    )
  }
}

/**
 * The real process edges, for the executables. `stdin`: the payload when something read it already (the
 * fast path reads it first and hands it on when it cannot settle the call).
 */
export function processIO(logError: (hook: string, e: unknown) => void, stdin?: string): HookIO {
  return {
    stdinIsTTY: stdin === undefined && stdinIsTerminal(),
    argv: process.argv.slice(2),
    readStdin: async () => {
      if (stdin !== undefined) return stdin
      const text = readStdinSync()
      if (text !== undefined) return text
      // A non-blocking pipe: fall back to the stream reader.
      return new Promise((resolve, reject) => {
        const chunks: Buffer[] = []
        process.stdin.on('data', (c: Buffer) => chunks.push(c))
        process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
        process.stdin.on('error', reject)
      })
    },
    write: (r) => {
      if (r.stdout) writeAll(1, r.stdout)
      if (r.stderr) writeAll(2, r.stderr)
      process.exitCode = r.exitCode
    },
    exitNow: (code) => process.exit(process.exitCode ?? code),
    logError,
  }
}
