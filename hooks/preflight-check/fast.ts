// preflight-check's fast path: settles the commonest calls — reads (Read, Glob, Grep, LS…) and a few
// plain read-only commands (`ls -la`, `cat src/app.ts`, `git status`) — before the full engine's bundle
// loads, which alone costs more than the whole start-up target. It is its own small bundle
// (dist/preflight-check.fast.cjs, see the manifest's `fast` and lib/runtime/loader.ts runFast).
//
// It only ever settles a call the full engine would let through silently, and does for it exactly what
// the full engine does: records the files read in the session and logs the same activity line. It hands
// the call to the full engine (with the stdin it read) whenever anything is not plainly ordinary:
//   - the call: another tool or event, any shell syntax beyond plain words (no $, `, ;, |, &, <, >, globs,
//     ~, newlines…), a program outside a short list, an option that writes or runs something, a URL;
//   - the paths it names: outside the project, a dot-folder or dot-file anywhere under it (.env, .git,
//     .ratchet, .claude…), the state folder, the installed package, anything the secrets catalogue names,
//     or a path whose real location differs (a symlink on the way);
//   - the state: no trusted inverted rule index (lib/io/fast-index.ts), a rule that could match
//     (lib/core/rule-index.ts), rule or config problems, custodiet's hold, a probation, outcomes of earlier
//     pauses waiting to be delivered, a session file that is not plainly valid.
// test/unit/fast-path.test.ts runs the classifier corpus and an attack table through both paths and
// asserts identical decisions and effects. RATCHET_FAST_PATH=0 turns it off.

import fs from 'node:fs'
import path from 'node:path'
import { secretName } from '../../lib/core/actions/secrets'
import type { ClassifyContext } from '../../lib/core/actions/types'
import { fingerprint } from '../../lib/core/fingerprint'
import { decisionRecord } from '../../lib/core/activity'
import { mayMatch } from '../../lib/core/rule-index'
import { plainConfig, plainSession as shapedSession, type SessionShape } from '../../lib/core/state-shapes'
import { maskDeep, maskSecrets } from '../../lib/core/secrets'
import { readFastIndex } from '../../lib/io/fast-index'
import { secretFileFacts } from '../../lib/io/secret-files'
import { appendJsonl, readRegularFile, setStateRoot, withLock, writeFileAtomic } from '../../lib/io/store-core'
import { readStdinSync, stdinIsTerminal } from '../../lib/runtime/stdio'
import { FAST_TOOLS, PROGRAMS, readOnlyCall } from './fast-call'

/**
 * What the launcher checks before it loads this bundle at all (scripts/build.mjs writes it beside the bundle
 * as preflight-check.fast.screen.json; lib/runtime/loader.ts reads it): a PreToolUse call of another tool,
 * or a Bash command whose first word is plainly none of PROGRAMS, goes straight to the full engine, which
 * saves loading this bundle (~2 ms) on every call it would hand over anyway. It can only send calls on.
 */
export const SCREEN = { event: 'PreToolUse', tools: [...FAST_TOOLS], programs: Object.keys(PROGRAMS) }

export interface FastContext {
  projectDir: string
  homeDir: string
  stateDir: string
  /** The installed package's folder (protected like the state folder). */
  packageDir?: string
}

const inside = (p: string, dir: string) => p === dir || p.startsWith(dir + '/')

/** A path the fast path may let be read without asking the full engine: plainly part of the project. */
export function plainProjectPath(abs: string, ctx: FastContext): boolean {
  const { projectDir } = ctx
  if (!inside(abs, projectDir)) return false
  if (
    abs !== projectDir &&
    abs
      .slice(projectDir.length + 1)
      .split('/')
      .some((seg) => seg.startsWith('.'))
  )
    return false
  if (inside(abs, ctx.stateDir) || (ctx.packageDir && inside(abs, ctx.packageDir))) return false
  return secretName(ctx as ClassifyContext, abs) === undefined
}

