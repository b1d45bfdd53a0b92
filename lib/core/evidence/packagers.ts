// A package about to be published (`npm publish`, `pnpm publish`, `yarn npm publish`): its folder or tarball.

import { operandsSkipping } from './uploads'
import type { EvidenceTarget } from './targets'

type Packager = (args: string[], dir: string, abs: (p: string) => string, cmd: string) => EvidenceTarget | undefined

function npmLike(tool: string, publishAt: (args: string[]) => number): Packager {
  return (args, dir, abs, cmd) => {
    const at = publishAt(args)
    if (at < 0) return undefined
    const rest = args.slice(at + 1)
    if (rest.some((a) => a === '--dry-run' || a === '-n' || a === '--help' || a === '-h')) return undefined
    const operand = operandsSkipping(rest, NPM_WITH_VALUE)[0]
    if (operand && /\.(tgz|tar\.gz)$/.test(operand))
      return { kind: 'package', dir, tool, command: cmd, tarball: abs(operand) }
    return { kind: 'package', dir: operand ? abs(operand) : dir, tool, command: cmd }
  }
}

const NPM_WITH_VALUE = new Set([
  '--access',
  '--tag',
  '--registry',
  '--otp',
  '--workspace',
  '-w',
  '--userconfig',
  '--cache',
  '--prefix',
  '-C',
  '--dir',
  '--publish-branch',
  '--report-summary',
])

export const PACKAGERS: Record<string, Packager> = {
  npm: npmLike('npm', (a) => a.indexOf('publish')),
  pnpm: npmLike('pnpm', (a) => a.indexOf('publish')),
  yarn: npmLike('yarn', (a) => (a[0] === 'npm' && a[1] === 'publish' ? 1 : a[0] === 'publish' ? 0 : -1)),
}
// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
Object.setPrototypeOf(PACKAGERS, null)
