// Identity of a tool call, so "the identical retry" and "exactly the approved action" can be told
// apart from a different one. Cosmetic fields (Bash's description, timeout) do not count.
// FNV-1a, two 32-bit lanes: node:crypto would cost ~5 ms of start-up on every hook call, and a
// 64-bit hash leaves no practical way to craft a different command with the same fingerprint.

/** A loop, not `/\/+$/`: that regex is quadratic on a long run of slashes followed by anything else. */
function withoutTrailingSlashes(s: string): string {
  let end = s.length
  while (end > 0 && s.charCodeAt(end - 1) === 47) end--
  return s.slice(0, end)
}

const COSMETIC = new Set(['description', 'timeout', 'run_in_background'])

export function normalizedInput(tool: string, input: Record<string, unknown>): unknown {
  // Bug fixed: runs of whitespace used to be collapsed everywhere, so an approval of `a b` covered `a<newline>b`
  // (a newline separates commands) and `"a  b"` matched `"a b"`. Only spaces and tabs outside quotes, which
  // the shell reads as one separator, are collapsed now; every other byte counts.
  if (tool === 'Bash') return { command: collapseBlanks(String(input.command ?? '').trim()) }
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(input).sort()) if (!COSMETIC.has(k)) out[k] = input[k]
  return out
}

/** Runs of spaces/tabs outside quotes become one space; quoted text, escapes and newlines stay as they are. */
function collapseBlanks(cmd: string): string {
  let out = ''
  let quote: string | null = null
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i]
    if (c === '\\' && quote !== "'") {
      out += c + (cmd[i + 1] ?? '')
      i++
      continue
    }
    if (quote) {
      if (c === quote) quote = null
      out += c
      continue
    }
    if (c === "'" || c === '"') quote = c
    if ((c === ' ' || c === '\t') && (out.endsWith(' ') || cmd[i + 1] === ' ' || cmd[i + 1] === '\t')) {
      if (!out.endsWith(' ')) out += ' '
      continue
    }
    out += c === '\t' ? ' ' : c
  }
  return out
}

export function fnv64(text: string): string {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ 0x5bd1e995
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193) >>> 0
    b = Math.imul(b ^ c, 0x01000193 ^ 0x2c1b3c6d) >>> 0
    b = (b ^ (a >>> 7)) >>> 0
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0')
}

/**
 * `cwd` is part of the identity: the same text run in another folder or repository is another action
 * (`git push`, `rm -rf build`, any relative path), so an approval or a check in one does not cover the other.
 */
export function fingerprint(tool: string, input: Record<string, unknown>, cwd?: string): string {
  return fnv64(
    tool +
      '\u0000' +
      JSON.stringify(normalizedInput(tool, input)) +
      (cwd ? '\u0000' + withoutTrailingSlashes(cwd) : ''),
  )
}
