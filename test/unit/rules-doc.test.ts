// docs/rules.md is the reference for guardrails.json: every JSON example in it must load as written (no problem
// reported, no tuning refused), and the matching examples must fire where the page says and stay quiet elsewhere.

import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { withBuiltins } from '../../lib/core/builtins'
import { compileRules, matchRules } from '../../lib/core/rule-match'
import { validateGuardrails, type Guardrail } from '../../lib/core/guardrails'
import { PROJECT, run, type Input } from './actions/table'

const page = fs.readFileSync(path.resolve(__dirname, '../../docs/rules.md'), 'utf8')
const blocks = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1])

describe('docs/rules.md examples', () => {
  it('has examples', () => expect(blocks.length).toBeGreaterThanOrEqual(3))

  it.each(blocks.map((b, i) => [i, b] as const))('example %i loads with no problem', (_i, text) => {
    const loaded = validateGuardrails(JSON.parse(text))
    expect(loaded.fatal).toBe(false)
    expect(loaded.problems).toEqual([])
    expect(withBuiltins(loaded.rules).problems).toEqual([])
  })
})

describe('the matching examples fire where the page says', () => {
  const rules = blocks.flatMap((b) => validateGuardrails(JSON.parse(b)).rules) as Guardrail[]
  const index = compileRules(rules)
  const fired = (input: Input) => matchRules(index, run(input), PROJECT).map((f) => f.id)
  const read = (file: string) => ({ tool_name: 'Read', tool_input: { file_path: `${PROJECT}/${file}` } })
  const fetch = (url: string) => ({ tool_name: 'WebFetch', tool_input: { url, prompt: 'p' } })

  it.each<[Input, string]>([
    ['git push origin main', 'GR-002'],
    ['./deploy.sh prod', 'GR-010'],
    ['cat secrets/token.txt', 'GR-011'],
    [read('secrets/token.txt'), 'GR-011'],
    [fetch('https://wiki.example.com/page'), 'GR-013'],
  ])('%j fires %s', (input, id) => expect(fired(input)).toContain(id))

  it.each<[Input, string]>([
    ['git push origin feature', 'GR-002'],
    ['npm test', 'GR-010'],
    ['cat src/app.ts', 'GR-011'],
    [read('src/app.ts'), 'GR-011'],
    [fetch('https://docs.example.com/page'), 'GR-013'],
  ])('%j does not fire %s', (input, id) => expect(fired(input)).not.toContain(id))
})
