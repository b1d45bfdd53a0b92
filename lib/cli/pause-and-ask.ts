// pause-and-ask — queue an action for a human's decision, notify them, and query the outcome.
// Usable by the agent from Bash, by scripts and by other hooks. The queue is durable: if Telegram is
// down or not configured, the action stays queued and `ratchet pending` decides it at the terminal.

import { Command, Option } from 'commander'
import { RatchetError } from '../core/errors'
import { runCli } from './run'
import { SEVERITIES, applyTimeouts, type PendingEntry } from '../core/pending'
import { enqueue, readQueue, updateQueue } from '../io/queue'
import { resolvePaths } from '../io/paths'
import { logActivity } from '../io/activity'
import { notifyOne } from '../io/heartbeat'
import { configuredTelegram } from '../io/telegram-config'
import { CLI } from '../core/manifest'

const out = (s: string): void => void process.stdout.write(s + '\n')

export function program(): Command {
  const p = new Command('pause-and-ask')
    .description(`Queue an action for human approval (Telegram ✅/❌ or \`${CLI} pending\`), and check on it.`)
    .addOption(new Option('--action <text>', 'what is about to be done, e.g. "send the release email to 2,000 users"'))
    .addOption(new Option('--trigger <text>', 'why this paused').default('asked by the agent'))
    .addOption(new Option('--context <text>', '1-2 lines of relevant context').default(''))
    .addOption(
      new Option(
        '--severity <s>',
        'destructive: waits forever; time-sensitive: 4 h then not done; informational: 30 min then the safer option',
      )
        .choices(SEVERITIES)
        .default('destructive'),
    )
    .option(
      '--session <id>',
      'the session that should hear the outcome at its next hook',
      process.env.CLAUDE_CODE_SESSION_ID,
    )
    .addHelpText(
      'after',
      `
Examples:
  pause-and-ask --action "drop the staging database" --trigger "irreversible" --severity destructive
  pause-and-ask status pa-1a2b3c4d            # pending | approved | denied | timeout | consumed
  pause-and-ask status pa-1a2b3c4d --wait     # blocks until decided; exit 0 only if approved`,
    )
    .action(async (o) => {
      if (!o.action) throw new RatchetError('usage', 'give --action "…" (or a subcommand: status); see --help')
      const paths = resolvePaths()
      const entry = enqueue(paths, {
        action: o.action,
        trigger: o.trigger,
        context: o.context,
        severity: o.severity,
        session_id: o.session ?? null,
      })
      logActivity(paths, {
        time: entry.requested_at,
        hook: 'pause-and-ask',
        event: 'queue',
        session: o.session,
        action: entry.action,
        decision: 'paused',
        pending_id: entry.id,
        severity: entry.severity,
      })
      out(JSON.stringify({ id: entry.id, status: entry.status }))
      if (configuredTelegram(paths)) {
        const r = await notifyOne(paths, entry.id)
        for (const e of r.errors) process.stderr.write(`pause-and-ask: ${e}; queued anyway, the heartbeat retries\n`)
      } else
        process.stderr.write(
          `pause-and-ask: Telegram is not configured; decide with: ${CLI} pending approve|deny ${entry.id}\n`,
        )
    })

  p.command('status')
    .argument('<id>', 'the id printed when the action was queued')
    .option('--wait', 'block until decided or timed out (polls the queue; holds no lock while waiting)')
    .option('--interval <ms>', 'with --wait: how often to look', '1000')
    .option('--max-wait <seconds>', 'with --wait: give up after this long (exit 3)')
    .option('--json', 'print the whole entry')
    .action(async (id: string, o) => {
      const paths = resolvePaths()
      const look = (): PendingEntry => {
        // Apply due timeouts here too, so waiting works even without a heartbeat running.
        updateQueue(paths, (list) => applyTimeouts(list, new Date()))
        const q = readQueue(paths)
        if (!q.ok) throw q.error
        const e = q.value.find((x) => x.id === id)
        if (!e) throw new RatchetError('not_found', `no pending action ${id}`)
        return e
      }
      let e = look()
      const deadline = o.maxWait ? Date.now() + Number(o.maxWait) * 1000 : Infinity
      while (o.wait && e.status === 'pending') {
        if (Date.now() > deadline) {
          out('pending')
          process.exitCode = 3
          return
        }
        await new Promise((r) => setTimeout(r, Math.max(50, Number(o.interval) || 1000)))
        e = look()
      }
      if (o.json) {
        const { secret: _s, ...visible } = e
        out(JSON.stringify(visible, null, 2))
      } else {
        out(
          e.status === 'timeout'
            ? `timeout (${e.timeout_outcome === 'proceed_safer' ? 'proceed with the safer option' : 'not done'})`
            : e.status,
        )
        if (e.reply) out(`reply: ${e.reply}`)
      }
      if (o.wait) process.exitCode = e.status === 'approved' ? 0 : 1
    })
  return p
}

export async function main(argv = process.argv): Promise<void> {
  await runCli('pause-and-ask', program(), argv)
}
