// A file a human asked a command to write (`cases export --out`, `report --html`): the one place the CLI writes a
// path it was given. Ratchet's CLI must not become the agent's way past the floor (an export over
// .claude/settings.json ran the next session without hooks; one over the signing key ended every later hearing), so:
// only a human in a terminal of their own gets a file written, and never over anything the floor guards.

import fs from 'node:fs'
import path from 'node:path'
import { RatchetError } from '../core/errors'
import { guardedPaths } from '../core/floor'
import { floorInputs } from '../io/floor'
import { homeDir } from '../io/paths'
import type { Paths } from '../io/registry'
import { humanOnly } from './run'

/** The absolute path a rule path names (`./x` in the project, `~/x`, `//x`), for comparing with a target. */
function absolute(at: string, paths: Paths): string {
  if (at.startsWith('./')) return path.join(paths.projectDir, at.slice(2))
  if (at.startsWith('~/')) return path.join(process.env.HOME || homeDir(), at.slice(2))
  return at.replace(/^\/\//, '/').replace(/\/\*.*$/, '')
}

/** What the floor guards that `file` is, or is under; undefined when it guards nothing there. */
export function guardedTarget(paths: Paths, file: string): string | undefined {
  let target = path.resolve(file)
  try {
    // Through links: the file itself if it exists, else the folder it would be created in.
    target = fs.existsSync(target)
      ? fs.realpathSync(target)
      : path.join(fs.realpathSync(path.dirname(target)), path.basename(target))
  } catch {}
  const real = (p: string) => {
    try {
      return fs.realpathSync(p)
    } catch {
      return p
    }
  }
  const guarded = [
    ...guardedPaths(floorInputs(paths)).map((g) => ({
      abs: absolute(g.at, paths),
      tree: g.tree || g.at.includes('*'),
      why: g.why,
    })),
    { abs: paths.stateDir, tree: true, why: "Ratchet's state" },
    { abs: paths.configHome, tree: true, why: "Ratchet's keys" },
    { abs: path.join(paths.projectDir, '.git'), tree: true, why: "git's own files" },
  ]
  for (const g of guarded) {
    for (const abs of new Set([g.abs, real(g.abs)]))
      if (target === abs || (g.tree && target.startsWith(abs + path.sep))) return `${abs} (${g.why})`
  }
  return undefined
}

/** Writes `text` to the file a human named with `option`; refused inside Claude Code and over anything guarded. */
export function writeUserFile(paths: Paths, file: string, text: string, option: string): void {
  humanOnly(`writing a file with ${option}`)
  const hit = guardedTarget(paths, file)
  if (hit)
    throw new RatchetError('conflict', `${option} ${file}: refused, it would overwrite ${hit}; name a file elsewhere`)
  fs.writeFileSync(file, text)
}
