// What cannot be undone, as rows: one line per command form that destroys, sends or pays what nothing brings
// back (a namespace, a bucket's objects, a published version, a refund), with what exactly it takes. A family
// keeps its rows beside its detectors (`rows` in deploy.ts, cloud.ts, …) and `withRows` joins them to its
// program table, so the next CLI is a row, not a branch. Each row's finding carries an `Irrevocable`: the
// resource in words, the names a request must use to cover it, whether it is a local development resource.

import type { Invocation } from '../commands'
import type { Detector, InvocationFacts, Irrevocable, Sink } from './types'
import { dryRun, operandsAfter, trimTrailingSlashes } from './util'

/** The words of one invocation as a row reads them. */
export interface RowArgs {
  args: string[]
  /** Operands after the row's command words (`kubectl delete ns prod` → `['prod']`). */
  rest: string[]
  /** Every operand (options and their values taken away). */
  ops: string[]
  /** The value of the first of these options present (`-n prod`, `--namespace=prod`). */
  opt(...names: string[]): string | undefined
  /** Every value of these options (`--instance-ids i-1 i-2` reads one: `i-1`). */
  opts(...names: string[]): string[]
  /** Whether any of these flags is present (short flags may be run together: `-af` has `-f`). */
  has(...flags: string[]): boolean
  program: string
  inv: Invocation
  c: Sink
  f: InvocationFacts
}

export interface Row {
  /** The command words after the program's options; a RegExp tests one word. */
  cmd: readonly (string | RegExp)[]
  /** Further conditions (a flag present, a kind of resource). */
  when?: (a: RowArgs) => boolean
  pattern: string
  kind: Irrevocable['kind']
  /** What it destroys, sends or pays, in words a human decides on. */
  what: (a: RowArgs) => string
  /** The names a request must use (each entry: one name, or alternatives); none: the program's name. */
  names?: (a: RowArgs) => (string | string[] | undefined)[]
  /** A local development resource: asked for, it runs quietly. */
  local?: (a: RowArgs) => boolean
}

export interface RowTable {
  /** Options of this program that take a value (so the value is not read as a command word). */
  values?: readonly string[]
  rows: readonly Row[]
  /** `--dry-run` and friends do nothing (default true). */
  dryRuns?: boolean
}

function rowArgs(
  program: string,
  inv: Invocation,
  values: readonly string[],
  skip: number,
  c: Sink,
  f: InvocationFacts,
): RowArgs {
  const args = inv.args
  const ops = operandsAfter(args, values)
  const valuesOf = (names: string[], all: boolean): string[] => {
    const out: string[] = []
    for (let i = 0; i < args.length; i++) {
      const a = args[i]
      for (const n of names) {
        if (a === n && args[i + 1] !== undefined) out.push(args[i + 1])
        else if (a.startsWith(n + '=')) out.push(a.slice(n.length + 1))
        else if (/^-[a-zA-Z]$/.test(n) && a.startsWith(n) && a.length > 2 && !a.startsWith('--')) out.push(a.slice(2))
      }
      if (out.length && !all) break
    }
    return out
  }
  return {
    args,
    ops,
    rest: ops.slice(skip),
    opt: (...names) => valuesOf(names, false)[0],
    opts: (...names) => valuesOf(names, true),
    has: (...flags) =>
      flags.some(
        (fl) =>
          args.includes(fl) ||
          (/^-[a-zA-Z]$/.test(fl) && args.some((a) => /^-[a-zA-Z]+$/.test(a) && a.includes(fl[1]))),
      ),
    program,
    inv,
    c,
    f,
  }
}

const matches = (word: string | undefined, m: string | RegExp) =>
  word !== undefined && (typeof m === 'string' ? word === m : m.test(word))

/** Runs the rows of one program's table on an invocation. */
export function runRows(program: string, table: RowTable, c: Sink, inv: Invocation, f: InvocationFacts): void {
  if (table.dryRuns !== false && dryRun(inv.args)) return
  const ops = operandsAfter(inv.args, table.values ?? [])
  for (const row of table.rows) {
    if (!row.cmd.every((m, i) => matches(ops[i], m))) continue
    const a = rowArgs(program, inv, table.values ?? [], row.cmd.length, c, f)
    if (row.when && !row.when(a)) continue
    const names = (row.names?.(a) ?? [])
      .filter((n): n is string | string[] => n !== undefined && n !== '')
      .map((n) => (Array.isArray(n) ? n.filter(Boolean) : [n]))
    c.irrevocable(row.pattern, f.cmd, {
      kind: row.kind,
      what: row.what(a),
      names: names.length ? names : [[program]],
      ...(row.local?.(a) ? { local: true } : {}),
    })
  }
}

/** A family's program table with its rows joined in: each program runs its detector (if any), then its rows. */
export function withRows(
  programs: Record<string, Detector>,
  tables: Record<string, RowTable>,
): Record<string, Detector> {
  const out: Record<string, Detector> = Object.create(null)
  for (const [name, d] of Object.entries(programs)) out[name] = d
  for (const [name, table] of Object.entries(tables)) {
    const own = out[name]
    out[name] = (c, inv, f) => {
      own?.(c, inv, f)
      runRows(name, table, c, inv, f)
    }
  }
  return out
}

/** `the current folder` or the folder's name relative to the project, for what a tool works on by default. */
export function folderOf(a: RowArgs, dir?: string): string {
  const abs = dir ? a.f.at(dir) : a.f.base
  const project = a.c.ctx.projectDir
  if (abs === project) return 'the project folder'
  return abs.startsWith(project + '/') ? abs.slice(project.length + 1) : abs
}

/** The last part of a path-like name (`o/r` → `r`, `s3://b/k/` → `k`). */
export const lastPart = (s: string): string => trimTrailingSlashes(s).split('/').pop() ?? s
