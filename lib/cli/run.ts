// The one entry point every CLI goes through (ratchet, pause-and-ask, pattern-detect): parse, run,
// and turn whatever was thrown into one line on stderr and a stable exit status (lib/core/errors.ts).
// No stack trace ever reaches the terminal or the agent's context; an unexpected error's stack goes to
// the state folder's errors.log.

import fs from 'node:fs'
import { CommanderError, type Command } from 'commander'
import { EXIT_CODES, RatchetError, oneLine } from '../core/errors'
import { findClaudeAncestor, isClaudeCli } from '../io/proc'
import { terminalVerdict } from '../io/live-sessions'
import { resolvePaths } from '../io/paths'

/**
 * On every (sub)command: commander's own usage errors come back here as exceptions instead of exiting,
 * and it prints none of them itself, so each is reported in the same one-line form as ours.
 */
function overrideExits(c: Command): void {
  c.exitOverride()
    .showHelpAfterError(false)
    .configureOutput({ outputError: () => {} })
  for (const sub of c.commands) overrideExits(sub)
}

/**
 * A reader that went away (`ratchet pending list | head -1`) or an output that broke ends the command quietly, as
 * `git log | head` does: what was asked is done, only the rest of the printing is dropped. Without this, Node turns
 * the stream's EPIPE into an uncaught error whose stack names the install's own paths.
 */
export function endQuietlyOnStreamErrors(name: string): void {
  for (const s of [process.stdout, process.stderr]) {
    s.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE' && s === process.stdout) {
        try {
          fs.writeSync(2, `${name}: cannot write the output (${e.code ?? e.message})\n`)
        } catch {
          /* stderr is gone too */
        }
      }
      process.exit(e.code === 'EPIPE' ? Number(process.exitCode ?? 0) : EXIT_CODES.internal)
    })
  }
}

export async function runCli(name: string, program: Command, argv: string[]): Promise<void> {
  endQuietlyOnStreamErrors(name)
  overrideExits(program)
  try {
    await program.parseAsync(argv)
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version exit 0; help shown for a missing subcommand is already on stderr.
      if (e.exitCode !== 0 && e.code !== 'commander.help')
        process.stderr.write(`${name}: ${e.message.replace(/^error: /, '')} (see ${name} --help)\n`)
      process.exitCode = e.exitCode === 0 ? 0 : EXIT_CODES.usage
      return
    }
    const r = oneLine(e)
    if (r.internal) {
      try {
        const { logError } = await import('../io/activity')
        const { resolvePaths } = await import('../io/paths')
        logError(resolvePaths(), name, e)
      } catch {
        /* the error log is best effort */
      }
    }
    process.stderr.write(`${name}: ${r.line}\n`)
    process.exitCode = r.exitCode
  }
}

/**
 * Decisions, rules and registrations are the user's. preflight-check denies these commands to the agent, in every
 * spelling it can read (detached ones included: setsid, nohup, at, crontab, tmux, screen, script…). This catches
 * what it cannot read, in three layers:
 * - CLAUDECODE=1, which Claude Code puts in every command's environment (the agent can unset it);
 * - on Linux, a `claude` process among this process's ancestors, which no environment spelling removes;
 * - on Linux, while a Claude Code session with Ratchet's hooks is alive for this project (session-start records it:
 *   lib/io/live-sessions.ts), a terminal of this command's own: a command the agent detached (setsid, nohup, at,
 *   cron, systemd-run, a double fork) is reparented away from claude, but it has no controlling terminal, or has
 *   claude's. A human types in another terminal. `terminal: false` for the heartbeat, which cron runs.
 * What still passes: a detached program that allocates a new terminal (script, tmux, screen, expect) in a spelling
 * the hook cannot read. Without /proc (macOS, Windows) only CLAUDECODE and the hook remain.
 */
export function humanOnly(
  what: string,
  env: NodeJS.ProcessEnv = process.env,
  ancestors: () => string | undefined = claudeAncestor,
  live: () => string | undefined = liveSessionWithoutTerminal,
): void {
  const by = env.CLAUDECODE === '1' ? 'CLAUDECODE=1' : (ancestors() ?? live())
  if (by)
    throw new RatchetError(
      'conflict',
      `${what} is the user's to run, in a terminal outside the agent's session (refused inside Claude Code: ${by})`,
    )
}

/** Why a live Claude Code session means this command is not a human's, or undefined (see humanOnly). */
export function liveSessionWithoutTerminal(): string | undefined {
  return terminalVerdict(resolvePaths())
}

/** The first ancestor that is the Claude Code CLI, as `pid N: claude …`, or undefined (lib/io/proc.ts). */
export function claudeAncestor(start = process.ppid, proc = '/proc'): string | undefined {
  const c = findClaudeAncestor(start, proc)
  return c ? `pid ${c.pid}: ${c.argv.slice(0, 2).join(' ').slice(0, 120)}` : undefined
}

export { isClaudeCli }

/** Who is deciding at this terminal, for the record ("terminal:<user>"): the account, not $USER (which may be unset). */
export function terminalUser(): string {
  try {
    return require('node:os').userInfo().username || process.env.USER || 'unknown'
  } catch {
    return process.env.USER || process.env.LOGNAME || 'unknown'
  }
}
