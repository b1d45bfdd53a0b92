// Starting a background process from a hook: detached and unreferenced, so the hook exits at once
// and Claude Code does not kill the child with it. node:child_process is loaded only here, on use:
// on a hook's start-up path it costs milliseconds on every tool call.

import path from 'node:path'
import { PACKAGE_ROOT } from './package-root'

/** Runs one of our executables (bin/<name>) in the background; returns its pid, or undefined. */
export function spawnDetached(bin: string, args: string[]): number | undefined {
  const { spawn } = require('node:child_process') as typeof import('node:child_process')
  const child = spawn(process.execPath, [path.join(PACKAGE_ROOT, 'bin', bin), ...args], {
    detached: true,
    stdio: 'ignore',
    env: process.env,
  })
  child.unref()
  return child.pid
}
