// Pure edits of a Claude Code settings object: add or remove Ratchet's hook registrations while
// keeping every other hook and setting exactly as it was. Idempotent: installing twice changes nothing.
// What is registered comes from lib/core/manifest.ts.

import {
  BIN_NAMES,
  EXECUTABLES,
  NATIVE_CLIENT,
  PACKAGE_NAME,
  type HookName,
  type Registration as ManifestRegistration,
} from './manifest'

export interface HookHandler {
  type: string
  command?: string
  url?: string
  timeout?: number
  [k: string]: unknown
}
export interface MatcherGroup {
  matcher?: string
  hooks: HookHandler[]
  [k: string]: unknown
}
export type Settings = { hooks?: Record<string, MatcherGroup[]>; [k: string]: unknown }

export type { HookName }

export interface Registration extends ManifestRegistration {
  hook: HookName
}

/** What `ratchet init` registers: every hook's registrations in lib/core/manifest.ts, in manifest order. */
export const REGISTRATIONS: Registration[] = EXECUTABLES.flatMap((e) =>
  e.kind === 'hook' ? e.registrations.map((r: ManifestRegistration) => ({ ...r, hook: e.name as HookName })) : [],
)

/** Events where exit 2 does not block an action but tells the agent to keep going (a loop, not a guard). */
const KEEP_GOING_ON_EXIT_2 = new Set(['Stop', 'SubagentStop'])

/**
 * The command Claude Code runs (through /bin/sh) for a hook at `exe`, a shell word such as
 * `"$CLAUDE_PROJECT_DIR"/node_modules/.bin/preflight-check`. When the executable is gone (the package
 * moved, was removed, or the project was cloned without node_modules) the command itself says so and
 * exits 2, which blocks the call in every client, not only those that honour onFailure. On Stop and
 * SubagentStop exit 2 would make the agent carry on working after its answer, so there the line is a
 * plain error (exit 1) the user sees.
 *
 * The launcher starts with `#!/usr/bin/env node`, so the `node` that runs the hook is the first on PATH. Claude
 * Code hands hooks its own PATH, which may hold folders the agent can write (`node_modules/.bin` under `npx claude`,
 * an activated `.venv/bin`, `.`): a `node` planted there would run as the hook, outside the sandbox. So the
 * command keeps only absolute PATH entries outside the project before it runs the hook. Built-ins only: no extra
 * process, so the guard costs nothing measurable.
 */
export function guardedCommand(
  hook: string,
  exe: string,
  event?: string,
  fix = `Restore it with npm install in the project, or remove the hooks with npx -y ${PACKAGE_NAME} uninstall (installed from a tarball: npx -y ./.ratchet/vendor/${PACKAGE_NAME}-*.tgz uninstall)`,
  native = nativeClient(hook, exe),
): string {
  const keepGoing = event !== undefined && KEEP_GOING_ON_EXIT_2.has(event)
  const what = keepGoing ? 'so Ratchet is not watching this session' : 'so this is blocked to be safe'
  // The compiled client when it is there and this machine runs it; it falls back to "$f" itself (native/hook-client.c).
  // Not exec'd: a binary the kernel refuses after all (another architecture) is exit 126/127 with stdin unread, which
  // would be a non-blocking error (an allow); then the launcher runs. Killed by a signal: blocked, never allowed.
  const fast = native
    ? `n=${native}; if [ -x "$n" ] && ${NATIVE_CLIENT.runsHere}; then "$n" ${hook} "$f"; c=$?; case $c in 126|127) ;; [0-9]|[0-9][0-9]|1[01][0-9]|12[0-5]) exit $c;; *) echo "Ratchet ${hook}: its client ended abnormally (status $c), ${what}." >&2; exit ${keepGoing ? 1 : 2};; esac; fi; `
    : ''
  return `f=${exe}; [ -f "$f" ] && [ -x "$f" ] || { echo "Ratchet ${hook} is missing at $f (moved or uninstalled?), ${what}. ${fix}." >&2; exit ${keepGoing ? 1 : 2}; }; ${SAFE_PATH}; ${fast}exec "$f"`
}

/** A hook whose calls the warm process decides (the manifest's `warm`): the compiled client can hand them over. */
export function warmServed(hook: string): boolean {
  return EXECUTABLES.some((e) => e.name === hook && 'warm' in e && e.warm)
}

/**
 * Where the compiled hook client sits beside the launcher `exe`, as a shell word: in the same package's dist/, which
 * the floor guards like its bin/. Only for a launcher named from "$CLAUDE_PROJECT_DIR" or "${CLAUDE_PLUGIN_ROOT}"
 * (an absolute launcher may be a bin link, whose neighbour folders may be anyone's to write: the installer, which
 * knows the package, names the client then). Undefined for a hook the warm process does not serve.
 */
export function nativeClient(hook: string, exe: string): string | undefined {
  if (!warmServed(hook)) return undefined
  const m =
    /^((?:"\$CLAUDE_PROJECT_DIR"|"\$\{CLAUDE_PLUGIN_ROOT\}")(?:\/[\w.@+-]+)*)\/(node_modules\/\.bin|bin)\/([a-z-]+)$/.exec(
      exe,
    )
  if (!m || m[3] !== hook) return undefined
  return `${m[1]}${m[2] === 'bin' ? '' : `/node_modules/${PACKAGE_NAME}`}/dist/${NATIVE_CLIENT.file}`
}

/** PATH without relative entries and without folders inside the project (see guardedCommand). */
export const SAFE_PATH = `p=; set -f; IFS=:; for d in $PATH; do case $d in /*) case $d/ in "\${CLAUDE_PROJECT_DIR:-/nonexistent}"/*) ;; *) p=$p\${p:+:}$d;; esac;; esac; done; unset IFS; set +f; PATH=$p`

