// Known secrets: the values of secrets this session has seen (a `.env` it read, a credential in the
// environment), recognised when they reappear in what leaves, even encoded or cut into pieces. Pure: the
// keyed hash comes from lib/io/known-secrets.ts, which also keeps the digests (never a value in clear).
//
// How a value is recognised:
//   1. Text is normalised to its letters and digits, lower-cased: `"AKIA" + "Q3EG…"`, `AKIA\nQ3EG…`, `['AKIA',
//      'Q3EG']` and `akia-q3eg` all become `akiaq3eg…`. Splitting a value into string literals, lines or
//      array items and joining them at run time changes nothing here.
//   2. Each value is also taken in the encodings an agent reaches for: reversed, ROT13, hex, base64 and base32
//      (at every byte offset, so it is found inside the encoding of a whole file), URL-encoded. base64url folds
//      into base64 by step 1, upper-case hex into hex. What leaves is also decoded once (lib/core/evidence/
//      content-scan.ts ContentScan), so a value encoded twice is found, and code's string literals are joined in order.
//   3. From each normalised form, fragments of FRAGMENT characters are chosen by winnowing (Schleimer et al.,
//      2003: the smallest of every WINDOW consecutive fragment hashes), on both sides with the same rule, so
//      any run of at least FRAGMENT + WINDOW - 1 = 15 characters shared with a value is always found, shorter
//      ones down to 12 often. Only the chosen fragments are hashed, and only those that look like a piece of
//      a key (six or more distinct characters, letters and digits both): words and identifiers (`sessionsecre`
//      from a weak `my-session-secret-2024` in `const sessionSecret = …`) are never fragments, on either side,
//      so ordinary code cannot raise a false alarm, and most of it is never hashed at all.
//   4. A fragment is stored as a keyed hash (the key lives outside every project); at 12 characters of a
//      random key a fragment holds ~60 bits, so a digest gives nothing away without the key either.
// Values worth tracking are those the evidence scanner already calls secrets (lib/core/evidence/secrets-in-text.ts
// secretValuesIn): well-known credential shapes and credential-named assignments with real-looking values; values
// meant to be public (`NEXT_PUBLIC_…`, `VITE_…`, a publishable key) are not.

export const FRAGMENT = 12
export const WINDOW = 8

/** Letters and digits only, lower-cased. */
export function normalize(text: string): string {
  return text.replace(/[^A-Za-z0-9]+/g, '').toLowerCase()
}

/**
 * The forms a value is looked for in, normalised (duplicates and too-short forms dropped). `plain`: the value
 * as typed (also reversed or URL-encoded), whose fragments must look like a piece of a key; the encodings'
 * fragments only need to be varied (base64 of text is mostly letters).
 */
export function variantsOf(value: string): { text: string; plain: boolean }[] {
  const bytes = utf8(value)
  const out = new Map<string, boolean>()
  const add = (s: string, plain: boolean) => {
    const n = normalize(s)
    if (n.length >= FRAGMENT && !out.has(n)) out.set(n, plain)
  }
  add(value, true)
  add([...value].reverse().join(''), true)
  add(encodeURIComponent(value), true)
  add(
    value.replace(/[A-Za-z]/g, (c) =>
      String.fromCharCode((((c.charCodeAt(0) & 31) + 12) % 26) + (c.charCodeAt(0) & 96) + 1),
    ),
    true,
  )
  add(hex(bytes), false)
  for (let o = 0; o < 3; o++) add(inner(base64, bytes, o, 6), false)
  for (let o = 0; o < 5; o++) add(inner(base32, bytes, o, 5), false)
  return [...out].map(([text, plain]) => ({ text, plain }))
}

/**
 * The characters of an encoding of `bytes` placed `offset` bytes into a longer stream that depend on `bytes`
 * alone (the first and last characters also carry bits of their neighbours, which are unknown).
 */
