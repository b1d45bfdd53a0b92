import { expect, it } from 'vitest'
import * as family from '../../../lib/core/actions/fs-read'
import { PROJECT, patterns, run } from './table'

it.each(Object.keys(family.programs))('%s records what it read, and flags nothing', (p) => {
  const r = run(`${p} existing.txt`)
  expect(r.reads).toEqual([`${PROJECT}/existing.txt`])
  expect(r.findings).toEqual([])
})

it('Read and a piped cat record what was read', () => {
  expect(run({ tool_name: 'Read', tool_input: { file_path: `${PROJECT}/app.ts` } }).reads).toEqual([
    `${PROJECT}/app.ts`,
  ])
  expect(run('cat existing.txt | head -5').reads).toEqual([`${PROJECT}/existing.txt`])
  expect(patterns('ls -la')).toEqual([])
})
