// Pure edits of a Claude Code settings object: add or remove Ratchet's hook registrations while
// keeping every other hook and setting exactly as it was. Idempotent: installing twice changes nothing.

export interface HookHandler {
  type: string
  command?: string
  timeout?: number
  [k: string]: unknown
}
export interface MatcherGroup {
  matcher?: string
  hooks: HookHandler[]
  [k: string]: unknown
}
export type Settings = { hooks?: Record<string, MatcherGroup[]>; [k: string]: unknown }

export const HOOK_NAMES = ['preflight-check', 'session-start', 'pause-and-ask', 'custodiet', 'pattern-detect'] as const
export type HookName = (typeof HOOK_NAMES)[number]

export interface Registration {
  event: string
  matcher?: string
  hook: HookName
  /** Seconds: Claude Code reads hook timeouts in seconds (academicOps wrote milliseconds by mistake). */
  timeout: number
}

/** What `ratchet init` registers. Timeouts sit well above each hook's own internal budget. */
export const REGISTRATIONS: Registration[] = [
  { event: 'SessionStart', hook: 'session-start', timeout: 10 },
  { event: 'UserPromptSubmit', hook: 'preflight-check', timeout: 10 },
  { event: 'PreToolUse', matcher: '*', hook: 'preflight-check', timeout: 10 },
  { event: 'PreCompact', hook: 'preflight-check', timeout: 10 },
  { event: 'UserPromptSubmit', hook: 'custodiet', timeout: 10 },
  { event: 'PostToolUse', matcher: '*', hook: 'custodiet', timeout: 10 },
  { event: 'PostToolUseFailure', matcher: '*', hook: 'custodiet', timeout: 10 },
  { event: 'PreToolUse', matcher: 'TodoWrite', hook: 'custodiet', timeout: 15 },
  { event: 'SubagentStop', hook: 'custodiet', timeout: 10 },
]

const OURS = new RegExp(`(^|[/\\\\"'\\s])bin/(${HOOK_NAMES.join('|')})["']?(\\s.*)?$`)

export function isRatchetHandler(h: HookHandler): boolean {
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

export function withRatchet(settings: Settings, commandFor: (hook: HookName) => string, regs: Registration[] = REGISTRATIONS): Settings {
  const base = withoutRatchet(settings)
  const hooks: Record<string, MatcherGroup[]> = { ...(base.hooks ?? {}) }
  for (const r of regs) {
    const handler: HookHandler = { type: 'command', command: commandFor(r.hook), timeout: r.timeout }
    const groups = [...(hooks[r.event] ?? [])]
    const i = groups.findIndex((g) => (g.matcher ?? '') === (r.matcher ?? ''))
    if (i >= 0) groups[i] = { ...groups[i], hooks: [...groups[i].hooks, handler] }
    else groups.push(r.matcher === undefined ? { hooks: [handler] } : { matcher: r.matcher, hooks: [handler] })
    hooks[r.event] = groups
  }
  return { ...base, hooks }
}

/** Which of our hooks each event runs, as registered in these settings. */
export function registeredRatchetHooks(settings: Settings): { event: string; matcher?: string; command: string; timeout?: number }[] {
  const out: { event: string; matcher?: string; command: string; timeout?: number }[] = []
  for (const [event, groups] of Object.entries(settings.hooks ?? {}))
    for (const g of groups ?? []) for (const h of g.hooks ?? []) if (isRatchetHandler(h)) out.push({ event, matcher: g.matcher, command: h.command!, timeout: h.timeout })
  return out
}
