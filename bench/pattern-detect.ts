// pattern-detect at scale: a 1,000,000-event activity log, mined by the real executable as a fresh
// process. Reports wall time per million events and peak RSS (the log is streamed, never loaded).

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const ROOT = path.resolve(__dirname, '..')

export function writeActivity(file: string, n: number): void {
  const fd = fs.openSync(file, 'w')
  const tools = ['Bash', 'Read', 'Edit', 'Write', 'Grep']
  const cmds = ['ls -la', 'npm test', 'git push origin feature', 'rm -rf build', 'fly deploy', 'git status', 'cat README.md']
  let buf: string[] = []
  for (let i = 0; i < n; i++) {
    const t = new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString()
    const cmd = cmds[i % cmds.length]
    const fired = cmd.startsWith('git push') ? ['RG-PUBLIC'] : cmd.startsWith('rm') ? ['RG-IRREVERSIBLE'] : []
    const decision = fired.length ? (i % 3 === 0 ? 'proceeded_after_check' : 'check') : 'allow'
    const classes = cmd.startsWith('git push') || cmd.startsWith('fly') ? ['public_surface'] : cmd.startsWith('rm') ? ['irreversible'] : []
    const patterns = cmd.startsWith('git push') ? ['git_push', 'commit_to_public_repo'] : cmd.startsWith('rm') ? ['file_delete'] : cmd.startsWith('fly') ? ['deploy'] : []
    const e =
      i % 50 === 7
        ? { time: t, hook: 'custodiet', event: 'verdict', session: `s${i % 997}`, decision: i % 100 === 7 ? 'attention' : 'ok', trigger: 'periodic', note: 'drift' }
        : { time: t, hook: 'preflight-check', event: 'PreToolUse', session: `s${i % 997}`, tool: tools[i % tools.length], action: cmd, classes, patterns, guardrails: fired, decision, fingerprint: (i % 65536).toString(16), latency_ms: 3.2 }
    buf.push(JSON.stringify(e))
    if (buf.length === 10_000) {
      fs.writeSync(fd, buf.join('\n') + '\n')
      buf = []
    }
  }
  if (buf.length) fs.writeSync(fd, buf.join('\n') + '\n')
  fs.closeSync(fd)
}

export function run(n = 1_000_000): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-pd-'))
  fs.mkdirSync(path.join(dir, '.ratchet'))
  fs.copyFileSync(path.join(ROOT, 'guardrails.json'), path.join(dir, '.ratchet', 'guardrails.json'))
  const log = path.join(dir, '.ratchet', 'activity.jsonl')
  writeActivity(log, n)
  const size = fs.statSync(log).size
  const probe = path.join(dir, 'rss.cjs')
  fs.writeFileSync(probe, `process.on('exit', () => require('fs').writeSync(2, '\\nRSS_KB=' + process.resourceUsage().maxRSS + '\\n'))\n`)
  const t = process.hrtime.bigint()
  const r = spawnSync(process.execPath, ['-r', probe, path.join(ROOT, 'bin', 'pattern-detect'), '--json'], { env: { ...process.env, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' }, encoding: 'utf8', maxBuffer: 1 << 24 })
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (r.status !== 0) throw new Error(`pattern-detect failed: ${r.stderr}`)
  const out = JSON.parse(r.stdout)
  const rss = Number(/RSS_KB=(\d+)/.exec(r.stderr)?.[1] ?? 0) / 1024
  fs.rmSync(dir, { recursive: true, force: true })
  return [
    `\npattern-detect over ${out.events.toLocaleString('en')} activity events (${(size / 1e6).toFixed(0)} MB), fresh process:`,
    `  ${(ms / 1000).toFixed(2)} s wall (${((ms / 1000) * (1_000_000 / out.events)).toFixed(2)} s per million; target < 10 s: ${ms < 10_000 ? 'met' : 'NOT met'}), peak RSS ${rss.toFixed(0)} MB (target ≤ 256 MB: ${rss <= 256 ? 'met' : 'NOT met'}), ${out.proposed.length} proposals`,
  ]
}
