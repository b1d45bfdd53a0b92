// Identity of a tool call, so "the identical retry" and "exactly the approved action" can be told
// apart from a different one. Cosmetic fields (Bash's description, timeout) do not count.
// FNV-1a, two 32-bit lanes: node:crypto would cost ~5 ms of start-up on every hook call, and a
// 64-bit hash leaves no practical way to craft a different command with the same fingerprint.

const COSMETIC = new Set(['description', 'timeout', 'run_in_background'])

export function normalizedInput(tool: string, input: Record<string, unknown>): unknown {
  // Every byte inside the command can change its meaning (a newline separates commands; spaces inside
  // quotes are data), so only the whitespace around it is dropped. Bug fixed: runs of whitespace used to be
  // collapsed, so an approval of `a b` also covered `a\nb`.
  if (tool === 'Bash') return { command: String(input.command ?? '').trim() }
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(input).sort()) if (!COSMETIC.has(k)) out[k] = input[k]
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

export function fingerprint(tool: string, input: Record<string, unknown>): string {
  return fnv64(tool + '\u0000' + JSON.stringify(normalizedInput(tool, input)))
}