/** On disk: each existing path is where it says it is (no symlink on the way out of the project). */
function realPlain(paths: string[], projectDir: string): boolean {
  let root: string
  try {
    root = fs.realpathSync.native(projectDir)
  } catch {
    return false
  }
  for (const p of paths) {
    try {
      if (fs.realpathSync.native(p) !== root + p.slice(projectDir.length)) return false
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return false
    }
  }
  return true
}

/** The state files the fast path reads, named as lib/io/paths.ts resolvePaths and its neighbours name them. */
export function fastPaths(env: NodeJS.ProcessEnv, cwd: string, session: string) {
  const projectDir = path.resolve(env.CLAUDE_PROJECT_DIR || cwd)
  const stateDir = path.resolve(env.RATCHET_DIR || path.join(projectDir, '.ratchet'))
  const safe = session.replace(/[^A-Za-z0-9_.-]/g, '_')
  return {
    projectDir,
    stateDir,
    guardrails: path.join(stateDir, 'guardrails.json'),
    pending: path.join(stateDir, 'pending-actions.json'),
    activity: path.join(stateDir, 'activity.jsonl'),
    config: path.join(stateDir, 'config.json'),
    session: path.join(stateDir, 'sessions', safe + '.json'),
    hold: path.join(stateDir, 'custodiet', `${safe}.hold.json`),
    custodietRecord: path.join(stateDir, 'custodiet', `${safe}.json`),
    probation: path.join(stateDir, 'courtroom', 'probation.json'),
    floorHold: path.join(stateDir, 'floor-hold.json'),
  }
}

/** JSON from a regular file; undefined when it does not exist; throws on anything else (the caller hands over). */
function readJsonIfAny(file: string, opts: { noFollow?: boolean } = {}): unknown {
  let text: string
  try {
    text = readRegularFile(file, opts)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw e
  }
  return JSON.parse(text)
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)
const opt = (v: unknown, type: string) => v === undefined || typeof v === type

type Session = SessionShape

/**
 * A session file exactly in the shape lib/io/session-state.ts writes (no unknown key, every type right),
 * so the update below gives what updateSession would; anything else goes to the full engine. No file: an
 * empty session.
 */
export function plainSession(raw: unknown): Session | null {
  if (raw === undefined) return { reads: {}, prompts: [], checks: {} }
  return shapedSession(raw) ?? null
}

/** The session after recording `reads`, as apply.ts's 'session' effect writes it. */
export function withReads(s: Session, reads: string[], now: number): Session {
  const r = { ...s.reads }
  for (const f of reads) r[f] = now
  const checks = { ...s.checks }
  const created = s.created
  const secrets = s.secrets
  return maskDeep({
    ...s,
    reads: r,
    checks,
    blocked: s.blocked,
    updated: now,
    ...(created ? { created } : {}),
    ...(secrets ? { secrets } : {}),
  })
}

/** A payload exactly as lib/core/payloads.ts accepts a PreToolUse one, or null. */
function preToolUse(
  raw: unknown,
): { session_id: string; tool_name: string; tool_input: Record<string, unknown>; cwd?: string } | null {
  if (
    !isObject(raw) ||
    raw.hook_event_name !== 'PreToolUse' ||
    typeof raw.session_id !== 'string' ||
    typeof raw.tool_name !== 'string' ||
    !isObject(raw.tool_input)
  )
    return null
  for (const k of ['transcript_path', 'cwd', 'permission_mode', 'agent_id', 'agent_type', 'tool_use_id'])
    if (!opt(raw[k], 'string')) return null
  return raw as ReturnType<typeof preToolUse>
}

