// Where the running copy of Ratchet came from (the spec npm installed it with), and the npm and file steps that make
// it a project's own dependency (lib/core/dependency.ts decides the spec).

import fs from 'node:fs'
import path from 'node:path'
import { PACKAGE_NAME } from '../core/manifest'
import { sourceOf, type Source } from '../core/dependency'
import { PACKAGE_ROOT } from './package-root'

function realpath(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    return p
  }
}

export function packageVersion(root = PACKAGE_ROOT): string {
  try {
    return String(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version)
  } catch {
    return '0.0.0'
  }
}

/**
 * The spec the running copy was installed with: npm writes it into the package.json of the folder that holds the
 * node_modules it sits in (npx's cache folder, a project). A global install's folder has none: the registry. Not
 * under node_modules at all: a source checkout (a local folder).
 */
export function runningSource(root = PACKAGE_ROOT): Source {
  const real = realpath(root)
  const version = packageVersion(root)
  const parts = real.split(path.sep)
  const i = parts.lastIndexOf('node_modules')
  if (i < 0) return { kind: 'local', path: real, tarball: false }
  const holder = parts.slice(0, i).join(path.sep) || path.sep
  let spec: string | undefined
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(holder, 'package.json'), 'utf8'))
    for (const f of ['dependencies', 'devDependencies', 'optionalDependencies']) spec ??= pkg?.[f]?.[PACKAGE_NAME]
  } catch {
    /* a global prefix: no package.json */
  }
  return sourceOf(spec, version, (p) => path.resolve(holder, p))
}

/** npm, run in `cwd`, quiet about funding and audits; its output kept for a failure's message. */
export function npm(args: string[], cwd: string): { ok: boolean; output: string } {
  const r = (require('node:child_process') as typeof import('node:child_process')).spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    timeout: 600_000,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
  })
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`.trim()
  return { ok: r.status === 0, output }
}

/**
 * The tarball of a local source at `dest` (inside the project): a tarball is copied, a folder (a source checkout)
 * packed, as `npm publish` would ship it. Other versions of the package in the same folder go.
 */
export function vendorTarball(source: Extract<Source, { kind: 'local' }>, dest: string): void {
  const dir = path.dirname(dest)
  fs.mkdirSync(dir, { recursive: true })
  if (source.tarball) {
    if (realpath(source.path) !== realpath(dest)) fs.copyFileSync(source.path, dest)
  } else {
    const r = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir, source.path], dir)
    if (!r.ok) throw new Error(`npm pack ${source.path} failed: ${r.output.split('\n').slice(-3).join(' ')}`)
    const made = path.join(dir, JSON.parse(r.output.slice(r.output.indexOf('[')))[0].filename)
    if (made !== dest) fs.renameSync(made, dest)
  }
  for (const f of fs.readdirSync(dir))
    if (f.startsWith(`${PACKAGE_NAME}-`) && f.endsWith('.tgz') && path.join(dir, f) !== dest)
      fs.rmSync(path.join(dir, f))
}

/** A JSON file's object and the indent it was written with (absent: undefined). */
export function readJson(file: string): { value: Record<string, unknown>; indent: string | number } | undefined {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw e
  }
  const value = JSON.parse(text)
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('expected a JSON object')
  const indent = /^\{\n([ \t]+)"/.exec(text)?.[1] ?? 2
  return { value, indent }
}
