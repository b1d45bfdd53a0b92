// Reading files with the pagers and printers: what was read counts as seen for the stale-data check.

import type { Detector, FamilyMeta } from './types'

export const meta: FamilyMeta = {
  id: 'fs-read',
  classes: [],
  patterns: [],
  description: 'Reading files (cat, head, tail, less, …): recorded as seen, never flagged',
  examples: ['cat src/app.ts', 'head -5 config.yml'],
}

const record: Detector = (c, _inv, f) => {
  for (const o of f.operands) c.reads.add(f.at(o))
}

export const programs: Record<string, Detector> = {
  cat: record,
  head: record,
  tail: record,
  less: record,
  more: record,
  bat: record,
  nl: record,
  view: record,
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
