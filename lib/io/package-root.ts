// Where the installed package is (dist/ in the bundle, lib/io/ in the sources), and the warm decision process that
// its dist/warm.cjs runs: the folders it hands requests through, and asking it for its status.

import fs from 'node:fs'
import path from 'node:path'
import { STATE } from './registry'

/** The installed package's root (dist/ in the bundle, lib/io/ in the sources). */
export const PACKAGE_ROOT: string = (() => {
  let dir = __dirname
  for (let i = 0; i < 4; i++) {
    if (fs.existsSync(path.join(dir, STATE.guardrails.name)) && fs.existsSync(path.join(dir, 'package.json')))
      return dir
    dir = path.dirname(dir)
  }
  return path.resolve(__dirname, '..')
})()

/**
 * The folders in memory through which hooks hand requests to the warm decision process (as lib/runtime/warm.ts
 * spoolFolder chooses them): the agent may neither read nor change them, like the config folder.
 */
export function warmSpools(env: NodeJS.ProcessEnv = process.env): string[] {
  return [
    ...(env.XDG_RUNTIME_DIR ? [path.join(env.XDG_RUNTIME_DIR, 'ratchet-warm')] : []),
    `/dev/shm/ratchet-warm-${process.getuid?.() ?? 0}`,
  ]
}

/**
 * Asks the installed dist/warm.cjs about the warm process a hook in `projectDir` would use (`status`), or ends it
 * (`stop`): for `ratchet doctor` and `ratchet uninstall`. Throws when the install has no warm.cjs.
 */
export function warmProcess<A extends 'status' | 'stop'>(
  projectDir: string,
  act: A,
): A extends 'stop' ? boolean : { on: boolean; why?: string; running?: boolean; pid?: number; spool?: string } {
  return require(path.join(PACKAGE_ROOT, 'dist', 'warm.cjs'))[act](
    { ...process.env, CLAUDE_PROJECT_DIR: path.resolve(projectDir) },
    process.cwd(),
  )
}
