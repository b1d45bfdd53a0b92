// Publishing packages to a registry.

import type { Detector, FamilyMeta } from './types'

export const meta: FamilyMeta = {
  id: 'publish',
  classes: ['public_surface'],
  patterns: ['package_publish'],
  description: 'Publishing a package (npm/yarn/pnpm publish, cargo publish, twine upload, gem push, …)',
  examples: ['npm publish --access public', 'cargo publish', 'twine upload dist/*'],
}

function publishOn(verbs: string[]): Detector {
  return (c, _inv, f) => {
    if (verbs.includes(f.operands[0] ?? '')) c.add('package_publish', f.cmd)
  }
}

export const programs: Record<string, Detector> = {
  npm: publishOn(['publish']),
  pnpm: publishOn(['publish']),
  yarn: (c, _inv, f) => {
    if (f.operands[0] === 'publish' || (f.operands[0] === 'npm' && f.operands[1] === 'publish')) c.add('package_publish', f.cmd)
  },
  cargo: publishOn(['publish']),
  twine: publishOn(['upload']),
  gem: publishOn(['push']),
  poetry: publishOn(['publish']),
  flit: publishOn(['publish']),
  hatch: publishOn(['publish']),
  uv: publishOn(['publish']),
  vsce: publishOn(['publish']),
}
