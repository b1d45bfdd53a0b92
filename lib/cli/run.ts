// The one entry point every CLI goes through (ratchet, pause-and-ask, pattern-detect): parse, run,
// and turn whatever was thrown into one line on stderr and a stable exit status (lib/core/errors.ts).
// No stack trace ever reaches the terminal or the agent's context; an unexpected error's stack goes to
// the state folder's errors.log.

import { CommanderError, type Command } from 'commander'
import { EXIT_CODES, RatchetError, oneLine } from '../core/errors'
import { parentPid } from '../io/proc'

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
 * variable) when they run inside a Claude Code session. Two signals: CLAUDECODE=1, which Claude Code puts
 * in every command's environment (the agent can unset it: `env -u CLAUDECODE`, `CLAUDECODE= `, `env -i`),
 * and, on Linux, a `claude` process among this process's ancestors, which the agent cannot unset. Defence
 * in depth, not a boundary: a command that detaches from its parents (`setsid … &` in a subshell that
 * exits first, `at`, `systemd-run`) is reparented away from claude; the hook is what stops those.
 */
export function humanOnly(what: string, env: NodeJS.ProcessEnv = process.env, ancestors: () => string | undefined = claudeAncestor): void {
  const by = env.CLAUDECODE === '1' ? 'CLAUDECODE=1' : ancestors()
  if (by) throw new RatchetError('conflict', `${what} is the user's to run, in a terminal outside the agent's session (refused inside Claude Code: ${by})`)
}

/** How many parents are looked at: a shell, a wrapper or two, npx, node… claude is never far up. */
const MAX_ANCESTORS = 32

/**
 * The first ancestor that is the Claude Code CLI (`pid N: claude …`), or undefined. Reads /proc/<pid>/stat
 * (the parent pid) and /proc/<pid>/cmdline; on other platforms there is no /proc and this finds nothing, so
 * only CLAUDECODE is checked there (macOS and Windows lose this signal). Costs well under a millisecond
 * for a typical chain (`npm run bench` is not needed: it runs only for the deciding commands).
 */
export function claudeAncestor(start = process.ppid, proc = '/proc'): string | undefined {
  const fs = require('node:fs') as typeof import('node:fs')
  let pid = start
  for (let i = 0; i < MAX_ANCESTORS && pid > 1; i++) {
    let argv: string[]
    try {
      argv = fs.readFileSync(`${proc}/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    } catch {
      return undefined
    }
    if (isClaudeCli(argv)) return `pid ${pid}: ${argv.slice(0, 2).join(' ').slice(0, 120)}`
    const ppid = parentPid(pid, proc)
    if (ppid === pid) return undefined
    pid = ppid
  }
  return undefined
}

/** The Claude Code CLI: the native `claude` binary (claude.exe in the npm package), or node running its cli.js. */
export function isClaudeCli(argv: string[]): boolean {
  const base = (s: string | undefined) => (s ?? '').slice((s ?? '').lastIndexOf('/') + 1)
  if (/^claude(\.exe)?$/.test(base(argv[0]))) return true
  return /^(node|nodejs|bun)$/.test(base(argv[0])) && /@anthropic-ai\/claude-code\/(cli\.(m?js)|bin\/claude(\.exe)?)$/.test(argv[1] ?? '')
}
