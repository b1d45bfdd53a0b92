// The transparency log's Merkle tree, RFC 6962 / RFC 9162 section 2.1, pure: hashes come in through
// `Hasher`, stored nodes through a lookup, so the same code builds proofs on the server and checks them
// on the client, and the published vectors test both.
//
// The tree over leaves D[0:n]: MTH({}) = SHA-256(""), MTH({d}) = SHA-256(0x00 || d), and for n > 1 with k
// the largest power of two below n, MTH(D[0:n]) = SHA-256(0x01 || MTH(D[0:k]) || MTH(D[k:n])).
// Every range the recursion visits starts at a multiple of a power of two at least its size, so each
// splits into "perfect" subtrees (2^level leaves, aligned), which the server stores as nodes
// (level, index) as leaves arrive: a proof is a few stored nodes combined, never a pass over all leaves.

export interface Hasher {
  sha256(data: Uint8Array): Buffer
}

export const HASH_SIZE = 32

export const leafHash = (h: Hasher, data: Uint8Array): Buffer => h.sha256(Buffer.concat([Buffer.from([0]), data]))
export const nodeHash = (h: Hasher, left: Uint8Array, right: Uint8Array): Buffer =>
  h.sha256(Buffer.concat([Buffer.from([1]), left, right]))
export const emptyRoot = (h: Hasher): Buffer => h.sha256(Buffer.alloc(0))

