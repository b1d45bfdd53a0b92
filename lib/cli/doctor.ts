// `ratchet doctor`: is Ratchet registered, built, readable, and fast enough?

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { commandExecutable, registeredRatchetHooks, REGISTRATIONS } from '../core/settings'
import { distFiles } from '../core/manifest'
import { activeSummary } from './guardrails'
import { serviceStatus } from '../io/service'
import { PACKAGE_ROOT, warmProcess } from '../io/package-root'
import { homeDir, resolvePaths } from '../io/paths'
import { loadGuardrails } from '../io/guardrails'
import { readConfig } from '../io/config'
import type { Paths } from '../io/registry'
import { probeWritable, readRegularFile, readState } from '../io/store'
import { STATE_FILES, type FileKey } from '../io/registry'
import { readSettings } from './install'
import { telegramTokenWarnings } from '../io/telegram-config'
import { modeLine } from '../core/floor'
import { floorHold, floorNow, ratchetPlugin, sandboxTools } from '../io/floor'
import { CLI } from '../core/manifest'
import { probeFloor, probeLine } from '../io/probe'
import {
  custodietConfig,
  reviewerLine,
  reviewerStatus,
  stopGateLine,
  stopGateOf,
  usd,
  type ReviewerStatus,
} from '../io/custodiet-config'

interface Check {
  name: string
  ok: boolean
  detail: string
  /** A warning does not fail the doctor. */
  warn?: boolean
}

export async function doctor(o: { projectDir: string; json?: boolean; probe?: boolean }): Promise<void> {
  const checks: Check[] = []
  const projectDir = path.resolve(o.projectDir)
  const major = Number(process.versions.node.split('.')[0])
  checks.push({
    name: 'node',
    ok: major >= 20,
    detail: `v${process.versions.node}${major >= 20 ? '' : ' (Ratchet needs Node 20 or newer)'}`,
  })

  const bundle = path.join(PACKAGE_ROOT, 'dist', 'preflight-check.cjs')
  // Every file a launcher or a bundle loads: one missing makes the calls that need it fail (closed, but failing).
  const missing = distFiles().filter((f) => !fs.existsSync(path.join(PACKAGE_ROOT, 'dist', f)))
  checks.push({
    name: 'build',
    ok: !missing.length,
    detail: !missing.length
      ? `${PACKAGE_ROOT}/dist`
      : `missing ${missing.map((f) => path.join(PACKAGE_ROOT, 'dist', f)).join(', ')}: reinstall ratchet (or run npm install in ${PACKAGE_ROOT})`,
  })

  const files = [
    path.join(projectDir, '.claude', 'settings.json'),
    path.join(projectDir, '.claude', 'settings.local.json'),
    path.join(homeDir(), '.claude', 'settings.json'),
  ]
  const found: ({ file: string } & ReturnType<typeof registeredRatchetHooks>[number])[] = []
  for (const file of files) {
    try {
      for (const r of registeredRatchetHooks(readSettings(file))) found.push({ file, ...r })
    } catch (e) {
      checks.push({ name: 'settings', ok: false, detail: (e as Error).message })
    }
  }
  const plugin = pluginCheck(projectDir)
  if (plugin) checks.push(plugin.check)
  for (const reg of REGISTRATIONS) {
    const hits = found.filter(
      (f) =>
        f.event === reg.event &&
        (f.matcher ?? '') === (reg.matcher ?? '') &&
        path.basename(commandExecutable(f.command)) === reg.hook,
    )
    const label = `hook ${reg.event}${reg.matcher && reg.matcher !== '*' ? ` (${reg.matcher})` : ''}`
    checks.push({
      name: label,
      ok: hits.length > 0 || !!plugin?.enabled,
      detail: hits.length
        ? hits
            .map((h) => `${reg.hook}: ${commandExecutable(h.command)} (${path.relative(projectDir, h.file) || h.file})`)
            .join('; ')
        : plugin?.enabled
          ? `${reg.hook}: from the plugin`
          : `${reg.hook} not registered: run \`${CLI} init\``,
    })
    for (const h of hits) {
      const exe = commandExecutable(h.command).replace(/\$CLAUDE_PROJECT_DIR|\$\{CLAUDE_PROJECT_DIR\}/g, projectDir)
      if (!exe.startsWith('http:') && !fs.existsSync(exe))
        checks.push({
          name: label,
          ok: false,
          detail: `${exe} does not exist (moved or uninstalled?): every call it guards is blocked until you run \`${CLI} init\` again`,
        })
      if (reg.onFailure === 'block' && h.onFailure !== 'block')
        checks.push({
          name: label,
          ok: false,
          detail: `registered without "onFailure": "block", so a crash or hang of ${reg.hook} lets the call run: run \`${CLI} init\` again`,
        })
    }
  }
  checks.push(clientVersion())

  const paths = resolvePaths(
    { ...process.env, CLAUDE_PROJECT_DIR: process.env.CLAUDE_PROJECT_DIR ?? projectDir },
    projectDir,
  )
  checks.push(writable(paths))
  const g = loadGuardrails(paths, { full: true })
  checks.push({
    name: 'guardrails',
    ok: g.problems.length === 0,
    detail: g.problems.length ? g.problems.join('; ') : activeSummary(g),
  })
  const q = readState(paths, 'pending')
  checks.push({ name: 'pending-actions', ok: q.ok, detail: q.ok ? `${q.value.length} entries` : q.error.message })
  const c = readConfig(paths)
  checks.push({
    name: 'config',
    ok: !c.problem,
    detail: c.problem ?? (fs.existsSync(paths.config) ? paths.config : 'defaults (no config.json)'),
  })
  checks.push(stopGateCheck(paths))
  checks.push(...stateFiles(paths))
  for (const w of telegramTokenWarnings(paths))
    checks.push({ name: 'telegram token', ok: false, warn: true, detail: w })

  // With the plugin enabled, the hooks are registered by it: the floor's own checks of settings hooks do not apply.
  checks.push(
    ...(await floorChecks(paths, o.probe !== false)).filter(
      (c) => !(plugin?.enabled && / is not registered for /.test(c.detail)),
    ),
  )
  checks.push(...reviewerChecks(paths))
  if (fs.existsSync(bundle)) checks.push(latency(bundle, paths.guardrails))
  checks.push(warmCheck(o.projectDir))
  checks.push(transportCheck(found.map((f) => f.command)))

  const failed = checks.filter((x) => !x.ok && !x.warn)
  if (o.json) process.stdout.write(JSON.stringify({ ok: failed.length === 0, checks }, null, 2) + '\n')
  else {
    for (const x of checks)
      process.stdout.write(`${x.ok ? '✓' : x.warn ? '!' : '✗'} ${x.name.padEnd(22)} ${x.detail}\n`)
    process.stdout.write(failed.length ? `\n${failed.length} problem(s).\n` : '\nAll good.\n')
  }
  if (failed.length) process.exitCode = 1
}

