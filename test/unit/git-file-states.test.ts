// lib/io/git.ts fileStates against a real repository: what git can bring back of a path.

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileStates } from '../../lib/io/git'

let dir: string
const sh = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' })
const put = (rel: string, text = 'x') => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
  fs.writeFileSync(path.join(dir, rel), text)
}

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-git-')))
  sh('init', '-q')
  sh('config', 'user.email', 't@example.com')
  sh('config', 'user.name', 't')
  put('.gitignore', 'node_modules/\ndist/\n.env\n*.log\n')
  put('src/app.ts')
  put('src/util.ts')
  put('README.md')
  sh('add', '-A')
  sh('commit', '-qm', 'init')
  put('src/util.ts', 'changed')
  put('notes.txt')
  put('node_modules/x/index.js')
  put('dist/app.js')
  put('.env', 'KEY=1')
  put('debug.log')
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('fileStates', () => {
  it.each([
    ['README.md', 'tracked-clean'],
    ['src/app.ts', 'tracked-clean'],
    ['src/util.ts', 'tracked-modified'],
    ['src', 'tracked-modified'],
    ['notes.txt', 'untracked'],
    ['node_modules', 'tracked-clean'],
    ['dist', 'tracked-clean'],
    ['.env', 'ignored'],
    ['debug.log', 'ignored'],
    ['*.log', 'ignored'],
    ['*.md', 'tracked-clean'],
    ['*.nothing', 'missing'],
    ['gone.txt', 'missing'],
    ['.', undefined],
    ['.git', undefined],
    ['.git/config', undefined],
  ])('%s → %s', (rel, state) => {
    expect(fileStates(dir)(path.join(dir, rel))).toBe(state)
  })

  it('outside the project is outside', () => {
    expect(fileStates(dir)(os.homedir())).toBe('outside')
    expect(fileStates(path.join(dir, 'src'))(path.join(dir, 'README.md'))).toBe('outside')
  })

  it('no time left means no answer (the caller assumes the worst)', () => {
    expect(fileStates(dir, 0)(path.join(dir, 'README.md'))).toBeUndefined()
  })

  it('not a repository: nothing git can restore', () => {
    const plain = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-plain-')))
    fs.writeFileSync(path.join(plain, 'a.txt'), 'x')
    try {
      expect(fileStates(plain)(path.join(plain, 'a.txt'))).toBe('outside')
    } finally {
      fs.rmSync(plain, { recursive: true, force: true })
    }
  })
})

describe('fileStates and symbolic links', () => {
  it('a path through a link that leads elsewhere has no answer (the worst reading)', () => {
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-outside-')))
    try {
      fs.mkdirSync(path.join(dir, 'scratch'), { recursive: true })
      fs.symlinkSync(outside, path.join(dir, 'scratch', 'away'))
      const state = fileStates(dir)
      expect(state(path.join(dir, 'scratch', 'away'))).toBeUndefined()
      expect(state(path.join(dir, 'scratch', 'away', 'file.txt'))).toBeUndefined()
      expect(state(path.join(dir, 'README.md'))).toBe('tracked-clean')
    } finally {
      fs.rmSync(path.join(dir, 'scratch'), { recursive: true, force: true })
      fs.rmSync(outside, { recursive: true, force: true })
    }
  })
})
