// The V8 code cache beside each bundle (lib/runtime/loader.ts): V8 accepts it only from a process with the
// same V8 options. A user whose shell exports NODE_OPTIONS=--max-old-space-size=… used to make every hook
// call reject the build's cache, compile from scratch and overwrite it, and every call without the option
// did the same back. Each configuration of options now has a cache of its own; the build's is left alone.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, exec, preToolUse, tempProject } from '../support/fixtures'

/** bin/ and dist/ copied aside: this test writes caches, and other suites run the repository's build meanwhile. */
function installCopy(): string {
  const dir = tempProject('ratchet-cache-')
  for (const d of ['bin', 'dist']) fs.cpSync(path.join(ROOT, d), path.join(dir, d), { recursive: true })
  return dir
}

const caches = (dist: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dist)
      .filter((f) => f.startsWith('preflight-check.') && f.endsWith('.v8cache') && !f.includes('.fast.'))
      .map((f) => [f, fs.readFileSync(path.join(dist, f)).toString('base64')]),
  )

describe('the code cache under other V8 options', () => {
  it('a NODE_OPTIONS V8 flag gets a cache of its own, written once; the build cache is never rewritten, and the decision is the same', async () => {
    const install = installCopy()
    const dist = path.join(install, 'dist')
    const project = tempProject()
    const probe = path.join(project, 'loads-code.cjs')
    fs.writeFileSync(probe, '// only loads code\n')
    const built = caches(dist)
    expect(Object.keys(built)).toEqual(['preflight-check.v8cache'])
    const call = async (nodeOptions: string) => {
      const env = {
        ...process.env,
        HOME: project,
        CLAUDE_PROJECT_DIR: project,
        RATCHET_DIR: '',
        NODE_OPTIONS: nodeOptions,
      }
      // A call the full engine decides (a deletion of a folder that exists): it loads the big bundle.
      fs.mkdirSync(path.join(project, 'build'), { recursive: true })
      fs.writeFileSync(path.join(project, 'build', 'a.js'), 'x\n')
      const r = await exec(path.join(install, 'bin', 'preflight-check'), [], {
        cwd: project,
        env,
        input: JSON.stringify({
          ...preToolUse(project, 'Bash', { command: 'rm -rf build' }),
          session_id: `s-${Math.random()}`,
        }),
      })
      expect(r.status, r.stderr).toBe(0)
      return JSON.parse(r.stdout).hookSpecificOutput.permissionDecision as string
    }

    const first = await call('--max-old-space-size=4096')
    const afterFirst = caches(dist)
    expect(afterFirst['preflight-check.v8cache']).toBe(built['preflight-check.v8cache'])
    const keyed = Object.keys(afterFirst).filter((f) => f !== 'preflight-check.v8cache')
    expect(keyed).toHaveLength(1)

    // The same options again, then none, then options that only load code: nothing is rewritten or added.
    expect(await call('--max-old-space-size=4096')).toBe(first)
    expect(await call('')).toBe(first)
    expect(await call(`--require ${probe}`)).toBe(first)
    expect(caches(dist)).toEqual(afterFirst)
    expect(first).toBe('deny')
  }, 60_000)
})
