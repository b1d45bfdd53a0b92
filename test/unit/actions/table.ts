// The shared harness of the action-family tables: a fixed project, and `familyTable`, which runs a family's
// valid cases (must flag, with the expected pattern) and invalid cases (must stay quiet), and checks that every
// program the family handles has at least one of each.

import { describe, expect, it } from 'vitest'
import { classify, type ClassifyContext, type ToolCall } from '../../../lib/core/classify'
import type { FileState } from '../../../lib/core/actions/types'
import { programKey } from '../../../lib/core/actions'
import type { Family } from '../../../lib/core/actions'
import { readCommandLine } from '../../../lib/core/commands'
import { PATTERNS } from '../../../lib/core/patterns'

export const PROJECT = '/home/dev/project'

export const ctx = (over: Partial<ClassifyContext> = {}): ClassifyContext => ({
  projectDir: PROJECT,
  homeDir: '/home/dev',
  stateDir: `${PROJECT}/.ratchet`,
  session: { reads: {}, prompts: [] },
  fileExists: (p) => p.endsWith('/existing.txt') || p.endsWith('/config.yml') || p.endsWith('/app.ts'),
  currentBranch: () => 'feature/x',
  ...over,
})

export type Input = string | ToolCall

/** A project where git knows some files: `state` maps project-relative paths to what git says of them. */
export const withGit = (
  state: Record<string, FileState>,
  over: Partial<ClassifyContext> = {},
): Partial<ClassifyContext> => ({
  fileState: (abs) => {
    const rel = abs.startsWith(PROJECT + '/') ? abs.slice(PROJECT.length + 1) : abs === PROJECT ? '.' : undefined
    if (rel === undefined) return 'outside'
    return state[rel] ?? 'untracked'
  },
  ...over,
})

const toCall = (input: Input): ToolCall =>
  typeof input === 'string' ? { tool_name: 'Bash', tool_input: { command: input }, cwd: PROJECT } : input
export const run = (input: Input, c = ctx()) => classify(toCall(input), c)
export const patterns = (input: Input, c = ctx()) => [...new Set(run(input, c).findings.map((f) => f.pattern))].sort()
export const catastrophic = (input: Input, c = ctx()) => run(input, c).findings.some((f) => f.catastrophic)

export interface Valid {
  /** A Bash command, or a whole tool call. */
  input: Input
  pattern: string
  /** When set, whether the finding must (or must not) be catastrophic. */
  catastrophic?: boolean
  /** What cannot be undone: the finding must say what it destroys, sends or pays (matching this), or (false) must not be such a finding. */
  lost?: RegExp | false
  /** With `lost`: whether it is a local development resource (a local database) the user may reset quietly. */
  local?: boolean
  ctx?: Partial<ClassifyContext>
}

export interface Invalid {
  input: Input
  ctx?: Partial<ClassifyContext>
  /** Patterns that may legitimately fire here (from another family); none of this family's may. Default: none at all. */
  allow?: string[]
}

type V = Valid | [Input, string] | [Input, string, boolean] | [Input, string, RegExp | false]
type I = Invalid | Input

const label = (input: Input) =>
  typeof input === 'string' ? input.replace(/\n/g, '⏎') : `${input.tool_name} ${JSON.stringify(input.tool_input)}`

/** Every table this process has set up, in order: scripts/checks-catalogue.ts reads them to write docs/checks.md. */
export const TABLES: { family: Family; valid: Valid[]; invalid: Invalid[] }[] = []

/** `recordOnly`: programs that only record facts (a folder created) and never flag, so have no must-flag case. */
export function familyTable(family: Family, cases: { valid: V[]; invalid: I[]; recordOnly?: string[] }): void {
  const valid: Valid[] = cases.valid.map((v) =>
    Array.isArray(v)
      ? {
          input: v[0],
          pattern: v[1],
          ...(typeof v[2] === 'boolean'
            ? { catastrophic: v[2] }
            : v.length > 2
              ? { lost: v[2] as RegExp | false }
              : {}),
        }
      : v,
  )
  const invalid: Invalid[] = cases.invalid.map((v) =>
    typeof v === 'string' || !('input' in v) ? { input: v as Input } : v,
  )
  TABLES.push({ family, valid, invalid })

  describe(`${family.meta.id}: must flag`, () => {
    it.each(valid.map((v) => [label(v.input), v] as const))('%s', (_l, v) => {
      const c = ctx(v.ctx)
      const found = run(v.input, c).findings.filter((f) => f.pattern === v.pattern)
      expect(
        found.map((f) => f.pattern),
        `${label(v.input)} → ${v.pattern}`,
      ).toContain(v.pattern)
      if (v.catastrophic !== undefined) expect(found.some((f) => f.catastrophic)).toBe(v.catastrophic)
      const lost = found.find((f) => f.lost)?.lost
      if (v.lost === false) expect(lost, 'must not be a finding of what cannot be undone').toBeUndefined()
      else if (v.lost) {
        expect(lost?.what, `${label(v.input)}: what it destroys, sends or pays`).toMatch(v.lost)
        if (v.local !== undefined) expect(!!lost?.local, 'local development resource').toBe(v.local)
      }
    })
  })

  describe(`${family.meta.id}: must stay quiet`, () => {
    it.each(invalid.map((v) => [label(v.input), v] as const))('%s', (_l, v) => {
      const got = patterns(v.input, ctx(v.ctx)).filter((p) => !(v.allow ?? []).includes(p))
      expect(got).toEqual([])
    })
  })

  if (family.programs) {
    const programsOf = (cs: { input: Input }[]) => {
      const seen = new Set<string>()
      for (const c of cs)
        if (typeof c.input === 'string')
          for (const inv of readCommandLine(c.input).invocations) seen.add(programKey(inv.name))
      return seen
    }
    const pos = programsOf(valid)
    const neg = programsOf(invalid)
    it.each(Object.keys(family.programs).filter((p) => !cases.recordOnly?.includes(p)))(
      `${family.meta.id}: program %s has a must-flag and a must-stay-quiet case`,
      (p) => {
        expect(pos.has(p), `no must-flag case runs ${p}`).toBe(true)
        expect(neg.has(p), `no must-stay-quiet case runs ${p}`).toBe(true)
      },
    )
  }

  it(`${family.meta.id}: meta has examples; every expected pattern is a named pattern`, () => {
    expect(family.meta.examples.length).toBeGreaterThan(0)
    for (const v of valid) expect(PATTERNS[v.pattern], v.pattern).toBeDefined()
  })
}