/** Whether the end of a turn waits for custodiet's review, and what that costs (custodiet.stopGate). */
function stopGateCheck(paths: Paths): Check {
  const cfg = custodietConfig(paths)
  const problem = stopGateOf(
    ((readConfig(paths).config as Record<string, unknown>).custodiet ?? {}) as Record<string, unknown>,
  ).problem
  return {
    name: 'end of turn',
    ok: !problem,
    warn: !!problem,
    detail: problem ?? stopGateLine(cfg.stopGate, cfg.stopBudgetMs),
  }
}

/**
 * The floor: the mode, whether the host can run the sandbox, whether every scope's settings keep it, a hold waiting
 * for a human, and (unless --no-probe) the proof through the real mechanism (lib/io/probe.ts).
 */
async function floorChecks(paths: Paths, probe: boolean): Promise<Check[]> {
  const now = floorNow(paths)
  const out: Check[] = [
    { name: 'floor', ok: now.mode === 'sandbox', warn: now.mode !== 'sandbox', detail: modeLine(now.mode) },
  ]
  // Said in either mode: best-effort users learn whether the sandbox could be turned on here.
  const tools = sandboxTools()
  out.push({
    name: 'sandbox tools',
    ok: tools.ok || now.mode !== 'sandbox',
    warn: !tools.ok && now.mode !== 'sandbox',
    detail:
      now.mode === 'sandbox'
        ? tools.detail
        : `${tools.detail}${tools.ok ? `: \`${CLI} init\` (without --no-sandbox) can turn the sandbox on` : ''}`,
  })
  for (const p of now.problems) out.push({ name: 'floor settings', ok: false, warn: !p.block, detail: p.what })
  const hold = floorHold(paths)
  if (hold)
    out.push({
      name: 'floor hold',
      ok: false,
      detail: `sessions are held until you run \`${CLI} floor confirm\`: ${hold.join('; ')}`,
    })
  if (now.mode === 'sandbox' && probe) {
    const r = await probeFloor(paths)
    // No client to probe with is a gap in what doctor can prove, not a floor that fails: said, not failed.
    if (r.error)
      out.push({
        name: 'floor probe',
        ok: false,
        warn: true,
        detail: `not proven: could not run through claude (${r.error}); RATCHET_CLAUDE_BIN names the client if it is not on PATH`,
      })
    for (const c of r.checks) out.push({ name: 'floor probe', ok: c.outcome === 'held', detail: probeLine(c) })
  }
  return out
}

