// The headless pause notice reaches whoever started the run: the client's stderr when it can be opened, and
// when it is a socket (a client started by a Node script with piped stdio), the nearest ancestor's stderr.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { tellClientStderr } from '../../lib/io/terminal'

/** A process tree: a shell whose stderr is `log`, running node, which holds `sleep` with piped (socket) stdio. */
function tree(log: string, childStdio: 'pipe' | 'file'): Promise<{ leaf: number; stop: () => void }> {
  const inner = `const c=require('child_process').spawn('sleep',['20'],{stdio:['ignore','pipe',${childStdio === 'pipe' ? "'pipe'" : "require('fs').openSync(process.argv[1],'a')"}]});console.log(c.pid);setTimeout(()=>c.kill(),20000)`
  const p = spawn('sh', ['-c', `exec node -e "$0" "$1" 2>>"$1"`, inner, log], { stdio: ['ignore', 'pipe', 'ignore'] })
  return new Promise((resolve) => {
    p.stdout.once('data', (d) =>
      resolve({
        leaf: Number(String(d).trim()),
        stop: () => {
          try {
            process.kill(Number(String(d).trim()))
          } catch {
            /* gone */
          }
          p.kill()
        },
      }),
    )
  })
}

describe('tellClientStderr', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-terminal-'))

  it("writes to the client's own stderr when it is a file", async () => {
    const own = path.join(dir, 'own-child.log')
    fs.writeFileSync(own, '')
    const t = await tree(own, 'file')
    try {
      expect(tellClientStderr('[ratchet] paused pa-1', t.leaf)).toBe(true)
      expect(fs.readFileSync(own, 'utf8')).toContain('[ratchet] paused pa-1\n')
    } finally {
      t.stop()
    }
  })

  it('follows a socket stderr up to the script that started the client, and says so when nothing can be reached', async () => {
    const log = path.join(dir, 'script.log')
    const t = await tree(log, 'pipe')
    try {
      expect(tellClientStderr('[ratchet] paused pa-2', t.leaf)).toBe(true)
      expect(fs.readFileSync(log, 'utf8')).toContain('[ratchet] paused pa-2\n')
    } finally {
      t.stop()
    }
    // A pid that does not exist: nothing written, no throw.
    expect(tellClientStderr('x', 2 ** 22 + 12345)).toBe(false)
  })
})
