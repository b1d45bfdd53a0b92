// npm run bench:known-secrets — how well known secrets are recognised, and how often ordinary text is taken for one.
//
//   - recognition: 200 random 40-character keys, each cut into pieces of n characters with words between them
//     (prose, so joining string literals does not help): the share found, per piece length;
//   - false alarms: every .js/.ts/.json/.md/.map file under node_modules (up to 40 MB) scanned as it would leave
//     (lib/core/evidence/content-scan.ts ContentScan) against 50 random known values: files raised, and the time
//     it took.
// The keyed hash is a stand-in with the same shape as lib/io/known-secrets.ts (SHA-256, a 20-bit quick mix).

import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { ContentScan } from '../lib/core/evidence/content-scan'
import { entriesOf, recognizer, type FragmentKeys } from '../lib/core/known-secrets'

const key = crypto.randomBytes(32).toString('hex')
const keys: FragmentKeys = {
  hash: (g) =>
    crypto
      .createHash('sha256')
      .update(key + g)
      .digest('base64')
      .slice(0, 11),
  quick: (h) => {
    let x = (h ^ 0x2545f491) | 0
    x = Math.imul(x ^ (x >>> 16), 0x45d9f3b)
    x = Math.imul(x ^ (x >>> 13), 0x119de1f3)
    return (x ^ (x >>> 16)) >>> 12
  },
}
const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const random = (n: number) => Array.from(crypto.randomBytes(n), (b) => B62[b % 62]).join('')

console.log('Known secrets: pieces of a 40-character key with words between them (200 keys each)')
for (const n of [8, 10, 12, 13, 14, 16, 19, 40]) {
  let found = 0
  for (let i = 0; i < 200; i++) {
    const s = random(40)
    const r = recognizer(entriesOf(s, keys), keys, 1)
    const text = s
      .match(new RegExp(`.{1,${n}}`, 'g'))!
      .map((x, j) => `note ${j} says ${x} and then`)
      .join('\n')
    if (r.count(text)) found++
  }
  console.log(`  pieces of ${String(n).padStart(2)}: ${((100 * found) / 200).toFixed(0).padStart(3)}% found`)
}

const values = Array.from({ length: 50 }, () => random(40))
const r = recognizer(
  values.flatMap((v) => entriesOf(v, keys)),
  keys,
  values.length,
)
let bytes = 0
let files = 0
let raised = 0
const t0 = performance.now()
const walk = (d: string): void => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    if (bytes > 40e6) return
    const p = path.join(d, e.name)
    if (e.isDirectory()) walk(p)
    else if (/\.(js|ts|json|md|map)$/.test(e.name)) {
      const text = fs.readFileSync(p, 'utf8')
      bytes += text.length
      files++
      const scan = new ContentScan(e.name, r)
      scan.feed(text)
      if (scan.result().known) {
        raised++
        console.log(`  raised: ${p}`)
      }
    }
  }
}
walk(path.resolve(__dirname, '..', 'node_modules'))
const s = (performance.now() - t0) / 1000
console.log(
  `False alarms: ${raised} of ${files} files, ${(bytes / 1e6).toFixed(0)} MB of node_modules, against ${values.length} known values (${s.toFixed(1)} s, ${(bytes / 1e6 / s).toFixed(1)} MB/s)`,
)
