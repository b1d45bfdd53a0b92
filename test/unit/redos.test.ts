// Bounded work on untrusted input: no regex in lib/core may backtrack catastrophically, and the
// classifier stays fast on adversarial and oversized input. A hook that outlives its budget is
// killed and the tool runs, so a slow regex is a way through the guard (issue 9: an 85-character
// command once hung preflight-check this way).
//
// Every regex literal in lib/core is found with the TypeScript parser (so a new one is covered the
// day it is written) and fed strings built from its own fragments, repeated at growing lengths with
// a character that forces a failed match at the end; classify() and the exported matchers get
// adversarial commands and 100 KB fields. The work runs in a child process (redos-fuzz.ts) with a
// timeout, because a catastrophic regex cannot be interrupted in the process that runs it; the
// bound per input is generous (a real blow-up takes seconds or forever).

import { spawn } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { readCommandLine } from '../../lib/core/commands'
import { BOUND_MS } from './redos-fuzz'
const FUZZ = path.join(__dirname, 'redos-fuzz.ts')

interface Line {
  case?: string
  ms?: number
  slow?: boolean
  count?: number
}

// Asynchronous on purpose: the regex suite can take minutes on a loaded machine, and a spawnSync that long
// blocks the test worker's event loop past vitest's 60 s progress-RPC timer ("Timeout calling onTaskUpdate"),
// which fails the whole run although every test passed.
function run(suite: string, timeoutMs: number): Promise<{ lines: Line[]; hung?: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', FUZZ, suite], {
      cwd: path.join(__dirname, '../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, timeoutMs)
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      const lines = stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Line)
      if (status === 0) return resolve({ lines })
      const last = [...lines].reverse().find((l) => l.case)
      const why = timedOut
        ? `timed out after ${timeoutMs} ms (signal ${signal})`
        : `exit ${status}, signal ${signal}: ${stderr.slice(-500)}`
      resolve({ lines, hung: `${why} — on ${last?.case ?? '(start)'}` })
    })
  })
}

describe('bounded work on untrusted input', () => {
  it(`no regex literal in lib/core takes over ${BOUND_MS} ms on input built from its own fragments`, async () => {
    const { lines, hung } = await run('regexes', 600_000)
    expect(hung).toBeUndefined()
    expect(lines[0].count).toBeGreaterThan(100) // the parser found them
    expect(lines.filter((l) => l.slow).map((l) => `${l.case}: ${l.ms!.toFixed(0)} ms`)).toEqual([])
  }, 660_000)

  it('classify(), maskSecrets, parseShell and readCommandLine stay fast on adversarial commands (up to 300 KB)', async () => {
    const { lines, hung } = await run('commands', 120_000)
    expect(hung).toBeUndefined()
    // 100 KB through the whole classifier: generous, a hang takes seconds.
    expect(
      lines.filter((l) => l.ms !== undefined && l.ms > BOUND_MS * 5).map((l) => `${l.case}: ${l.ms!.toFixed(0)} ms`),
    ).toEqual([])
    expect(lines.filter((l) => l.ms !== undefined).length).toBeGreaterThan(100)
  }, 150_000)

  it('classify() stays fast on 100 KB fields of Write, Edit, WebFetch and MCP calls', async () => {
    const { lines, hung } = await run('tools', 60_000)
    expect(hung).toBeUndefined()
    expect(
      lines.filter((l) => l.ms !== undefined && l.ms > BOUND_MS * 5).map((l) => `${l.case}: ${l.ms!.toFixed(0)} ms`),
    ).toEqual([])
  }, 90_000)

  it('an oversized command is flagged as unreadable, not scanned', () => {
    const r = readCommandLine('git push; '.repeat(30_000))
    expect(r.invocations).toEqual([])
    expect(r.unreadable.join(' ')).toMatch(/too long to read/)
  })

  it('nesting past the limit is flagged as unreadable', () => {
    expect(readCommandLine('echo ' + '$(echo '.repeat(9) + 'rm x' + ')'.repeat(9)).unreadable.join(' ')).toMatch(
      /nested more than 8/,
    )
    expect(readCommandLine('echo ' + '$(echo '.repeat(7) + 'rm x' + ')'.repeat(7)).unreadable).toEqual([])
    let code = 'rm x'
    for (let i = 0; i < 7; i++) code = `bash -c ${JSON.stringify(code)}`
    expect(readCommandLine(code).unreadable.join(' ')).toMatch(/nested more than/)
  })
})
