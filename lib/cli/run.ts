// The one entry point every CLI goes through (ratchet, pause-and-ask, pattern-detect): parse, run,
// and turn whatever was thrown into one line on stderr and a stable exit status (lib/core/errors.ts).
// No stack trace ever reaches the terminal or the agent's context; an unexpected error's stack goes to
// the state folder's errors.log.

import { CommanderError, type Command } from 'commander'
import { EXIT_CODES, RatchetError, oneLine } from '../core/errors'

/**
 * On every (sub)command: commander's own usage errors come back here as exceptions instead of exiting,
 * and it prints none of them itself, so each is reported in the same one-line form as ours.
 */
function overrideExits(c: Command): void {
  c.exitOverride().showHelpAfterError(false).configureOutput({ outputError: () => {} })
  for (const sub of c.commands) overrideExits(sub)
}

export async function runCli(name: string, program: Command, argv: string[]): Promise<void> {
  overrideExits(program)
  try {
    await program.parseAsync(argv)
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version exit 0; help shown for a missing subcommand is already on stderr.
      if (e.exitCode !== 0 && e.code !== 'commander.help') process.stderr.write(`${name}: ${e.message.replace(/^error: /, '')} (see ${name} --help)\n`)
      process.exitCode = e.exitCode === 0 ? 0 : EXIT_CODES.usage
      return
    }
    const r = oneLine(e)
    if (r.internal) {
      try {
        const { logError, resolvePaths } = await import('../io/state')
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
 * Decisions, rules and registrations are the user's. preflight-check denies these commands to the agent;
 * this catches the spellings it cannot read (the bundle's loader required from `node -e`, a path in a
 * variable) when they run inside a Claude Code session, which marks every command it runs with
 * CLAUDECODE=1. Defence in depth, not a boundary: an agent that unsets the variable gets past it.
 */
export function humanOnly(what: string, env: NodeJS.ProcessEnv = process.env): void {
  if (env.CLAUDECODE === '1') throw new RatchetError('conflict', `${what} is the user's to run, in a terminal outside the agent's session (refused inside Claude Code)`)
}