/** The largest power of two strictly below n (n >= 2). */
function splitPoint(n: number): number {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

const isPow2 = (n: number) => n > 0 && 2 ** Math.round(Math.log2(n)) === n

/** A perfect subtree: 2^level leaves starting at leaf index * 2^level. */
export interface NodeId {
  level: number
  index: number
}

/** The perfect subtrees whose hashes make MTH(D[lo:hi]), in the order hashRange asks for them. */
export function rangeNodes(lo: number, hi: number): NodeId[] {
  const out: NodeId[] = []
  const walk = (a: number, b: number) => {
    const n = b - a
    if (isPow2(n) && a % n === 0) out.push({ level: Math.log2(n), index: a / n })
    else {
      const k = splitPoint(n)
      walk(a, a + k)
      walk(a + k, b)
    }
  }
  if (hi > lo) walk(lo, hi)
  return out
}

/** MTH(D[lo:hi]) from stored perfect subtrees. */
export function hashRange(h: Hasher, lo: number, hi: number, node: (id: NodeId) => Buffer): Buffer {
  if (hi <= lo) return emptyRoot(h)
  const walk = (a: number, b: number): Buffer => {
    const n = b - a
    if (isPow2(n) && a % n === 0) return node({ level: Math.log2(n), index: a / n })
    const k = splitPoint(n)
    return nodeHash(h, walk(a, a + k), walk(a + k, b))
  }
  return walk(lo, hi)
}

export type Range = [lo: number, hi: number]

/** RFC 6962 PATH(m, D[n]): the ranges whose hashes form leaf m's inclusion proof, leaf end first. */
export function inclusionRanges(m: number, n: number): Range[] {
  if (!(Number.isSafeInteger(m) && Number.isSafeInteger(n) && m >= 0 && m < n))
    throw new RangeError(`no leaf ${m} in a tree of ${n}`)
  const path = (i: number, lo: number, hi: number): Range[] => {
    if (hi - lo <= 1) return []
    const k = splitPoint(hi - lo)
    return i < k ? [...path(i, lo, lo + k), [lo + k, hi]] : [...path(i - k, lo + k, hi), [lo, lo + k]]
  }
  return path(m, 0, n)
}

/** RFC 6962 PROOF(m, D[n]) for 0 < m < n: the ranges whose hashes prove the tree of m a prefix of the tree of n. */
export function consistencyRanges(m: number, n: number): Range[] {
  if (!(Number.isSafeInteger(m) && Number.isSafeInteger(n) && m > 0 && m <= n))
    throw new RangeError(`no consistency proof from ${m} to ${n}`)
  const sub = (mm: number, lo: number, hi: number, b: boolean): Range[] => {
    const n2 = hi - lo
    if (mm === n2) return b ? [] : [[lo, hi]]
    const k = splitPoint(n2)
    return mm <= k ? [...sub(mm, lo, lo + k, b), [lo + k, hi]] : [...sub(mm - k, lo + k, hi, false), [lo, lo + k]]
  }
  return sub(m, 0, n, true)
}

/** Every perfect subtree a set of ranges needs (deduplicated), for one lookup. */
export function nodesFor(ranges: Range[]): NodeId[] {
  const seen = new Map<string, NodeId>()
  for (const [lo, hi] of ranges) for (const id of rangeNodes(lo, hi)) seen.set(`${id.level}/${id.index}`, id)
  return [...seen.values()]
}

// ---- appending: the compact range (the right edge of the tree) -----------------------------------

/**
 * The hashes of the perfect subtrees along the right edge of a tree of `size` leaves, largest first (one per
 * set bit of size): enough to append a leaf and compute the root without reading anything else.
 */
export interface Frontier {
  size: number
  hashes: Buffer[]
}

/** Appends one leaf; returns the new frontier and the perfect nodes completed (the leaf itself first). */
export function appendLeaf(
  h: Hasher,
  f: Frontier,
  leaf: Buffer,
): { next: Frontier; nodes: (NodeId & { hash: Buffer })[] } {
  const hashes = [...f.hashes]
  const nodes: (NodeId & { hash: Buffer })[] = [{ level: 0, index: f.size, hash: leaf }]
  let cur = leaf
  let index = f.size
  let level = 0
  // Each trailing 1 bit of the old size is a perfect subtree of the same height waiting for its right sibling.
  while (index % 2 === 1) {
    const left = hashes.pop()!
    cur = nodeHash(h, left, cur)
    index = (index - 1) / 2
    level++
    nodes.push({ level, index, hash: cur })
  }
  hashes.push(cur)
  return { next: { size: f.size + 1, hashes }, nodes }
}

export function frontierRoot(h: Hasher, f: Frontier): Buffer {
  if (!f.hashes.length) return emptyRoot(h)
  let r = f.hashes[f.hashes.length - 1]
  for (let i = f.hashes.length - 2; i >= 0; i--) r = nodeHash(h, f.hashes[i], r)
  return r
}

// ---- verification (RFC 9162 2.1.3.2 and 2.1.4.2, as transparency-dev/merkle states them) ----------

export type Checked = { ok: true } | { ok: false; problem: string }

const bitLen = (x: bigint) => (x === 0n ? 0 : x.toString(2).length)
const ones = (x: bigint) => [...x.toString(2)].filter((c) => c === '1').length

/** Proof length for leaf `index` in a tree of `size`: `inner` hashes below the split, `border` on the right edge. */
function decompose(index: bigint, size: bigint): { inner: number; border: number } {
  const inner = bitLen(index ^ (size - 1n))
  return { inner, border: ones(index >> BigInt(inner)) }
}

function chainInner(h: Hasher, seed: Buffer, proof: Buffer[], index: bigint): Buffer {
  return proof.reduce(
    (acc, p, i) => (((index >> BigInt(i)) & 1n) === 0n ? nodeHash(h, acc, p) : nodeHash(h, p, acc)),
    seed,
  )
}
function chainInnerRight(h: Hasher, seed: Buffer, proof: Buffer[], index: bigint): Buffer {
  return proof.reduce((acc, p, i) => (((index >> BigInt(i)) & 1n) === 1n ? nodeHash(h, p, acc) : acc), seed)
}
const chainBorderRight = (h: Hasher, seed: Buffer, proof: Buffer[]): Buffer =>
  proof.reduce((acc, p) => nodeHash(h, p, acc), seed)

const wellFormed = (hashes: Buffer[], what: string): Checked => {
  const bad = hashes.findIndex((x) => x.length !== HASH_SIZE)
  return bad < 0
    ? { ok: true }
    : { ok: false, problem: `${what}[${bad}] is ${hashes[bad].length} bytes, not ${HASH_SIZE}` }
}

/** Leaf `index` with hash `leaf` is in the tree of `size` leaves whose root is `root`. */
export function verifyInclusion(
  h: Hasher,
  index: number,
  size: number,
  leaf: Buffer,
  proof: Buffer[],
  root: Buffer,
): Checked {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0)
    return { ok: false, problem: 'index and size must be whole numbers' }
  if (index >= size) return { ok: false, problem: `index ${index} is not below the tree size ${size}` }
  if (leaf.length !== HASH_SIZE)
    return { ok: false, problem: `the leaf hash is ${leaf.length} bytes, not ${HASH_SIZE}` }
  if (root.length !== HASH_SIZE) return { ok: false, problem: `the root is ${root.length} bytes, not ${HASH_SIZE}` }
  const w = wellFormed(proof, 'proof')
  if (!w.ok) return w
  const { inner, border } = decompose(BigInt(index), BigInt(size))
  if (proof.length !== inner + border)
    return {
      ok: false,
      problem: `the proof has ${proof.length} hashes where a tree of ${size} needs ${inner + border} for leaf ${index}`,
    }
  const got = chainBorderRight(h, chainInner(h, leaf, proof.slice(0, inner), BigInt(index)), proof.slice(inner))
  return got.equals(root) ? { ok: true } : { ok: false, problem: 'the proof does not lead to the root' }
}