/**
 * How Claude Code reaches the served registrations (the manifest's `served`): a process per call (`command`), or
 * the resident decision service over `type: "http"` hooks (`http`; see docs/threat-model.md, "The transport").
 */
export type Transport = 'command' | 'http'

/**
 * The URL of a served hook. When the service is down, Claude Code blocks the call with one line naming this URL
 * and nothing else, so the URL itself says how to bring the service back.
 */
export function serviceUrl(hook: string, port: number): string {
  return `http://127.0.0.1:${port}/hook/${hook}?if-down=run-ratchet-service-start`
}
const SERVICE_URL = /^http:\/\/127\.0\.0\.1:\d+\/hook\/([a-z-]+)(\?|$)/

/** The executable a registered command runs, as written (a shell word, quotes removed); for a served hook, its URL's path. */
export function commandExecutable(command: string): string {
  if (SERVICE_URL.test(command)) return command.split('?')[0]
  const m = /^f=((?:"[^"]*"|[^\s;"])+);/.exec(command.trim()) ?? /^((?:"[^"]*"|[^\s;"])+)/.exec(command.trim())
  return (m?.[1] ?? '').replace(/"/g, '')
}

// Ours: a command naming one of our bin names as a path (bin/x, .bin/x), however it is wrapped.
const OURS = new RegExp(`(^|[/\\\\"'\\s=])\\.?bin/(${BIN_NAMES.join('|')})(["';\\s]|$)`)

export function isRatchetHandler(h: HookHandler): boolean {
  if (h.type === 'http') return typeof h.url === 'string' && BIN_NAMES.includes(SERVICE_URL.exec(h.url)?.[1] ?? '')
  return h.type === 'command' && typeof h.command === 'string' && OURS.test(h.command.trim())
}

export function withoutRatchet(settings: Settings): Settings {
  if (!settings.hooks) return settings
  const hooks: Record<string, MatcherGroup[]> = {}
  for (const [event, groups] of Object.entries(settings.hooks)) {
    const kept = (groups ?? [])
      .map((g) => ({ ...g, hooks: (g.hooks ?? []).filter((h) => !isRatchetHandler(h)) }))
      .filter((g) => g.hooks.length > 0)
    if (kept.length) hooks[event] = kept
  }
  const next: Settings = { ...settings, hooks }
  if (!Object.keys(hooks).length) delete next.hooks
  return next
}

export function withRatchet(
  settings: Settings,
  commandFor: (hook: HookName, event: string) => string,
  regs: Registration[] = REGISTRATIONS,
  transport: { kind: Transport; port: number } = { kind: 'command', port: 0 },
): Settings {
  const base = withoutRatchet(settings)
  const hooks: Record<string, MatcherGroup[]> = { ...(base.hooks ?? {}) }
  for (const r of regs) {
    // A served hook answers in milliseconds, so it is never async over http (the loop waits ~3 ms for it).
    const handler: HookHandler =
      transport.kind === 'http' && r.served
        ? {
            type: 'http',
            url: serviceUrl(r.hook, transport.port),
            timeout: r.timeout,
            ...(r.onFailure ? { onFailure: r.onFailure } : {}),
          }
        : {
            type: 'command',
            command: commandFor(r.hook, r.event),
            timeout: r.timeout,
            ...(r.onFailure ? { onFailure: r.onFailure } : {}),
            ...(r.async ? { async: true } : {}),
          }
    const groups = [...(hooks[r.event] ?? [])]
    const i = groups.findIndex((g) => (g.matcher ?? '') === (r.matcher ?? ''))
    if (i >= 0) groups[i] = { ...groups[i], hooks: [...groups[i].hooks, handler] }
    else groups.push(r.matcher === undefined ? { hooks: [handler] } : { matcher: r.matcher, hooks: [handler] })
    hooks[r.event] = groups
  }
  // Where the hooks were: installing twice writes the same bytes.
  if (!settings.hooks) return { ...base, hooks }
  return Object.fromEntries(
    Object.keys({ ...settings, ...base }).map((k) => [k, k === 'hooks' ? hooks : base[k]]),
  ) as Settings
}

/** Which of our hooks each event runs, as registered in these settings. */
export interface Registered {
  event: string
  matcher?: string
  command: string
  timeout?: number
  onFailure?: unknown
  async?: unknown
}
export function registeredRatchetHooks(settings: Settings): Registered[] {
  const out: Registered[] = []
  for (const [event, groups] of Object.entries(settings.hooks ?? {}))
    for (const g of groups ?? [])
      for (const h of g.hooks ?? [])
        if (isRatchetHandler(h))
          out.push({
            event,
            matcher: g.matcher,
            command: (h.type === 'http' ? h.url : h.command)!,
            timeout: h.timeout,
            onFailure: h.onFailure,
            async: h.async,
          })
  return out
}

/**
 * hooks/hooks.json of the Claude Code plugin (the package root is the plugin root): the same registrations, each
 * running the plugin's own launcher behind the same guard. Written by scripts/build.mjs, checked by a test.
 */
export function pluginHooks(): { description: string; hooks: Record<string, MatcherGroup[]> } {
  const hooks = withRatchet({}, (h, event) =>
    guardedCommand(
      h,
      `"\${CLAUDE_PLUGIN_ROOT}"/bin/${h}`,
      event,
      `Reinstall the plugin (claude plugin install ${PACKAGE_NAME}), or remove it with claude plugin uninstall ${PACKAGE_NAME}`,
    ),
  ).hooks!
  return {
    description:
      "Ratchet's hooks (lib/core/manifest.ts). The OS floor is not here: a plugin cannot turn on the sandbox (npx ratchet-guard install does).",
    hooks,
  }
}
