// What the human saw of the evidence (lib/core/evidence/), in a form two gatherings can be compared by, so an
// approval binds to it (lib/core/approval-binding.ts approvalCovers). Small and pure: the approval binding loads it
// in every bundle that checks an approval, without the evidence scanner.

import { fnv64 } from './fingerprint'

/**
 * What the human saw, in a form two gatherings can be compared by: what would leave (names and content
 * hashes), how many commits, where to, and the hazards. An approval is bound to its digest.
 */
export interface EvidenceSeen {
  status: 'clean' | 'hazard' | 'incomplete'
  files: string[]
  commits: number
  destinations: string[]
  hazards: string[]
}

/** Everything the human saw: the files and their content, the commits, the destinations, the hazards. */
export function evidenceDigest(seen: EvidenceSeen): string {
  const canon = JSON.stringify([
    seen.status,
    [...seen.files].sort(),
    seen.commits,
    [...seen.destinations].sort(),
    [...seen.hazards].sort(),
  ])
  return fnv64(canon)
}

/** Only what makes it dangerous: the status, the destinations and the hazards (a project approval is bound to these). */
export function evidenceSignature(seen: EvidenceSeen): string {
  return fnv64(JSON.stringify([seen.status, [...seen.destinations].sort(), [...seen.hazards].sort()]))
}

/** What changed between what the human saw and what would leave now, in a few words each. */
export function evidenceChanges(before: EvidenceSeen, now: EvidenceSeen): string[] {
  const out: string[] = []
  const name = (f: string) => f.replace(/@[0-9a-f]+$/, '')
  const was = new Map(before.files.map((f) => [name(f), f]))
  const is = new Map(now.files.map((f) => [name(f), f]))
  const added = [...is.keys()].filter((f) => !was.has(f))
  const removed = [...was.keys()].filter((f) => !is.has(f))
  const changed = [...is.keys()].filter((f) => was.has(f) && was.get(f) !== is.get(f))
  const list = (xs: string[]) =>
    `${xs
      .slice(0, 5)
      .map((x) => `\`${x}\``)
      .join(', ')}${xs.length > 5 ? ` and ${xs.length - 5} more` : ''}`
  if (before.status !== now.status) out.push(`the evidence was ${before.status}, now ${now.status}`)
  const newHazards = now.hazards.filter((h) => !before.hazards.includes(h))
  if (newHazards.length) out.push(`new: ${newHazards.slice(0, 3).join('; ')}`)
  if (added.length) out.push(`now also sends ${list(added)}`)
  if (removed.length) out.push(`no longer sends ${list(removed)}`)
  if (changed.length) out.push(`changed since: ${list(changed)}`)
  if (before.commits !== now.commits)
    out.push(`${now.commits} commit${now.commits === 1 ? '' : 's'} instead of ${before.commits}`)
  const dBefore = [...before.destinations].sort().join(', ')
  const dNow = [...now.destinations].sort().join(', ')
  if (dBefore !== dNow)
    out.push(`goes to ${dNow || 'an unknown destination'} instead of ${dBefore || 'an unknown destination'}`)
  return out.length ? out : ['what would leave is not what was approved']
}
