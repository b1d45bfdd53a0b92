// The bytes that get signed. RFC 8785 (JSON Canonicalization Scheme) through `canonicalize`, the
// implementation by one of the RFC's authors, so a record has exactly one serialisation; and DSSE's
// pre-authentication encoding, so a signature covers the payload *and* its declared type (a record
// cannot be replayed as another kind of document). Pure: no fs, env or clock.

import canonicalize from 'canonicalize'

/** RFC 8785 canonical JSON. Throws on what JSON cannot carry (NaN, Infinity, lone surrogates). */
export function canonicalJson(value: unknown): string {
  const s = canonicalize(value)
  if (s === undefined) throw new Error('cannot canonicalise undefined')
  return s
}

/** DSSE v1 PAE: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in bytes. */
export function pae(payloadType: string, body: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, 'utf8')
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${body.length} `), body])
}

export interface DsseSignature {
  keyid?: string
  sig: string
}

export interface DsseEnvelope {
  payload: string
  payloadType: string
  signatures: DsseSignature[]
}

/** DSSE verifiers must accept standard and URL-safe base64 alike. */
export function fromBase64(s: string): Buffer {
  return Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
}

export function isEnvelope(v: unknown): v is DsseEnvelope {
  const e = v as DsseEnvelope
  return (
    !!e &&
    typeof e === 'object' &&
    typeof e.payload === 'string' &&
    typeof e.payloadType === 'string' &&
    Array.isArray(e.signatures) &&
    e.signatures.every((s) => s && typeof s.sig === 'string')
  )
}
