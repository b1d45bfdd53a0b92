// A package.json edit that changes how Ratchet is installed: planted for the user's next install, which runs outside
// the sandbox and would replace or remove Ratchet's package.

import path from 'node:path'
import { PACKAGE_NAME } from '../manifest'
import type { ClassifyContext, Sink } from './types'

const DEP_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const

/** The names Ratchet's package goes by here: `ratchet-guard` (and `ratchet`, its name before 0.1.0 was published), and the folder it is installed in. */
function ratchetNames(ctx: ClassifyContext): Set<string> {
  const names = new Set(['ratchet', PACKAGE_NAME])
  if (ctx.packageDir) {
    const parts = ctx.packageDir.split('/')
    const i = parts.lastIndexOf('node_modules')
    if (i >= 0 && parts[i + 1])
      names.add(parts[i + 1].startsWith('@') ? `${parts[i + 1]}/${parts[i + 2] ?? ''}` : parts[i + 1])
  }
  return names
}

/** A package.json's specs for these names (dependencies of every kind, and overrides/resolutions); undefined when it is not JSON. */
function packageSpecs(text: string, names: Set<string>): Map<string, string> | undefined {
  let pkg: Record<string, unknown>
  try {
    pkg = JSON.parse(text) as Record<string, unknown>
  } catch {
    return undefined
  }
  if (!pkg || typeof pkg !== 'object') return undefined
  const out = new Map<string, string>()
  const pnpm = (pkg.pnpm as { overrides?: unknown } | undefined)?.overrides
  for (const field of [...DEP_FIELDS, 'overrides', 'resolutions'] as const) {
    const deps = (field === 'overrides' && !pkg.overrides ? pnpm : pkg[field]) as Record<string, unknown> | undefined
    if (!deps || typeof deps !== 'object') continue
    for (const n of names) if (typeof deps[n] === 'string' && !out.has(n)) out.set(n, deps[n] as string)
  }
  return out
}

/**
 * Write/Edit of a package.json that changes how Ratchet's package is installed (its spec changed, or removed,
 * or overridden): the next `npm install` replaces or removes Ratchet. Adding an ordinary dependency stays quiet.
 */
export function packageJsonChange(c: Sink, abs: string, tool: string, input: Record<string, unknown>): void {
  if (path.posix.basename(abs) !== 'package.json' || abs.includes('/node_modules/')) return
  const names = ratchetNames(c.ctx)
  const before = c.ctx.fs?.readText(abs)
  const str = (v: unknown) => (typeof v === 'string' ? v : '')
  let after: string | undefined
  if (tool === 'Write') after = str(input.content)
  else if (before !== undefined) {
    const edits =
      tool === 'MultiEdit' && Array.isArray(input.edits) ? (input.edits as Record<string, unknown>[]) : [input]
    after = before
    for (const ed of edits) {
      const o = str(ed.old_string)
      if (!o) continue
      after = ed.replace_all ? after.split(o).join(str(ed.new_string)) : after.replace(o, () => str(ed.new_string))
    }
  }
  const was = before === undefined ? undefined : packageSpecs(before, names)
  if (after === undefined) {
    // The file cannot be read: an edit that names Ratchet's package is taken at its worst.
    const text = [
      input.old_string,
      input.new_string,
      ...(Array.isArray(input.edits)
        ? (input.edits as Record<string, unknown>[]).flatMap((x) => [x.old_string, x.new_string])
        : []),
    ]
      .map(str)
      .join('\n')
    if ([...names].some((n) => text.includes(`"${n}"`)))
      c.add(
        'ratchet_state_edit',
        `${tool} ${abs} (changes Ratchet's package entry in a package.json that cannot be read)`,
      )
    return
  }
  const now = packageSpecs(after, names)
  if (!was?.size) return
  for (const [name, spec] of was) {
    const next = now?.get(name)
    if (next !== spec)
      c.add(
        'ratchet_state_edit',
        `${tool} ${abs} (${next === undefined ? `removes ${name}` : `changes ${name} from ${spec} to ${next}`}: the next install would replace or remove Ratchet's package)`,
      )
  }
}
