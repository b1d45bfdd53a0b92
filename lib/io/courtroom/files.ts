// Where the courtroom keeps things. In the project's state folder (which the agent cannot edit):
// consent, the ledger, probation, hearings, cache, costs. Outside the project, 0600, where no project
// file can reach: the signing keys and the signed ledger heads ($XDG_CONFIG_HOME/ratchet, else
// ~/.config/ratchet). Only fs and path here: preflight-check imports probationFile.

// Every path comes from the registry (lib/io/registry.ts).

import path from 'node:path'
import { fileOf } from '../registry'
import type { Paths } from '../registry'

/** The one file preflight-check looks for (an existsSync) on every call. Absent unless on probation. */
export const probationFile = (paths: Paths): string => paths.probation

export function courtroomFiles(paths: Paths) {
  return {
    dir: paths.courtroom,
    consent: paths.consent,
    probation: paths.probation,
    hearings: paths.hearings,
    docket: path.dirname(fileOf(paths, 'docket', 'x')),
    cache: paths.courtroomCache,
    costs: paths.courtroomCosts,
    ledgerDir: path.dirname(fileOf(paths, 'ledger', 'x')),
    ledger: (agent: string) => fileOf(paths, 'ledger', agent),
  }
}

export function configHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || require('node:os').homedir()
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'ratchet')
}

const inConfig = (env?: NodeJS.ProcessEnv) => ({ stateDir: '', configHome: configHome(env) })
export const keyFile = (agent: string, env?: NodeJS.ProcessEnv): string => fileOf(inConfig(env), 'courtroomKey', agent)
export const headFile = (agent: string, env?: NodeJS.ProcessEnv): string => fileOf(inConfig(env), 'ledgerHead', agent)
