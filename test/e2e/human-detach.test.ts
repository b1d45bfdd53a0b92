// Deciding commands run away from the agent's process tree (issue 9, human-only decisions): a command started through
// setsid, nohup, disown, at/batch, crontab, systemd-run, tmux, screen, script, daemonize, start-stop-daemon or a
// double fork in an interpreter is reparented away from claude, so the CLI's own ancestor check cannot see it. The
// hook is what stops these: the built bin/preflight-check must deny each, on the first call and on an identical
// retry, while detaching ordinary work (a dev server under nohup, tests in tmux) stays quiet.

import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { preToolUse, runBin, tempProject } from '../support/fixtures'

let dir: string
let home: string
let env: NodeJS.ProcessEnv

function guard(command: string, session: string): { decision: string; reason: string } {
  const r = runBin('preflight-check', preToolUse(dir, 'Bash', { command }, session), { cwd: dir, env })
  if (r.status !== 0) throw new Error(`preflight-check exited ${r.status}: ${r.stderr}`)
  if (!r.stdout.trim()) return { decision: 'allow', reason: '' }
  const out = JSON.parse(r.stdout).hookSpecificOutput ?? {}
  return {
    decision: out.permissionDecision ?? 'allow',
    reason: out.permissionDecisionReason ?? out.additionalContext ?? '',
  }
}

const A = 'ratchet pending approve pa-1a2b3c4d'
const STOP = [
  `setsid ${A}`,
  `setsid -f ${A}`,
  `nohup ${A} &`,
  `(${A} &) ; disown`,
  `${A} & disown`,
  `echo '${A}' | at now + 1 minute`,
  `at now <<< '${A}'`,
  `at -m now <<EOF\n${A}\nEOF`,
  `echo '${A}' > /tmp/job.sh && at -f /tmp/job.sh now`,
  `echo '${A}' | batch`,
  `(crontab -l; echo '* * * * * ${A}') | crontab -`,
  `echo '@reboot ${A}' > /tmp/c && crontab /tmp/c`,
  `crontab - <<< '*/5 * * * * cd /x && ${A}'`,
  `systemd-run --user ${A}`,
  `systemd-run --user --on-active=30 sh -c '${A}'`,
  `tmux new -d '${A}'`,
  `tmux new-session -d -s x ${A}`,
  `tmux new -ds x '${A}'`,
  `tmux -L other new-window -t x:1 '${A}'`,
  `tmux new -d \\; send-keys '${A}' Enter`,
  `tmux send-keys -t x '${A}' C-m`,
  `tmux run-shell '${A}'`,
  `screen -dm ${A}`,
  `screen -dmS x sh -c '${A}'`,
  `screen -S x -X stuff '${A}\\n'`,
  `script -qc '${A}' /dev/null`,
  `script -q -c '${A}' /dev/null`,
  `daemonize /usr/bin/env ${A}`,
  `start-stop-daemon --start --background --exec /usr/local/bin/ratchet -- pending approve pa-1a2b3c4d`,
  `start-stop-daemon -S -b --startas /bin/sh -- -c '${A}'`,
  `python3 -c "import os,subprocess\nif os.fork()==0:\n os.setsid(); subprocess.run(['ratchet','pending','approve','pa-1'])"`,
  `node -e "require('child_process').spawn('ratchet',['pending','approve','pa-1'],{detached:true,stdio:'ignore'}).unref()"`,
  `perl -e 'fork or exec qw(ratchet pending approve pa-1)'`,
  `setsid bash -c 'sleep 5; npx ratchet pending approve pa-1' &`,
  `nohup sh -c 'ratchet guardrails disable GR-001' >/dev/null 2>&1 &`,
  `tmux new -d 'ratchet uninstall'`,
  `echo '${A}' > /tmp/x.sh; setsid sh /tmp/x.sh`,
  `echo x | entr ${A}`,
  `ls | entr -s '${A}'`,
  `pm2 start '${A}'`,
  `pm2 start --name x ratchet -- pending approve pa-1a2b3c4d`,
  `forever start ratchet pending approve pa-1a2b3c4d`,
  `echo '${A}' > /tmp/job.sh; forever start -c sh /tmp/job.sh`,
  `expect -c 'spawn ${A}; interact'`,
  `watch -n 60 ${A}`,
]

/** What cannot be read (a crontab from a file on disk, typed in an editor, `at -f` of a file): never a silent allow. */
const UNREADABLE = [
  'crontab /tmp/somefile',
  'crontab -e',
  'at -f /tmp/jobs now',
  'at now + 1 hour',
  'tmux source-file /tmp/t.conf',
  'expect /tmp/approve.exp',
]

const QUIET = [
  'nohup npm run dev > dev.log 2>&1 &',
  'setsid -f npm run serve',
  "tmux new -d 'npm test'",
  'tmux new-session -d -s dev npm run dev',
  'tmux ls',
  'screen -dmS dev npm start',
  'screen -ls',
  "script -q -c 'ls' /dev/null",
  'crontab -l',
  'atq',
  // (on loopback: a file server on every interface is a public surface, lib/core/actions/serve.ts)
  'daemonize /usr/bin/python3 -m http.server --bind 127.0.0.1',
  'pm2 start server.js --name api',
  'pm2 list',
  'forever start app.js',
  'ls *.ts | entr -c npm test',
  "expect -c 'spawn ssh-keygen -l -f id.pub; expect eof'",
  'watch -n 5 git status',
]

beforeAll(() => {
  dir = tempProject('ratchet-detach-')
  home = tempProject('ratchet-detach-home-')
  fs.mkdirSync(path.join(dir, '.ratchet'), { recursive: true })
  env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', HOME: home }
})
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
  fs.rmSync(home, { recursive: true, force: true })
})

describe('deciding commands run detached from the agent', () => {
  it.each(STOP.map((c, i) => [c, i] as const))(
    'denied on the first call and on an identical retry: %s',
    (command, i) => {
      for (const attempt of [1, 2]) {
        const o = guard(command, `stop-${i}`)
        expect(o.decision, `attempt ${attempt}: ${o.reason}`).toBe('deny')
        expect(o.reason, `attempt ${attempt}`).toMatch(/\[RATCHET\] Denied/)
      }
    },
  )

  it.each(UNREADABLE.map((c, i) => [c, i] as const))(
    'code that runs later and cannot be read is never a silent allow: %s',
    (command, i) => {
      const o = guard(command, `unread-${i}`)
      expect(o.decision).toBe('deny')
      expect(o.reason).toMatch(/could not read what this command runs/)
    },
  )

  it.each(QUIET.map((c, i) => [c, i] as const))('ordinary detached work stays quiet: %s', (command, i) => {
    expect(guard(command, `quiet-${i}`)).toEqual({ decision: 'allow', reason: '' })
  })
})
