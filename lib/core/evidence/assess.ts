// The facts of what was gathered: clean, hazard or incomplete, with the note's lines and what the human saw.

import path from 'node:path'
import { evidenceDigest, evidenceSignature, type EvidenceSeen } from '../evidence-seen'
import type { Recognizer } from '../known-secrets'
import { scanFile } from './content-scan'
import type { Destination, EvidenceFacts, FileHazard, Gathered, GatheredFile } from './gathered'
import { privateByName } from './private-names'
import { withoutOwnCredentials } from './secrets-in-text'
import { LEAVING } from './targets'

const MAX_NAMED = 8
const MAX_HAZARDS_SHOWN = 10

export function assessEvidence(found: Gathered[], recognize?: Recognizer): EvidenceFacts {
  const hazards: FileHazard[] = []
  const incomplete: string[] = []
  const lines: string[] = []
  const unread: string[] = []
  const seen: EvidenceSeen = { status: 'clean', files: [], commits: 0, destinations: [], hazards: [] }
  let files = 0
  let commits = 0
  let scanned = 0
  for (const g of found) {
    const real = g.files.filter((f) => !f.meta)
    files += real.length + (g.unlisted ?? 0)
    commits += g.commits ?? 0
    if (g.incomplete) incomplete.push(`${g.what}: ${g.incomplete}`)
    if (g.unlisted)
      unread.push(`${g.unlisted} more file${g.unlisted === 1 ? '' : 's'} of ${g.what} were not even listed`)
    for (const f of g.files) {
      if (f.found !== undefined || f.text !== undefined) scanned += f.meta ? 0 : 1
      unread.push(...unreadOf(f))
      hazards.push(...fileHazards(f, g.dest, recognize))
      if ((!f.meta || f.digest) && seen.files.length < MAX_SEEN_FILES)
        seen.files.push(`${f.path}${f.digest ? `@${f.digest.slice(0, 12)}` : ''}`)
    }
    const d = g.destination
    // Where it goes is part of what the human saw: a push's URLs, an upload's host or bucket.
    if (!d && g.dest && !g.local) seen.destinations.push(g.dest)
    if (d) {
      seen.destinations.push(...d.push)
      hazards.push(...destinationHazards(d))
    }
    const line = evidenceLine(g, real)
    if (line) lines.push(line)
  }
  lines.push(...hazardLines(hazards))
  for (const why of incomplete) lines.push(`Unchecked: ${why}.`)
  // What was not read is not clean: a human decides on it (the line names it so they know what to look at).
  if (unread.length) {
    incomplete.push(
      `not read: ${unread.slice(0, 3).join('; ')}${unread.length > 3 ? ` and ${unread.length - 3} more` : ''}`,
    )
    lines.push(
      `Unchecked: ${unread.slice(0, 5).join('; ')}${unread.length > 5 ? `; and ${unread.length - 5} more` : ''}.`,
    )
  }
  const local = found.length > 0 && found.every((g) => g.local)
  const status = hazards.length ? 'hazard' : incomplete.length ? 'incomplete' : 'clean'
  const kinds = [...new Set(found.flatMap((g) => (g.kind && !g.local ? [g.kind] : [])))]
  seen.status = status
  seen.commits = commits
  seen.hazards = [...new Set(hazards.map((h) => `${h.path}: ${h.why}`))].slice(0, 50)
  const unnamed = found.flatMap((g) => (g.destination && !g.destination.configured ? g.destination.push : []))
  return {
    status,
    local,
    hazards,
    incomplete,
    lines,
    files,
    commits,
    scanned,
    kinds,
    unnamed,
    seen,
    digest: evidenceDigest(seen),
    signature: evidenceSignature(seen),
  }
}

const MAX_SEEN_FILES = 500

/** What of one file nobody checked, for the Unchecked line. */
function unreadOf(f: GatheredFile): string[] {
  if (f.found !== undefined || f.text !== undefined) return f.unread ? [`\`${f.path}\`: ${f.unread}`] : []
  // Nothing of it was read, and its name does not already say it is private: nobody checked it.
  if (!privateByName(f.path) && !f.special && f.partial !== 'does not exist')
    return [`\`${f.path}\`: ${f.unread ?? f.partial ?? 'not read'}`]
  return []
}

/** Why one file must not leave: its name, its contents, the secrets of this session in it, a link's target. */
function fileHazards(f: GatheredFile, dest: string | undefined, recognize?: Recognizer): FileHazard[] {
  const out: FileHazard[] = []
  // A URL or a program's arguments carry credentials to the service they are for: that is their use.
  const own =
    f.meta && f.text !== undefined && (f.path === LEAVING.args || f.path === LEAVING.url)
      ? withoutOwnCredentials(f.text, dest)
      : f.text
  for (const h of scanFile(f.path, own, f.found)) out.push({ ...h, path: f.path, how: f.how })
  const known = f.known ?? (recognize && own !== undefined ? recognize.count(own) : 0)
  if (known)
    out.push({
      kind: 'secret',
      why: `holds ${known === 1 ? 'a piece' : `${known} pieces`} of a secret this session has seen (read from a secret file or the environment), as it is or encoded`,
      path: f.path,
      how: f.how,
    })
  // `k.txt` → `.env`: the link's real target is judged by its name too.
  const target = f.target ? privateByName(f.target) : undefined
  if (target && !privateByName(f.path))
    out.push({ ...target, why: `a link to \`${f.target}\`: ${target.why}`, path: f.path, how: f.how })
  return out
}

