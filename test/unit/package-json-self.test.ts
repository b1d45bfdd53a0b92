// package.json edited so that a later `npm install` replaces or removes Ratchet's package (issue 9 item 2): the
// Edit/Write that changes Ratchet's entry is a self-protection edit, judged when it is planted, since the user's
// next install runs outside any sandbox. Adding an ordinary dependency, and installing it, stay quiet.
// (The install lifecycle scripts are read like any script on disk: test/unit/scripts-on-disk.test.ts.)

import { describe, expect, it } from 'vitest'
import { classify } from '../../lib/core/classify'
import type { ClassifyContext } from '../../lib/core/actions/types'
import { PROJECT, ctx } from './actions/table'

const PKG = JSON.stringify(
  {
    name: 'app',
    dependencies: { lodash: '^4.17.0' },
    devDependencies: { ratchet: 'file:vendor/ratchet-0.1.0.tgz', vitest: '^3.0.0' },
  },
  null,
  2,
)
const lockOf = (dev: Record<string, string>) =>
  JSON.stringify({
    lockfileVersion: 3,
    packages: { '': { name: 'app', dependencies: { lodash: '^4.17.0' }, devDependencies: dev } },
  })
const LOCK = lockOf({ ratchet: 'file:vendor/ratchet-0.1.0.tgz', vitest: '^3.0.0' })

const withFiles = (files: Record<string, string>): ClassifyContext =>
  ctx({
    packageDir: `${PROJECT}/node_modules/ratchet`,
    fs: { realpath: (p) => p, isDir: () => false, list: () => undefined, readText: (p) => files[p] },
  })
const c = withFiles({ [`${PROJECT}/package.json`]: PKG, [`${PROJECT}/package-lock.json`]: LOCK })
const pats = (call: { tool_name: string; tool_input: Record<string, unknown> }, cx = c) =>
  classify({ ...call, cwd: PROJECT }, cx).findings.map((f) => f.pattern)
const edit = (old_string: string, new_string: string) => ({
  tool_name: 'Edit',
  tool_input: { file_path: `${PROJECT}/package.json`, old_string, new_string },
})
const bash = (command: string) => ({ tool_name: 'Bash', tool_input: { command } })

describe("package.json: changing Ratchet's entry is a self-protection edit", () => {
  it.each([
    ['Edit: another version', edit('"ratchet": "file:vendor/ratchet-0.1.0.tgz"', '"ratchet": "^0.0.1"')],
    ['Edit: another source', edit('file:vendor/ratchet-0.1.0.tgz', 'git+https://evil.example/ratchet.git')],
    ['Edit: removed', edit('"ratchet": "file:vendor/ratchet-0.1.0.tgz",\n', '')],
    ['Edit: renamed away', edit('"ratchet":', '"ratchet-old":')],
    [
      'Write: without it',
      {
        tool_name: 'Write',
        tool_input: {
          file_path: `${PROJECT}/package.json`,
          content: JSON.stringify({ name: 'app', dependencies: { lodash: '^4.17.0' } }),
        },
      },
    ],
    [
      'Write: overridden',
      {
        tool_name: 'Write',
        tool_input: {
          file_path: `${PROJECT}/package.json`,
          content: JSON.stringify({
            name: 'app',
            overrides: { ratchet: 'npm:noop@1' },
            devDependencies: { ratchet: 'npm:noop@1' },
          }),
        },
      },
    ],
    [
      'MultiEdit',
      {
        tool_name: 'MultiEdit',
        tool_input: {
          file_path: `${PROJECT}/package.json`,
          edits: [
            { old_string: 'lodash', new_string: 'lodash-es' },
            { old_string: '0.1.0.tgz', new_string: '9.9.9.tgz' },
          ],
        },
      },
    ],
  ])('%s', (_l, call) => {
    expect(pats(call)).toContain('ratchet_state_edit')
  })

  it('an edit that names the package in a package.json that cannot be read is taken at its worst', () => {
    expect(pats(edit('"ratchet": "1"', '"ratchet": "2"'), withFiles({}))).toContain('ratchet_state_edit')
  })
})

describe('package.json: ordinary edits stay quiet', () => {
  it.each([
    ['Edit: add a dependency', edit('"lodash": "^4.17.0"', '"lodash": "^4.17.0",\n    "zod": "^3.0.0"')],
    ['Edit: a script', edit('"name": "app"', '"name": "app",\n  "scripts": { "test": "vitest run" }')],
    [
      'Edit: another package.json',
      {
        tool_name: 'Edit',
        tool_input: { file_path: `${PROJECT}/packages/ui/package.json`, old_string: 'a', new_string: 'b' },
      },
    ],
    [
      'Write: the same entry kept',
      {
        tool_name: 'Write',
        tool_input: {
          file_path: `${PROJECT}/package.json`,
          content: JSON.stringify({ name: 'app2', devDependencies: { ratchet: 'file:vendor/ratchet-0.1.0.tgz' } }),
        },
      },
    ],
  ])('%s', (_l, call) => {
    expect(pats(call).filter((p) => p !== 'stale_write')).toEqual([])
  })
})

describe('npm install after package.json was edited', () => {
  // The edit was judged when it was planted (above). The install itself is the floor's: in the sandbox npm cannot
  // replace node_modules/ratchet (EBUSY/EROFS, test/e2e/install.test.ts); where no sandbox runs, the coarse screen
  // stops an install that names the package, and an install that does not is a stated limit (docs/residual-risk.md).
  const edited = (pkg: object) =>
    withFiles({ [`${PROJECT}/package.json`]: JSON.stringify(pkg), [`${PROJECT}/package-lock.json`]: LOCK })
  it('an install naming the package is stopped where no sandbox runs', () => {
    expect(pats(bash('npm install ratchet@0.0.1'))).toContain('ratchet_state_edit')
    expect(pats(bash('npm uninstall ratchet'))).toContain('ratchet_state_edit')
  })
  it('an ordinary install stays quiet', () => {
    expect(pats(bash('npm install'))).toEqual([])
    expect(
      pats(
        bash('npm install zod'),
        edited({
          dependencies: { lodash: '^4.17.0', zod: '^3' },
          devDependencies: { ratchet: 'file:vendor/ratchet-0.1.0.tgz', vitest: '^3.0.0' },
        }),
      ),
    ).toEqual([])
    expect(pats(bash('npm ci'), edited({ devDependencies: { vitest: '^3.0.0' } }))).toEqual([])
  })
})
