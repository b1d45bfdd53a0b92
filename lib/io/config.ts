// The project's config.json, read; and a JSON file written whole (atomically), for the CLI's settings edits.

import type { Config, Paths } from './registry'
import { readState, writeFileAtomic } from './store'

export function readConfig(paths: Paths): { config: Config; problem?: string } {
  const r = readState(paths, 'config')
  return r.ok ? { config: r.value } : { config: {}, problem: r.error.message }
}

export function writeJsonFile(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n')
}
