// `ratchet` — the admin CLI. A thin layer: each command loads its module only when it runs.

import { Command, Option } from 'commander'
import { CliError } from './errors'

const collect = (v: string, prev: string[] = []) => [...prev, ...v.split(',').map((s) => s.trim()).filter(Boolean)]

export function buildProgram(): Command {
  const program = new Command('ratchet')
    .description('Behavioural guardrails for AI coding agents, as Claude Code hooks.')
    .version(require('../../package.json').version, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Quick start:
  npx ratchet init            register the hooks in .claude/settings.json and create .ratchet/
  ratchet guardrails list     what is enforced
  ratchet guardrails explain --command "git push origin main"

State folder: $RATCHET_DIR, else $CLAUDE_PROJECT_DIR/.ratchet, else ./.ratchet`,
    )

  program
    .command('init')
    .description('register Ratchet\'s hooks in Claude Code settings and create the state folder (idempotent)')
    .addOption(new Option('--user', 'register in ~/.claude/settings.json').conflicts('local'))
    .option('--local', 'register in .claude/settings.local.json (personal, not committed)')
    .option('--project-dir <dir>', 'the project to set up', process.cwd())
    .option('--dry-run', 'print the settings that would be written, change nothing')
    .action(async (o) => (await import('./install')).init(o))

  program
    .command('uninstall')
    .description('remove Ratchet\'s hooks from Claude Code settings (keeps the state folder and other hooks)')
    .addOption(new Option('--user', 'from ~/.claude/settings.json').conflicts('local'))
    .option('--local', 'from .claude/settings.local.json')
    .option('--project-dir <dir>', 'the project', process.cwd())
    .action(async (o) => (await import('./install')).uninstall(o))

  const g = program.command('guardrails').description('list, add and explain guardrails')
  g.command('list')
    .description('the rules in force, hard first, with how often each fired')
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./guardrails')).list(o))
  g.command('add')
    .description('add a guardrail to the project\'s guardrails.json')
    .requiredOption('--rule <text>', 'what the agent must do (shown in the PRE-FLIGHT note)')
    .option('--pattern <name>', 'a detector: an action class (public_surface, irreversible, …) or a named pattern (git_push, …)')
    .option('--id <id>', 'rule id (default: the next GR-NNN)')
    .option('--trigger <text>', 'when it applies, in words')
    .option('--check <text>', 'the question the agent must answer before proceeding')
    .option('--source <text>', 'where it came from, e.g. INC-007')
    .addOption(new Option('--severity <level>', 'hard (deny) or soft (check)').choices(['hard', 'soft']).default('soft'))
    .addOption(new Option('--decision <d>', 'override the default from severity').choices(['warn', 'check', 'ask', 'pause', 'deny']))
    .option('--tools <globs>', 'tool names to match, comma-separated (Bash, mcp__github__*)', collect)
    .option('--command <globs>', 'command globs to match; * matches anything ("git push*")', collect)
    .option('--paths <globs>', 'file path globs (src/**, **/.env)', collect)
    .option('--urls <globs>', 'URL globs (https://api.example.com/*)', collect)
    .option('--json', 'print the added rule as JSON')
    .action(async (o) => (await import('./guardrails')).add(o))
  g.command('explain')
    .description('show which classes and rules a tool call triggers, and why (changes nothing)')
    .argument('[payload]', 'a PreToolUse hook payload: a JSON file, or - for stdin')
    .option('--command <cmd>', 'explain a Bash command')
    .option('--tool <name>', 'tool name for --input', 'Bash')
    .option('--input <json>', 'tool_input as JSON, e.g. \'{"file_path":"/p/a.txt","content":"x"}\'')
    .option('--session <id>', 'use this session\'s recorded reads and prompts')
    .option('--json', 'machine-readable output')
    .action(async (payload, o) => (await import('./guardrails')).explain(payload, o))
  g.command('patterns')
    .description('the detectors a guardrail\'s pattern can name')
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./guardrails')).patterns(o))

  program
    .command('doctor')
    .description('check the install: hooks registered, state readable, hook start-up time')
    .option('--project-dir <dir>', 'the project', process.cwd())
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./doctor')).doctor(o))

  program
    .command('heartbeat')
    .description('apply approval timeouts, send and retry Telegram notifications, read replies (for cron)')
    .option('--watch', 'keep running, long-polling Telegram so an approval lands within seconds')
    .option('--seconds <n>', 'with --watch: stop after this many seconds')
    .option('--cron-line', 'print a crontab entry for this project and exit')
    .option('--notify <id>', 'only send the notification for this queued action (used by the hooks)')
    .option('--json', 'machine-readable report')
    .action(async (o) => (await import('./approvals')).heartbeat(o))

  const pending = program.command('pending').description('the approval queue (pending-actions.json): list, show, approve, deny')
  pending
    .command('list')
    .description('actions waiting for a decision')
    .option('--all', 'include decided, timed-out and consumed ones')
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./approvals')).pendingList(o))
  pending
    .command('show')
    .argument('<id>')
    .description('one queued action in full')
    .option('--json', 'machine-readable output')
    .action(async (id, o) => (await import('./approvals')).pendingShow(id, o))
  pending
    .command('approve')
    .argument('<id>')
    .option('--note <text>', 'instructions passed to the agent')
    .description('approve a pending action (the agent may then do exactly that action, once)')
    .action(async (id, o) => (await import('./approvals')).pendingDecide(id, 'approved', o))
  pending
    .command('deny')
    .argument('<id>')
    .option('--note <text>', 'what to do instead, passed to the agent')
    .description('deny a pending action')
    .action(async (id, o) => (await import('./approvals')).pendingDecide(id, 'denied', o))

  program
    .command('custodiet')
    .description('the ultra vires watchdog')
    .command('status')
    .description('per session: the request (authority envelope), tool calls, reviews, findings, reviewer cost')
    .option('--session <id>', 'one session')
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./custodiet')).status(o))

  program
    .command('log')
    .description('the most recent hook decisions from the activity log')
    .option('-n, --lines <n>', 'how many', '20')
    .option('--json', 'print raw JSON lines')
    .action(async (o) => (await import('./guardrails')).log(o))

  return program
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram()
  try {
    await program.parseAsync(argv)
  } catch (e) {
    if (e instanceof CliError) {
      process.stderr.write(`ratchet: ${e.message}\n`)
      process.exitCode = e.exitCode
      return
    }
    process.stderr.write(`ratchet: ${(e as Error).message ?? e}\n`)
    process.exitCode = 1
  }
}