function inner(encode: (b: number[]) => string, bytes: number[], offset: number, bits: number): string {
  const padded = [...new Array(offset).fill(0), ...bytes, 0, 0, 0, 0, 0]
  const text = encode(padded)
  const first = Math.ceil((offset * 8) / bits)
  const end = Math.floor(((offset + bytes.length) * 8) / bits)
  return text.slice(first, end)
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

function base64(b: number[]): string {
  return bitsOut(b, 6, B64)
}
function base32(b: number[]): string {
  return bitsOut(b, 5, B32)
}
function bitsOut(b: number[], bits: number, alphabet: string): string {
  let out = ''
  let acc = 0
  let n = 0
  for (const x of b) {
    acc = (acc << 8) | x
    n += 8
    while (n >= bits) {
      n -= bits
      out += alphabet[(acc >> n) & ((1 << bits) - 1)]
    }
    acc &= (1 << n) - 1
  }
  return out
}
function hex(b: number[]): string {
  return b.map((x) => x.toString(16).padStart(2, '0')).join('')
}
function utf8(s: string): number[] {
  return [...new TextEncoder().encode(s)]
}

/** What a run of characters holds: how many distinct symbols, and whether letters and digits both. */
function symbols(g: string): { distinct: number; mixed: boolean } {
  // The 36 symbols as bits of two numbers (0-9 → 0-9, a-z → 10-35).
  let lo = 0
  let hi = 0
  let digit = false
  let letter = false
  for (let i = 0; i < g.length; i++) {
    const c = g.charCodeAt(i)
    const bit = c < 58 ? ((digit = true), c - 48) : ((letter = true), c - 87)
    if (bit < 30) lo |= 1 << bit
    else hi |= 1 << (bit - 30)
  }
  let n = 0
  for (let x = lo; x; x &= x - 1) n++
  for (let x = hi; x; x &= x - 1) n++
  return { distinct: n, mixed: digit && letter }
}

/** Worth a hash at all: six distinct symbols or more (not `aaaaaaaaaaaa`, `000000000000`, `abababababab`). */
const varied = (g: string) => symbols(g).distinct >= 6
/** A piece of a key, not of a word or identifier: varied, with letters and digits both. */
const keyLike = (g: string) => {
  const s = symbols(g)
  return s.distinct >= 6 && s.mixed
}

const BASE = 0x01000193
const POW = (() => {
  let p = 1
  for (let i = 0; i < FRAGMENT - 1; i++) p = Math.imul(p, BASE)
  return p
})()

/**
 * Winnowing: calls `visit` with the start of each chosen fragment of a normalised text and its rolling hash (each
 * position once), until `visit` returns false. In every window of WINDOW fragments the smallest hash is chosen (on
 * a tie, the one already chosen, else the rightmost: "robust winnowing", so a run of one character chooses a
 * fragment every WINDOW positions, not every one). The choice depends only on the text around it, the same way
 * for a stored value and for what leaves.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a visitor that returns nothing goes on; one that returns false stops it
export function eachChosen(s: string, visit: (start: number, h: number) => boolean | void): void {
  const m = s.length - FRAGMENT + 1
  if (m <= 0) return
  // A text shorter than a window: its one window is the whole of it.
  const w = Math.min(WINDOW, m)
  const raw = new Int32Array(w)
  const mixed = new Int32Array(w)
  let h = 0
  for (let i = 0; i < FRAGMENT; i++) h = (Math.imul(h, BASE) + s.charCodeAt(i)) | 0
  let last = -1
  for (let i = 0; i < m; i++) {
    if (i > 0) h = (Math.imul(h - Math.imul(s.charCodeAt(i - 1), POW), BASE) + s.charCodeAt(i + FRAGMENT - 1)) | 0
    const slot = i % w
    raw[slot] = h
    mixed[slot] = (h ^ (h >>> 15)) | 0
    if (i < w - 1) continue
    let best = i
    let bestH = mixed[slot]
    for (let j = i - 1; j > i - w; j--) {
      const v = mixed[j % w]
      if (v < bestH) (best = j), (bestH = v)
    }
    if (last > i - w && mixed[last % w] === bestH) continue
    if (best === last) continue
    last = best
    if (visit(best, raw[best % w]) === false) return
  }
}

/**
 * The keyed functions fragments are kept by (lib/io/known-secrets.ts): `quick`, a keyed 20-bit function of a
 * fragment's rolling hash, tells in nanoseconds that a fragment of what leaves is surely not known; `hash`, 64
 * bits of a keyed SHA-256, decides for the few that pass.
 */
export interface FragmentKeys {
  quick(h: number): number
  hash(fragment: string): string
}

/** How a fragment is stored: its quick value and its hash, never the fragment. */
const entry = (keys: FragmentKeys, h: number, g: string) => `${keys.quick(h).toString(36)}.${keys.hash(g)}`

/** The stored entries a value is recognised by, across its forms. */
export function entriesOf(value: string, keys: FragmentKeys): string[] {
  const out = new Set<string>()
  for (const v of variantsOf(value)) {
    const accept = v.plain ? keyLike : varied
    eachChosen(v.text, (start, h) => {
      const g = v.text.slice(start, start + FRAGMENT)
      if (accept(g)) out.add(entry(keys, h, g))
    })
  }
  return [...out]
}

/** Recognises known secrets in text: how many of their fragments it holds (0: none). */
export interface Recognizer {
  /** Distinct known fragments found in this text. */
  count(text: string): number
  /** How many values it knows (for the note: "none of the N secrets this session read"). */
  values: number
}

/** A recognizer over stored entries. `keys` must be the functions the entries were made with. */
export function recognizer(entries: Iterable<string>, keys: FragmentKeys, values: number): Recognizer {
  const quick = new Set<number>()
  const hashes = new Set<string>()
  for (const e of entries) {
    const dot = e.indexOf('.')
    quick.add(parseInt(e.slice(0, dot), 36))
    hashes.add(e.slice(dot + 1))
  }
  return {
    values,
    count(text: string): number {
      if (!hashes.size) return 0
      const hits = new Set<string>()
      const s = normalize(text)
      eachChosen(s, (start, h) => {
        if (!quick.has(keys.quick(h))) return
        const d = keys.hash(s.slice(start, start + FRAGMENT))
        if (hashes.has(d)) hits.add(d)
      })
      return hits.size
    },
  }
}

/** Runs of characters a key or an encoding of one is written in (URL and base64 punctuation included). */
const TOKEN = /[A-Za-z0-9+/=_.%-]{12,}/g

/**
 * Text with every token that holds a known secret replaced (`[a secret this session has seen]`): for what
 * Ratchet itself writes (the activity log, the approval queue, the session), when the agent typed a secret into
 * a command, a URL or a query.
 */
export function redactKnown(text: string, r: Recognizer): string {
  return text.replace(TOKEN, (tok) => (r.count(tok) ? '[a secret this session has seen]' : tok))
}
