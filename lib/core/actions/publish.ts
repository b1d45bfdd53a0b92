// Publishing packages to a registry, and taking published versions back (unpublish, yank), which others may
// already depend on. Dry runs publish nothing.

import type { Detector, FamilyMeta } from './types'
import { dryRun, operandsAfter } from './util'

export const meta: FamilyMeta = {
  id: 'publish',
  classes: ['public_surface', 'irreversible'],
  patterns: ['package_publish', 'package_unpublish'],
  description: 'Publishing a package (npm/yarn/pnpm publish, cargo publish, twine upload, gem push, npm deprecate/dist-tag, …); unpublishing or yanking one',
  examples: ['npm publish --access public', 'cargo publish', 'twine upload dist/*', 'npm unpublish pkg@1.0.0', 'cargo yank --version 1.0.0'],
}

/** `verbs` publish, `back` take a version back; `--dry-run` does neither. */
/** Options that take a value before the verb (`npm --prefix dir publish`, `pnpm --filter pkg publish`, `cargo --manifest-path x publish`). */
const VALUES = ['--prefix', '-C', '--dir', '--filter', '-F', '--workspace', '--registry', '--userconfig', '--cwd', '--manifest-path', '--config', '-Z', '--repository', '-r', '--repository-url', '-u', '--username', '-p', '--password', '--token', '--index']

function registry(verbs: string[], back: string[] = []): Detector {
  return (c, inv, f) => {
    const sub = operandsAfter(inv.args, VALUES, { leadingPlus: true })[0] ?? ''
    if (dryRun(inv.args)) return
    if (verbs.includes(sub)) c.add('package_publish', f.cmd)
    if (back.includes(sub)) c.add('package_unpublish', f.cmd)
  }
}

const npmLike: Detector = (c, inv, f) => {
  const [sub, verb] = operandsAfter(inv.args, VALUES, { leadingPlus: true })
  if (dryRun(inv.args)) return
  if (sub === 'publish' || sub === 'deprecate' || sub === 'undeprecate' || (sub === 'dist-tag' && /^(add|rm)$/.test(verb ?? '')) || (sub === 'access' && /^(set|grant|revoke|public|restricted)$/.test(verb ?? '')))
    c.add('package_publish', f.cmd)
  if (sub === 'unpublish') c.add('package_unpublish', f.cmd)
}

export const programs: Record<string, Detector> = {
  npm: npmLike,
  pnpm: npmLike,
  yarn: (c, inv, f) => {
    if (dryRun(inv.args)) return
    const [a, b] = operandsAfter(inv.args, VALUES, { leadingPlus: true })
    if (a === 'publish' || (a === 'npm' && b === 'publish')) c.add('package_publish', f.cmd)
    if (a === 'unpublish' || (a === 'npm' && b === 'unpublish')) c.add('package_unpublish', f.cmd)
  },
  cargo: registry(['publish'], ['yank']),
  twine: registry(['upload']),
  gem: registry(['push'], ['yank']),
  poetry: registry(['publish']),
  flit: registry(['publish']),
  hatch: registry(['publish']),
  uv: registry(['publish']),
  vsce: registry(['publish'], ['unpublish']),
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
