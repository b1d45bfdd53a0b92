// What a hook decides, independent of how Claude Code wants it written (see lib/runtime/render.ts).

export type Decision =
  /** Let it run. `context` reaches the model (after the tool, for PreToolUse); `notice` reaches the user. */
  | { kind: 'allow'; context?: string; notice?: string }
  /** Refuse; `reason` reaches the model. */
  | { kind: 'deny'; reason: string; notice?: string }
  /** Ask the user at the terminal; `reason` reaches the user. */
  | { kind: 'ask'; reason: string; notice?: string }
  /** Headless runs: stop the run so it can be resumed with `claude -p --resume` after approval. */
  | { kind: 'defer'; reason: string; notice?: string }
  /** Post-action events: block/continue with `reason` to the model (PostToolUse, Stop, UserPromptSubmit…). */
  | { kind: 'block'; reason: string; context?: string; notice?: string }
