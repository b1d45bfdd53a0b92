// What one custodiet review costs the machine it runs on, in CPU: the default reviewer's two roads (`claude -p --model
// haiku` started as lib/io/reviewer.ts starts it, and one Messages API call from node, which it makes instead when
// claude's key is in the session's environment) against a bare `node -e ''`, both answered by the local mock model, so
// the figure is the client's own start-up and not a model's think time. custodiet reviews every 7 calls and at the
// end of a turn; on a machine with two cores this CPU competes with the session being watched, which is why a
// background review runs at the lowest priority (hooks/custodiet/review.ts).
//
//   npx tsx bench/reviewer-cpu.ts        3 runs of each (BENCH_REVIEWER_RUNS=n)
//   npm run bench                        after the session bench (BENCH_SESSION=0 skips both)

import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { claudeArgs, modelId } from '../lib/io/reviewer'
import { claudeEnv, startMockModel } from '../test/support/mock-anthropic'

const ROOT = path.resolve(__dirname, '..')
const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

/** CPU (user + system, the command and its children) of one command, as bash's `time` reports it. */
function cpuOf(argv: string[], env: NodeJS.ProcessEnv, input: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
    const c = spawn('bash', ['-c', `TIMEFORMAT='%U %S'; time ${quoted} >/dev/null 2>&1`], { env })
    let err = ''
    c.stderr.on('data', (d) => (err += d))
    c.stdin.end(input)
    c.on('close', () => {
      const [u, s] = err.trim().split('\n').pop()!.split(' ').map(Number)
      Number.isFinite(u + s) ? resolve((u + s) * 1000) : reject(new Error(`bench/reviewer-cpu.ts: no time in ${err}`))
    })
  })
}

export async function reviewerCpu(runs = Number(process.env.BENCH_REVIEWER_RUNS ?? 3)): Promise<void> {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-bench-reviewer-')))
  const model = await startMockModel([])
  try {
    // A clean environment: this machine's NODE_EXTRA_CA_CERTS alone adds ~90 ms to every node start.
    const env = {
      ...claudeEnv(model.url, home),
      RATCHET_REVIEWER: '1',
      NODE_EXTRA_CA_CERTS: undefined,
      NODE_OPTIONS: undefined,
    }
    // The arguments the reviewer passes (its prompt is the review; any short one starts the client the same).
    const args = [CLAUDE, ...claudeArgs('haiku', 'Reply OK.')]
    // The API road (lib/io/reviewer.ts claudeRoad): the review's own node process makes one Messages call, as
    // postJson makes it (node's http client, not fetch, which loads undici first: ~80 ms of CPU).
    const call = `const r = require('http').request(${JSON.stringify(`${model.url}/v1/messages`)}, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' } }, (res) => { let t = ''; res.on('data', (d) => (t += d)); res.on('end', () => JSON.parse(t)) }); r.end(JSON.stringify({ model: ${JSON.stringify(modelId('haiku', {}))}, max_tokens: 400, system: 'Reply OK.', messages: [{ role: 'user', content: 'Review these calls.' }] }))`
    const claude: number[] = []
    const api: number[] = []
    const node: number[] = []
    for (let i = 0; i < runs; i++) {
      claude.push(await cpuOf(args, env, 'Review these calls.'))
      api.push(await cpuOf([process.execPath, '-e', call], env, ''))
      node.push(await cpuOf([process.execPath, '-e', ''], env, ''))
    }
    const c = median(claude)
    const a = median(api)
    const n = median(node)
    process.stdout.write(
      `\n### One custodiet review, CPU (median of ${runs}, load ${os.loadavg()[0].toFixed(2)})\n\n` +
        `| reviewer | CPU per review | against \`node -e ''\` |\n|---|---|---|\n` +
        `| claude -p --model haiku (the default without claude's key in the session's environment, or \`"via": "cli"\`) | ${c.toFixed(0)} ms | ${(c / n).toFixed(1)}× |\n` +
        `| node making one Messages API call (the default with claude's key in the environment) | ${a.toFixed(0)} ms | ${(a / n).toFixed(1)}× |\n` +
        `| node -e '' | ${n.toFixed(0)} ms | 1× |\n`,
    )
  } finally {
    await model.close()
    fs.rmSync(home, { recursive: true, force: true })
  }
}

if (require.main === module) reviewerCpu()
