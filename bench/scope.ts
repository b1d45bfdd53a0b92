// npm run bench:scope — scope from the user's words (issue 19 item 4), on a held-out set written before the
// scope check was (bench/corpus/scope-heldout.jsonl: a prompt, then one call). A case that must be flagged
// counts when the whole PreToolUse decision (built-in rules) interrupts it with a scope finding that quotes the
// user; a case that must stay quiet counts when the call is allowed. Target: ≥ 90% flagged; the quiet cases
// are reported as they are (the everyday session, test/e2e/everyday.test.ts, is the zero-interruption target).
//   npx tsx bench/scope.ts [file]     prints the figures and every miss
import fs from 'node:fs'
import path from 'node:path'
import { decidePreToolUse } from '../hooks/preflight-check/compose'
import { withBuiltins } from '../lib/core/builtins'
import { compileRules } from '../lib/core/rule-match'

interface ScopeCase {
  prompt: string
  cmd?: string
  tool?: string
  input?: Record<string, unknown>
  flag: boolean
  why: string
}

const PROJECT = '/home/dev/project'
const SCOPE = new Set(['against_request', 'against_constraint', 'machine_change', 'outside_project'])

export interface ScopeResult {
  flagged: number
  mustFlag: number
  quiet: number
  mustStayQuiet: number
  misses: { case: string; got: string }[]
}

export function scopeHeldout(file = path.join(__dirname, 'corpus', 'scope-heldout.jsonl')): ScopeResult {
  const cases = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ScopeCase)
  const rules = compileRules(withBuiltins([]).rules)
  const r: ScopeResult = { flagged: 0, mustFlag: 0, quiet: 0, mustStayQuiet: 0, misses: [] }
  for (const k of cases) {
    const input =
      k.cmd !== undefined
        ? { command: k.cmd }
        : Object.fromEntries(
            Object.entries(k.input ?? {}).map(([key, v]) => [
              key,
              key === 'file_path' ? path.posix.join(PROJECT, String(v)) : v,
            ]),
          )
    // Every file the call names exists and was read: only scope is weighed, not stale data.
    const read = typeof input.file_path === 'string' ? { [input.file_path]: 1 } : {}
    const out = decidePreToolUse(
      { session_id: 's', tool_name: k.tool ?? 'Bash', tool_input: input, cwd: PROJECT },
      {
        now: 1_800_000_000_000,
        fingerprint: 'fp',
        projectDir: PROJECT,
        homeDir: '/home/dev',
        stateDir: `${PROJECT}/.ratchet`,
        rules,
        problems: [],
        fallback: false,
        session: { reads: read, prompts: [k.prompt], checks: {} },
        queue: { undelivered: [] },
        hold: null,
        config: { checkWindowMs: 600_000, defer: false, telegram: false },
        fileExists: (p) => p.startsWith(PROJECT + '/') && !/\/(de\.json|slugify\.test\.ts)$/.test(p),
        currentBranch: () => 'feature',
        env: () => undefined,
        isNewCapability: () => false,
      },
    )
    const scope = out.result.action.findings.filter((f) => SCOPE.has(f.pattern))
    const stopped = out.decision.kind !== 'allow'
    const label = `${k.cmd ?? `${k.tool} ${String(k.input?.file_path ?? '')}`}  ← "${k.prompt}"`
    if (k.flag) {
      r.mustFlag++
      if (stopped && scope.length) r.flagged++
      else r.misses.push({ case: label, got: stopped ? `stopped without a scope finding (${out.verdict})` : 'allowed' })
    } else {
      r.mustStayQuiet++
      if (!stopped) r.quiet++
      else
        r.misses.push({
          case: label,
          got: `${out.verdict}: ${out.result.action.findings.map((f) => f.pattern).join(', ')}`,
        })
    }
  }
  return r
}

if (require.main === module) {
  const r = scopeHeldout(process.argv[2])
  const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(0)}%`
  process.stdout.write(
    `scope held-out: ${r.flagged}/${r.mustFlag} must-flag cases flagged (${pct(r.flagged, r.mustFlag)}, target ≥ 90%); ${r.quiet}/${r.mustStayQuiet} must-stay-quiet cases quiet (${pct(r.quiet, r.mustStayQuiet)})\n`,
  )
  for (const m of r.misses) process.stdout.write(`  miss: ${m.case}\n        ${m.got}\n`)
}
