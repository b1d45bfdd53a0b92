import * as family from '../../../lib/core/actions/schedule'
import { PROJECT, familyTable } from './table'

familyTable(family, {
  valid: [
    ['crontab mycron', 'timezone_dependent_action'],
    ['crontab -r', 'file_delete'],
    ['crontab -r', 'file_delete', /^every job in the user’s crontab/],
    ['crontab -u deploy -r', 'file_delete', /every job in deploy’s crontab/],
    ['echo "0 9 * * * backup" | crontab -', 'timezone_dependent_action'],
    ['at 09:00 tomorrow < job.sh', 'timezone_dependent_action'],
    ['systemctl enable --now backup.timer', 'timezone_dependent_action'],
    [{ tool_name: 'CronCreate', tool_input: { schedule: '0 9 * * *' } }, 'timezone_dependent_action'],
    [
      {
        tool_name: 'Write',
        tool_input: {
          file_path: `${PROJECT}/.github/workflows/nightly.yml`,
          content: 'on:\n  schedule:\n    - cron: "0 3 * * *"',
        },
      },
      'timezone_dependent_action',
    ],
  ],
  invalid: [
    'crontab -l',
    'at --help',
    'systemctl status backup.timer',
    'systemctl restart nginx',
    { tool_name: 'Write', tool_input: { file_path: `${PROJECT}/.github/workflows/ci.yml`, content: 'on: [push]' } },
  ],
})
