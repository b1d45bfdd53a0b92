// Shell functions defined and called in the same line: read at each call with its arguments filled in.

import type { SimpleCommand } from '../shell'
import type { LineState } from './types'
import { isAssignment, RESERVED } from './words'

/**
 * The functions of `bodies` that commands of this parse call by name (the first word after assignments), every such
 * call with arguments that can be filled in. A function called in a way that cannot be filled is read where it is
 * defined as well (its `$1` an unknown target), and the call stays unreadable.
 */
export function calledFunctions(commands: SimpleCommand[], st: LineState): Set<string> {
  const out = new Set<string>()
  const unfilled = new Set<string>()
  for (const c of commands) {
    const k = c.argv.findIndex((w) => !isAssignment(w) && !RESERVED.has(w))
    const first = c.argv[k]
    if (first === undefined || !st.bodies.get(first)) continue
    if (fillPositional(st.bodies.get(first), c.argv.slice(k + 1), c.computed.slice(k + 1)) === undefined)
      unfilled.add(first)
    else out.add(first)
  }
  for (const f of unfilled) out.delete(f)
  return out
}

/** A call's argument that reads the same wherever `$1` stands in the body (in quotes or not): plain words only. */
const PLAIN_ARG = /^[\w@%+=:,./~-]+$/

/**
 * A function's body with a call's arguments in place of `$1`…, `${N}`, `$@`, `$*`, or undefined when that cannot be
 * done faithfully: a body that shifts or resets them, counts them or takes defaults (`shift`, `set --`, `getopts`,
 * `$#`, `${1:-x}`), or an argument that is computed or holds quotes, spaces or expansions. Undefined leaves the
 * call unreadable (judged by its worst reading).
 */
export function fillPositional(body: string | undefined, args: string[], argComp: boolean[]): string | undefined {
  if (!body || body.length > 64 * 1024) return undefined
  if (/\bshift\b|\bset\s+(--|-\w)|\bgetopts\b|\$#|\$\{#|\$\{[0-9@*]+[^0-9}]|\$0|\$\{0\}/.test(body)) return undefined
  if (args.some((a, i) => argComp[i] || !PLAIN_ARG.test(a))) return undefined
  const all = args.join(' ')
  return body
    .replace(/"\$(?:\{[@*]\}|[@*])"|\$(?:\{[@*]\}|[@*])/g, all)
    .replace(
      /\$\{([1-9][0-9]*)\}|\$([1-9])/g,
      (_m, braced: string | undefined, digit: string | undefined) => args[Number(braced ?? digit) - 1] ?? '',
    )
}
