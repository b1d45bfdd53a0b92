// The real-session suites clean up through removeScratch; a writer left running in the project (custodiet's
// background hook, a detached reviewer) once failed CI in that clean-up. It must stop such a writer, not race it.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { removeScratch, tempProject } from '../support/fixtures'

describe('removeScratch', () => {
  it('stops a detached process still writing in the folder, then removes the folder', async () => {
    const dir = tempProject('ratchet-scratch-')
    fs.mkdirSync(path.join(dir, 'state'))
    const writer = spawn('sh', ['-c', 'i=0; while :; do i=$((i+1)); : > state/f$i; sleep 0.01; done'], {
      cwd: dir,
      detached: true,
      stdio: 'ignore',
    })
    const exited = new Promise((resolve) => writer.on('exit', resolve))
    await new Promise((r) => setTimeout(r, 100))
    expect(fs.readdirSync(path.join(dir, 'state')).length).toBeGreaterThan(0)
    removeScratch(dir)
    expect(fs.existsSync(dir)).toBe(false)
    expect(await exited).toBeNull() // ended by a signal, not on its own
  })

  it('leaves a process working elsewhere alone', async () => {
    const dir = tempProject('ratchet-scratch-')
    const other = tempProject('ratchet-scratch-other-')
    const bystander = spawn('sleep', ['30'], { cwd: other, stdio: 'ignore' })
    try {
      removeScratch(dir)
      expect(fs.existsSync(dir)).toBe(false)
      expect(bystander.exitCode).toBeNull()
      expect(bystander.signalCode).toBeNull()
    } finally {
      bystander.kill()
      fs.rmSync(other, { recursive: true, force: true })
    }
  })
})
