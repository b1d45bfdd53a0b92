// The one error Ratchet raises on purpose. Each has a stable code; every CLI turns it into one line on
// stderr and the code's exit status (lib/cli/run.ts). Anything else that escapes is a bug: reported as
// "internal error" in one line, exit 1, with the stack only in the state folder's errors.log.

export const EXIT_CODES = {
  internal: 1,
  /** Bad arguments or options: the command was not understood. */
  usage: 2,
  /** A hook's stdin is not a Claude Code hook payload (not JSON, unknown event, a field of the wrong type). */
  payload_invalid: 2,
  /** An id, session, incident or proposal that does not exist. */
  not_found: 4,
  /** The thing exists but is in the wrong state (already decided, already closed, duplicate id). */
  conflict: 5,
  /** Another process held a state file's lock too long: try again. */
  state_lock: 6,
  /** A machine-written or human-edited state file does not parse or validate. */
  state_corrupt: 6,
  /** A state path that is not a regular file (FIFO, device, socket), or cannot be opened. */
  state_unreadable: 6,
  /** guardrails.json has rules that do not validate. */
  rules_invalid: 7,
  /** A Claude Code settings file Ratchet must edit is not valid. */
  settings_invalid: 7,
  /** The hooks are not built or not where the registration points. */
  not_installed: 7,
  /** custodiet's reviewer did not answer in time. */
  reviewer_timeout: 8,
  /** custodiet's reviewer failed or is misconfigured. */
  reviewer: 8,
  /** The Telegram Bot API refused or could not be reached. */
  telegram: 8,
  /** Another remote endpoint (a courtroom submission) refused or could not be reached. */
  remote: 8,
} as const

export type ErrorCode = keyof typeof EXIT_CODES

export class RatchetError extends Error {
  readonly code: ErrorCode
  /** The file the error is about, when there is one (already named in the message). */
  readonly file?: string

  constructor(code: ErrorCode, message: string, opts: { file?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.name = 'RatchetError'
    this.code = code
    this.file = opts.file
  }

  get exitCode(): number {
    return EXIT_CODES[this.code]
  }
}

/**
 * What a fallible step returns when failing is an expected outcome, not a bug: reading a state file,
 * parsing a hook payload or a reviewer's verdict, deciding a pending action. One shape everywhere, so a
 * caller that cannot go on just throws `r.error` (its code picks the exit status) and one that can
 * shows `r.error.message` (one line naming what and where).
 */
export type Result<T> = { ok: true; value: T } | { ok: false; error: RatchetError }

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value })
export const fail = (
  code: ErrorCode,
  message: string,
  opts: { file?: string } = {},
): { ok: false; error: RatchetError } => ({ ok: false, error: new RatchetError(code, message, opts) })

/** One line, never a stack: what went wrong, for the person at the terminal (or the agent). */
export function oneLine(e: unknown): { line: string; exitCode: number; internal: boolean } {
  if (e instanceof RatchetError) return { line: flat(e.message), exitCode: e.exitCode, internal: false }
  const msg = e instanceof Error ? e.message : String(e)
  // A file of the install missing (lib/runtime/loader.ts): said as it is, with what to do.
  if (e instanceof Error && (e as { incompleteInstall?: unknown }).incompleteInstall)
    return { line: flat(msg), exitCode: EXIT_CODES.internal, internal: false }
  // The floor refusing a write (a command run inside Claude Code's sandbox): not a bug, said as what it is.
  const code = (e as { code?: unknown } | undefined)?.code
  if (code === 'EROFS' || code === 'EBUSY') {
    const file = (e as { path?: unknown }).path
    return {
      line: `cannot write${typeof file === 'string' ? ` ${file}` : ''}: it is read-only here (inside Claude Code's sandbox, Ratchet's files are the user's to change, from a terminal of their own)`,
      exitCode: EXIT_CODES.state_unreadable,
      internal: false,
    }
  }
  return { line: `internal error: ${flat(msg)}`, exitCode: EXIT_CODES.internal, internal: true }
}

// Lines trimmed and joined by a loop: /\s*\n\s*/g is quadratic on a long run of spaces (a message may quote input).
const flat = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ')