/** A push that goes to another repository than the remote fetches from, or somewhere the user did not name. */
function destinationHazards(d: Destination): FileHazard[] {
  const out: FileHazard[] = []
  const elsewhere = d.fetch !== undefined ? d.push.filter((u) => repoIdentity(u) !== repoIdentity(d.fetch!)) : []
  if (elsewhere.length)
    out.push({
      kind: 'destination',
      why: `git would push to \`${elsewhere.join('`, `')}\`, not to where ${d.remote ?? 'the remote'} fetches from (\`${d.fetch}\`): pushurl or pushInsteadOf sends it to another repository`,
      path: d.remote ?? d.push[0],
      how: 'the destination',
    })
  const moved = d.named ? undefined : destinationSinceRequest(d)
  if (moved && !elsewhere.length)
    out.push({ kind: 'destination', why: moved, path: d.remote ?? d.push[0], how: 'the destination' })
  return out
}

/** The note's "Evidence:" line for one target: what it would send or stage, and where. */
function evidenceLine(g: Gathered, real: GatheredFile[]): string | undefined {
  const names = real.map((f) => f.path)
  const shown = names
    .slice(0, MAX_NAMED)
    .map((n) => `\`${n}\``)
    .join(', ')
  const more = names.length + (g.unlisted ?? 0) - Math.min(names.length, MAX_NAMED)
  const counts = [
    g.commits !== undefined
      ? `${g.commits} commit${g.commits === 1 ? '' : 's'}${g.newBranch ? ' (new on the remote)' : ''}`
      : '',
    `${names.length + (g.unlisted ?? 0)} file${names.length + (g.unlisted ?? 0) === 1 ? '' : 's'}`,
  ]
    .filter(Boolean)
    .join(', ')
  // Nothing gathered because nothing could be: the Unchecked line below says why; "would send 0 files" would mislead.
  if (!real.length && g.incomplete && !g.commits) return undefined
  // A web fetch, search or tool input is one text, not files: it is named only when something in it is private.
  if (!real.length && g.files.length && !g.commits) return undefined
  const dest = g.destination ? destinationText(g.destination) : g.dest
  return `Evidence: ${g.what}${dest ? ` → ${dest}` : ''} would ${g.local ? 'stage' : 'send'} ${counts}${names.length ? `: ${shown}${more > 0 ? ` and ${more} more` : ''}` : ''}.`
}

/** One line per dangerous file, saying how it would leave and why it must not. */
function hazardLines(hazards: FileHazard[]): string[] {
  const lines: string[] = []
  const byPath = new Map<string, FileHazard[]>()
  for (const h of hazards) byPath.set(h.path, [...(byPath.get(h.path) ?? []), h])
  for (const [p, hs] of [...byPath].slice(0, MAX_HAZARDS_SHOWN))
    lines.push(
      `${hs.every((h) => h.kind === 'destination') ? 'Destination' : 'Private'}: \`${p}\` (${hs[0].how}): ${hs.map((h) => h.why).join('; ')}.`,
    )
  if (byPath.size > MAX_HAZARDS_SHOWN) lines.push(`Private: …and ${byPath.size - MAX_HAZARDS_SHOWN} more files.`)
  return lines
}

/** `origin (https://x/r.git)`, or the push URLs when git sends elsewhere than the remote fetches from. */
function destinationText(d: Destination): string {
  const push = d.push.join(', ')
  if (d.remote)
    return d.fetch !== undefined && d.push.some((u) => u !== d.fetch)
      ? `${d.remote} (push: ${push}; fetch: ${d.fetch})`
      : `${d.remote} (${push})`
  return `${push} (not a remote of this repository)`
}

/** Why a push goes where the user's request did not say it would, if it does (the user did not name it). */
function destinationSinceRequest(d: Destination): string | undefined {
  if (!d.configured)
    return d.named === false
      ? `\`${d.push.join('`, `')}\` is not a remote of this repository, and the user's request does not name it`
      : undefined
  if (d.atRequest === undefined) return undefined
  if (d.atRequest === null)
    return `${d.remote} was not a remote when the user asked (it was added since), and the user's request does not name it`
  // Where it fetches from now against where it did (both as git resolves them, insteadOf applied).
  const now = d.fetch ?? d.push[0]
  return repoIdentity(now) !== repoIdentity(d.atRequest)
    ? `${d.remote} pointed to \`${d.atRequest}\` when the user asked; it now pushes to \`${d.push.join('`, `')}\`, which the user's request does not name`
    : undefined
}

/** Two URLs of the same repository (`git@github.com:o/r.git`, `https://github.com/o/r`) are one destination. */
export function repoIdentity(url: string): string {
  const u = url
    .trim()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:]+)(?::\d+)?\/(.*)$/i.exec(u)
  if (scheme) return `${scheme[1].toLowerCase()}/${scheme[2]}`
  const scp = /^(?:[^@/]*@)?([^/:]+):(?!\/)(.*)$/.exec(u)
  if (scp) return `${scp[1].toLowerCase()}/${scp[2]}`
  return path.posix.normalize(u.replace(/^file:\/\//, ''))
}