/** Settles the call if it can (true: done, nothing more to do); false hands it to the full engine. */
export function settle(
  text: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  now: number,
  started: bigint,
  packageDir?: string,
): boolean {
  const call = preToolUse(JSON.parse(text))
  if (!call) return false
  const p = fastPaths(env, cwd, call.session_id)
  const home = env.HOME || ''
  // A project at / or the home folder holds everything: no path in it is plainly ordinary.
  if (!home || p.projectDir === '/' || p.projectDir === path.resolve(home)) return false
  const ctx: FastContext = { projectDir: p.projectDir, homeDir: home, stateDir: p.stateDir, packageDir }
  const fc = readOnlyCall(call.tool_name, call.tool_input, call.cwd || p.projectDir, p.projectDir)
  if (!fc?.paths.every((x) => plainProjectPath(x, ctx)) || !realPlain(fc.paths, p.projectDir)) return false
  if (fc.searched) {
    const facts = secretFileFacts(ctx)
    if (fc.searched.some((d) => facts.secretFilesUnder!(d).length)) return false
  }

  const index = readFastIndex(p.stateDir, p.guardrails)
  if (!index || index.problems || mayMatch(index, call.tool_name, fc.commands, fc.paths)) return false
  if (fs.existsSync(p.hold) || fs.existsSync(p.probation) || fs.existsSync(p.floorHold)) return false
  // config.json as readConfig takes it without a problem (a problem is a notice on every call), or none.
  const config = readJsonIfAny(p.config)
  if (config !== undefined && !plainConfig(config)) return false
  const queue = readJsonIfAny(p.pending)
  if (queue !== undefined) {
    if (!Array.isArray(queue)) return false
    if (
      queue.some(
        (e) => isObject(e) && e.session_id === call.session_id && e.delivered === false && e.status !== 'pending',
      )
    )
      return false
  }

  setStateRoot(p.stateDir)
  if (fc.reads.length) {
    const recorded = withLock(
      p.session,
      () => {
        // A link planted at the session file is not followed (a clean copy elsewhere would erase what it read).
        const raw = readJsonIfAny(p.session, { noFollow: true })
        // Absent although custodiet has a record of the session: perhaps removed, which the full engine tells and reads as damaged.
        if (raw === undefined && fs.existsSync(p.custodietRecord)) return false
        const s = plainSession(raw)
        if (!s) return false
        writeFileAtomic(p.session, JSON.stringify(withReads(s, fc.reads, now), null, 2) + '\n')
        return true
      },
      { timeoutMs: 1000 },
    )
    if (!recorded) return false
  }
  const record = {
    ...decisionRecord({
      now,
      session: call.session_id,
      tool: call.tool_name,
      action: maskSecrets(fc.summary),
      classes: [],
      patterns: [],
      guardrails: [],
      decision: 'allow',
      fingerprint: fingerprint(call.tool_name, call.tool_input, call.cwd || p.projectDir),
    }),
    latency_ms: Number((process.hrtime.bigint() - started) / 10_000n) / 100,
  }
  appendJsonl(p.activity, maskDeep(record))
  return true
}

export type FastOutcome = { settled: true } | { settled: false; stdin?: string }

/**
 * The fast bundle's entry (lib/runtime/loader.ts runFast): a plain allow prints nothing and exits 0.
 * `pre.stdin`: the payload, when the launcher's screen has already read it.
 */
export function main(argv: string[] = process.argv, pre?: { stdin?: string }): FastOutcome {
  const args = argv.slice(2)
  if (
    args.includes('--help') ||
    args.includes('-h') ||
    process.env.RATCHET_FAST_PATH === '0' ||
    (pre?.stdin === undefined && stdinIsTerminal())
  )
    return { settled: false, stdin: pre?.stdin }
  const started = process.hrtime.bigint()
  let text: string | undefined = pre?.stdin
  try {
    text ??= readStdinSync()
  } catch {
    return { settled: false }
  }
  if (text === undefined) return { settled: false }
  try {
    if (
      !settle(
        text,
        process.env,
        process.cwd(),
        Date.now(),
        started,
        path.basename(__dirname) === 'dist' ? path.dirname(__dirname) : undefined,
      )
    )
      return { settled: false, stdin: text }
  } catch {
    return { settled: false, stdin: text }
  }
  process.exitCode = 0
  return { settled: true }
}
