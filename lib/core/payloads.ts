// zod schemas of the Claude Code hook payloads (see ../shared/reference/claude-code-hooks.md §2).
// Loose on purpose: new fields appear in every client release and must pass through untouched.
// zod/mini keeps the hook bundles small: full zod costs ~70 ms of start-up, zod/mini ~1 ms.

import * as z from 'zod/mini'
import { fail, ok, type Result } from './errors'

// Built on demand, one event at a time: constructing all twelve schemas up front costs a few ms of
// start-up on every tool call, and a hook only ever sees one event.
const common = () => ({
  session_id: z.string(),
  transcript_path: z.optional(z.string()),
  cwd: z.optional(z.string()),
  permission_mode: z.optional(z.string()),
  agent_id: z.optional(z.string()),
  agent_type: z.optional(z.string()),
})
const toolInput = () => z.record(z.string(), z.unknown())
const ev = <E extends string>(name: E) => z.literal(name)

const factories = {
  SessionStart: () =>
    z.looseObject({
      ...common(),
      hook_event_name: ev('SessionStart'),
      source: z.optional(z.string()),
      model: z.optional(z.string()),
    }),
  UserPromptSubmit: () => z.looseObject({ ...common(), hook_event_name: ev('UserPromptSubmit'), prompt: z.string() }),
  PreToolUse: () =>
    z.looseObject({
      ...common(),
      hook_event_name: ev('PreToolUse'),
      tool_name: z.string(),
      tool_input: toolInput(),
      tool_use_id: z.optional(z.string()),
    }),
  PermissionRequest: () =>
    z.looseObject({
      ...common(),
      hook_event_name: ev('PermissionRequest'),
      tool_name: z.string(),
      tool_input: toolInput(),
      permission_suggestions: z.optional(z.array(z.unknown())),
    }),
  PostToolUse: () =>
    z.looseObject({
      ...common(),
      hook_event_name: ev('PostToolUse'),
      tool_name: z.string(),
      tool_input: toolInput(),
      tool_response: z.optional(z.unknown()),
      tool_use_id: z.optional(z.string()),
      duration_ms: z.optional(z.number()),
    }),
  PostToolUseFailure: () =>
    z.looseObject({
      ...common(),
      hook_event_name: ev('PostToolUseFailure'),
      tool_name: z.string(),
      tool_input: toolInput(),
      tool_use_id: z.optional(z.string()),
      error: z.optional(z.unknown()),
      is_interrupt: z.optional(z.boolean()),
    }),
  Stop: () =>
    z.looseObject({
      ...common(),
      hook_event_name: ev('Stop'),
      stop_hook_active: z.optional(z.boolean()),
      last_assistant_message: z.optional(z.string()),
    }),
  SubagentStart: () => z.looseObject({ ...common(), hook_event_name: ev('SubagentStart') }),
  SubagentStop: () =>
    z.looseObject({
      ...common(),
      hook_event_name: ev('SubagentStop'),
      stop_hook_active: z.optional(z.boolean()),
      agent_transcript_path: z.optional(z.string()),
      last_assistant_message: z.optional(z.string()),
    }),
  PreCompact: () =>
    z.looseObject({
      ...common(),
      hook_event_name: ev('PreCompact'),
      trigger: z.optional(z.string()),
      custom_instructions: z.optional(z.nullable(z.string())),
    }),
  Notification: () =>
    z.looseObject({
      ...common(),
      hook_event_name: ev('Notification'),
      message: z.optional(z.string()),
      title: z.optional(z.string()),
      notification_type: z.optional(z.string()),
    }),
  SessionEnd: () => z.looseObject({ ...common(), hook_event_name: ev('SessionEnd'), reason: z.optional(z.string()) }),
}

type Factories = typeof factories
export type HookEvent = keyof Factories
export type PayloadOf<E extends HookEvent> = z.infer<ReturnType<Factories[E]>>
export type HookPayload = { [E in HookEvent]: PayloadOf<E> }[HookEvent]
export const HOOK_EVENTS = Object.keys(factories) as HookEvent[]

const built = new Map<HookEvent, z.ZodMiniType>()
/** The zod schema of one event's payload. */
export function payloadSchema<E extends HookEvent>(event: E): ReturnType<Factories[E]> {
  let s = built.get(event)
  if (!s) built.set(event, (s = factories[event]()))
  return s as ReturnType<Factories[E]>
}

type Issue = {
  path: readonly PropertyKey[]
  message: string
  code?: string
  expected?: unknown
  values?: readonly unknown[]
  input?: unknown
}

/**
 * What is wrong with one field. zod/mini ships no messages (loading its locale costs start-up), so each
 * issue says only "Invalid input": say what was expected instead, from the issue's own data.
 */
