// The signing code against published vectors: RFC 8785 (and cyberphone's JCS test data) for the
// canonical form, secure-systems-lab/dsse's test vectors for PAE and Ed25519 signatures over it.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { canonicalJson, fromBase64, pae } from '../../lib/core/courtroom/canonical'
import { signersOf } from '../../lib/core/courtroom/chain'
import { keyFromSeed, nodeCrypto, sign } from '../../lib/io/courtroom/keys'

const FIX = path.join(__dirname, '..', 'fixtures', 'courtroom')
const jcs = JSON.parse(fs.readFileSync(path.join(FIX, 'jcs-vectors.json'), 'utf8'))
const dsse = JSON.parse(fs.readFileSync(path.join(FIX, 'dsse-vectors.json'), 'utf8'))

describe('RFC 8785 canonical JSON', () => {
  const docs = jcs.documents as { id: string; input: string; output: string }[]
  it.each(docs.map((d) => [d.id, d] as const))('%s', (_id, d) => {
    expect(canonicalJson(JSON.parse(d.input))).toBe(d.output)
  })

  it('sorts properties by UTF-16 code units, whatever the locale (RFC 8785 3.2.3)', () => {
    const text = canonicalJson(JSON.parse(jcs.sorting.input))
    // Values in the order they appear in the canonical text (JSON.parse would move "1" first).
    expect([...text.matchAll(/:"([^"]*)"/g)].map((m) => m[1])).toEqual(jcs.sorting.order)
  })

  it.each(jcs.numbers.samples as [string, string | null][])('number %s → %s (RFC 8785 Appendix B)', (hex, want) => {
    const n = Buffer.from(hex, 'hex').readDoubleBE(0)
    if (want === null) expect(() => canonicalJson(n)).toThrow()
    else expect(canonicalJson(n)).toBe(want)
  })

  it('refuses lone surrogates, which have no canonical UTF-8 form', () => {
    expect(() => canonicalJson({ a: '\ud800' })).toThrow()
  })
})

describe('DSSE', () => {
  it('PAE of the protocol’s example', () => {
    expect(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe(
      'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
    )
  })

  const keys = Object.fromEntries(
    Object.entries(dsse.keys as Record<string, { seed: string; public: string }>).map(([name, k]) => [name, k]),
  )

  it('the RFC 8032 seeds give the vectors’ public keys', () => {
    for (const k of Object.values(keys))
      expect(Buffer.from(keyFromSeed(k.seed).public, 'base64').toString('hex')).toBe(k.public)
  })

  type Vector = {
    id: string
    envelope: { payload: string; payloadType: string; signatures: { sig: string; keyid?: string }[] }
    pae: string
    trustedKeys: string[]
    threshold: number
    supportedPayloadTypes: string[]
    expect: string
  }
  it.each((dsse.vectors as Vector[]).map((v) => [v.id, v] as const))('vector %s', (_id, v) => {
    // Our PAE over the decoded payload is byte-for-byte the vector's.
    const body = fromBase64(v.envelope.payload)
    const ourPae = pae(v.envelope.payloadType, body)
    // The vector's pae is what the signatures cover; for the swapped-type vector it differs from the envelope's.
    if (v.id !== 'payload-type-swapped') expect(ourPae.toString('hex')).toBe(v.pae)
    const trusted = Object.fromEntries(
      v.trustedKeys.map((n) => [n, Buffer.from(keys[n].public, 'hex').toString('base64')]),
    )
    const signers = signersOf(nodeCrypto, v.envelope, trusted)
    const accepted =
      signers.size >= v.threshold &&
      v.supportedPayloadTypes.includes(v.envelope.payloadType) &&
      v.envelope.payloadType !== ''
    expect(accepted ? 'accept' : 'reject').toBe(v.expect)
  })

  it('our Ed25519 signatures are the vectors’ signatures (deterministic): signing reproduces them', () => {
    const v = dsse.vectors.find((x: { id: string }) => x.id === 'single-signature')
    const sig = sign(keyFromSeed(keys.A.seed), pae(v.envelope.payloadType, fromBase64(v.envelope.payload)))
    expect(sig).toBe(v.envelope.signatures[0].sig)
  })
})
