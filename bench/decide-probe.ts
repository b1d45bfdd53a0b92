// Bundled and run by bench/run.ts in fresh processes: times the PreToolUse decision for a few calls,
// one call per process: first cold (nothing warm: what each hook process pays), then warm. Prints JSON.
import fs from 'node:fs'
import { decide } from '../hooks/preflight-check/decide'
import { compileRules } from '../lib/core/rule-match'
import { validateGuardrails } from '../lib/core/guardrails'

const rules = validateGuardrails(JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))).rules
const t0 = performance.now()
const index = compileRules(rules)
const compile = performance.now() - t0
const ctx = {
  projectDir: '/p',
  homeDir: '/home/u',
  stateDir: '/p/.ratchet',
  session: { reads: {}, prompts: [] },
  fileExists: () => true,
  currentBranch: () => 'feature',
}
const calls = [
  { tool_name: 'Bash', tool_input: { command: 'ls -la' } },
  { tool_name: 'Read', tool_input: { file_path: '/p/src/app.ts' } },
  { tool_name: 'Bash', tool_input: { command: 'git push origin feature' } },
  { tool_name: 'Write', tool_input: { file_path: '/p/src/app.ts', content: 'x' } },
]
const opts = { checkWindowMs: 600_000, checks: {}, fingerprint: 'x', now: Date.now() }
// One call per process, so its first call is truly cold.
const call = calls[Number(process.argv[3] ?? 0)]
const out = [call].map(() => {
  const c0 = performance.now()
  decide(call, ctx, index, opts)
  const cold = performance.now() - c0
  for (let i = 0; i < 2000; i++) decide(call, ctx, index, opts)
  const n = 5000
  const w0 = performance.now()
  for (let i = 0; i < n; i++) decide(call, ctx, index, opts)
  return {
    label: `${call.tool_name} ${JSON.stringify(call.tool_input)}`.slice(0, 60),
    cold,
    warm: (performance.now() - w0) / n,
    compile,
  }
})
process.stdout.write(JSON.stringify({ ...out[0], count: calls.length }))
