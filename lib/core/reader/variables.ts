// Variables assigned earlier in the same command line (`d=.ratchet; rm -r $d` reads as `rm -r .ratchet`), and
// positional parameters: a script read from disk is run with its arguments as $1, $@, ….

import type { SimpleCommand } from '../shell'
import { MAX_VARIANTS, type LineState } from './types'
import { isAssignment } from './words'

const VAR_REF = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*|[0-9@*#])\}|([A-Za-z_][A-Za-z0-9_]*|[0-9@*#]))/g

/** The candidate texts of a word once the variables known in this line are put in. */
function substitute(word: string, computed: boolean, st: LineState): string[] {
  if (!computed || !word.includes('$') || !st.vars.size) return [word]
  let results = ['']
  let last = 0
  for (const m of word.matchAll(VAR_REF)) {
    // One of the two alternatives matched: `${name}` or `$name`.
    const values = st.vars.get((m[1] ?? m[2])!)
    if (!values) continue
    const lit = word.slice(last, m.index)
    const next: string[] = []
    for (const r of results) for (const v of values) if (next.length < MAX_VARIANTS) next.push(r + lit + v)
    results = next
    last = m.index + m[0].length
  }
  return results.map((r) => r + word.slice(last))
}

/** One command per combination of candidate values (a `for` list), at most MAX_VARIANTS. */
export function variants(simple: SimpleCommand, st: LineState): SimpleCommand[] {
  recordAssignments(simple, st)
  if (!st.vars.size || (!simple.computed.some(Boolean) && !simple.redirects.some((r) => r.target.includes('$'))))
    return [simple]
  let combos: { argv: string[]; computed: boolean[] }[] = [{ argv: [], computed: [] }]
  // An unquoted expansion is split into words at run time (on IFS, when the line sets it): `cmd="rm -rf x";
  // $cmd` and `IFS=_; c=rm_-rf_x; $c` run rm. The reader does not keep quoting, so the worst reading splits.
  const ifs = ' \t\n' + (st.vars.get('IFS')?.[0] ?? '')
  simple.argv.forEach((w, i) => {
    // One flag per word (the parser pushes them together); a word without one is not computed.
    const wordComputed = simple.computed[i] ?? false
    const vs = substitute(w, wordComputed, st)
    const next: typeof combos = []
    for (const c of combos)
      for (const v of vs) {
        if (next.length >= MAX_VARIANTS) break
        const parts = v !== w ? splitOn(v, ifs) : [v]
        next.push({
          argv: [...c.argv, ...parts],
          computed: [...c.computed, ...parts.map((p) => wordComputed && /[$`]|^[<>]\(/.test(p))],
        })
      }
    combos = next
  })
  // substitute gives at least one text: every value list in st.vars is non-empty (a `for` with no values is not kept).
  const redirects = simple.redirects.map((r) => ({ ...r, target: substitute(r.target, true, st)[0]! }))
  const extra = simple.redirects.flatMap((r) =>
    substitute(r.target, true, st)
      .slice(1)
      .map((t) => ({ ...r, target: t })),
  )
  return combos.map((c) => ({ ...simple, argv: c.argv, computed: c.computed, redirects: [...redirects, ...extra] }))
}

/** Splits a value on any of the separator characters, dropping empty fields (bounded). */
function splitOn(v: string, seps: string): string[] {
  const out: string[] = []
  let cur = ''
  for (let i = 0; i < v.length && out.length < 256; i++) {
    const ch = v.charAt(i)
    if (seps.includes(ch)) {
      if (cur) out.push(cur)
      cur = ''
    } else cur += ch
  }
  if (cur) out.push(cur)
  return out.length ? out : [v]
}

function recordAssignments(simple: SimpleCommand, st: LineState): void {
  const a = simple.argv
  const [first, second] = a
  if (first === undefined) return
  const set = (word: string, computed: boolean) => {
    const eq = word.indexOf('=')
    const name = word.slice(0, eq).replace(/\+$/, '')
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return
    const value = word.slice(eq + 1)
    const vs = substitute(value, computed, st)
    if (value.startsWith('(') || vs.some((v) => /[$`]/.test(v) && computed)) st.vars.delete(name)
    else st.vars.set(name, vs)
  }
  if (a.every(isAssignment)) {
    for (const [i, w] of a.entries()) set(w, simple.computed[i] ?? false)
    return
  }
  if (/^(export|local|declare|typeset|readonly)$/.test(first)) {
    // `declare -n r=x`: r is a reference to x, whatever x holds when r is used: not a value we know.
    // (Letters only, then an n among them: two tests, because `[a-zA-Z]*n[a-zA-Z]*` is quadratic — redos test.)
    const nameref = a.slice(1).some((w) => /^-[a-zA-Z]*$/.test(w) && w.includes('n'))
    const exporting = first === 'export' || a.slice(1).some((w) => /^-[a-zA-Z]*x/.test(w))
    a.slice(1).forEach((w, i) => {
      if (exporting) st.exported.add(w.split('=')[0]!.replace(/\+$/, '')) // split gives at least one part
      if (!isAssignment(w)) return
      if (nameref) st.vars.delete(w.slice(0, w.indexOf('=')).replace(/\+$/, ''))
      else set(w, simple.computed[i + 1] ?? false)
    })
    return
  }
  // `for f in a b c; do …`: f takes each value in turn.
  if (first === 'for' && a[2] === 'in' && second !== undefined && /^[A-Za-z_]\w*$/.test(second)) {
    const values = a
      .slice(3)
      .flatMap((w, i) => substitute(w, simple.computed[i + 3] ?? false, st))
      .slice(0, MAX_VARIANTS)
    if (values.length && values.every((v) => !v.includes('$') && !v.includes('`'))) st.vars.set(second, values)
    else st.vars.delete(second)
    return
  }
  if (first === 'read' || first === 'mapfile' || first === 'readarray') for (const w of a.slice(1)) st.vars.delete(w)
}
