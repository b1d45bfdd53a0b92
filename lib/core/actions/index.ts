// The action catalogue: every family, and one table from program name to detector. The table is a plain object
// without a prototype (keyed by words the agent types: `valueOf` or `__proto__` must find nothing), built once from
// the families' own tables (about a hundred keys: no work worth measuring at load).

import * as cloud from './cloud'
import * as containers from './containers'
import * as database from './database'
import * as deploy from './deploy'
import * as disk from './disk'
import * as forge from './forge'
import * as fsDelete from './fs-delete'
import * as fsRead from './fs-read'
import * as fsWrite from './fs-write'
import * as git from './git'
import * as mail from './mail'
import * as mcp from './mcp'
import * as network from './network'
import * as payments from './payments'
import * as planted from './planted'
import * as publish from './publish'
import * as ratchetSelf from './ratchet-self'
import * as schedule from './schedule'
import * as scope from './scope'
import * as secrets from './secrets'
import * as serve from './serve'
import * as unreadable from './unreadable'
import type { CodeScanner, Detector, FamilyMeta } from './types'

export interface Family {
  meta: FamilyMeta
  programs?: Record<string, Detector>
  scanCode?: CodeScanner
}

/**
 * Every family. The order is the order interpreter code passes the families' code scanners (Ratchet's own files
 * first); program tables do not overlap (catalogue.test.ts), so their order does not matter.
 */
export const FAMILIES: readonly Family[] = [
  ratchetSelf,
  fsDelete,
  fsWrite,
  fsRead,
  disk,
  git,
  forge,
  publish,
  containers,
  mail,
  network,
  serve,
  cloud,
  deploy,
  database,
  payments,
  schedule,
  secrets,
  mcp,
  scope,
  planted,
  unreadable,
]

/** Program name → its family's detector, from the families' own tables. */
export const PROGRAMS: Record<string, Detector> = Object.assign(
  Object.create(null) as Record<string, Detector>,
  ...FAMILIES.map((f) => f.programs ?? {}),
)

/** Interpreter one-liners pass through these, in the order of FAMILIES. */
export const CODE_SCANNERS: readonly CodeScanner[] = FAMILIES.flatMap((f) => (f.scanCode ? [f.scanCode] : []))

/** The table key of a program: versioned names share one entry (`python3.12` → `python`, `mkfs.ext4` → `mkfs`). */
export function programKey(name: string): string {
  if (/^python\d*(\.\d+)*$/.test(name)) return 'python'
  if (name.startsWith('mkfs.')) return 'mkfs'
  return name
}
