// Known secrets at the edge: the keyed hash, the session's stored digests, and a recognizer for what leaves
// (lib/core/known-secrets.ts explains the matching). Secret values are never written anywhere: a secret file
// the session reads is read here too, its values cut into fragments, and only keyed hashes of those are kept
// (known/<session>.json). The key lives in the per-user config folder, which the agent may not read
// (ratchet-keys.ts), so a digest gives nothing away even for a weak value; if that folder cannot be written,
// a key in the state folder stands in.
//
// What is recognised, when a call would send something: the values this session read (stored digests), and,
// computed afresh and kept only in memory, the values in the project's secret files as they are now and the
// credentials in the environment Claude Code gave the agent.
//
// node:crypto is required on first use only: most calls never get here.

import fs from 'node:fs'
import path from 'node:path'
import { secretName } from '../core/actions/secrets'
import type { ClassifyContext } from '../core/actions/types'
import { secretValuesIn } from '../core/evidence/secrets-in-text'
import { entriesOf, recognizer, type FragmentKeys, type Recognizer } from '../core/known-secrets'
import { fileOf, type Paths } from './registry'
import { secretFileFacts } from './secret-files'
import { gitBefore } from './git'
import { openRegular } from './store-core'
import { privateFileOnce, readStateOr, updateState } from './store'

/** A secret file is read for its values up to this size (a key file is small; a 1 MB "secret" is data). */
const MAX_FILE = 1 << 20
/** Digests kept per session at most (a few thousand values' worth), the newest kept. */
const MAX_DIGESTS = 50_000

type Where = Pick<Paths, 'stateDir' | 'configHome'>

let cached: { file: string; keys: FragmentKeys } | undefined

/**
 * The keyed fragment functions: 64 bits of SHA-256 over the key and the fragment, and a 20-bit mix of a fragment's
 * rolling hash under 96 bits derived from the key (a fast first test; lib/core/known-secrets.ts).
 */
export function fragmentKeys(paths: Where): FragmentKeys {
  const file = fileOf(paths, 'fragmentKey')
  if (cached?.file === file) return cached.keys
  const crypto = require('node:crypto') as typeof import('node:crypto')
  let key: string
  try {
    key = privateFileOnce(file, () => crypto.randomBytes(32).toString('hex') + '\n').trim()
  } catch {
    // No writable config folder (a read-only home): a key beside the state stands in.
    key = privateFileOnce(fileOf(paths, 'fragmentKeyLocal'), () => crypto.randomBytes(32).toString('hex') + '\n').trim()
  }
  const one = (crypto as { hash?: (alg: string, data: string, enc: 'base64') => string }).hash
  const hash = one
    ? (g: string) => one('sha256', key + g, 'base64').slice(0, 11)
    : (g: string) =>
        crypto
          .createHash('sha256')
          .update(key + g)
          .digest('base64')
          .slice(0, 11)
  const k = crypto.createHash('sha256').update(`${key}:quick`).digest()
  const [k1, k2, k3] = [k.readInt32LE(0), k.readInt32LE(4) | 1, k.readInt32LE(8) | 1]
  const quick = (h: number) => {
    let x = (h ^ k1) | 0
    x = Math.imul(x ^ (x >>> 16), k2)
    x = Math.imul(x ^ (x >>> 13), k3)
    return (x ^ (x >>> 16)) >>> 12
  }
  const keys = { quick, hash }
  cached = { file, keys }
  return keys
}

