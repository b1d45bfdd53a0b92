// Checkpoints as C2SP signed notes (c2sp.org/signed-note, c2sp.org/tlog-checkpoint), pure: the
// signature itself comes in as a function, so the server signs with its key and the client verifies
// with the key it pinned.
//
//   <origin>\n<tree size>\n<base64 root hash>\n      the checkpoint (the note's text)
//   \n
//   — <key name> <base64(4-byte key hash || Ed25519 signature)>\n
//
// The key hash is the first 4 bytes of SHA-256(name || "\n" || 0x01 || public key); a verifier key is
// written <name>+<key hash, hex>+<base64(0x01 || public key)>.

import type { Hasher } from './merkle'

const ED25519 = 0x01
const DASH = '\u2014 '

export interface Checkpoint {
  origin: string
  size: number
  /** Base64 of the 32-byte root hash. */
  root: string
}

export interface NoteKey {
  name: string
  /** Raw 32-byte Ed25519 public key. */
  publicKey: Buffer
}

const nameOk = (name: string) => name.length > 0 && !/[\s+]/.test(name)

export function keyHash(h: Hasher, key: NoteKey): Buffer {
  return h
    .sha256(Buffer.concat([Buffer.from(key.name + '\n', 'utf8'), Buffer.from([ED25519]), key.publicKey]))
    .subarray(0, 4)
}

export function verifierKey(h: Hasher, key: NoteKey): string {
  if (!nameOk(key.name)) throw new Error(`note key name "${key.name}" must be non-empty, without spaces or +`)
  return `${key.name}+${keyHash(h, key).toString('hex')}+${Buffer.concat([Buffer.from([ED25519]), key.publicKey]).toString('base64')}`
}

export function parseVerifierKey(h: Hasher, s: string): NoteKey | { problem: string } {
  const m = /^([^+\s]+)\+([^+\s]+)\+(\S+)$/.exec(s.trim())
  if (!m) return { problem: 'a verifier key is <name>+<hash>+<key>' }
  const [, name, hash, b64] = m
  const raw = Buffer.from(b64, 'base64')
  if (!nameOk(name) || !/^[0-9a-f]{8}$/.test(hash) || raw.length !== 33 || raw[0] !== ED25519)
    return { problem: 'not an Ed25519 verifier key' }
  const key = { name, publicKey: raw.subarray(1) }
  return keyHash(h, key).toString('hex') === hash ? key : { problem: 'the key hash does not match the key' }
}

export function checkpointText(c: Checkpoint): string {
  return `${c.origin}\n${c.size}\n${c.root}\n`
}

export function parseCheckpoint(text: string): Checkpoint | { problem: string } {
  const lines = text.split('\n')
  if (lines.length < 4 || lines[lines.length - 1] !== '')
    return { problem: 'a checkpoint is three lines: origin, size, root' }
  const [origin, size, root] = lines
  if (!origin) return { problem: 'the checkpoint has no origin' }
  if (!/^(0|[1-9][0-9]{0,15})$/.test(size) || !Number.isSafeInteger(Number(size)))
    return { problem: `the checkpoint size "${size.slice(0, 20)}" is not a number` }
  if (Buffer.from(root, 'base64').length !== 32 || Buffer.from(root, 'base64').toString('base64') !== root)
    return { problem: 'the checkpoint root is not a base64 SHA-256 hash' }
  return { origin, size: Number(size), root }
}

/** Signs `text` (which must end in a newline) with one key; `sign` returns the raw 64-byte signature. */
export function signNote(h: Hasher, text: string, key: NoteKey, sign: (msg: Buffer) => Buffer): string {
  if (!text.endsWith('\n')) throw new Error('a note text ends with a newline')
  const sig = Buffer.concat([keyHash(h, key), sign(Buffer.from(text, 'utf8'))])
  return `${text}\n${DASH}${key.name} ${sig.toString('base64')}\n`
}

/** A signed note checked against one verifier key: its text, when a signature by that key holds. */
export function openNote(
  h: Hasher,
  note: string,
  key: NoteKey,
  verify: (msg: Buffer, sig: Buffer) => boolean,
): { text: string } | { problem: string } {
  if (note.length > 1_000_000) return { problem: 'the note is too long' }
  const split = note.lastIndexOf('\n\n')
  if (split < 0 || !note.endsWith('\n')) return { problem: 'not a signed note (no blank line before the signatures)' }
  const text = note.slice(0, split + 1)
  const sigLines = note.slice(split + 2, -1).split('\n')
  const want = keyHash(h, key)
  let seen = false
  for (const line of sigLines) {
    if (!line.startsWith(DASH)) return { problem: 'a signature line does not start with an em dash' }
    const [name, b64, ...rest] = line.slice(DASH.length).split(' ')
    if (rest.length || !name || !b64) return { problem: 'a signature line is "— <name> <signature>"' }
    if (name !== key.name) continue
    const raw = Buffer.from(b64, 'base64')
    if (raw.length !== 68 || !raw.subarray(0, 4).equals(want)) continue
    seen = true
    if (verify(Buffer.from(text, 'utf8'), raw.subarray(4))) return { text }
  }
  return { problem: seen ? `the signature by ${key.name} does not verify` : `no signature by ${key.name}` }
}
