// npm run bench:evidence — how long gathering evidence takes for a push, against its bound.
//
// A repository of ~1,000 files with ~50 unpushed commits (and a few untracked files), pushed to a real
// bare remote. Measures, in-process, gatherEvidence + assessEvidence for:
//   - `git push`                                          (the 50 commits: log --raw, cat-file of every version)
//   - `git add -A && git commit -m x && git push`         (the same + git status and the working-tree reads)
//   - a first push to an empty remote                     (every commit reachable: the whole history)
// and reports medians and the worst run next to the bound (DEFAULT_LIMITS.budgetMs). BENCH_RUNS=n for more.

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { DEFAULT_LIMITS, type EvidenceFacts } from '../lib/core/evidence'
import { evidenceForCall } from '../lib/io/evidence'

const RUNS = Number(process.env.BENCH_RUNS ?? 15)
const FILES = 1000
const COMMITS = 50
const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@example.com', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@example.com', GIT_CONFIG_NOSYSTEM: '1' }

function sh(cwd: string, cmd: string): void {
  const r = spawnSync('sh', ['-c', cmd], { cwd, env, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${cmd}: ${r.stderr}`)
}

function repo(): { dir: string; empty: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-evidence-'))
  const dir = path.join(root, 'work')
  sh(root, `git init -q --bare -b main remote.git && git init -q --bare -b main empty.git && git init -q -b main work`)
  for (let i = 0; i < FILES; i++) {
    const sub = path.join(dir, 'src', `m${i % 40}`)
    fs.mkdirSync(sub, { recursive: true })
    fs.writeFileSync(path.join(sub, `f${i}.ts`), `// file ${i}\nexport const v${i} = ${i}\n`.repeat(20))
  }
  sh(dir, `git add -A && git commit -qm init && git remote add origin ../remote.git && git remote add empty ../empty.git && git push -q -u origin main`)
  for (let c = 0; c < COMMITS; c++) {
    for (let k = 0; k < 4; k++) {
      const n = (c * 7 + k * 13) % FILES
      fs.appendFileSync(path.join(dir, 'src', `m${n % 40}`, `f${n}.ts`), `// change ${c}.${k}\n`)
    }
    sh(dir, `git commit -qam "change ${c}"`)
  }
  fs.writeFileSync(path.join(dir, 'notes.md'), '# notes\n')
  fs.writeFileSync(path.join(dir, 'src', 'new.ts'), 'export {}\n')
  return { dir, empty: path.join(root, 'empty.git') }
}

async function time(command: string, cwd: string): Promise<{ ms: number[]; commits: number; files: number; scanned: number; status: string }> {
  const ms: number[] = []
  let last: EvidenceFacts | undefined
  for (let i = 0; i < RUNS + 2; i++) {
    const t = process.hrtime.bigint()
    // What the hook does for one Bash call: plan, gather (bounded), scan.
    last = await evidenceForCall({ tool_name: 'Bash', tool_input: { command }, cwd }, cwd, os.homedir())
    const took = Number(process.hrtime.bigint() - t) / 1e6
    if (i >= 2) ms.push(took) // two warm-up runs (page cache, git's own caches)
  }
  if (!last) throw new Error(`no evidence for ${command}`)
  return { ms, commits: last.commits, files: last.files, scanned: last.scanned, status: last.status }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

async function main(): Promise<void> {
  const { dir } = repo()
  const cases: [string, string][] = [
    ['git push (50 unpushed commits)', 'git push'],
    ['git add -A && git commit && git push', 'git add -A && git commit -m x && git push'],
    ['first push to an empty remote (51 commits, ~1,000 files)', 'git push empty main'],
  ]
  console.log(`Evidence gathering, ${FILES} files, ${COMMITS} unpushed commits, ${RUNS} runs each (bound: ${DEFAULT_LIMITS.budgetMs} ms, ${DEFAULT_LIMITS.maxFiles} files × ${DEFAULT_LIMITS.maxBytesPerFile >> 10} KB scanned)`)
  for (const [label, cmd] of cases) {
    const r = await time(cmd, dir)
    console.log(`  ${label.padEnd(58)} median ${median(r.ms).toFixed(0).padStart(5)} ms   max ${Math.max(...r.ms).toFixed(0).padStart(5)} ms   → ${r.commits} commits, ${r.files} files, ${r.scanned} scanned, ${r.status}`)
  }
  console.log(`  load average: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores`)
}

void main()
