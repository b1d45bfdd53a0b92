// `ratchet serve` reached through the CLI bundle (bin/ratchet normally starts dist/serve.cjs directly): the
// server is its own bundle, required from the install at run time, so this bundle never holds it.

import path from 'node:path'
import { RatchetError } from '../core/errors'
import { PACKAGE_ROOT } from '../io/package-root'

export async function serve(argv: string[]): Promise<void> {
  const file = path.join(PACKAGE_ROOT, 'dist', 'serve.cjs')
  let loaded: { main: (argv: string[]) => Promise<void> }
  try {
    loaded = require(file)
  } catch (e) {
    throw new RatchetError(
      'not_installed',
      `the case server is not built here (${(e as NodeJS.ErrnoException).code ?? 'error'} ${file}): npm run build`,
    )
  }
  await loaded.main(argv)
}