/** The text of a regular file of at most MAX_FILE bytes, or undefined (missing, special, too big, unreadable). */
function smallFile(abs: string): string | undefined {
  let fd: number | undefined
  try {
    fd = openRegular(abs)
    const st = fs.fstatSync(fd)
    if (st.size > MAX_FILE) return undefined
    return fs.readFileSync(fd, 'utf8')
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** A secret's name as the classifier records it (`.env`, `~/.aws/credentials`, `/abs/x.pem`) as a path, if it is one. */
function pathOfName(name: string, projectDir: string, home: string): string | undefined {
  if (name.startsWith('~/')) return path.join(home, name.slice(2))
  if (name.startsWith('/')) return name
  if (name.startsWith('the ') || /^[A-Z0-9]/.test(name)) return undefined // `the environment`, `1Password`, `Vault`
  return path.join(projectDir, name)
}

/**
 * A call that reads secrets runs: the values in the files it reads are remembered for this session, as keyed
 * hashes of their fragments. `names` are the classification's secret names. Best effort: a file that cannot be
 * read now adds nothing (what leaves is still scanned for shapes, and the project's secret files afresh).
 */
export function rememberSecrets(
  paths: Paths & { homeDir: string },
  session: string,
  names: string[],
  now: number,
): void {
  const found: { source: string; values: string[] }[] = []
  for (const name of names) {
    const abs = pathOfName(name, paths.projectDir, paths.homeDir)
    const text = abs && smallFile(abs)
    if (text) found.push({ source: name, values: secretValuesIn(text) })
  }
  const values = found.flatMap((f) => f.values)
  if (!values.length) return
  const keys = fragmentKeys(paths)
  const digests = new Set<string>()
  for (const v of values) for (const e of entriesOf(v, keys)) digests.add(e)
  updateState(
    paths,
    'knownSecrets',
    (k) => {
      const merged = [...new Set([...k.digests, ...digests])].slice(-MAX_DIGESTS)
      const sources = { ...k.sources }
      for (const f of found) sources[f.source] = now
      return { next: { v: 1 as const, sources, values: k.values + values.length, digests: merged }, result: undefined }
    },
    { id: session },
  )
}

/**
 * The project's remotes as they are when the user asks for something (UserPromptSubmit): where each fetches from,
 * as git resolves it (`git remote -v`, after insteadOf). A push during the turn that goes elsewhere — origin's URL
 * changed by the agent, an insteadOf added, a remote it added — is then evidence. Best effort, within a second.
 */
export function rememberRemotes(paths: Paths, session: string): void {
  const out = gitBefore(['-C', paths.projectDir, 'remote', '-v'], paths.projectDir, Date.now() + 1000)
  if (out === undefined) return
  const remotes: Record<string, string> = {}
  for (const line of out.split('\n')) {
    const m = /^(\S+)\t(.+) \(fetch\)$/.exec(line)
    if (m) remotes[m[1]] = m[2]
  }
  const stored = readStateOr(paths, 'knownSecrets', session)
  if (JSON.stringify(stored.remotes ?? {}) === JSON.stringify(remotes)) return
  updateState(paths, 'knownSecrets', (k) => ({ next: { ...k, remotes }, result: undefined }), { id: session })
}

/** What the session knows when a call would push: the remotes at the user's last request. */
export function sessionRemotes(paths: Paths, session: string): Record<string, string> | undefined {
  return readStateOr(paths, 'knownSecrets', session).remotes
}

/**
 * Recognizes, in whatever would leave, the secrets this session has seen: its stored digests, the values in the
 * project's secret files now, and the credentials in `env`. Undefined when there are none.
 */
export function knownSecrets(
  paths: Paths & { homeDir: string },
  session: string,
  env: NodeJS.ProcessEnv = process.env,
): Recognizer | undefined {
  const stored = readStateOr(paths, 'knownSecrets', session)
  const values: string[] = []
  const ctx = { projectDir: paths.projectDir, homeDir: paths.homeDir } as ClassifyContext
  for (const abs of secretFileFacts(ctx).secretFilesUnder!(paths.projectDir).slice(0, 50)) {
    if (!secretName(ctx, abs)) continue
    const text = smallFile(abs)
    if (text) values.push(...secretValuesIn(text))
  }
  // The environment as `NAME=value` lines: credential-named values that look real, and well-known shapes.
  const lines = Object.entries(env)
    .filter(([k, v]) => v && v.length < 4096 && !/^(RATCHET_DIR|CLAUDE_PROJECT_DIR|PATH|HOME|PWD|OLDPWD)$/.test(k))
    .map(([k, v]) => `${k}=${v}`)
  values.push(...secretValuesIn(lines.join('\n')))
  if (!values.length && !stored.digests.length) return undefined
  const keys = fragmentKeys(paths)
  const digests = new Set(stored.digests)
  for (const v of new Set(values)) for (const e of entriesOf(v, keys)) digests.add(e)
  return recognizer(digests, keys, stored.values + values.length)
}
