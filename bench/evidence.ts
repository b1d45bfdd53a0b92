// npm run bench:evidence — how long gathering evidence takes for a push, against its bound.
//
// A repository of ~1,000 files with ~50 unpushed commits (and a few untracked files), pushed to a real
// bare remote. Measures, in-process, gatherEvidence + assessEvidence for:
//   - `git push`                                          (the 50 commits: log --raw, cat-file of every version)
//   - `git add -A && git commit -m x && git push`         (the same + git status and the working-tree reads)
//   - a first push to an empty remote                     (every commit reachable: the whole history)
//   - a push of a 20 MB text file, and of a 150 MB one                 (streamed: how much is read within the bound)
//   - a WebFetch                                          (what a non-shell call costs: its URL, known secrets)
// with the known secrets of a project .env in force (lib/io/known-secrets.ts), as the hook runs them, and reports
// medians and the worst run next to the bound (DEFAULT_LIMITS.budgetMs). BENCH_RUNS=n for more.

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { EvidenceFacts } from '../lib/core/evidence/gathered'
import { DEFAULT_LIMITS } from '../lib/core/evidence/targets'
import { evidenceForCall } from '../lib/io/evidence'
import { knownSecrets } from '../lib/io/known-secrets'
import { pathsFor } from '../lib/io/registry'

const RUNS = Number(process.env.BENCH_RUNS ?? 15)
const FILES = 1000
const COMMITS = 50
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@example.com',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
}

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
  sh(
    dir,
    `git add -A && git commit -qm init && git remote add origin ../remote.git && git remote add empty ../empty.git && git push -q -u origin main`,
  )
  for (let c = 0; c < COMMITS; c++) {
    for (let k = 0; k < 4; k++) {
      const n = (c * 7 + k * 13) % FILES
      fs.appendFileSync(path.join(dir, 'src', `m${n % 40}`, `f${n}.ts`), `// change ${c}.${k}\n`)
    }
    sh(dir, `git commit -qam "change ${c}"`)
  }
  fs.writeFileSync(path.join(dir, 'notes.md'), '# notes\n')
  fs.writeFileSync(path.join(dir, 'src', 'new.ts'), 'export {}\n')
  fs.writeFileSync(path.join(dir, '.gitignore'), '.env\n.ratchet/\n')
  fs.writeFileSync(
    path.join(dir, '.env'),
    'AWS_SECRET_ACCESS_KEY=q8Vh3kPz1Lw9Rt2Xn5Bc7Md4Fg6Jk0Ls8Qw1Er3T\nGITHUB_TOKEN=' +
      'ghp_' +
      'R8tY2uI9oP4aS6dF1gH3jK5lZ7xC0vB2nM4q\n',
  )
  return { dir, empty: path.join(root, 'empty.git') }
}

/** A branch with one commit adding a big text file (`mb` megabytes of source-like lines). */
function bigBranch(dir: string, name: string, mb: number): void {
  const line = 'export const value = computeSomething(alpha, beta) // a comment that makes the line longer\n'
  sh(dir, `git checkout -q -b ${name} main`)
  fs.writeFileSync(path.join(dir, `${name}.ts`), line.repeat(Math.ceil((mb << 20) / line.length)))
  sh(dir, `git add ${name}.ts && git commit -qm ${name} && git checkout -q main`)
}

async function time(
  call: string | { tool_name: string; tool_input: Record<string, unknown> },
  cwd: string,
  runs = RUNS,
): Promise<{ ms: number[]; commits: number; files: number; scanned: number; status: string; unchecked: string }> {
  const ms: number[] = []
  let last: EvidenceFacts | undefined
  const paths = {
    ...pathsFor(cwd, path.join(cwd, '.ratchet'), cwd, path.join(cwd, '.ratchet', 'config-home')),
    homeDir: os.homedir(),
  }
  for (let i = 0; i < runs + 2; i++) {
    const t = process.hrtime.bigint()
    // What the hook does for one call: plan, gather (bounded), scan, with the session's known secrets.
    const c = typeof call === 'string' ? { tool_name: 'Bash', tool_input: { command: call }, cwd } : { ...call, cwd }
    last = await evidenceForCall(c, cwd, os.homedir(), { known: () => knownSecrets(paths, 'bench') })
    const took = Number(process.hrtime.bigint() - t) / 1e6
    if (i >= 2) ms.push(took) // two warm-up runs (page cache, git's own caches)
  }
  if (!last) throw new Error(`no evidence for ${JSON.stringify(call)}`)
  return {
    ms,
    commits: last.commits,
    files: last.files,
    scanned: last.scanned,
    status: last.status,
    unchecked: last.lines.find((l) => l.startsWith('Unchecked:')) ?? '',
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

async function main(): Promise<void> {
  const { dir } = repo()
  bigBranch(dir, 'big20', 20)
  bigBranch(dir, 'big150', 150)
  const cases: [string, string | { tool_name: string; tool_input: Record<string, unknown> }, number?][] = [
    ['git push (50 unpushed commits)', 'git push'],
    ['git add -A && git commit && git push', 'git add -A && git commit -m x && git push'],
    ['first push to an empty remote (51 commits, ~1,000 files)', 'git push empty main'],
    ['a push of a 20 MB text file', 'git push origin big20', 5],
    ['a push of a 150 MB text file', 'git push origin big150', 3],
    [
      'a WebFetch (its URL and the known secrets)',
      { tool_name: 'WebFetch', tool_input: { url: 'https://nodejs.org/api/fs.html', prompt: 'x' } },
    ],
  ]
  console.log(
    `Evidence gathering, ${FILES} files, ${COMMITS} unpushed commits, ${RUNS} runs each (bound: ${DEFAULT_LIMITS.budgetMs} ms; every file read whole, streamed)`,
  )
  for (const [label, cmd, runs] of cases) {
    const r = await time(cmd, dir, runs)
    console.log(
      `  ${label.padEnd(58)} median ${median(r.ms).toFixed(0).padStart(5)} ms   max ${Math.max(...r.ms)
        .toFixed(0)
        .padStart(
          5,
        )} ms   → ${r.commits} commits, ${r.files} files, ${r.scanned} scanned, ${r.status}${r.unchecked ? ` (${r.unchecked.slice(0, 90)})` : ''}`,
    )
  }
  console.log(
    `  load average: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.cpus().length} cores`,
  )
}

void main()
