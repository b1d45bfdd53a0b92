// docs/checks.md is generated (npm run docs:checks) from the action families and their tested tables: it must be
// exactly what the script writes today, so a family or a table that changes without the page fails here.

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'

const ROOT = path.resolve(__dirname, '../..')

it('docs/checks.md is what npm run docs:checks writes', () => {
  const generated = execFileSync(
    path.join(ROOT, 'node_modules', '.bin', 'tsx'),
    ['scripts/checks-catalogue.ts', '--stdout'],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  )
  const committed = fs.readFileSync(path.join(ROOT, 'docs', 'checks.md'), 'utf8')
  expect(committed === generated, 'docs/checks.md is out of date: run `npm run docs:checks` and commit it').toBe(true)
})

it('the catalogue has a section for every family, with tested cases', () => {
  const page = fs.readFileSync(path.join(ROOT, 'docs', 'checks.md'), 'utf8')
  for (const id of ['git', 'publish', 'database', 'ratchet-self']) expect(page).toContain(`\n## ${id}\n`)
  expect(page).toContain('- `git push origin main` → `git_push`')
  expect(page).toContain('- `mvn test`')
})
