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
  const cmds = [
    'ls -la',
    'npm test',
    'git push origin feature',
    'rm -rf build',
    'fly deploy',
    'git status',
    'cat README.md',
  ]
  let buf: string[] = []
  for (let i = 0; i < n; i++) {
    const t = new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString()
    const cmd = cmds[i % cmds.length]
    const fired = cmd.startsWith('git push') ? ['RG-PUBLIC'] : cmd.startsWith('rm') ? ['RG-IRREVERSIBLE'] : []
    const decision = fired.length ? (i % 3 === 0 ? 'proceeded_after_check' : 'check') : 'allow'
    const classes =
      cmd.startsWith('git push') || cmd.startsWith('fly')
        ? ['public_surface']
        : cmd.startsWith('rm')
          ? ['irreversible']
          : []
    const patterns = cmd.startsWith('git push')
      ? ['git_push', 'commit_to_public_repo']
      : cmd.startsWith('rm')
        ? ['file_delete']
        : cmd.startsWith('fly')
          ? ['deploy']
          : []
    const e =
      i % 50 === 7
        ? {
            time: t,
            hook: 'custodiet',
            event: 'verdict',
            session: `s${i % 997}`,
            decision: i % 100 === 7 ? 'attention' : 'ok',
            trigger: 'periodic',
            note: 'drift',
          }
        : {
            time: t,
            hook: 'preflight-check',
            event: 'PreToolUse',
            session: `s${i % 997}`,
            tool: tools[i % tools.length],
            action: cmd,
            classes,
            patterns,
            guardrails: fired,
            decision,
            fingerprint: (i % 65536).toString(16),
            latency_ms: 3.2,
          }
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
  fs.writeFileSync(
    probe,
    `process.on('exit', () => require('fs').writeSync(2, '\\nRSS_KB=' + process.resourceUsage().maxRSS + '\\n'))\n`,
  )
  const t = process.hrtime.bigint()
  const r = spawnSync(process.execPath, ['-r', probe, path.join(ROOT, 'bin', 'pattern-detect'), '--json'], {
    env: { ...process.env, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' },
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  })
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

/** A Claude Code transcript of `n` tool calls (commands, edits, writes), for `pattern-detect --transcripts`. */
function writeTranscript(file: string, n: number): void {
  const cmds = [
    'ls -la',
    'npm test',
    'git push origin feature',
    'rm -rf build',
    'fly deploy',
    'git status',
    'cat README.md',
    'curl -X POST https://api.example.com/v1/items -d @data.json',
    'git commit -am "fix"',
    'npm publish',
    'docker compose up -d',
    'psql -c "drop table users"',
    'sed -i s/a/b/ src/x.ts',
    `python3 -c "import os; os.remove('x')"`,
    'echo hello > out.txt',
  ]
  const lines: string[] = []
  for (let i = 0; i < n; i++) {
    const k = i % 5
    const b =
      k < 3
        ? { name: 'Bash', input: { command: cmds[i % cmds.length], description: 'x' } }
        : k === 3
          ? { name: 'Edit', input: { file_path: `/p/src/f${i % 50}.ts`, old_string: 'a', new_string: 'b' } }
          : { name: 'Write', input: { file_path: `/p/src/new${i % 50}.ts`, content: 'export const x = 1\n' } }
    lines.push(
      JSON.stringify({
        type: 'assistant',
        timestamp: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
        sessionId: 's1',
        message: { content: [{ type: 'tool_use', id: `t${i}`, ...b }] },
      }),
    )
  }
  fs.writeFileSync(file, lines.join('\n') + '\n')
}

/**
 * pattern-detect --transcripts: every historical tool call classified (the whole action catalogue, one context for
 * all), CPU per call read inside the process. Issue 23 measured this 30-75% above 0c9e973's. `root`: another build
 * to compare with (a worktree of an older commit, built).
 */
export function transcripts(n = 100_000, runs = 3, root = ROOT): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-pdt-'))
  fs.mkdirSync(path.join(dir, '.ratchet'))
  fs.mkdirSync(path.join(dir, 'tx'))
  fs.copyFileSync(path.join(ROOT, 'guardrails.json'), path.join(dir, '.ratchet', 'guardrails.json'))
  writeTranscript(path.join(dir, 'tx', 's1.jsonl'), n)
  const probe = path.join(dir, 'cpu.cjs')
  fs.writeFileSync(
    probe,
    `process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeSync(2, '\\nCPU_US=' + (u.user + u.system) + '\\n') })\n`,
  )
  const per: number[] = []
  for (let i = 0; i < runs; i++) {
    fs.rmSync(path.join(dir, '.ratchet', 'proposals.json'), { force: true })
    const r = spawnSync(
      process.execPath,
      ['-r', probe, path.join(root, 'bin', 'pattern-detect'), '--json', '--transcripts', path.join(dir, 'tx')],
      { env: { ...process.env, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' }, encoding: 'utf8', maxBuffer: 1 << 24 },
    )
    if (r.status !== 0) throw new Error(`pattern-detect --transcripts failed: ${r.stderr}`)
    per.push(Number(/CPU_US=(\d+)/.exec(r.stderr)?.[1] ?? 0) / JSON.parse(r.stdout).transcript_calls)
  }
  fs.rmSync(dir, { recursive: true, force: true })
  const med = [...per].sort((a, b) => a - b)[per.length >> 1]
  return [
    `\npattern-detect --transcripts over ${n.toLocaleString('en')} tool calls, fresh process, median of ${runs}: ${med.toFixed(1)} µs CPU per call (load average ${os.loadavg()[0].toFixed(1)})`,
  ]
}
