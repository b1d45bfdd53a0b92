// Words an agent can type that are also names on Object.prototype (`valueOf`, `__proto__`, `constructor`): a table
// looked up with `table[word]` finds a function there instead of nothing. The classifier used to throw on
// `valueOf x`, `git toString` or `x | hasOwnProperty` — the hook failed closed ("could not check this action"),
// so an ordinary-looking call was interrupted with an internal error. Every such word, in every position a table is
// keyed by, must classify without throwing; and a real effect spelled next to one is still found.

import { describe, expect, it } from 'vitest'
import { classify, type ClassifyContext } from '../../lib/core/classify'
import { parsePayload } from '../../lib/core/payloads'

const WORDS = Object.getOwnPropertyNames(Object.prototype)
const SHAPES = (w: string) => [
  `${w} x`,
  `${w}`,
  `git ${w}`,
  `git ${w} ${w}`,
  `npm ${w}`,
  `npm run ${w}`,
  `docker ${w} ${w}`,
  `kubectl ${w} x`,
  `x | ${w}`,
  `sudo ${w} -rf x`,
  `aws ${w} ${w}`,
  `gh ${w} ${w}`,
  `make ${w}`,
  `python3 -c "${w}"`,
  `git config ${w}.x y`,
  `git -c alias.${w}=status ${w}`,
  `psql -c "${w}"`,
  `${w}=1 ls`,
  `tmux ${w}`,
  `crontab ${w}`,
  `env ${w}`,
  `xargs ${w}`,
  `find . -${w}`,
  `rm -${w} x`,
  `curl -${w} x`,
  `tar -${w}`,
  `ssh ${w} ${w}`,
  `systemctl ${w} ${w}`,
  `terraform ${w}`,
  `helm ${w} ${w}`,
  `ratchet ${w}`,
  `npx ${w}`,
  `pnpm ${w}`,
  `yarn ${w}`,
  `pip ${w}`,
  `cargo ${w}`,
]
const ctx: ClassifyContext = {
  projectDir: '/home/dev/project',
  homeDir: '/home/dev',
  stateDir: '/home/dev/project/.ratchet',
  session: { reads: {}, prompts: [] },
  fileExists: () => false,
  currentBranch: () => 'feature',
}

describe('words that are names on Object.prototype', () => {
  it.each(WORDS)('%s: every command shape classifies without throwing', (w) => {
    const thrown: string[] = []
    for (const command of SHAPES(w)) {
      try {
        classify({ tool_name: 'Bash', tool_input: { command }, cwd: ctx.projectDir }, ctx)
      } catch (e) {
        thrown.push(`${command}: ${(e as Error).message}`)
      }
    }
    for (const tool of [w, `mcp__${w}__${w}`]) {
      try {
        classify(
          {
            tool_name: tool,
            tool_input: { [w]: w, command: w, file_path: `/home/dev/project/${w}` },
            cwd: ctx.projectDir,
          },
          ctx,
        )
      } catch (e) {
        thrown.push(`tool ${tool}: ${(e as Error).message}`)
      }
    }
    expect(thrown).toEqual([])
  })

  it('a real effect next to one is still found', () => {
    const r = classify(
      { tool_name: 'Bash', tool_input: { command: 'valueOf x; git push --force origin main' }, cwd: ctx.projectDir },
      ctx,
    )
    expect(r.findings.map((f) => f.pattern)).toContain('git_history_rewrite')
  })

  it.each(WORDS)('hook_event_name %s is a clear payload error, not a crash', (w) => {
    const r = parsePayload(JSON.stringify({ session_id: 's', hook_event_name: w, cwd: '/p' }))
    expect(r.ok).toBe(false)
  })
})
