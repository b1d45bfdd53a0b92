// Shared test helpers: real payload samples, temp projects, and running the built executables.
import { spawnSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const ROOT = path.resolve(__dirname, '..', '..')
export const SHARED = path.resolve(ROOT, '..', 'shared', 'reference')
export const BIN = (name: string) => path.join(ROOT, 'bin', name)

/** The real hook payloads recorded from the claude CLI 2.1.330, with a copy in test/fixtures. */
export function hookSamples(): Record<string, unknown>[] {
  const file = fs.existsSync(path.join(SHARED, 'hook-stdin-samples.jsonl'))
    ? path.join(SHARED, 'hook-stdin-samples.jsonl')
    : path.join(ROOT, 'test', 'fixtures', 'hook-stdin-samples.jsonl')
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}

export function tempProject(prefix = 'ratchet-test-'): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
}

/**
 * Removes a scratch folder a real session used. When `claude` has exited, what it started may still be at work in the
 * project: custodiet's background PostToolUse, a detached reviewer (whose own `claude` retries for many seconds once
 * the mock model has closed), the warm process. Each writes into the state folder, so a removal alone can meet a file
 * created meanwhile (ENOTEMPTY, seen in CI even with retries). Those processes are found by their working folder or
 * command line (Linux's /proc) and stopped first; the removal then retries for what was mid-write.
 */
export function removeScratch(dir: string): void {
  for (let round = 0; round < 20; round++) {
    const left = processesIn(dir)
    if (left.length === 0) break
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    spawnSync('sleep', ['0.1'])
  }
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
}

/** Live processes (not this one nor its parent) working in `dir` or naming it on their command line. */
function processesIn(dir: string): number[] {
  let entries: string[]
  try {
    entries = fs.readdirSync('/proc')
  } catch {
    return []
  }
  const own = new Set([process.pid, process.ppid])
  const pids: number[] = []
  for (const name of entries) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || own.has(pid)) continue
    try {
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`)
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      if (cwd === dir || cwd.startsWith(`${dir}/`) || cmdline.includes(dir)) pids.push(pid)
    } catch {
      // gone, a zombie, or not ours to read
    }
  }
  return pids
}

export interface Run {
  status: number | null
  stdout: string
  stderr: string
}

export function runBin(
  name: string,
  input: unknown,
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; args?: string[] } = {},
): Run {
  const r = spawnSync(BIN(name), opts.args ?? [], {
    input: typeof input === 'string' ? input : JSON.stringify(input),
    cwd: opts.cwd,
    env: { ...process.env, NODE_ENV: undefined, ...opts.env },
    encoding: 'utf8',
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/**
 * `ratchet init` in a project, as a user runs it (the floor on): session-start then finds the floor it expects. A
 * project never initialised is held by session-start until a human sets the floor up (test/e2e/hooks.test.ts).
 */
export function initProject(dir: string, env: NodeJS.ProcessEnv = {}, args: string[] = []): void {
  const r = spawnSync(BIN('ratchet'), ['init', '--project-dir', dir, ...args], {
    cwd: dir,
    env: { ...process.env, NODE_ENV: undefined, ...env },
    encoding: 'utf8',
  })
  if (r.status !== 0) throw new Error(`ratchet init failed: ${r.stderr}`)
}

export function runBinAsync(
  name: string,
  input: unknown,
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN(name), [], { cwd: opts.cwd, env: { ...process.env, ...opts.env } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (status) => resolve({ status, stdout, stderr }))
    child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input))
  })
}

/** A UserPromptSubmit payload: the user's words, as Claude Code sends them. */
export const userPrompt = (cwd: string, prompt: string, session_id = 'sess-1') => ({
  session_id,
  transcript_path: path.join(cwd, 'transcript.jsonl'),
  cwd,
  permission_mode: 'default',
  hook_event_name: 'UserPromptSubmit',
  prompt,
})

export const preToolUse = (
  cwd: string,
  tool_name: string,
  tool_input: Record<string, unknown>,
  session_id = 'sess-1',
) => ({
  session_id,
  transcript_path: path.join(cwd, 'transcript.jsonl'),
  cwd,
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name,
  tool_input,
  tool_use_id: 'toolu_test',
})

/** Runs a command without blocking the event loop (an in-process mock server must keep answering). */
export function exec(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env })
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000)
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr })
    })
    child.stdin.end(opts.input ?? '')
  })
}
