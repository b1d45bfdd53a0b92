// `ratchet` — the admin CLI. A thin layer: each command loads its module only when it runs.

import { Command, Option } from 'commander'
import { humanOnly, runCli } from './run'
import { findProject } from '../io/project'
import { RatchetError } from '../core/errors'
import { CLI } from '../core/manifest'

const PROJECT_DIR_HELP = 'the project (default: found from here, as git finds a repository)'

/** Commands that write the project's state: refused where no project is found (see findProject). */
const RECORDS = new Set([
  'heartbeat',
  'pending approve',
  'pending deny',
  'custodiet release',
  'courtroom enable',
  'courtroom hear',
  'courtroom clear',
  'courtroom calibrate',
  'guardrails add',
  'incident add',
  'incident close',
  'proposals approve',
  'proposals reject',
  'report label',
  'floor confirm',
])

/** `pending approve` for the pending command's approve subcommand. */
const commandPath = (c: Command): string => (c.parent?.parent ? `${commandPath(c.parent)} ${c.name()}` : c.name())

const collect = (v: string, prev: string[] = []) => [
  ...prev,
  ...v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
]

export function buildProgram(): Command {
  const program = new Command(CLI)
    .description('Behavioural guardrails for AI coding agents, as Claude Code hooks.')
    .version(require('../../package.json').version, '-V, --version')
    .addHelpText(
      'after',
      `
Quick start:
  npx ratchet-guard install          add it to package.json, register the hooks, turn on the floor
  npx ratchet-guard doctor           prove the install
  npx ratchet-guard guardrails explain --command "git push origin main"

The project: $CLAUDE_PROJECT_DIR, else found from the current folder as git finds a repository (the outermost
folder up to the git toplevel holding .ratchet/ or registering Ratchet's hooks), else the current folder.
State folder: $RATCHET_DIR, else <project>/.ratchet`,
    )
    // Every command that takes --project-dir defaults to the project found from here, so any subfolder works.
    .hook('preAction', (_, action) => {
      if (
        action.options.some((x) => x.attributeName() === 'projectDir') &&
        action.getOptionValue('projectDir') === undefined
      )
        action.setOptionValue('projectDir', findProject().dir)
      // A command that records something, run where there is no project, would leave a stray state folder there.
      if (RECORDS.has(commandPath(action)) && !process.env.RATCHET_DIR && findProject().by === 'none')
        throw new RatchetError(
          'not_found',
          `no Ratchet project in ${process.cwd()} or a folder above it (up to the git toplevel): run this in the project, or \`${CLI} init\` there first`,
        )
    })

  program
    .command('init')
    .description(
      "register Ratchet's hooks in Claude Code settings, turn on the OS floor (Claude Code's sandbox and permission rules), and create the state folder (idempotent)",
    )
    .addOption(
      new Option('--user', 'register in ~/.claude/settings.json (every project)').conflicts(['local', 'managed']),
    )
    .addOption(
      new Option('--local', 'register in .claude/settings.local.json (personal, not committed)').conflicts('managed'),
    )
    .option(
      '--managed',
      "register in Claude Code's managed settings (root): no project or user setting can switch the hooks or the floor off",
    )
    .option(
      '--no-sandbox',
      'best-effort mode: no OS sandbox for commands (only the file tools are held by permission rules); named in every session',
    )
    .addOption(
      new Option(
        '--transport <kind>',
        'how Claude Code reaches the guard: command (a process per call) or http (the resident service; faster, but see docs/threat-model.md)',
      )
        .choices(['command', 'http'])
        .default('command'),
    )
    .option('--project-dir <dir>', 'the project to set up (default: the project found from here, else this folder)')
    .option('--dry-run', 'print the settings that would be written, change nothing')
    .option('--json', 'machine-readable output')
    .action(async (o) => (humanOnly(`${CLI} init`), (await import('./install')).init(o)))

  program
    .command('install')
    .description(
      "make Ratchet this project's own dependency (so a teammate's clone gets it with npm install), then init: hooks, the OS floor, the state folder (idempotent)",
    )
    .option('--user', 'every project of yours: a global install and ~/.claude/settings.json')
    .option('--no-sandbox', 'best-effort mode: no OS sandbox for commands (see init)')
    .option('--project-dir <dir>', 'the project', process.cwd())
    .option('--dry-run', 'show what would change (package.json, settings) as a diff; change nothing')
    .option('--json', 'machine-readable output')
    .action(async (o) => (humanOnly('ratchet-guard install'), (await import('./setup')).install(o)))

  program
    .command('update')
    .description(
      "install the newest version the project's source has (registry, git; a vendored tarball: the one you run this from), register its hooks, restart the warm process",
    )
    .option('--user', 'the global install and ~/.claude/settings.json')
    .option('--no-sandbox', 'best-effort mode')
    .option('--project-dir <dir>', PROJECT_DIR_HELP)
    .option('--dry-run', 'show what would change; change nothing')
    .option('--json', 'machine-readable output')
    .action(async (o) => (humanOnly('ratchet-guard update'), (await import('./setup')).install({ ...o, update: true })))

  program
    .command('uninstall')
    .description(
      "remove Ratchet's hooks and the floor it added from Claude Code settings, and the package from package.json (keeps the state folder and other hooks); works with the package already gone",
    )
    .addOption(new Option('--user', 'from ~/.claude/settings.json').conflicts(['local', 'managed']))
    .addOption(new Option('--local', 'from .claude/settings.local.json').conflicts('managed'))
    .option('--managed', "from Claude Code's managed settings (root)")
    .option('--keep-package', 'only the settings: leave the dependency in package.json')
    .option('--project-dir <dir>', PROJECT_DIR_HELP)
    .option('--dry-run', 'show what would change; change nothing')
    .option('--json', 'machine-readable output')
    .action(
      async (o) => (
        humanOnly('ratchet-guard uninstall'),
        o.managed ? (await import('./install')).uninstall(o) : (await import('./setup')).uninstall(o)
      ),
    )

  const floor = program
    .command('floor')
    .description(
      "the OS floor: Claude Code's sandbox and the permission rules that keep the agent off what carries authority",
    )
  floor
    .command('status')
    .description('the mode, what is guarded, whether the floor holds in every settings scope, and any hold')
    .option('--project-dir <dir>', PROJECT_DIR_HELP)
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./floor')).status(o))
  floor
    .command('confirm')
    .description('after reading what changed: record the floor as it stands and let held sessions run')
    .option('--project-dir <dir>', PROJECT_DIR_HELP)
    .option('--yes', 'confirm without asking')
    .option('--json', 'machine-readable output')
    .action(async (o) => (humanOnly(`${CLI} floor confirm`), (await import('./floor')).confirm(o)))
  floor
    .command('allow')
    .argument(
      '<host-or-folder...>',
      'a host commands may reach (registry.example.com), or a folder outside the project they may write (a path)',
    )
    .description(
      "let sandboxed commands reach a host or write a folder (hosts: the hooks' settings file; folders: your personal one)",
    )
    .addOption(new Option('--user', 'in ~/.claude/settings.json').conflicts('local'))
    .option('--local', 'in .claude/settings.local.json')
    .option('--project-dir <dir>', PROJECT_DIR_HELP)
    .option('--json', 'machine-readable output')
    .action(async (targets, o) => (humanOnly(`${CLI} floor allow`), (await import('./floor')).allow(targets, o)))
  floor
    .command('probe')
    .description(
      'prove the floor through the real mechanism: runs `claude` headless with commands that must fail (takes a few seconds)',
    )
    .option('--project-dir <dir>', PROJECT_DIR_HELP)
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./floor')).probe(o))

  const g = program.command('guardrails').description('list, add and explain guardrails')
  g.command('list')
    .description('the rules in force, hard first, with how often each fired')
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./guardrails')).list(o))
  g.command('add')
    .description("add a guardrail to the project's guardrails.json")
    .requiredOption('--rule <text>', 'what the agent must do (shown in the PRE-FLIGHT note)')
    .option(
      '--pattern <name>',
      'a detector: an action class (public_surface, irreversible, …) or a named pattern (git_push, …)',
    )
    .option('--id <id>', 'rule id (default: the next GR-NNN)')
    .option('--trigger <text>', 'when it applies, in words')
    .option('--check <text>', 'the question the agent must answer before proceeding')
    .option('--source <text>', 'where it came from, e.g. INC-007')
    .addOption(
      new Option('--severity <level>', 'hard (deny) or soft (check)').choices(['hard', 'soft']).default('soft'),
    )
    .addOption(
      new Option('--decision <d>', 'override the default from severity').choices([
        'warn',
        'check',
        'ask',
        'pause',
        'deny',
      ]),
    )
    .option('--tools <globs>', 'tool names to match, comma-separated (Bash, mcp__github__*)', collect)
    .option('--command <globs>', 'command globs to match; * matches anything ("git push*")', collect)
    .option('--paths <globs>', 'file path globs (src/**, **/.env)', collect)
    .option('--urls <globs>', 'URL globs (https://api.example.com/*)', collect)
    .option('--json', 'print the added rule as JSON')
    .action(async (o) => (humanOnly(`${CLI} guardrails add`), (await import('./guardrails')).add(o)))
  g.command('explain')
    .description('show which classes and rules a tool call triggers, and why (changes nothing)')
    .argument('[payload]', 'a PreToolUse hook payload: a JSON file, or - for stdin')
    .option('--command <cmd>', 'explain a Bash command')
    .option('--tool <name>', 'tool name for --input', 'Bash')
    .option('--input <json>', 'tool_input as JSON, e.g. \'{"file_path":"/p/a.txt","content":"x"}\'')
    .option('--session <id>', "use this session's recorded reads and prompts")
    .option('--json', 'machine-readable output')
    .action(async (payload, o) => (await import('./guardrails')).explain(payload, o))
  g.command('patterns')
    .description("the detectors a guardrail's pattern can name")
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./guardrails')).patterns(o))

  program
    .command('doctor')
    .description(
      'check the install: hooks registered, the floor proven (sandbox, settings of every scope, a probe through claude), state readable, hook start-up time',
    )
    .option('--project-dir <dir>', PROJECT_DIR_HELP)
    .option('--no-probe', 'skip proving the floor through `claude` (a few seconds)')
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
    // It takes the humans' decisions from Telegram (and Telegram's address and token can come from the
    // environment): not the agent's to run. `--notify` only sends, and is what the hooks spawn inside a session.
    .action(
      async (o) => (
        o.notify || o.cronLine || humanOnly(`${CLI} heartbeat`, process.env, undefined, () => undefined),
        (await import('./approvals')).heartbeat(o)
      ),
    )

  const pending = program
    .command('pending')
    .description('the approval queue (pending-actions.json): list, show, approve, deny')
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
    .option(
      '--project',
      'approve this action for the whole project, in any session, until it expires (default: this session, once)',
    )
    .option('--hours <n>', 'with --project: how long the approval lasts (default 8, at most 168)')
    .option('--json', 'machine-readable output')
    .description(
      'approve a pending action (the agent may then do exactly that action, once, in the session that asked, while what it would send stays what you were shown)',
    )
    .action(
      async (id, o) => (
        humanOnly(`${CLI} pending approve`), (await import('./approvals')).pendingDecide(id, 'approved', o)
      ),
    )
  pending
    .command('deny')
    .argument('<id>')
    .option('--note <text>', 'what to do instead, passed to the agent')
    .option('--json', 'machine-readable output')
    .description('deny a pending action')
    .action(
      async (id, o) => (humanOnly(`${CLI} pending deny`), (await import('./approvals')).pendingDecide(id, 'denied', o)),
    )

  const custodiet = program.command('custodiet').description('the ultra vires watchdog')
  custodiet
    .command('status')
    .description(
      'active holds and how to lift them; per session: the request (authority envelope), tool calls, reviews, findings; reviewer cost per day',
    )
    .option('--session <id>', 'one session')
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./custodiet')).status(o))
  custodiet
    .command('release')
    .description("lift custodiet's holds (checkpoint/block) without writing to the agent")
    .option('--session <id>', 'one session')
    .option('--all', 'every session')
    .option('--json', 'machine-readable output')
    .action(async (o) => (humanOnly(`${CLI} custodiet release`), (await import('./custodiet')).release(o)))
  custodiet
    .command('gate')
    .argument(
      '[on|off]',
      'on: the end of every turn waits for its review; off (the default): it runs in the background',
    )
    .description(
      "whether the end of a turn waits for custodiet's review (and what each costs); with no argument, says which is set",
    )
    .option('--json', 'machine-readable output')
    .action(
      async (v, o) => (v !== undefined && humanOnly(`${CLI} custodiet gate`), (await import('./custodiet')).gate(v, o)),
    )

  const court = program
    .command('courtroom')
    .description("hearings on the agent's conduct, probation, consent (off until you enable it)")
  court
    .command('status')
    .description('consent, packs, probation in force, cost today, recent hearings')
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./courtroom')).status(o))
  court
    .command('enable')
    .description('explains the courtroom and asks for the six acknowledgments (or takes them as flags)')
    .option(
      '--accept <acks>',
      'acknowledgments, comma-separated: autonomy,local_only,enforcement,reversible,not_a_court[,remote_submission] or all',
      collect,
    )
    .option('--yes', 'accept the five required acknowledgments (not remote_submission)')
    .option('--pack <name>', 'also enable an offense pack (clawtrial: entertainment, judges the user)', collect)
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./courtroom')).enable(o))
  court
    .command('disable')
    .description('no new hearings; lifts probation; keeps the ledger and key')
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./courtroom')).disable(o))
  court
    .command('revoke')
    .description('closes the ledger with a signed revocation and deletes the signing key')
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./courtroom')).revoke(o))
  court
    .command('rotate-key')
    .description('a new signing key, recorded in the ledger signed by the old and the new key')
    .option('--json', 'machine-readable output')
    .action(async (o) => (await import('./courtroom')).rotateKey(o))
  court
    .command('key')
    .option('--agent <id>')
    .option('--json', 'machine-readable output')
    .description(
      `the agent's public key (its last line alone), for a case server's operator: ${CLI} serve keys add <key>`,
    )
    .action(async (o) => (await import('./courtroom')).key(o))
  court
    .command('clear')
    .argument('<case>')
    .description("lift a case's probation (a severe one waits for this)")
    .option('--json', 'machine-readable output')
    .action(async (id, o) => (await import('./courtroom')).clear(id, o))
  court
    .command('hear')
    .description('file a charge by hand and hold the hearing now')
    .requiredOption('--offense <id>', `offense id (${CLI} courtroom status lists the packs)`)
    .requiredOption('--summary <text>', 'what happened, in a line')
    .option('--pack <name>', 'offense pack', 'agent')
    .option('--evidence <text>', 'an evidence item (repeatable)', (v: string, p: string[] = []) => [...p, v])
    .option('--confidence <n>', 'confidence of the finding, 0-1', '1')
    .option('--session <id>', 'the session it happened in')
    .option('--json', 'machine-readable output')
    .action(async (o) => (humanOnly(`${CLI} courtroom hear`), (await import('./courtroom')).hear(o)))
  court
    .command('hearing', { hidden: true })
    .requiredOption('--docket <file>')
    .action(async (o) => (await import('./courtroom')).hearing(o))
  court
    .command('calibrate')
    .argument('<cases>', 'a JSON file of human-labelled cases (see offenses/calibration/)')
    .description("runs the panel over labelled cases: Cohen's kappa against the labels, and between jurors")
    .option('--json', 'machine-readable output')
    .action(
      async (file, o) => (humanOnly(`${CLI} courtroom calibrate`), (await import('./courtroom')).calibrate(file, o)),
    )

  const cases = program.command('cases').description('the signed case ledger')
  cases
    .command('list')
    .option('--agent <id>')
    .option('--json', 'machine-readable output')
    .description('every case: verdict, vote, offense')
    .action(async (o) => (await import('./cases')).list(o))
  cases
    .command('show')
    .argument('<case>')
    .option('--agent <id>')
    .option('--json', 'machine-readable output')
    .description('one case record')
    .action(async (id, o) => (await import('./cases')).show(id, o))
  cases
    .command('verify')
    .argument('[file]', `an exported ledger (${CLI} cases export --out FILE) instead of this project's`)
    .option('--agent <id>')
    .option('--key <base64>', 'the genesis public key to trust (default: the one in the key store)')
    .option(
      '--server <url>',
      `also against a case server's transparency log (${CLI} serve): proven in, consistent, nothing rolled back`,
    )
    .option('--json', 'machine-readable output')
    .description('checks every signature and link from genesis to the signed head; names the first bad entry')
    .action(async (file, o) => (await import('./cases')).verify({ ...o, file }))
  cases
    .command('export')
    .option('--agent <id>')
    .option('--out <file>', 'write to a file (default stdout)')
    .option('--json', 'the ledger is JSON already; with --out, the result as JSON')
    .description('the verified ledger as one JSON document')
    .action(async (o) => (await import('./cases')).exportLedger(o))
  cases
    .command('submit')
    .option('--agent <id>')
    .option('--server <url>', `the case server (a \`${CLI} serve\`; default courtroom.remote.url)`)
    .addOption(new Option('--url <url>').hideHelp())
    .option('--json', 'machine-readable output')
    .description(
      'send the ledger entries a case server does not hold yet, keep their receipts (needs the remote_submission acknowledgment)',
    )
    .action(async (o) => (humanOnly(`${CLI} cases submit`), (await import('./cases')).submit(o)))

  // `ratchet serve …` is its own bundle (dist/serve.cjs), which bin/ratchet starts directly; declared here for --help.
  program
    .command('serve')
    .description(`the team's case record: case API, transparency log, dashboard (${CLI} serve --help)`)
    .allowUnknownOption()
    .helpOption(false)
    .argument('[args...]')
    .action(async () => (await import('./serve')).serve(process.argv))

  // `ratchet service …` is the resident decision service's own bundle (dist/service.cjs), started directly by bin/ratchet.
  program
    .command('service')
    .description(
      'the resident decision service that answers the hooks under `init --transport http`: run | start | stop | status [--json]',
    )
    .allowUnknownOption()
    .helpOption(false)
    .argument('[args...]')

  const incident = program
    .command('incident')
    .description('the incident log (INC-001, …) and guardrails derived from it')
  incident
    .command('add')
    .requiredOption('--title <text>', 'what went wrong, in a line')
    .requiredOption('--severity <P1|P2|P3>', 'P1: would be a disaster if repeated')
    .requiredOption('--class <name>', 'trigger class or named pattern (public_surface, git_push, …)')
    .option('--pattern <name>', 'a more specific named pattern')
    .option('--what <text>', 'what happened')
    .option('--prevention <text>', 'a prevention task (repeatable)', (v: string, p: string[] = []) => [...p, v])
    .option('--date <yyyy-mm-dd>', 'when (default today)')
    .option('--session <id>', 'the Claude Code session it happened in')
    .option('--json', 'print the incident')
    .description('log an incident')
    .action(async (o) => (await import('./incidents')).add(o))
  incident
    .command('list')
    .option('--json', 'machine-readable output')
    .description('all incidents')
    .action(async (o) => (await import('./incidents')).list(o))
  incident
    .command('show')
    .argument('<id>')
    .option('--json', 'machine-readable output')
    .description('one incident')
    .action(async (id, o) => (await import('./incidents')).show(id, o))
  incident
    .command('close')
    .argument('<id>')
    .option('--guardrail <rule>', 'derive a guardrail: what the agent must do (it cites the incident)')
    .addOption(new Option('--severity <level>', 'for the derived guardrail').choices(['hard', 'soft']))
    .option('--pattern <name>', "the derived guardrail's pattern (default: the incident's)")
    .option('--command <globs>', 'command globs for the derived guardrail', collect)
    .option('--json', 'machine-readable output')
    .description('close an incident, optionally deriving a guardrail from it')
    .action(async (id, o) => (humanOnly(`${CLI} incident close`), (await import('./incidents')).close(id, o)))

  const proposals = program
    .command('proposals')
    .description("pattern-detect's candidate guardrails: nothing is applied without you")
  proposals
    .command('list')
    .option('--all', 'include decided ones')
    .option('--json', 'machine-readable output')
    .description('proposals waiting for a decision')
    .action(async (o) => (await import('./proposals')).list(o))
  proposals
    .command('show')
    .argument('<id>')
    .option('--json', 'machine-readable output')
    .description('one proposal with its evidence')
    .action(async (id, o) => (await import('./proposals')).show(id, o))
  proposals
    .command('approve')
    .argument('<id>')
    .option('--json', 'machine-readable output')
    .description('apply it to guardrails.json')
    .action(async (id, o) => (humanOnly(`${CLI} proposals approve`), (await import('./proposals')).approve(id, o)))
  proposals
    .command('reject')
    .argument('<id>')
    .option('--json', 'machine-readable output')
    .description('drop it (it is not proposed again)')
    .action(async (id, o) => (humanOnly(`${CLI} proposals reject`), (await import('./proposals')).reject(id, o)))

  program
    .command('report')
    .description('the weekly review: fires, never-fired rules, false positives, pauses, custodiet, success criteria')
    .option('--since <when>', 'period: 7d (default), 30d, or a date', '7d')
    .option('--html <file>', 'also write a self-contained HTML page with charts')
    .option('--telegram', 'send the digest over Telegram when configured')
    .option('--json', 'machine-readable output')
    .action(async (o) =>
      (await import('./pattern-detect')).printReport((await import('../io/paths')).resolvePaths(), o),
    )
    .command('label')
    .argument('[id]', 'a fire id from the list (F-…)')
    .argument('[answer]', 'needed | needless')
    .option('--note <text>', 'why')
    .option('--json', 'machine-readable output')
    .description('was this check needed? label a sample of fires; the false-positive rate comes from these answers')
    // `report`'s own options (--json, --since) may be parsed by the parent: read them with the globals.
    .action(async (id, answer, _o, cmd) =>
      (await import('./pattern-detect')).label(
        (await import('../io/paths')).resolvePaths(),
        id,
        answer,
        cmd.optsWithGlobals(),
      ),
    )

  program
    .command('log')
    .description('the most recent hook decisions from the activity log')
    .option('-n, --lines <n>', 'how many', '20')
    .option('--json', 'print raw JSON lines')
    .action(async (o) => (await import('./guardrails')).log(o))

  return program
}

export async function main(argv: string[]): Promise<void> {
  await runCli('ratchet', buildProgram(), argv)
}
