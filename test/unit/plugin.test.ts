// The Claude Code plugin ships inside the npm package (its root is the plugin root): these keep its files equal to
// what the build writes and to the package they describe.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { pluginHooks } from '../../lib/core/settings'
import { PACKAGE_NAME } from '../../lib/core/manifest'
import { ROOT } from '../support/fixtures'

const json = (f: string) => JSON.parse(fs.readFileSync(path.join(ROOT, f), 'utf8'))

describe('the plugin in the package', () => {
  it('hooks/hooks.json is what the build writes from the manifest (run npm run build if not)', () => {
    expect(json('hooks/hooks.json')).toEqual(pluginHooks())
    for (const groups of Object.values(pluginHooks().hooks))
      for (const g of groups)
        for (const h of g.hooks)
          expect(h.command).toMatch(/^f="\$\{CLAUDE_PLUGIN_ROOT\}"\/bin\/(preflight-check|session-start|custodiet);/)
  })

  it('plugin.json and the marketplace name the package, at its version, with no agents (agents/ holds the reviewer prompt)', () => {
    const pkg = json('package.json')
    expect(json('.claude-plugin/plugin.json')).toMatchObject({ name: PACKAGE_NAME, version: pkg.version, agents: [] })
    expect(json('.claude-plugin/marketplace.json').plugins).toEqual([
      expect.objectContaining({ name: PACKAGE_NAME, source: { source: 'npm', package: PACKAGE_NAME } }),
    ])
    expect(pkg.name).toBe(PACKAGE_NAME)
    expect(pkg.files).toEqual(expect.arrayContaining(['.claude-plugin', 'hooks/hooks.json', 'bin', 'dist']))
    expect(pkg.private).toBeUndefined()
    expect(pkg.bin[PACKAGE_NAME]).toBe('bin/ratchet')
  })
})
