// Real processes, one state folder: nothing lost, every file still valid JSON.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { preToolUse, runBin, runBinAsync, tempProject } from '../support/fixtures'

describe('concurrent hooks', () => {
  it('50 hook processes firing the same guardrail leave fire_count exactly 50', async () => {
    const dir = tempProject()
    const env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' }
    for (let i = 0; i < 50; i++) fs.mkdirSync(path.join(dir, `build-${i}`)) // something to lose: deleting nothing is not irreversible
    const runs = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        runBinAsync('preflight-check', preToolUse(dir, 'Bash', { command: `rm -rf build-${i}` }, `session-${i}`), {
          cwd: dir,
          env,
        }),
      ),
    )
    expect(runs.map((r) => r.status)).toEqual(Array(50).fill(0))
    expect(runs.every((r) => r.stdout.includes('"deny"'))).toBe(true)
    // The hooks append to the fire log; a human's look (the CLI) folds it into fire-counts.json.
    expect(runBin('ratchet', '', { cwd: dir, env, args: ['guardrails', 'list'] }).status).toBe(0)
    const counts = JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'fire-counts.json'), 'utf8'))
    expect(counts['RG-IRREVERSIBLE'].n).toBe(50)
    const log = fs
      .readFileSync(path.join(dir, '.ratchet', 'activity.jsonl'), 'utf8')
      .trim()
      .split('\n')
    expect(log).toHaveLength(50)
    expect(log.every((l) => JSON.parse(l).decision === 'check')).toBe(true)
    expect(fs.readdirSync(path.join(dir, '.ratchet')).filter((f) => f.endsWith('.lock') || f.endsWith('.tmp'))).toEqual(
      [],
    )
  }, 120_000)

  it('20 parallel reads in one session are all remembered', async () => {
    const dir = tempProject()
    const env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' }
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runBinAsync('preflight-check', preToolUse(dir, 'Read', { file_path: path.join(dir, `f${i}.txt`) }), {
          cwd: dir,
          env,
        }),
      ),
    )
    const s = JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'sessions', 'sess-1.json'), 'utf8'))
    expect(Object.keys(s.reads)).toHaveLength(20)
  }, 60_000)
})
