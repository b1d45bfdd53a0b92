// Why one file must not leave: its name, then its contents, scanned in pieces as they are read (plain, decoded
// from base64 or hex, and as the string literals of code joined).

import type { Recognizer } from '../known-secrets'
import { type Hazard, privateByName } from './private-names'
import { secretsIn } from './secrets-in-text'
import { BODY } from './targets'

/**
 * What leaves, scanned in pieces as it is read (a 150 MB blob is never held whole): each piece is scanned with
 * the end of the one before, so a secret cut by a boundary is still found. Binary content (a NUL in its first
 * 8 KB) is scanned as `strings` would show it, for the well-known shapes and known secrets only.
 */
export class ContentScan {
  private carry = ''
  private readonly found = new Set<string>()
  private known = 0
  private started = false
  private binary = false

  constructor(
    private readonly rel: string,
    private readonly recognize?: Recognizer,
  ) {}

  /** One piece of the content, decoded (utf8, or latin1 for binary content). */
  feed(piece: string): void {
    if (!this.started) {
      this.started = true
      this.binary = piece.slice(0, 8000).includes('\u0000')
    }
    // Binary: its printable runs, also with NULs taken out (text stored as UTF-16 is one letter, one NUL).
    const text = this.binary ? `${printable(piece)}\n${printable(piece.replaceAll('\u0000', ''))}` : piece
    const chunk = this.carry + text
    for (const label of secretsIn(chunk, this.rel, this.binary)) this.found.add(label)
    if (this.recognize) this.known = Math.max(this.known, this.recognize.count(chunk))
    // What base64 or hex in it says, once decoded: a secret encoded twice (`base64 .env | base64`), or an encoded
    // file holding a key of a well-known shape.
    const decoded = decodedRuns(chunk)
    if (decoded) {
      for (const label of secretsIn(decoded, BODY, true)) this.found.add(label)
      if (this.recognize) this.known = Math.max(this.known, this.recognize.count(decoded))
    }
    // The string literals of code, joined in order: a key cut into pieces held by separate variables
    // (`a = "q8Vh3kPz1Lw9R"; b = "t2Xn5Bc7Md4Fg"`) is whole again, whatever names and lines lie between.
    if (this.recognize && !this.binary) {
      const lits = literals(chunk)
      if (lits) this.known = Math.max(this.known, this.recognize.count(lits))
    }
    this.carry = chunk.slice(-CARRY)
  }

  result(): { secrets: string[]; known: number } {
    return { secrets: [...this.found], known: this.known }
  }
}

/** The contents of the quoted string literals in a text, in order, joined. */
function literals(text: string): string {
  const out: string[] = []
  for (const m of text.matchAll(/"((?:[^"\\\n]|\\.){1,300})"|'((?:[^'\\\n]|\\.){1,300})'|`([^`\\]{1,300})`/g))
    out.push(m[1] ?? m[2] ?? m[3])
  return out.length > 1 ? out.join('') : ''
}

/** What `strings` shows of binary text: runs of 8 or more printable characters. */
function printable(s: string): string {
  return (s.match(/[\x20-\x7e\t]{8,}/g) ?? []).join('\n')
}

/** The printable text inside base64 and hex runs of a text (32 characters or more), decoded once. */
export function decodedRuns(text: string): string {
  const out: string[] = []
  let budget = 4 << 20
  for (const m of text.matchAll(/(?:[0-9a-fA-F]{2}){16,}|[A-Za-z0-9+/]{32,}={0,2}|[A-Za-z0-9_-]{32,}/g)) {
    const run = m[0]
    if ((budget -= run.length) < 0) break
    let bytes: string
    if (/^[0-9a-fA-F]+$/.test(run) && run.length % 2 === 0) {
      bytes = ''
      for (let i = 0; i < run.length; i += 2) bytes += String.fromCharCode(parseInt(run.slice(i, i + 2), 16))
    } else {
      const b64 = run.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
      try {
        bytes = atob(b64.slice(0, b64.length - (b64.length % 4 === 1 ? 1 : 0)) + '='.repeat((4 - (b64.length % 4)) % 4))
      } catch {
        continue
      }
    }
    const p = printable(bytes)
    if (p) out.push(p)
  }
  return out.join('\n')
}

/** The end of one piece kept for the next: longer than any secret shape or known value the scan looks for. */
const CARRY = 4096

/** Everything that makes one file unfit to leave: its name, then its contents (if read). */
export function scanFile(rel: string, text: string | undefined, found?: string[]): Hazard[] {
  const out: Hazard[] = []
  const byName = privateByName(rel)
  if (byName) out.push(byName)
  if ((found !== undefined || text !== undefined) && !byName?.kind.startsWith('ratchet')) {
    const s = found ?? secretsIn(text!, rel)
    if (s.length)
      out.push({
        kind: 'secret',
        why: `contains ${s.slice(0, 4).join(', ')}${s.length > 4 ? ` (+${s.length - 4} more)` : ''}`,
      })
  }
  return out
}
