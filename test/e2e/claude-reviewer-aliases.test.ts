// The reviewer's API road names the model as the installed client would (lib/io/reviewer.ts ALIASES): `claude -p
// --model haiku` and a review that skips the client must ask for the same model. An upgrade of the client that
// moves an alias fails here, not silently in a user's bill or verdicts.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ALIASES, claudeArgs, modelId } from '../../lib/io/reviewer'
import { ROOT, exec } from '../support/fixtures'
import { claudeEnv, startMockModel, type MockModel } from '../support/mock-anthropic'

const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude')

describe('the model aliases, as the installed client resolves them', () => {
  let model: MockModel
  let home: string
  beforeAll(async () => {
    model = await startMockModel([])
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-aliases-'))
  })
  afterAll(async () => {
    await model.close()
    fs.rmSync(home, { recursive: true, force: true })
  })

  it.each(Object.keys(ALIASES))(
    '%s',
    async (alias) => {
      const before = model.requests.length
      // The arguments the reviewer passes on the client road.
      const r = await exec(CLAUDE, claudeArgs(alias, 'Reply OK.'), {
        env: claudeEnv(model.url, home),
        input: 'Reply OK.',
      })
      expect(r.status, r.stderr).toBe(0)
      const asked = new Set(model.requests.slice(before).map((q) => q.model))
      expect([...asked]).toEqual([modelId(alias, {})])
    },
    120_000,
  )
})
