// Ratchet's state folder and the files in it. Where it lives: $RATCHET_DIR, else <project>/.ratchet, the project
// being $CLAUDE_PROJECT_DIR or the one found from the working folder as git finds a repository (lib/io/project.ts);
// the per-user folder outside every project.

import path from 'node:path'
import { PACKAGE_ROOT } from './package-root'
import { type Paths, pathsFor } from './registry'
import { setStateRoot } from './store'
import { findProject } from './project'

/** The state folder and every fixed file in it, from the registry (lib/io/registry.ts). */
export function resolvePaths(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Paths {
  const projectDir = findProject(cwd, env).dir
  const stateDir = path.resolve(env.RATCHET_DIR || path.join(projectDir, '.ratchet'))
  setStateRoot(stateDir)
  return pathsFor(projectDir, stateDir, PACKAGE_ROOT, configHomeOf(env))
}

export const homeDir = (): string => process.env.HOME || require('node:os').homedir()

/** The per-user folder outside every project: $XDG_CONFIG_HOME/ratchet, else ~/.config/ratchet. */
export function configHomeOf(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(env.HOME || homeDir(), '.config'), 'ratchet')
}
