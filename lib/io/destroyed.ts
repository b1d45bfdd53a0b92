// What a destructive call would destroy, read now, so a human's approval binds to it (lib/core/pending.ts
// approvalCovers): the tip of each remote ref a push deletes (`git ls-remote`), and the content of each file or
// folder a deletion loses. Asked only when a call pauses for a human, never on the hot path.
//
// Bounded: ls-remote within a few seconds (a remote that does not answer is "unknown", and stays the same unknown),
// files opened only when regular and small (a FIFO is never opened), folders walked to a fixed number of entries.

import fs from 'node:fs'
import path from 'node:path'
import type { Deletion, Finding } from '../core/actions/types'
import type { DestroyedState } from '../core/pending'

/** Loaded on first use: most calls destroy nothing, and node:crypto costs every hook start (hooks.test.ts). */
const createHash = (alg: string) => (require('node:crypto') as typeof import('node:crypto')).createHash(alg)

// Inside preflight-check's 3 s budget, with room for the rest of the call.
const LS_REMOTE_MS = 1500
const MAX_HASHED_BYTES = 16 << 20
const MAX_WALK = 2000
/** The lines below that say something could not be read (remoteTips, fileState). */
const UNREAD = / unknown \(|\(sha1 unreadable\)/

export function destroyedState(
  findings: readonly Finding[],
  deleted: readonly Deletion[],
  env: NodeJS.ProcessEnv = process.env,
): DestroyedState | undefined {
  const seen: string[] = []
  for (const f of findings) {
    const r = f.lost?.remoteRefs
    if (r) seen.push(...remoteTips(r.dir, r.remote, r.refs, env))
  }
  for (const d of deleted) seen.push(fileState(d.path))
  if (!seen.length) return undefined
  const digest = createHash('sha256').update(seen.join('\n')).digest('hex').slice(0, 32)
  return { digest, seen, ...(seen.some((l) => UNREAD.test(l)) ? { unreadable: true } : {}) }
}

/** `ref feature on origin at 1a2b3c4d`, `… is not there`, or `… unknown (why)`, one line per ref. */
function remoteTips(dir: string, remote: string, refs: string[], env: NodeJS.ProcessEnv): string[] {
  const { spawnSync } = require('node:child_process') as typeof import('node:child_process')
  const full = refs.map((r) => (r.startsWith('refs/') ? r : `refs/heads/${r}`))
  const tags = refs.filter((r) => !r.startsWith('refs/')).map((r) => `refs/tags/${r}`)
  const out = spawnSync('git', ['ls-remote', '--', remote, ...full, ...tags], {
    cwd: dir,
    timeout: LS_REMOTE_MS,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' },
  })
  if (out.status !== 0)
    return refs.map(
      (r) => `ref ${r} on ${remote}: unknown (git ls-remote ${out.error ? 'did not answer in time' : 'failed'})`,
    )
  const tips = new Map<string, string>()
  for (const line of out.stdout.split('\n')) {
    const [sha, ref] = line.split('\t')
    if (sha && ref) tips.set(ref, sha)
  }
  return refs.map((r, i) => {
    const sha = tips.get(full[i]) ?? (r.startsWith('refs/') ? undefined : tips.get(`refs/tags/${r}`))
    return sha ? `ref ${r} on ${remote} at ${sha.slice(0, 12)}` : `ref ${r} on ${remote} is not there`
  })
}

/** `file x (sha1 …)`, `folder x (N entries, digest …)`, `x is missing`. */
function fileState(abs: string): string {
  let st: fs.Stats
  try {
    st = fs.lstatSync(abs)
  } catch {
    return `${abs} is missing`
  }
  if (st.isSymbolicLink()) return `link ${abs} -> ${safe(() => fs.readlinkSync(abs), 'unreadable')}`
  if (st.isFile())
    return st.size <= MAX_HASHED_BYTES
      ? `file ${abs} (sha1 ${safe(() => createHash('sha1').update(fs.readFileSync(abs)).digest('hex').slice(0, 12), 'unreadable')})`
      : `file ${abs} (${st.size} bytes, changed ${st.mtimeMs})`
  if (!st.isDirectory()) return `${abs} (not a regular file)`
  // A folder: every entry's name, size and time of change, bounded (a change anywhere under it changes the digest).
  const h = createHash('sha1')
  let n = 0
  const walk = (d: string): void => {
    for (const name of safe(() => fs.readdirSync(d).sort(), [] as string[])) {
      // Ratchet's own state changes with every call (the pause itself is written there): not what is approved.
      if (name === '.ratchet') continue
      if (++n > MAX_WALK) return
      const p = path.join(d, name)
      const s = safe<fs.Stats | undefined>(() => fs.lstatSync(p), undefined)
      h.update(`${path.relative(abs, p)}\0${s?.size ?? '?'}\0${s?.mtimeMs ?? '?'}\n`)
      if (s?.isDirectory()) walk(p)
    }
  }
  walk(abs)
  return `folder ${abs} (${n > MAX_WALK ? `over ${MAX_WALK}` : n} entries, digest ${h.digest('hex').slice(0, 12)})`
}

function safe<T>(f: () => T, fallback: T): T {
  try {
    return f()
  } catch {
    return fallback
  }
}
