// Programs that run a command later or apart from this shell: nohup, setsid, systemd-run, tmux, screen, at, cron,
// pm2, expect, …. What they run later is read as if it ran now (lib/core/detach.ts knows each one's words).

import { detachedRuns } from '../../detach'
import { inputText } from '../generated'
import type { Cmd, Peeled, ReaderFamily } from '../types'
import { normPath } from '../words'
import { prefix } from './prefix'

function detached(c: Cmd): Peeled {
  const { name, st } = c
  c.push()
  for (const r of detachedRuns(name, c.args, inputText(c.simple), (f) => st.generated.get(normPath(f)))) {
    if ('unreadable' in r) st.unreadable.add(r.unreadable)
    else if ('code' in r) c.code(r.code, name)
    else
      c.inner(
        r.argv,
        r.argv.map(() => false),
        name,
      )
  }
  return 'read'
}

const SYSTEMD_RUN_VALUES = [
  '-u',
  '--unit',
  '-p',
  '--property',
  '-E',
  '--setenv',
  '-M',
  '--machine',
  '--uid',
  '--gid',
  '--nice',
  '--working-directory',
  '-d',
  '--slice',
  '--description',
  '--on-calendar',
  '--on-active',
  '--on-boot',
  '--on-startup',
  '--on-unit-active',
  '--on-unit-inactive',
  '--timer-property',
  '-H',
  '--host',
]

const DETACHERS = [
  'tmux',
  'screen',
  'daemonize',
  'start-stop-daemon',
  'at',
  'batch',
  'crontab',
  'entr',
  'pm2',
  'forever',
  'expect',
]

export const family: ReaderFamily = {
  family: 'detach',
  programs: {
    ...Object.fromEntries(DETACHERS.map((name) => [name, detached])),
    nohup: prefix([]),
    setsid: prefix([]),
    'systemd-run': prefix(SYSTEMD_RUN_VALUES),
  },
}
