// Time-based automation: cron jobs, `at`, systemd timers, scheduled workflows (the seed's GR-003).

import type { Detector, FamilyMeta, Sink } from './types'

export const meta: FamilyMeta = {
  id: 'schedule',
  classes: ['irreversible'],
  patterns: ['timezone_dependent_action', 'file_delete'],
  description:
    'Creating cron jobs or time-based automation (crontab, at, systemd timers, CronCreate, scheduled workflows)',
  examples: ['crontab mycron', 'crontab -r', 'systemctl enable --now backup.timer'],
}

export const programs: Record<string, Detector> = {
  crontab: (c, inv, f) => {
    const user = inv.args[inv.args.indexOf('-u') + 1]
    if (inv.args.includes('-r') || inv.args.some((a) => /^-[a-zA-Z]*r/.test(a) && !a.startsWith('--')))
      c.irrevocable('file_delete', f.cmd, {
        kind: 'destroys',
        what: `every job in ${inv.args.includes('-u') && user ? `${user}’s` : 'the user’s'} crontab (no copy is kept)`,
        names: [['crontab', 'cron', 'cron jobs']],
      })
    if (!inv.args.includes('-l')) c.add('timezone_dependent_action', f.cmd)
  },
  at: (c, _inv, f) => c.add('timezone_dependent_action', f.cmd),
  systemctl: (c, inv, f) => {
    if (inv.args.some((a) => a.endsWith('.timer')) && inv.args.some((a) => /^(enable|start)$/.test(a)))
      c.add('timezone_dependent_action', f.cmd)
  },
}

/** A Write of a crontab, a systemd timer or a scheduled GitHub workflow. */
export function scheduleFile(c: Sink, tool: string, file: string, content: string): void {
  if (
    (/(^|\/)(crontab|cron\.d\/)/.test(file) ||
      file.endsWith('.timer') ||
      (file.includes('.github/workflows/') && /\.ya?ml$/.test(file))) &&
    /\bcron\b|OnCalendar|schedule:/.test(content)
  )
    c.add('timezone_dependent_action', `${tool} ${file} (schedule)`)
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
