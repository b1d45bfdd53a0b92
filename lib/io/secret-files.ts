// Facts for searches (lib/core/actions/secrets.ts searchReads): which secret files lie under a searched folder, and
// whether one holds the searched text. Bounded (a walk stops after MAX_ENTRIES entries; files over 1 MB are not
// read) and never blocking (non-regular files are refused). Asked only for a search that prints matching lines.

import fs from 'node:fs'
import path from 'node:path'
import { secretName } from '../core/actions/secrets'
import type { ClassifyContext } from '../core/actions/types'
import { openRegular } from './store-core'

const MAX_ENTRIES = 4000
const MAX_DEPTH = 8
const SKIP = new Set([
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  '.venv',
  'venv',
  '__pycache__',
  '.cache',
  'dist',
  'build',
  'target',
])

export function secretFileFacts(
  ctx: Pick<ClassifyContext, 'projectDir' | 'homeDir'>,
): Pick<ClassifyContext, 'secretFilesUnder' | 'fileMentions'> {
  const cache = new Map<string, string[]>()
  return {
    secretFilesUnder(dir: string): string[] {
      const hit = cache.get(dir)
      if (hit) return hit
      const out: string[] = []
      const stack: [string, number][] = [[dir, 0]]
      let seen = 0
      while (stack.length && seen < MAX_ENTRIES) {
        const [d, depth] = stack.pop()!
        let entries: fs.Dirent[]
        try {
          entries = fs.readdirSync(d, { withFileTypes: true })
        } catch {
          continue
        }
        for (const e of entries) {
          if (++seen > MAX_ENTRIES) break
          const abs = path.posix.join(d, e.name)
          // Folders are followed only when they are real folders (a link is not walked out of the tree).
          if (e.isDirectory()) {
            if (depth < MAX_DEPTH && !SKIP.has(e.name)) stack.push([abs, depth + 1])
          } else if (secretName(ctx as ClassifyContext, abs)) out.push(abs)
        }
      }
      cache.set(dir, out)
      return out
    },
    fileMentions(file: string, text: string, ignoreCase: boolean): boolean | undefined {
      let fd: number
      try {
        fd = openRegular(file)
      } catch {
        return undefined
      }
      try {
        if (fs.fstatSync(fd).size > 1024 * 1024) return undefined
        const body = fs.readFileSync(fd, 'utf8')
        return ignoreCase ? body.toLowerCase().includes(text.toLowerCase()) : body.includes(text)
      } catch {
        return undefined
      } finally {
        fs.closeSync(fd)
      }
    },
  }
}
