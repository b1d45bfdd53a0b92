// The catalogue as a whole: every pattern belongs to a family, no program is claimed twice.

import { expect, it } from 'vitest'
import { FAMILIES } from '../../../lib/core/actions'
import { PATTERNS } from '../../../lib/core/patterns'

it('every named pattern is reported by some family', () => {
  const covered = new Set(FAMILIES.flatMap((f) => f.meta.patterns))
  for (const p of Object.keys(PATTERNS)) expect(covered.has(p), p).toBe(true)
})

it('each family names known patterns whose classes it lists', () => {
  for (const f of FAMILIES)
    for (const p of f.meta.patterns) {
      expect(PATTERNS[p], `${f.meta.id}: ${p}`).toBeDefined()
    }
})

it('no program is claimed by two families', () => {
  const owner = new Map<string, string>()
  for (const f of FAMILIES)
    for (const p of Object.keys(f.programs ?? {})) {
      expect(owner.get(p), `${p} in ${owner.get(p)} and ${f.meta.id}`).toBeUndefined()
      owner.set(p, f.meta.id)
    }
})

it('family ids are unique', () => {
  const ids = FAMILIES.map((f) => f.meta.id)
  expect(new Set(ids).size).toBe(ids.length)
})
