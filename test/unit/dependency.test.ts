// The dependency line a teammate's fresh clone can install, from every source npm records.
import { describe, expect, it } from 'vitest'
import {
  dependencyOf,
  dependencyPlan,
  lineDiff,
  lockWithout,
  minimalPackage,
  sourceOf,
  withDependency,
  withoutDependency,
} from '../../lib/core/dependency'

describe('sourceOf: the spec npm recorded, as a source', () => {
  it.each([
    ['^0.1.0', { kind: 'registry', version: '0.1.0' }],
    ['latest', { kind: 'registry', version: '0.1.0' }],
    [undefined, { kind: 'registry', version: '0.1.0' }],
    ['npm:ratchet-guard@^0.1.0', { kind: 'registry', version: '0.1.0' }],
    ['git+https://github.com/o/ratchet-guard.git', { kind: 'git', url: 'git+https://github.com/o/ratchet-guard.git' }],
    ['github:o/ratchet-guard#v0.1.0', { kind: 'git', url: 'github:o/ratchet-guard#v0.1.0' }],
    ['o/ratchet-guard', { kind: 'git', url: 'o/ratchet-guard' }],
    ['git+ssh://git@example.org/o/r.git', { kind: 'git', url: 'git+ssh://git@example.org/o/r.git' }],
    [
      'file:../../../../p/ratchet-guard-0.1.0.tgz',
      { kind: 'local', path: '/n/p/ratchet-guard-0.1.0.tgz', tarball: true },
    ],
    ['file:/src/ratchet', { kind: 'local', path: '/src/ratchet', tarball: false }],
    ['git+file:///srv/ratchet.git', { kind: 'local', path: '/srv/ratchet.git', tarball: false }],
  ])('%s', (spec, want) => {
    const dir = '/n/a/b/c/d'
    const resolve = (p: string) => (p.startsWith('/') ? p : require('node:path').resolve(dir, p))
    expect(sourceOf(spec, '0.1.0', resolve)).toEqual(want)
  })
})

describe('dependencyPlan: never a path outside the repository', () => {
  it.each([
    [{ kind: 'registry', version: '0.2.0' } as const, '^0.2.0', undefined],
    [{ kind: 'git', url: 'github:o/r' } as const, 'github:o/r', undefined],
    [
      { kind: 'local', path: '/home/u/Downloads/ratchet-guard-0.2.0.tgz', tarball: true } as const,
      'file:.ratchet/vendor/ratchet-guard-0.2.0.tgz',
      '.ratchet/vendor/ratchet-guard-0.2.0.tgz',
    ],
    [
      { kind: 'local', path: '/home/u/src/ratchet', tarball: false } as const,
      'file:.ratchet/vendor/ratchet-guard-0.2.0.tgz',
      '.ratchet/vendor/ratchet-guard-0.2.0.tgz',
    ],
  ])('%o', (source, spec, vendor) => {
    const plan = dependencyPlan(source, 'ratchet-guard', '0.2.0')
    expect(plan.spec).toBe(spec)
    expect(plan.vendor).toBe(vendor)
    expect(plan.spec).not.toMatch(/^file:(\/|\.\.)/)
  })
})

describe('package.json and lockfile edits', () => {
  it('adds to devDependencies in name order, or where it already is; removes from every field', () => {
    expect(withDependency({ name: 'app' }, 'ratchet-guard', '^0.1.0')).toEqual({
      name: 'app',
      devDependencies: { 'ratchet-guard': '^0.1.0' },
    })
    expect(
      Object.keys(
        withDependency({ devDependencies: { zod: '1', a: '1' } }, 'ratchet-guard', '^0.1.0').devDependencies as object,
      ),
    ).toEqual(['a', 'ratchet-guard', 'zod'])
    expect(withDependency({ dependencies: { 'ratchet-guard': 'file:x.tgz' } }, 'ratchet-guard', '^0.1.0')).toEqual({
      dependencies: { 'ratchet-guard': '^0.1.0' },
    })
    expect(dependencyOf({ devDependencies: { 'ratchet-guard': 'x' } }, 'ratchet-guard')).toEqual({
      field: 'devDependencies',
      spec: 'x',
    })
    expect(
      withoutDependency(
        { name: 'app', devDependencies: { 'ratchet-guard': 'x' }, dependencies: { zod: '1' } },
        'ratchet-guard',
      ),
    ).toEqual({ name: 'app', dependencies: { zod: '1' } })
    const lock = {
      lockfileVersion: 3,
      packages: {
        '': { devDependencies: { 'ratchet-guard': 'x', zod: '1' } },
        'node_modules/ratchet-guard': { version: '0.1.0' },
        'node_modules/zod': {},
      },
    }
    expect(lockWithout(lock, 'ratchet-guard')).toEqual({
      lockfileVersion: 3,
      packages: { '': { devDependencies: { zod: '1' } }, 'node_modules/zod': {} },
    })
  })

  it('lineDiff marks what changed', () => {
    expect(lineDiff('a\nb\nc\n', 'a\nx\nc\n')).toEqual(['  a', '- b', '+ x', '  c'])
    expect(lineDiff('', '{}\n')).toEqual(['+ {}'])
  })
})

describe('minimalPackage: a project without package.json gets one whose lockfile every clone agrees on', () => {
  it.each([
    ['shop', 'shop'],
    ['My Project', 'my-project'],
    ['.dotfiles', 'dotfiles'],
    ['_x', 'x'],
    ['Ünïcode', 'n-code'],
    ['...', 'project'],
    ['a@b/c', 'a-b-c'],
  ])('%s → %s', (folder, name) => {
    expect(minimalPackage(folder)).toEqual({ name, private: true })
  })
})