export function issueMessage(i: Issue): string {
  if (i.message && i.message !== 'Invalid input') return i.message
  if (i.code === 'invalid_type' && i.expected) return `expected ${String(i.expected)}`
  if (i.code === 'invalid_value' && i.values)
    return `expected one of ${i.values.map((v) => JSON.stringify(v)).join(', ')}`
  if (i.code === 'unrecognized_keys') return 'unknown key'
  return i.message || 'invalid'
}

/** One line naming the first problems, e.g. `tool_input: expected record`. */
export function describeIssues(error: { issues: readonly Issue[] }): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${issueMessage(i)}`)
    .join('; ')
}

/** The payload, or a payload_invalid error whose one-line message names the field. */
export function parsePayload(text: string): Result<HookPayload> {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    const msg = text.trim() ? (e as Error).message : 'stdin was empty'
    return fail('payload_invalid', `stdin is not a JSON hook payload (${msg})`)
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return fail('payload_invalid', 'stdin is not a JSON object')
  const event = (raw as { hook_event_name?: unknown }).hook_event_name
  if (typeof event !== 'string' || !(event in factories))
    return fail('payload_invalid', `hook_event_name ${JSON.stringify(event)} is not a Claude Code hook event`)
  // The commonest payloads by far (every tool call, twice, and every prompt), checked by hand with exactly
  // their schema's acceptance: building zod's schema objects and parsing costs ~1 ms of every hook's
  // start-up. Any other event, and any payload a check refuses, goes to the schema (which words the problem).
  const plain = Object.hasOwn(PLAIN, event) ? PLAIN[event as keyof typeof PLAIN] : undefined
  if (plain && plainCommon(raw as Record<string, unknown>) && plain(raw as Record<string, unknown>))
    return ok(raw as HookPayload)
  const r = payloadSchema(event as HookEvent).safeParse(raw)
  if (!r.success) return fail('payload_invalid', `${event} payload: ${describeIssues(r.error)}`)
  return ok(r.data as HookPayload)
}

const OPTIONAL_STRINGS = ['transcript_path', 'cwd', 'permission_mode', 'agent_id', 'agent_type']
const opt = (v: unknown, type: string) => v === undefined || typeof v === type
/** A tool_input as z.record(z.string(), z.unknown()) takes it: a plain object. */
const record = (v: unknown) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype

/** The fields every payload shares (`common`), tested without zod. */
function plainCommon(raw: Record<string, unknown>): boolean {
  return typeof raw.session_id === 'string' && OPTIONAL_STRINGS.every((k) => opt(raw[k], 'string'))
}

/** What these events' schemas accept beyond `common` (looseObject: unknown keys pass through), without zod. */
const PLAIN = {
  PreToolUse: (r: Record<string, unknown>) =>
    typeof r.tool_name === 'string' && record(r.tool_input) && opt(r.tool_use_id, 'string'),
  PostToolUse: (r: Record<string, unknown>) =>
    typeof r.tool_name === 'string' &&
    record(r.tool_input) &&
    opt(r.tool_use_id, 'string') &&
    opt(r.duration_ms, 'number'),
  UserPromptSubmit: (r: Record<string, unknown>) => typeof r.prompt === 'string',
} satisfies Partial<Record<HookEvent, (raw: Record<string, unknown>) => boolean>>

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [factories]) Object.setPrototypeOf(table, null)

/**
 * The prompts Claude Code itself submits when it resumes a session (`claude -p --resume <id>` after a deferred
 * call, a restarted or moved session): UserPromptSubmit carries them as if the user had typed them (seen with
 * 2.1.330). They ask for nothing new and confirm nothing: the user's last real request stays the request, and a
 * hold stays until the user speaks. Matched whole (only Claude Code's own wording), so a user's "continue from
 * where you left off, but don't push" is still the user's.
 */
const RESUME_PROMPTS = [
  /^Continue from where you left off\.$/,
  /^Continue from where you left off\. Note: this session was automatically restarted after its process exited unexpectedly; the user has not sent a new message since the restart\. Re-verify anything time-sensitive \(branch state, running processes, prior partial work\) before continuing\.$/,
  /^Continue from where you left off\. This session moved to a new runner; files you created earlier may no longer exist, so verify the working directory state before relying on prior edits\.(?: If the result of a tool call above starts with "\[Tool call interrupted"[^\n]*)?$/,
  /^This session's worker process was restarted\. If your previous turn was already complete, take no action and wait for the next event\. Otherwise, continue from where you left off\.$/,
]

export function isResumePrompt(prompt: string): boolean {
  const p = prompt.trim()
  return RESUME_PROMPTS.some((r) => r.test(p))
}