/** The tree of `size1` (root1) is a prefix of the tree of `size2` (root2). */
export function verifyConsistency(
  h: Hasher,
  size1: number,
  size2: number,
  proof: Buffer[],
  root1: Buffer,
  root2: Buffer,
): Checked {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2) || size1 < 0)
    return { ok: false, problem: 'sizes must be whole numbers' }
  if (size2 < size1) return { ok: false, problem: `the tree shrank from ${size1} to ${size2}` }
  // Every tree extends the empty one: a check from size 0 proves nothing, so it is never taken as one.
  if (size1 === 0) return { ok: false, problem: 'a proof from the empty tree proves nothing' }
  if (size1 === size2) {
    if (proof.length) return { ok: false, problem: 'equal sizes take an empty proof' }
    return root1.equals(root2)
      ? { ok: true }
      : { ok: false, problem: `two different roots for the same size ${size1}: the log forked` }
  }
  if (root1.length !== HASH_SIZE || root2.length !== HASH_SIZE)
    return { ok: false, problem: `a root is not ${HASH_SIZE} bytes` }
  const w = wellFormed(proof, 'proof')
  if (!w.ok) return w
  if (!proof.length) return { ok: false, problem: 'empty proof' }
  const s1 = BigInt(size1)
  const s2 = BigInt(size2)
  const { inner: fullInner, border } = decompose(s1 - 1n, s2)
  let shift = 0
  while (((s1 >> BigInt(shift)) & 1n) === 0n) shift++
  const inner = fullInner - shift
  // The proof starts with the hash of the subtree of 2^shift leaves, unless that subtree is the whole old tree.
  const [seed, start] = s1 === 1n << BigInt(shift) ? [root1, 0] : [proof[0], 1]
  if (proof.length !== start + inner + border)
    return {
      ok: false,
      problem: `the proof has ${proof.length} hashes where ${start + inner + border} are needed from ${size1} to ${size2}`,
    }
  const rest = proof.slice(start)
  const mask = (s1 - 1n) >> BigInt(shift)
  const h1 = chainBorderRight(h, chainInnerRight(h, seed, rest.slice(0, inner), mask), rest.slice(inner))
  if (!h1.equals(root1)) return { ok: false, problem: `the proof does not lead to the old root (size ${size1})` }
  const h2 = chainBorderRight(h, chainInner(h, seed, rest.slice(0, inner), mask), rest.slice(inner))
  return h2.equals(root2)
    ? { ok: true }
    : { ok: false, problem: `the proof does not lead to the new root (size ${size2})` }
}
