// Ed25519 keys for the case ledger (node:crypto), stored outside the project with mode 0600.
// A key file holds the agent's genesis public key (the anchor verification trusts), the key in force
// (with its private half) and the keys it replaced (public halves only).

import crypto from 'node:crypto'
import { fromBase64 } from '../../core/courtroom/canonical'
import { keyIdOf, type ChainCrypto } from '../../core/courtroom/chain'
import { keyFile } from './files'
import { readRegularFile, writePrivateFile } from '../store'

export const nodeCrypto: ChainCrypto = {
  sha256: (data) => crypto.createHash('sha256').update(data).digest('hex'),
  verify: (publicKey, data, sig) => crypto.verify(null, data, publicFromRaw(publicKey), sig),
}

export function publicFromRaw(raw: string): crypto.KeyObject {
  return crypto.createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: fromBase64(raw).toString('base64url') },
    format: 'jwk',
  })
}

export interface KeyPair {
  keyid: string
  /** Raw 32-byte public key, base64. */
  public: string
  /** PKCS#8 PEM. */
  private: string
}

export interface KeyStore {
  agent: string
  genesis_public: string
  current: KeyPair | null
  retired: { keyid: string; public: string; retired_at: string; revoked?: boolean }[]
}

export function generateKey(): KeyPair {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('base64')
  return {
    keyid: keyIdOf(nodeCrypto, raw),
    public: raw,
    private: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  }
}

/** From a 32-byte seed (RFC 8032 test keys): for test vectors only. */
export function keyFromSeed(seedHex: string): KeyPair {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seedHex, 'hex')])
  const priv = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
  const raw = Buffer.from(crypto.createPublicKey(priv).export({ format: 'jwk' }).x as string, 'base64url').toString(
    'base64',
  )
  return {
    keyid: keyIdOf(nodeCrypto, raw),
    public: raw,
    private: priv.export({ format: 'pem', type: 'pkcs8' }).toString(),
  }
}

export function sign(key: KeyPair, data: Uint8Array): string {
  return crypto.sign(null, data, crypto.createPrivateKey(key.private)).toString('base64')
}

export function readKeyStore(agent: string, env?: NodeJS.ProcessEnv): KeyStore | null {
  try {
    return JSON.parse(readRegularFile(keyFile(agent, env))) as KeyStore
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new Error(`${keyFile(agent, env)}: ${(e as Error).message}`)
  }
}

/** Written 0600 in a 0700 folder, via a temp file and a rename (never half a key). */
export function writeKeyStore(store: KeyStore, env?: NodeJS.ProcessEnv): void {
  const file = keyFile(store.agent, env)
  writePrivateFile(file, JSON.stringify(store, null, 2) + '\n', { tightenDir: true })
}

/** A new anonymised agent id: random, so it says nothing about the user, the machine or the project. */
export const newAgentId = (): string => 'agent_' + crypto.randomBytes(8).toString('hex')

export const digest = (s: string): string => 'sha256:' + nodeCrypto.sha256(s)
