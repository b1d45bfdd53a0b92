// The action catalogue: every family, and one table from program name to detector. The table is a plain
// object built once from the families' own tables (about a hundred keys: no work worth measuring at load).

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

export const FAMILIES: readonly Family[] = [fsDelete, fsWrite, fsRead, disk, git, forge, publish, containers, network, serve, cloud, deploy, database, payments, mail, schedule, secrets, mcp, scope, planted, ratchetSelf, unreadable]

export const PROGRAMS: Record<string, Detector> = {
  ...fsRead.programs,
  ...fsDelete.programs,
  ...fsWrite.programs,
  ...disk.programs,
  ...git.programs,
  ...forge.programs,
  ...publish.programs,
  ...containers.programs,
  ...network.programs,
  ...cloud.programs,
  ...deploy.programs,
  ...database.programs,
  ...payments.programs,
  ...mail.programs,
  ...schedule.programs,
  ...secrets.programs,
  ...ratchetSelf.programs,
}

/** Interpreter one-liners pass through these, in this order. */
export const CODE_SCANNERS: readonly CodeScanner[] = [ratchetSelf.scanCode, ratchetSelf.scanKeyCode, fsDelete.scanCode, fsWrite.scanCode, mail.scanCode, network.scanCode, database.scanCode, secrets.scanCode]

/** The table key of a program: versioned names share one entry (`python3.12` → `python`, `mkfs.ext4` → `mkfs`). */
export function programKey(name: string): string {
  if (/^python\d*(\.\d+)*$/.test(name)) return 'python'
  if (name.startsWith('mkfs.')) return 'mkfs'
  return name
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [PROGRAMS]) Object.setPrototypeOf(table, null)