/** Every other state file of the registry with a fixed path and a schema: one line each for a bad one. */
function stateFiles(paths: Paths): Check[] {
  const shown = new Set<FileKey>(['guardrails', 'pending', 'config'])
  const out: Check[] = []
  for (const s of STATE_FILES) {
    if (shown.has(s.key) || s.root !== 'state' || !s.schema || s.name.includes('{id}')) continue
    const r = readState(paths, s.key)
    if (r.ok) continue
    // Machine state is moved aside and started afresh at its next write; the rest waits for you.
    const reset = s.onCorrupt !== 'fail'
    out.push({
      name: s.name,
      ok: false,
      warn: reset,
      detail: `${r.error.message}${reset ? ' (moved aside and started afresh when next written)' : ''}${s.whenUnreadable ? `: meanwhile ${s.whenUnreadable}` : ''}`,
    })
  }
  // Session records found damaged were kept aside; those sessions count as having read a secret from then on.
  let aside: string[] = []
  try {
    aside = fs.readdirSync(paths.sessions).filter((f) => f.includes('.json.corrupt-'))
  } catch {
    /* no sessions yet */
  }
  if (aside.length)
    out.push({
      name: 'sessions/',
      ok: false,
      warn: true,
      detail: `${aside.length} damaged session record${aside.length > 1 ? 's' : ''} kept aside (${aside.slice(0, 2).join(', ')}${aside.length > 2 ? ', …' : ''}): ${aside.length > 1 ? 'those sessions count' : 'that session counts'} as having read a secret from then on; remove them once looked at`,
    })
  return out
}

/** How Claude Code reaches the guard (`init --transport`), and for http whether the resident service runs. */
function transportCheck(commands: string[]): Check {
  if (!commands.some((c) => c.startsWith('http:')))
    return {
      name: 'transport',
      ok: true,
      detail: `command: a process per call (\`${CLI} init --transport http\` for the resident service; see docs/threat-model.md)`,
    }
  const s = serviceStatus()
  return {
    name: 'transport',
    ok: true,
    warn: !s.running,
    detail: `http: the resident service on 127.0.0.1:${s.port}, ${s.running ? `running (pid ${s.pid})` : `not running: the next session starts it (\`${CLI} service start\` for sessions already open)`}`,
  }
}

/** custodiet's reviewer, a paid model: on or off, its key, today's calls and cost against the daily cap. */
function reviewerChecks(paths: Paths): Check[] {
  let s: ReviewerStatus
  try {
    s = reviewerStatus(paths)
  } catch (e) {
    return [{ name: 'reviewer', ok: false, detail: (e as Error).message }]
  }
  if (!s.on) return [{ name: 'reviewer', ok: true, detail: reviewerLine(s) }]
  const spent = s.unreadable
    ? `today unknown: ${s.unreadable}; reviews are off as if the cap were reached (fix or remove the file)`
    : `today ${s.today.calls} call${s.today.calls === 1 ? '' : 's'}, ${usd(s.today.usd)} of ${usd(s.cap.usd)} (or ${s.cap.calls} calls)${s.reached ? ': cap REACHED, reviews are off until tomorrow (deterministic checks go on)' : ''}`
  return [
    { name: 'reviewer', ok: true, detail: reviewerLine(s) },
    { name: 'reviewer key', ok: s.credential.found, warn: !s.credential.found, detail: s.credential.detail },
    { name: 'reviewer cost', ok: !s.unreadable, warn: s.reached && !s.unreadable, detail: spent },
  ]
}

/** The warm decision process (lib/runtime/warm.ts) this project's hooks use: information, never a problem. */
function warmCheck(projectDir: string): Check {
  let s: ReturnType<typeof warmProcess<'status'>>
  try {
    s = warmProcess(projectDir, 'status')
  } catch (e) {
    return {
      name: 'warm process',
      ok: true,
      warn: true,
      detail: `cannot be asked (${(e as Error).message}): every call the fast path cannot settle loads the engine itself`,
    }
  }
  if (!s.on)
    return {
      name: 'warm process',
      ok: true,
      detail: `off (${s.why}): every call the fast path cannot settle loads the engine itself`,
    }
  if (!s.running)
    return {
      name: 'warm process',
      ok: true,
      detail:
        "not running: the next call that needs the full engine starts it (it stops after 10 minutes without a call; RATCHET_WARM=0 in Claude Code's environment turns it off)",
    }
  return {
    name: 'warm process',
    ok: true,
    detail: `pid ${s.pid}, requests through ${s.spool} (RATCHET_WARM=0 in Claude Code's environment turns it off)`,
  }
}

function writable(paths: Paths): Check {
  const dir = paths.stateDir
  // Looking never creates: a doctor run in the wrong folder must not leave a stray state folder there.
  if (!fs.existsSync(dir))
    return {
      name: 'state folder',
      ok: false,
      detail: `${dir} does not exist: no Ratchet project here or in a folder above (up to the git toplevel); run \`${CLI} init\` in the project, or pass --project-dir`,
    }
  try {
    probeWritable(paths)
  } catch (e) {
    return { name: 'state folder', ok: false, detail: `${dir} is not writable: ${(e as Error).message}` }
  }
  const mode = fs.statSync(dir).mode & 0o777
  if (mode & 0o077)
    return {
      name: 'state folder',
      ok: false,
      warn: true,
      detail: `${dir} is readable by other users (mode ${mode.toString(8)}): \`${CLI} init\` makes it 0700`,
    }
  return { name: 'state folder', ok: true, detail: dir }
}

/**
 * Fail-closed needs Claude Code's per-handler "onFailure": "block" (measured on 2.1.330). An older client
 * ignores the key: a preflight-check that crashes or outlives its timeout then lets the call run; a missing
 * executable is still blocked by the registered command's own guard.
 */
const ONFAILURE_SINCE = '2.1.330'

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number)
  const pb = b.split('.').map(Number)
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0)
  return 0
}

