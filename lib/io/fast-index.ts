// `.guardrails-fast.json`: the inverted rule index (lib/core/rule-index.ts) preflight-check's fast path
// reads instead of the rules. Derived, like `.guardrails-index.json`, and bound the same way to the
// guardrails.json it came from: written by the full engine only from rules it validated (or from an
// index it trusted), stamped with that file's stat key and content hash. The fast path believes it only
// while guardrails.json still has that stat key; anything else (missing, stale, copied, forged with
// another key) sends the call to the full engine, which checks the hash and rewrites it.
// Small on purpose: the fast path parses it on every call it handles.

import fs from 'node:fs'
import path from 'node:path'
import type { FastIndex } from '../core/rule-index'
import { readRegularFile, writeFileAtomic } from './store-core'

export const fastIndexFile = (stateDir: string): string => path.join(stateDir, '.guardrails-fast.json')

/** size:mtime:inode of a file, or null when it cannot be stat'ed. */
export function statKey(file: string): string | null {
  try {
    const st = fs.statSync(file)
    return `${st.size}:${st.mtimeMs}:${st.ino}`
  } catch {
    return null
  }
}

/** The fast index, only while guardrails.json has the stat key it was derived at. */
export function readFastIndex(stateDir: string, guardrailsFile: string): FastIndex | null {
  const key = statKey(guardrailsFile)
  if (!key) return null
  try {
    const index = JSON.parse(readRegularFile(fastIndexFile(stateDir))) as FastIndex
    if (
      index?.v !== 2 ||
      index.key !== key ||
      typeof index.problems !== 'number' ||
      !index.tools ||
      typeof index.tools !== 'object' ||
      !Array.isArray(index.wild)
    )
      return null
    return index
  } catch {
    return null
  }
}

/**
 * Whether the fast index on disk carries this stamp. Its text starts with the stamp (fastIndexOf writes
 * v, key and hash first), so the full engine checks it on every call without parsing the rest.
 */
export function fastIndexStamped(stateDir: string, key: string, hash: string): boolean {
  try {
    return readRegularFile(fastIndexFile(stateDir)).startsWith(JSON.stringify({ v: 2, key, hash }).slice(0, -1) + ',')
  } catch {
    return false
  }
}

export function writeFastIndex(stateDir: string, index: FastIndex): void {
  try {
    writeFileAtomic(fastIndexFile(stateDir), JSON.stringify(index))
  } catch {
    /* only a speed-up */
  }
}
