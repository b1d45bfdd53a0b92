// Where the courtroom keeps things. In the project's state folder (which the agent cannot edit):
// consent, the ledger, probation, hearings, cache, costs. Outside the project, 0600, where no project
// file can reach: the signing keys and the signed ledger heads ($XDG_CONFIG_HOME/ratchet, else
// ~/.config/ratchet). Only fs and path here: preflight-check imports probationFile.

import path from 'node:path'
import type { Paths } from '../state'

export const courtroomDir = (paths: Paths): string => path.join(paths.stateDir, 'courtroom')

/** The one file preflight-check looks for (an existsSync) on every call. Absent unless on probation. */
export const probationFile = (paths: Paths): string => path.join(paths.stateDir, 'courtroom', 'probation.json')

export function courtroomFiles(paths: Paths) {
  const dir = courtroomDir(paths)
  return {
    dir,
    consent: path.join(dir, 'consent.json'),
    probation: probationFile(paths),
    hearings: path.join(dir, 'hearings.jsonl'),
    docket: path.join(dir, 'docket'),
    cache: path.join(dir, 'cache.json'),
    costs: path.join(dir, 'costs.json'),
    ledgerDir: path.join(dir, 'ledger'),
    ledger: (agent: string) => path.join(dir, 'ledger', `${agent}.jsonl`),
  }
}

export function configHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || require('node:os').homedir()
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'ratchet')
}

export const keysDir = (env?: NodeJS.ProcessEnv): string => path.join(configHome(env), 'keys')
export const keyFile = (agent: string, env?: NodeJS.ProcessEnv): string => path.join(keysDir(env), `${agent}.json`)
export const headFile = (agent: string, env?: NodeJS.ProcessEnv): string => path.join(configHome(env), 'heads', `${agent}.json`)
