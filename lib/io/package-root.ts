// Where the installed package is (dist/ in the bundle, lib/io/ in the sources), and the warm decision process that
// its dist/warm.cjs runs: the folders it hands requests through, its status, starting and stopping it.

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
 * The installed dist/warm.cjs (lib/runtime/warm.ts), for what runs outside a hook's call: `ratchet doctor` asks for
 * its status, `ratchet uninstall` stops it, SessionStart starts it ahead of the session's calls (`prestart`). For the
 * warm process a hook in `projectDir` would use. Throws when the install has no warm.cjs.
 */
export function warmProcess<A extends 'status' | 'stop' | 'prestart'>(
  projectDir: string,
  act: A,
): ReturnType<typeof import('../runtime/warm')[A]> {
  const warm = require(path.join(PACKAGE_ROOT, 'dist', 'warm.cjs')) as typeof import('../runtime/warm')
  return warm[act]({ ...process.env, CLAUDE_PROJECT_DIR: path.resolve(projectDir) }, process.cwd()) as ReturnType<
    typeof import('../runtime/warm')[A]
  >
}
