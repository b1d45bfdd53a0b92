// The one list of Ratchet's executables: what each is built from, which Claude Code events it is
// registered for, how long Claude Code waits for it, how long it gives itself, and what happens when it
// fails. Everything else is derived from this file and checked against it:
//   scripts/build.mjs       bundles each `entry` to dist/<name>.cjs and writes the bin/ launchers
//                           (lib/runtime/launcher.ts);
//   lib/core/settings.ts    turns `registrations` into the hook entries `ratchet init` writes;
//   hooks/*/main.ts         read their budget, events and malformed-input policy via hookSpec();
//   test/unit/manifest.test checks the bin/ launchers, the budgets against the timeouts, and the specs.
// Pure data: no imports, no I/O, so the build can load it before anything is bundled.

/** One handler entry in Claude Code's settings. */
export interface Registration {
  event: string
  /** Tool-name matcher (PreToolUse/PostToolUse…); omitted for events that take none. */
  matcher?: string
  /** Seconds (Claude Code reads hook timeouts in seconds; academicOps wrote milliseconds by mistake). */
  timeout: number
  /**
   * Claude Code's per-handler failure policy (2.1.x): with 'block', a crash, a timeout, a missing
   * executable or unreadable output blocks the call instead of letting it run. Only meaningful where the
   * event can block; on UserPromptSubmit a blocking failure erases the user's prompt, so it is not used there.
   */
  onFailure?: 'block'
  /** Run in the background: the agent's loop does not wait (Claude Code ignores onFailure then). */
  async?: boolean
  /**
   * With `ratchet init --transport http`: answered by the resident decision service (lib/runtime/service.ts) over
   * a `type: "http"` hook instead of a process per call. The rest stay commands: SessionStart (Claude Code sends
   * no http hook for it), UserPromptSubmit (see docs/threat-model.md, "The transport") and custodiet's gates,
   * which may wait seconds for a reviewer.
   */
  served?: boolean
}

export interface Executable {
  /** The bin name, and the bundle dist/<name>.cjs. */
  name: string
  /** The TypeScript entry point esbuild bundles. */
  entry: string
  /**
   * Hooks: a small entry bundled apart (dist/<name>.fast.cjs) that runs first and settles the commonest
   * calls (reads, simple read-only commands) before the full engine loads; whatever it does not settle
   * goes to `entry` (lib/runtime/loader.ts runFast).
   */
  fast?: string
  /**
   * Hooks: its calls are decided by the warm process when one runs (lib/runtime/warm.ts: this engine loaded once
   * and kept in memory), handed over by the compiled client (NATIVE_CLIENT) without a node start, or by the node
   * launcher; the hook's own process decides them otherwise, and whatever the engine declines (its `warmAnswers`).
   */
  warm?: boolean
  /** hook: registered with Claude Code; cli: run by people; worker: spawned by another executable. */
  kind: 'hook' | 'cli' | 'worker'
  /** bin/<name> launcher; a worker has none (it is reached through `bin` + `argv0`). */
  bin: boolean
  /** For a worker: the bin and first argument that launch it (`custodiet review …`). */
  via?: { bin: string; arg: string }
  /** In-process time budget (hooks): the runtime decides by the failure policy when it runs out. */
  budgetMs?: number
  /** Hooks: what stdin that is not a usable payload gets. */
  onMalformed?: 'block' | 'allow'
  /**
   * Hooks: what an internal error or an overrun budget means. 'closed': an action that could not be checked
   * is denied (and the registration blocks on failure); 'open': the hook only watches, so the call goes on.
   */
  failure?: 'closed' | 'open'
  registrations: Registration[]
}

