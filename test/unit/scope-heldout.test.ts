// Scope from the user's words, measured on the held-out set (bench/scope.ts, bench/corpus/scope-heldout.jsonl):
// ≥ 90% of the must-flag cases flagged with a finding that quotes the user, and the must-stay-quiet cases quiet.
import { expect, it } from 'vitest'
import { scopeHeldout } from '../../bench/scope'

it('held-out scope cases: at least 90% flagged, none of the quiet ones interrupted', () => {
  const r = scopeHeldout()
  expect(r.mustFlag).toBeGreaterThanOrEqual(20)
  expect(r.flagged / r.mustFlag, JSON.stringify(r.misses, null, 1)).toBeGreaterThanOrEqual(0.9)
  expect(r.quiet, JSON.stringify(r.misses, null, 1)).toBe(r.mustStayQuiet)
})
