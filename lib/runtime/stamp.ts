// Whether a resident process (the warm process, the decision service) still runs the install it was started from.

import fs from 'node:fs'

/** The identity of the files a process runs from: any change to one (an upgrade, a rebuild) changes it. */
export function filesStamp(files: readonly string[]): string {
  return files
    .map((f) => {
      try {
        const s = fs.statSync(f)
        return `${s.ino}:${s.size}:${s.mtimeMs}`
      } catch {
        return 'gone'
      }
    })
    .join('|')
}