function clientVersion(): Check {
  const bin = process.env.RATCHET_CLAUDE_BIN || 'claude'
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 })
  const v = /(\d+\.\d+\.\d+)/.exec(r.stdout ?? '')?.[1]
  // No client: nothing runs the hooks, the floor cannot be proven, and the default reviewer cannot review.
  if (!v)
    return {
      name: 'claude client',
      ok: false,
      detail: `\`${bin} --version\` did not answer (${r.error ? (r.error as NodeJS.ErrnoException).code : `exit ${r.status}`}): install Claude Code ${ONFAILURE_SINCE} or newer (npm install -g @anthropic-ai/claude-code), or name it with RATCHET_CLAUDE_BIN`,
    }
  if (compareVersions(v, ONFAILURE_SINCE) >= 0)
    return {
      name: 'claude client',
      ok: true,
      detail: `${v}: honours "onFailure": "block" (a crash or hang of preflight-check blocks the call)`,
    }
  return {
    name: 'claude client',
    ok: true,
    warn: true,
    detail: `${v} is older than ${ONFAILURE_SINCE}: it may ignore "onFailure": "block", so a preflight-check that crashes or outlives its timeout lets the call run (a missing install is still blocked). Update Claude Code.`,
  }
}

/** Median start-to-exit time of preflight-check against bare node, in a scratch state folder. */
function latency(bundle: string, guardrails: string): Check {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-doctor-'))
  try {
    // Read as a regular file only: a FIFO planted there must not hang doctor (it is reported above).
    fs.writeFileSync(path.join(scratch, path.basename(guardrails)), readRegularFile(guardrails))
  } catch {
    /* absent or unreadable: time the packaged rules */
  }
  const payload = JSON.stringify({
    session_id: 'doctor',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'ls -la' },
    cwd: scratch,
  })
  const time = (args: string[]) => {
    const t = process.hrtime.bigint()
    spawnSync(process.execPath, args, {
      input: payload,
      env: { ...process.env, RATCHET_DIR: scratch, CLAUDE_PROJECT_DIR: scratch },
    })
    return Number(process.hrtime.bigint() - t) / 1e6
  }
  const hook: number[] = []
  const bare: number[] = []
  // Three pairs, interleaved: enough for an order of magnitude (`npm run bench` measures properly), and doctor stays quick.
  for (let i = 0; i < 3; i++) {
    bare.push(time(['-e', '']))
    hook.push(time([bundle]))
  }
  fs.rmSync(scratch, { recursive: true, force: true })
  const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]
  const ratio = med(hook) / med(bare)
  return {
    name: 'hook start-up',
    ok: true,
    warn: ratio > 1.5,
    detail: `preflight-check ${med(hook).toFixed(0)} ms vs bare node ${med(bare).toFixed(0)} ms (${ratio.toFixed(2)}×)`,
  }
}

/** The plugin route (lib/io/floor.ts ratchetPlugin): its hooks run where it is enabled; it cannot set up the floor. */
function pluginCheck(projectDir: string): { check: Check; enabled: boolean } | undefined {
  const p = ratchetPlugin(projectDir)
  if (!p) return undefined
  const floor = `it cannot turn on the sandbox: \`${CLI} install\` in the project adds the floor`
  return {
    enabled: p.enabled,
    check: {
      name: 'plugin',
      ok: true,
      warn: !p.enabled,
      detail: `${p.id} ${p.version ?? '?'} (${p.scope ?? '?'} scope, ${p.installPath ?? '?'}) is ${p.enabled ? 'enabled: its hooks guard sessions here' : 'installed but not enabled here'}; ${floor}`,
    },
  }
}