export const EXECUTABLES = [
  {
    name: 'preflight-check',
    entry: 'hooks/preflight-check/main.ts',
    fast: 'hooks/preflight-check/fast.ts',
    warm: true,
    kind: 'hook',
    bin: true,
    budgetMs: 3000,
    onMalformed: 'block',
    failure: 'closed',
    registrations: [
      // The user's words stay a command: a prompt the agent forged over http would be taken as the user's.
      { event: 'UserPromptSubmit', timeout: 10 },
      { event: 'PreToolUse', matcher: '*', timeout: 10, onFailure: 'block', served: true },
      { event: 'PreCompact', timeout: 10, served: true },
    ],
  },
  {
    name: 'session-start',
    entry: 'hooks/session-start/main.ts',
    kind: 'hook',
    bin: true,
    budgetMs: 3000,
    onMalformed: 'allow',
    failure: 'open',
    registrations: [{ event: 'SessionStart', timeout: 10 }],
  },
  {
    name: 'custodiet',
    entry: 'hooks/custodiet/main.ts',
    // Its gates decline the warm process (hooks/custodiet/main.ts warmAnswers): they may wait for the reviewer.
    warm: true,
    kind: 'hook',
    bin: true,
    // The TodoWrite gate and the Stop review may wait for the reviewer (todoBudgetMs / stopBudgetMs, at
    // most 20 s: a real haiku review takes 5-15 s). One budget per hook, so every registration is 40 s;
    // the other events finish in milliseconds.
    budgetMs: 24000,
    onMalformed: 'allow',
    // custodiet watches; preflight-check is the guard of last resort.
    failure: 'open',
    registrations: [
      { event: 'UserPromptSubmit', timeout: 40 },
      // Off the critical path: the loop does not wait; a warning reaches the model a request later.
      { event: 'PostToolUse', matcher: '*', timeout: 40, async: true, served: true },
      { event: 'PostToolUseFailure', matcher: '*', timeout: 40, async: true, served: true },
      { event: 'PreToolUse', matcher: 'TodoWrite', timeout: 40 },
      { event: 'Stop', timeout: 40 },
      { event: 'SubagentStop', timeout: 40, async: true },
    ],
  },
  {
    name: 'custodiet-review',
    entry: 'hooks/custodiet/review.ts',
    kind: 'worker',
    bin: false,
    via: { bin: 'custodiet', arg: 'review' },
    registrations: [],
  },
  { name: 'ratchet', entry: 'lib/cli/main.ts', kind: 'cli', bin: true, registrations: [] },
  // The resident decision service (`ratchet service run|start|stop|status`): preflight-check's and custodiet's
  // engines loaded once, answering the `served` registrations over http.
  {
    name: 'service',
    entry: 'lib/runtime/service.ts',
    kind: 'worker',
    bin: false,
    via: { bin: 'ratchet', arg: 'service' },
    registrations: [],
  },
  // The case server (fastify, pg, ioredis, better-sqlite3 kept external): loaded by `ratchet serve …` alone.
  {
    name: 'serve',
    entry: 'lib/server/main.ts',
    kind: 'worker',
    bin: false,
    via: { bin: 'ratchet', arg: 'serve' },
    registrations: [],
  },
  { name: 'pause-and-ask', entry: 'lib/cli/pause-and-ask.ts', kind: 'cli', bin: true, registrations: [] },
  { name: 'pattern-detect', entry: 'lib/cli/pattern-detect.ts', kind: 'cli', bin: true, registrations: [] },
] as const satisfies readonly Executable[]

/**
 * Libraries the bundles import but a call seldom runs, each built as its own file, dist/<name>.cjs, and
 * loaded on first use (scripts/build.mjs, lib/runtime/loader.ts `chunk`): zod validates a state file only
 * when its hand check cannot, minimatch compiles a path glob only when a rule's literal is in the path.
 */
export const CHUNKS = { 'zod/mini': 'zod-mini', minimatch: 'minimatch' } as const

/** Every file under dist/ an install needs: each executable's bundle, the fast paths, the loader and warm process, the chunks. */
export function distFiles(): string[] {
  const out = ['loader.cjs', 'warm.cjs']
  for (const e of EXECUTABLES as readonly Executable[])
    out.push(`${e.name}.cjs`, ...(e.fast ? [`${e.name}.fast.cjs`] : []))
  return [...out, ...Object.values(CHUNKS).map((c) => `${c}.cjs`)]
}

/**
 * The compiled hook client (native/hook-client.c): a call of a hook the warm process serves (one marked `warm`)
 * handed to it without starting node. Built into dist/ where a C compiler is (scripts/build.mjs), for this
 * platform only; `runsHere` is the built-in test a hook's `sh -c` guard runs to know this machine can run it (the
 * x86-64 Linux loader exists: the binary is static, so any x86-64 Linux runs it). Anywhere else, the node launcher.
 */
export const NATIVE_CLIENT = {
  file: 'hook-client-linux-x64',
  platform: 'linux',
  arch: 'x64',
  runsHere: '[ -e /lib64/ld-linux-x86-64.so.2 ]',
} as const

/**
 * The package's name on the registry, and the command every hint names: it works wherever a hint is read (no
 * `ratchet` on PATH in a project install; `npx ratchet` is someone else's package), the project's own copy first,
 * else the registry's, so also once the package is gone.
 */
export const PACKAGE_NAME = 'ratchet-guard'
export const CLI = `npx ${PACKAGE_NAME}`

export type ExecutableName = (typeof EXECUTABLES)[number]['name']
export type HookName = Extract<(typeof EXECUTABLES)[number], { kind: 'hook' }>['name']
/** Names with a bin/ launcher: what a settings entry of ours can point at, now or in an older install. */
export const BIN_NAMES: string[] = EXECUTABLES.filter((e) => e.bin).map((e) => e.name)

export function executable(name: ExecutableName): Executable {
  return EXECUTABLES.find((e) => e.name === name)!
}

/** The part of a hook's runtime spec that the manifest owns (the shell adds help, handle and onFailure). */
export function hookSpec(name: HookName): {
  name: string
  events: string[]
  budgetMs: number
  onMalformed: 'block' | 'allow'
} {
  const e = executable(name)
  return {
    name,
    events: [...new Set(e.registrations.map((r) => r.event))],
    budgetMs: e.budgetMs!,
    onMalformed: e.onMalformed!,
  }
}
