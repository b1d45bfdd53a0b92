// Which project a command run in a folder belongs to, found as git finds its repository: from any subfolder.
//
// The rule: $CLAUDE_PROJECT_DIR when set (Claude Code sets it for the hooks); else, walking up from the folder, the
// OUTERMOST folder that holds `.ratchet/` or whose `.claude/settings.json` / `settings.local.json` registers Ratchet's
// hooks. The walk stops at the git toplevel (the folder holding `.git`), before the home folder, and before any
// folder others may write (/tmp). Outermost, not nearest, because the agent can write inside the project but not
// above it (the OS sandbox): a `.ratchet/` or settings file it plants in a subfolder then never shadows the real
// project's state, approvals or rules. With nothing found, the folder itself, and nothing is created there.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { registeredRatchetHooks } from '../core/settings'
import { readRegularFile } from './store-core'

export interface FoundProject {
  dir: string
  /** env: $CLAUDE_PROJECT_DIR; marked: a folder holding Ratchet's state or registration; none: nothing found. */
  by: 'env' | 'marked' | 'none'
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

function othersMayWrite(dir: string): boolean {
  try {
    return (fs.statSync(dir).mode & 0o002) !== 0
  } catch {
    return true
  }
}

/** True when the folder's project or local settings register any of Ratchet's hooks (a bad file: no). */
function registersRatchet(dir: string): boolean {
  for (const f of ['settings.json', 'settings.local.json']) {
    try {
      // A regular file only: a FIFO planted in a subfolder must not hang every command run below it.
      const v = JSON.parse(readRegularFile(path.join(dir, '.claude', f)))
      if (v && typeof v === 'object' && registeredRatchetHooks(v).length) return true
    } catch {
      /* absent or not JSON: not a registration */
    }
  }
  return false
}

export function findProject(cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): FoundProject {
  if (env.CLAUDE_PROJECT_DIR) return { dir: path.resolve(env.CLAUDE_PROJECT_DIR), by: 'env' }
  const start = path.resolve(cwd)
  const home = path.resolve(env.HOME || os.homedir())
  let found: string | undefined
  for (let dir = start; dir !== home && !othersMayWrite(dir); ) {
    if (isDir(path.join(dir, '.ratchet')) || registersRatchet(dir)) found = dir
    if (fs.existsSync(path.join(dir, '.git'))) break
    const up = path.dirname(dir)
    if (up === dir) break
    dir = up
  }
  return found ? { dir: found, by: 'marked' } : { dir: start, by: 'none' }
}
