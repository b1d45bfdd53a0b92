import fs from 'node:fs'
import path from 'node:path'

/** The checked-out branch of the repository containing `dir`, read from .git/HEAD (no git process). */
export function currentBranch(dir: string): string | undefined {
  let d = dir
  for (let i = 0; i < 40; i++) {
    const dotgit = path.join(d, '.git')
    try {
      let gitDir = dotgit
      if (fs.statSync(dotgit).isFile()) {
        const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotgit, 'utf8'))
        if (!m) return undefined
        gitDir = path.resolve(d, m[1].trim())
      }
      const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8')
      const ref = /^ref:\s*refs\/heads\/(.+)$/m.exec(head)
      return ref ? ref[1].trim() : undefined
    } catch {
      const up = path.dirname(d)
      if (up === d) return undefined
      d = up
    }
  }
  return undefined
}
