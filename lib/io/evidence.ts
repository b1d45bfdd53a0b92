// Gathers what a call would send off the machine (or stage), for lib/core/evidence.ts to judge.
//
// Runs only for calls whose plan has a target, never at hook start-up: node:child_process is required
// on first use. Bounded in time: one deadline for everything (DEFAULT_LIMITS.budgetMs); each child runs
// in its own process group and the whole group is killed when the deadline passes, and whatever was not
// gathered by then is reported as unchecked (the decision then leaves it to a human).

import fs from 'node:fs'
import path from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { statusEntries } from './git'
import { readScript } from './script-facts'
import { assessEvidence, repoIdentity } from '../core/evidence/assess'
import { ContentScan } from '../core/evidence/content-scan'
import type { Destination, EvidenceFacts, Gathered, GatheredFile } from '../core/evidence/gathered'
import { planEvidence } from '../core/evidence/plan'
import { privateByName } from '../core/evidence/private-names'
import {
  BODY,
  DEFAULT_LIMITS,
  LEAVING,
  type EvidenceLimits,
  type EvidencePlan,
  type EvidenceTarget,
  type StageSpec,
} from '../core/evidence/targets'
import { shellCommandsOf } from '../core/actions/mcp'
import type { Recognizer } from '../core/known-secrets'
import { StringDecoder } from 'node:string_decoder'

export interface GatherOptions {
  limits?: Partial<EvidenceLimits>
  /** Extra environment for child processes (tests). */
  env?: NodeJS.ProcessEnv
  /** Recognises the secrets this session has seen, in whatever leaves. */
  recognize?: Recognizer
  /** What the user asked: their prompts (a destination they named) and the remotes when they asked (name → URL). */
  asked?: { prompts: string[]; remotes?: () => Record<string, string> | undefined }
}

export async function gatherEvidence(
  plan: EvidencePlan | EvidenceTarget[],
  opts: GatherOptions = {},
): Promise<Gathered[]> {
  const targets = Array.isArray(plan) ? plan : plan.targets
  const limits = { ...DEFAULT_LIMITS, ...opts.limits }
  const ctx: Ctx = {
    limits,
    deadline: Date.now() + limits.budgetMs,
    env: { ...process.env, ...opts.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
    children: new Set(),
    recognize: opts.recognize,
    read: 0,
    asked: opts.asked,
  }
  const timer = setTimeout(() => killAll(ctx), limits.budgetMs)
  try {
    return await Promise.all(
      targets.map((t) =>
        gatherOne(t, ctx).catch((e: unknown) => ({
          what: describe(t),
          files: [],
          incomplete:
            e instanceof Timeout
              ? `gathering did not finish within ${limits.budgetMs} ms`
              : `could not be read (${oneLine(String((e as Error)?.message ?? e))})`,
        })),
      ),
    )
  } finally {
    clearTimeout(timer)
    killAll(ctx)
  }
}

interface Ctx {
  limits: EvidenceLimits
  deadline: number
  env: NodeJS.ProcessEnv
  children: Set<ChildProcess>
  /** Known secrets (lib/io/known-secrets.ts), when there are any. */
  recognize?: Recognizer
  /** Files read so far, against limits.maxFiles. */
  read: number
  asked?: GatherOptions['asked']
}

class Timeout extends Error {}

function describe(t: EvidenceTarget): string {
  switch (t.kind) {
    case 'git':
      return t.commands.map((c) => `\`${oneLine(c, 60)}\``).join(' then ') || oneLine(t.command)
    default:
      return oneLine(t.command)
  }
}

function gatherOne(t: EvidenceTarget, ctx: Ctx): Promise<Gathered> {
  switch (t.kind) {
    case 'git':
      return gatherGit(t, ctx).then((g) => (t.push ? { ...g, kind: 'push' as const } : g))
    case 'package':
      return gatherPackage(t, ctx).then((g) => ({ ...g, kind: 'publish' as const }))
    case 'files':
      return Promise.resolve({
        ...gatherFiles(t.paths, t.command, t.dest, ctx, t.how, t.optional),
        kind: 'upload' as const,
      })
    case 'body':
      return Promise.resolve({
        what: oneLine(t.command),
        dest: t.dest,
        kind: 'upload' as const,
        files: [
          bodyFile(
            t.text,
            t.name ?? BODY,
            t.name ? `sent by \`${oneLine(t.command, 80)}\`` : 'sent as the request body',
            ctx,
          ),
        ],
      })
    case 'unknown':
      return Promise.resolve({ what: oneLine(t.command), files: [], incomplete: t.why })
  }
}

// ---- child processes: own process group, killed whole at the deadline ---------------------------

interface Out {
  code: number | null
  stdout: Buffer
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  ctx: Ctx,
  input?: string,
  maxBytes = 64 * 1024 * 1024,
  within?: number,
): Promise<Out> {
  if (Date.now() >= ctx.deadline) return Promise.reject(new Timeout())
  const { spawn } = require('node:child_process') as typeof import('node:child_process')
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: ctx.env,
      detached: true,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'ignore'],
    })
    ctx.children.add(child)
    // A shorter deadline for this one child (npm pack, with a fallback after it).
    const own = within === undefined ? undefined : setTimeout(() => killGroup(child), within)
    child.on('close', () => own && clearTimeout(own))
    const chunks: Buffer[] = []
    let size = 0
    let killed = false
    child.stdout!.on('data', (c: Buffer) => {
      size += c.length
      if (size > maxBytes) {
        killed = true
        killGroup(child)
        return
      }
      chunks.push(c)
    })
    child.on('error', (e) => {
      ctx.children.delete(child)
      reject(e)
    })
    child.on('close', (code, signal) => {
      ctx.children.delete(child)
      if (killed) return reject(new Error(`${cmd} printed more than ${maxBytes >> 20} MB`))
      if (signal) return reject(Date.now() >= ctx.deadline ? new Timeout() : new Error(`${cmd} was killed (${signal})`))
      resolve({ code, stdout: Buffer.concat(chunks) })
    })
    if (input !== undefined) {
      child.stdin!.on('error', () => undefined)
      child.stdin!.end(input)
    }
  })
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL')
  } catch {
    try {
      child.kill('SIGKILL')
    } catch {
      /* already gone */
    }
  }
}

function killAll(ctx: Ctx): void {
  for (const c of ctx.children) killGroup(c)
  ctx.children.clear()
}

async function git(dir: string, args: string[], ctx: Ctx, input?: string): Promise<Out> {
  return run('git', ['-C', dir, '-c', 'core.quotePath=false', '-c', 'color.ui=false', ...args], dir, ctx, input)
}

async function gitText(dir: string, args: string[], ctx: Ctx): Promise<string> {
  const r = await git(dir, args, ctx)
  if (r.code !== 0) throw new Error(`git ${args[0]} failed`)
  return r.stdout.toString('utf8')
}

// ---- git: staging, pending commits, and the push range ---------------------------------------------

interface StatusEntry {
  path: string
  x: string
  y: string
}

async function gatherGit(t: Extract<EvidenceTarget, { kind: 'git' }>, ctx: Ctx): Promise<Gathered> {
  const what = t.commands.map((c) => `\`${oneLine(c, 60)}\``).join(' then ') || `\`${oneLine(t.command)}\``
  let top: string
  let branch: string | undefined
  try {
    const out = (await gitText(t.dir, ['rev-parse', '--show-toplevel'], ctx)).trim()
    top = out
    const b = await git(top, ['symbolic-ref', '-q', '--short', 'HEAD'], ctx)
    branch = b.code === 0 ? b.stdout.toString().trim() : undefined
  } catch (e) {
    if (e instanceof Timeout) throw e
    // git itself could not be run (not on the hook's PATH): nothing was checked, which is not "nothing to send".
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'EACCES')
      return {
        what,
        files: [],
        incomplete: `git could not be run (${(e as NodeJS.ErrnoException).code}): Ratchet cannot see what would be sent`,
      }
    // A repository git does not read (broken, not ours, or elsewhere) is not "no repository".
    if (t.uncertain || !fs.existsSync(t.dir) || gitDirAbove(t.dir))
      return { what, files: [], incomplete: `${t.dir} is not a git repository Ratchet can read` }
    // A push from outside any repository fails and sends nothing.
    return {
      what: `${what} (not in a git repository: nothing to send)`,
      files: [],
      ...(t.push ? { commits: 0 } : { local: true }),
    }
  }

  // What the line itself would stage and commit before any push.
  const pending: GatheredFile[] = []
  const seen = new Set<string>()
  if (t.stages.length || t.commits) {
    const force = t.stages.some((s) => s.force)
    const raw = (
      await git(
        top,
        ['status', '--porcelain=v1', '-z', '--untracked-files=all', ...(force ? ['--ignored=matching'] : [])],
        ctx,
      )
    ).stdout.toString('utf8')
    const entries = parseStatus(raw)
    const relDir = path.relative(top, t.dir)
    for (const e of entries) {
      if (seen.has(e.path)) continue
      // Already in the index: a commit in this line sends it.
      if (t.commits && 'AMRCT'.includes(e.x) && e.x !== ' ') {
        seen.add(e.path)
        pending.push({ path: e.path, how: 'staged, would be committed' })
        continue
      }
      const stage = t.stages.find((s) => wouldStage(s, e, relDir))
      if (stage) {
        seen.add(e.path)
        const state = e.x === '?' ? 'untracked' : e.x === '!' ? 'ignored' : 'modified'
        pending.push({ path: e.path, how: `${state}, would be staged by \`${stage.by}\`` })
      }
    }
    if (pending.length > ctx.limits.maxNames) pending.length = ctx.limits.maxNames
    // Private files an earlier command in the line reads or writes: what it makes may be staged unseen.
    for (const x of t.touched ?? []) {
      const rel = path.relative(top, x.path)
      const shown = rel.startsWith('..') ? x.path : rel
      if (!seen.has(shown)) {
        seen.add(shown)
        pending.push({ path: shown, how: `used by \`${x.by}\` earlier in the line, before the staging` })
      }
    }
    readWorktree(top, pending, ctx)
  }
  // Messages the line writes: `-m` text, or a file (`git commit -F .env` puts the file in the history).
  const lineTexts: string[] = []
  for (const m of t.messages ?? []) {
    if (m.text !== undefined) lineTexts.push(m.text)
    else if (m.file) {
      const rel = path.relative(top, m.file)
      const f: GatheredFile = {
        path: rel.startsWith('..') ? m.file : rel,
        how: `the message of \`${m.by}\``,
        meta: !privateByName(m.file),
      }
      readInto(m.file, f, ctx)
      pending.push(f)
    } else
      pending.push({
        path: '(a message from standard input)',
        how: `the message of \`${m.by}\``,
        meta: true,
        unread: 'it comes from standard input',
      })
  }
  // git skips FIFOs, sockets and devices, but one planted under a private name (`.env` as a FIFO) means
  // something is being staged around: what would leave cannot be told, so a human decides.
  const special = t.stages.some((s) => s.untracked) ? specialPrivateFiles([top, t.dir]) : []
  const odd = special.length
    ? {
        incomplete: `${special
          .slice(0, 3)
          .map((x) => `\`${path.relative(top, x.abs) || x.abs}\` is ${x.kind}`)
          .join(', ')}, where a private file would be: Ratchet never reads it and cannot tell what would leave`,
      }
    : {}
  const pendingCommits = t.commits && (pending.length || entriesStaged(pending)) ? 1 : 0

  if (!t.push) {
    const local = true
    return { what, files: pending, local, ...(t.commits ? { commits: pendingCommits } : {}), ...odd }
  }

  // The push: which remote, which commits are not there yet, which file versions they carry.
  const cfg = parseConfig(
    (
      await git(
        top,
        [
          'config',
          '-z',
          '--get-regexp',
          '^(branch\\..*\\.(remote|pushremote|merge)|remote\\.pushdefault|remote\\..*\\.url|url\\..*\\.(pushinsteadof|insteadof))$',
        ],
        ctx,
      )
    ).stdout.toString('utf8'),
  )
  const remote =
    t.push.remote ??
    (branch && (cfg[`branch.${branch}.pushremote`] || cfg['remote.pushdefault'] || cfg[`branch.${branch}.remote`])) ??
    'origin'
  const named = cfg[`remote.${remote}.url`] !== undefined
  const where = await destinationOf(top, remote, named, cfg, ctx)
  const destination = { ...where, ...askedAbout(top, remote, named, where.push, ctx) }
  const trackingRefs = named
    ? (await gitText(top, ['for-each-ref', '--format=%(refname)', `refs/remotes/${remote}/`], ctx))
        .split('\n')
        .filter(Boolean)
    : []
  const sources = t.push.sources.map((s) => (s === '@' ? 'HEAD' : s))
  // A branch the line creates before its push is not there yet: its commits are its start's (and the line's own
  // commit, read above as what it would stage). `--all` adds them to every branch.
  const lineStarts = t.push.lineStarts ?? {}
  const starts = Object.values(lineStarts)
  const fromLine = (s: string) => lineStarts[s.replace(/^refs\/heads\//, '')] ?? s
  const revs = [
    ...sources.map(fromLine),
    ...(t.push.allBranches ? ['--branches', ...starts] : []),
    ...(t.push.tags ? ['--tags'] : []),
  ]
  const dstBranch =
    t.push.sources.length === 1 &&
    (t.push.sources[0] === 'HEAD' ? branch : t.push.sources[0].replace(/^refs\/heads\//, ''))
  const newBranch = !!dstBranch && !trackingRefs.includes(`refs/remotes/${remote}/${dstBranch}`)

  // An unborn branch (no commit yet) has nothing to push but what this line commits.
  const headOk = (await git(top, ['rev-parse', '-q', '--verify', 'HEAD'], ctx)).code === 0
  let commits = 0
  const blobs: { path: string; sha: string; commit: string }[] = []
  // Commits not on the remote: against that remote's tracking refs (its upstream or default branch);
  // a remote Ratchet has no refs for gets every reachable commit (`--not --remotes` over all remotes
  // when the remote is a URL: conservative, it may over-count).
  const not = named ? [`--remotes=${remote}`] : ['--remotes']
  if (revs.length && headOk) {
    const log = await git(
      top,
      ['log', '--format=%x01%H', '--raw', '--no-renames', '--no-abbrev', '-z', ...revs, '--not', ...not, '--'],
      ctx,
    )
    if (log.code !== 0) throw new Error('git log failed (is the ref name right?)')
    let commit = ''
    const toks = log.stdout.toString('utf8').split('\0')
    for (let i = 0; i < toks.length; i++) {
      const tok = toks[i].replace(/^\n/, '')
      if (tok.startsWith('\x01')) {
        commit = tok.slice(1)
        commits++
      } else if (tok.startsWith(':')) {
        const [, mode, , sha, status] = tok.slice(1).split(' ')
        const p = toks[++i]
        if (status !== 'D' && mode !== '160000' && !/^0+$/.test(sha)) blobs.push({ path: p, sha, commit })
      }
    }
  }
  // One entry per path (newest first, as git log lists); older versions of a path are scanned too,
  // since a secret added and removed inside the range still leaves with the history.
  const files: GatheredFile[] = [...pending]
  const byPath = new Map<string, { path: string; sha: string; commit: string }[]>()
  for (const b of blobs) byPath.set(b.path, [...(byPath.get(b.path) ?? []), b])
  let unlisted = 0
  for (const [p, versions] of byPath) {
    if (seen.has(p)) continue
    if (files.length >= ctx.limits.maxNames) {
      unlisted++
      continue
    }
    seen.add(p)
    files.push({
      path: p,
      how: `in ${versions.length > 1 ? `${versions.length} unpushed commits` : `unpushed commit ${versions[0].commit.slice(0, 7)}`}`,
    })
  }
  // Besides the files: the commits' messages and authors, annotated tags' messages, the refs' names, the files'
  // names and the destination all reach the other side. (Read before the blobs, which may take the rest of the time.)
  const leaving = (name: string, how: string, text: string) =>
    files.push({
      path: name,
      how,
      meta: true,
      text: text.slice(0, LEAVING_TEXT_MAX),
      digest: sha1(text),
      ...(text.length > LEAVING_TEXT_MAX
        ? { unread: `the first ${size(LEAVING_TEXT_MAX)} of ${size(text.length)}` }
        : {}),
    })
  const messages = commits
    ? (
        await git(top, ['log', '-z', '--format=%an <%ae> %cn <%ce>%n%B', ...revs, '--not', ...not, '--'], ctx)
      ).stdout.toString('utf8')
    : ''
  if (messages || lineTexts.length) leaving(LEAVING.commits, 'in the commits', [...lineTexts, messages].join('\n'))
  const tagRefs = t.push.tags
    ? ['refs/tags']
    : sources.filter((x) => /^(refs\/tags\/|v?\d)/.test(x)).map((x) => (x.startsWith('refs/') ? x : `refs/tags/${x}`))
  if (tagRefs.length) {
    const tags = (
      await git(top, ['for-each-ref', '--count=2000', '--format=%(refname)%00%(contents)%00', ...tagRefs], ctx)
    ).stdout.toString('utf8')
    if (tags.trim()) leaving(LEAVING.tags, 'in the tags', tags.replace(/\0/g, '\n'))
  }
  const refNames = [...(t.push.refspecs ?? []), ...(t.push.lineBranches ?? []), ...sources, ...(branch ? [branch] : [])]
  if (t.push.allBranches || t.push.tags)
    refNames.push(
      ...(
        await gitText(
          top,
          [
            'for-each-ref',
            '--count=5000',
            '--format=%(refname)',
            ...(t.push.allBranches ? ['refs/heads'] : []),
            ...(t.push.tags ? ['refs/tags'] : []),
          ],
          ctx,
        )
      ).split('\n'),
    )
  leaving(LEAVING.refs, 'the names of the refs pushed', refNames.join('\n'))
  leaving(
    LEAVING.names,
    'the names of the files pushed',
    files
      .filter((f) => !f.meta)
      .map((f) => f.path)
      .join('\n'),
  )
  leaving(LEAVING.destination, 'the URL pushed to', destination.push.join('\n'))
  await readBlobs(top, files, byPath, ctx)
  // Where the push goes was changed in the same line, or by options on the push itself: git's answer now is not where it will go.
  const redirected = t.redirected ?? t.push.redirected
  const moved = redirected
    ? {
        incomplete: [
          odd.incomplete,
          `where it goes is changed by \`${redirected}\` in the same command, so Ratchet cannot know the destination`,
        ]
          .filter(Boolean)
          .join('; '),
      }
    : odd
  const dest = named ? `${remote} (${destination.push.join(', ')})` : remote
  return {
    what,
    dest,
    destination,
    commits: commits + pendingCommits,
    newBranch,
    files,
    ...(unlisted ? { unlisted } : {}),
    ...moved,
  }
}

/** Text that leaves besides files (messages, names) is scanned up to this much; beyond it is unread. */
const LEAVING_TEXT_MAX = 8 << 20

/**
 * Where a push really goes. A named remote: git's own answer (`remote get-url --push --all`, which applies
 * pushurl and pushInsteadOf), and where it fetches from. A URL: rewritten by url.<base>.pushInsteadOf (else
 * insteadOf), longest match first, as git does.
 */
async function destinationOf(
  top: string,
  remote: string,
  named: boolean,
  cfg: Record<string, string>,
  ctx: Ctx,
): Promise<Destination> {
  // A local path is relative to the repository (`../remote.git`): two spellings of one folder are one destination.
  const local = (u: string) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(u) || /^[^/]*:/.test(u) ? u : path.resolve(top, u))
  if (named) {
    const push = (await gitText(top, ['remote', 'get-url', '--push', '--all', remote], ctx)).split('\n').filter(Boolean)
    const fetch = (await gitText(top, ['remote', 'get-url', remote], ctx)).trim()
    return { remote, push: push.map(local), fetch: local(fetch), configured: true }
  }
  const rules = (kind: string) =>
    Object.entries(cfg)
      .filter(([k]) => k.startsWith('url.') && k.endsWith(`.${kind}`))
      .map(([k, from]) => ({ from, to: k.slice(4, -kind.length - 1) }))
      .sort((a, b) => b.from.length - a.from.length)
  const rewrite = (url: string, kind: string) => {
    const r = rules(kind).find((x) => url.startsWith(x.from))
    return r ? r.to + url.slice(r.from.length) : undefined
  }
  const push = rewrite(remote, 'pushinsteadof') ?? rewrite(remote, 'insteadof') ?? remote
  return {
    push: [push],
    ...(push !== remote ? { fetch: rewrite(remote, 'insteadof') ?? remote } : {}),
    configured: false,
  }
}

/**
 * What the user's request says of this destination: the remote's URL when they asked, and whether they named
 * where it goes now. By its URL or repository, not the remote's name: "push to origin" means origin as it was.
 */
function askedAbout(
  top: string,
  remote: string,
  named: boolean,
  push: string[],
  ctx: Ctx,
): Pick<Destination, 'atRequest' | 'named'> {
  if (!ctx.asked) return {}
  const at = ctx.asked.remotes?.()
  // Recorded as `git remote -v` prints it: a local path relative to the repository, resolved the same way here.
  const local = (u: string) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(u) || /^[^/]*:/.test(u) ? u : path.resolve(top, u))
  return {
    ...(at ? { atRequest: named && at[remote] !== undefined ? local(at[remote]) : null } : {}),
    named: push.length > 0 && push.every((u) => ctx.asked!.prompts.some((p) => mentions(p, u))),
  }
}

/** A prompt names a remote or a URL: the word itself, or the repository's `owner/name`. */
function mentions(prompt: string, what: string): boolean {
  const p = prompt.toLowerCase()
  const w = what.toLowerCase()
  if (new RegExp(`(^|[^\\w./-])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w/-])`).test(p)) return true
  const parts = repoIdentity(w).split('/').filter(Boolean)
  return parts.length >= 2 && p.includes(parts.slice(-2).join('/'))
}

/** A `.git` in this folder or one above it: a repository is there, whether git reads it or not. */
function gitDirAbove(dir: string): boolean {
  let d = dir
  for (let i = 0; i < 40; i++) {
    if (fs.existsSync(path.join(d, '.git'))) return true
    const up = path.dirname(d)
    if (up === d) return false
    d = up
  }
  return false
}

/** Private-named entries (`.env`, `id_rsa`) in these folders that are FIFOs, sockets or devices (lstat only: never opened). */
function specialPrivateFiles(dirs: string[]): { abs: string; kind: string }[] {
  const out: { abs: string; kind: string }[] = []
  for (const dir of new Set(dirs)) {
    let names: string[]
    try {
      names = fs.readdirSync(dir)
    } catch {
      continue
    }
    for (const name of names.slice(0, 5000)) {
      if (!privateByName(name)) continue
      try {
        const st = fs.lstatSync(path.join(dir, name))
        if (st.isFIFO() || st.isSocket() || st.isCharacterDevice() || st.isBlockDevice())
          out.push({ abs: path.join(dir, name), kind: kindOf(st) })
      } catch {
        /* gone */
      }
    }
  }
  return out
}

function entriesStaged(files: GatheredFile[]): boolean {
  return files.some((f) => f.how.startsWith('staged'))
}

/** `git status --porcelain=v1 -z` entries, with the index (x) and work-tree (y) codes apart. */
function parseStatus(raw: string): StatusEntry[] {
  return statusEntries(raw).map((e) => ({ path: e.path, x: e.code[0], y: e.code[1] }))
}

/** Would this stage spec pick up this status entry? Pathspecs are relative to the command's directory. */
function wouldStage(s: StageSpec, e: StatusEntry, relDir: string): boolean {
  if (e.x === '!' && !s.force) return false
  if (e.x === '?' && !s.untracked) return false
  if (e.x !== '?' && e.x !== '!' && !'MT'.includes(e.y)) return false // deletions send nothing; already-staged is handled apart
  if (!s.pathspecs.length) return e.x !== '!'
  return s.pathspecs.some((ps) => pathspecMatches(ps, e.path, relDir))
}

function pathspecMatches(spec: string, file: string, relDir: string): boolean {
  if (spec.startsWith(':(exclude)') || spec.startsWith(':!') || spec.startsWith(':^')) return false
  let s = spec
  let base = relDir
  if (s.startsWith(':/')) {
    s = s.slice(2)
    base = ''
  } else if (s.startsWith(':(top)')) {
    s = s.slice(6)
    base = ''
  }
  const rel = path.posix
    .normalize(path.posix.join(base, s))
    .replace(/^\.(\/|$)/, '')
    .replace(/\/$/, '')
  if (rel === '' || rel === '.') return true
  if (/[*?[]/.test(rel)) {
    // Git pathspec globs: `*` crosses `/`.
    const re = new RegExp(
      '^' +
        rel
          .replace(/[.+^${}()|\\]/g, '\\$&')
          .replace(/\*/g, '.*')
          .replace(/\?/g, '.') +
        '(/.*)?$',
    )
    return re.test(file)
  }
  return file === rel || file.startsWith(rel + '/')
}

/** `git config -z --get-regexp`: "key\nvalue\0". Git lowercases section and variable names, not subsections (branch names). */
function parseConfig(raw: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of raw.split('\0')) {
    const nl = entry.indexOf('\n')
    if (nl > 0) out[entry.slice(0, nl)] = entry.slice(nl + 1)
    else if (entry) out[entry] = ''
  }
  return out
}

/** Bytes handed to the scanner at a time: large enough that its per-piece work is nothing, small enough to stream. */
const PIECE = 1 << 20

/**
 * One file's content as it is read: scanned piece by piece (lib/core/evidence.ts ContentScan), hashed, and its
 * first bytes kept when asked. Whatever is not read by the deadline is said to be unread, never clean.
 */
class Reading {
  private readonly scan: ContentScan
  private readonly hash = (require('node:crypto') as typeof import('node:crypto')).createHash('sha1')
  private decoder: StringDecoder | undefined
  private pending: Buffer[] = []
  private pendingBytes = 0
  read = 0

  constructor(
    private readonly f: GatheredFile,
    /** The file's whole size, for what the note says was read of it. */
    readonly total: number,
    ctx: Ctx,
  ) {
    this.scan = new ContentScan(f.path, ctx.recognize)
  }

  /** Takes bytes in order; scans them a piece at a time. */
  take(buf: Buffer): void {
    this.read += buf.length
    this.hash.update(buf)
    this.pending.push(buf)
    this.pendingBytes += buf.length
    if (this.pendingBytes >= PIECE) this.flush()
  }

  private flush(): void {
    if (!this.pendingBytes) return
    const buf = Buffer.concat(this.pending)
    this.pending = []
    this.pendingBytes = 0
    // The first piece says whether it is text (utf8, characters cut by a piece boundary kept whole) or binary (latin1).
    this.decoder ??= new StringDecoder(buf.subarray(0, 8000).includes(0) ? 'latin1' : 'utf8')
    this.scan.feed(this.decoder.write(buf))
  }

  /** The file is read whole (or no more will come: `why` says why the rest was not read). */
  end(why?: string): void {
    this.flush()
    if (this.decoder) this.scan.feed(this.decoder.end())
    const { secrets, known } = this.scan.result()
    this.f.found = secrets
    if (known) this.f.known = known
    if (this.read < this.total || why) this.f.unread = why ?? `read ${size(this.read)} of ${size(this.total)}`
    else this.f.digest ??= this.hash.digest('hex')
  }
}

const size = (n: number) =>
  n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(n >= 10 << 20 ? 0 : 1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`

/**
 * Reads the git blobs that would leave, whole, through one `git cat-file --batch` (streamed: a 150 MB blob is
 * scanned a megabyte at a time, never held). Suspicious names first, then the newest version of each path,
 * then older versions (a secret added and removed inside the range still leaves with the history). Whatever
 * the deadline cuts off is unread.
 */
async function readBlobs(
  top: string,
  files: GatheredFile[],
  byPath: Map<string, { sha: string }[]>,
  ctx: Ctx,
): Promise<void> {
  const ordered = [...files]
    .filter((f) => byPath.has(f.path) && f.found === undefined)
    .sort((a, b) => Number(!!privateByName(b.path)) - Number(!!privateByName(a.path)))
  const want: { file: GatheredFile; sha: string; older: boolean }[] = []
  for (const f of ordered) want.push({ file: f, sha: byPath.get(f.path)![0].sha, older: false })
  for (const f of ordered) for (const v of byPath.get(f.path)!.slice(1)) want.push({ file: f, sha: v.sha, older: true })
  const budget = Math.max(0, ctx.limits.maxFiles - ctx.read)
  for (const w of want.slice(budget)) if (!w.older) w.file.unread = 'over the limit of files read'
  const chosen = want.slice(0, budget)
  if (!chosen.length) return
  ctx.read += chosen.length
  for (const w of chosen) if (!w.older) w.file.digest = w.sha
  // One reading per blob id; an older version of a path is read into an entry of its own, merged into the path's below.
  const sinks = new Map<string, GatheredFile[]>()
  const older: [GatheredFile, GatheredFile][] = []
  for (const w of chosen) {
    const sink = w.older ? { path: w.file.path, how: w.file.how } : w.file
    if (w.older) older.push([w.file, sink])
    sinks.set(w.sha, [...(sinks.get(w.sha) ?? []), sink])
  }
  const opened = new Set<string>()
  await catFile(
    top,
    [...sinks.keys()],
    (sha, n) => {
      const to = sinks.get(sha)
      if (!to) return undefined
      opened.add(sha)
      return new Reading(to[0], n, ctx)
    },
    ctx,
  )
  for (const [sha, to] of sinks) {
    if (!opened.has(sha))
      to[0].unread ??= Date.now() >= ctx.deadline ? 'not read before the time ran out' : 'git did not give its content'
    for (const other of to.slice(1))
      Object.assign(other, { found: to[0].found, known: to[0].known, unread: to[0].unread })
  }
  // An older version's secrets are the path's secrets: it leaves with the history.
  for (const [f, v] of older) {
    f.found = [...new Set([...(f.found ?? []), ...(v.found ?? [])])]
    if (v.known) f.known = Math.max(f.known ?? 0, v.known)
    if (v.unread) f.unread ??= `an older version: ${v.unread}`
  }
}

/**
 * `git cat-file --batch` over these blob ids, streamed: each blob's bytes go to the reading `open` gives it.
 * Stops at the deadline (the readings still open end as unread).
 */
function catFile(
  top: string,
  shas: string[],
  open: (sha: string, size: number) => Reading | undefined,
  ctx: Ctx,
): Promise<void> {
  if (Date.now() >= ctx.deadline) return Promise.resolve()
  const { spawn } = require('node:child_process') as typeof import('node:child_process')
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-C', top, 'cat-file', '--batch'], {
      cwd: top,
      env: ctx.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'ignore'],
    })
    ctx.children.add(child)
    let header = Buffer.alloc(0)
    let current: Reading | undefined
    let left = -1 // bytes of the current blob still to come; -1: reading a header; 0: its closing newline
    let timeUp = false
    const finish = () => {
      ctx.children.delete(child)
      current?.end(
        timeUp || Date.now() >= ctx.deadline
          ? `read ${size(current.read)} of ${size(current.total)} before the time ran out`
          : undefined,
      )
      current = undefined
      resolve()
    }
    child.stdout!.on('data', (chunk: Buffer) => {
      if (timeUp) return
      if (Date.now() >= ctx.deadline) {
        timeUp = true
        killGroup(child)
        return
      }
      let off = 0
      while (off < chunk.length) {
        if (left < 0) {
          const nl = chunk.indexOf(10, off)
          if (nl < 0) {
            header = Buffer.concat([header, chunk.subarray(off)])
            return
          }
          const line = Buffer.concat([header, chunk.subarray(off, nl)]).toString('utf8')
          header = Buffer.alloc(0)
          off = nl + 1
          const [sha, type, n] = line.split(' ')
          if (type === 'missing' || n === undefined) continue
          left = Number(n)
          current = open(sha, left)
          if (left === 0) {
            current?.end()
            current = undefined
            left = 0
          }
          continue
        }
        if (left === 0) {
          off++ // the newline after the blob
          left = -1
          continue
        }
        const take = Math.min(left, chunk.length - off)
        current?.take(chunk.subarray(off, off + take))
        off += take
        left -= take
        if (left === 0) {
          current?.end()
          current = undefined
        }
      }
    })
    child.on('error', (e) => {
      ctx.children.delete(child)
      reject(e)
    })
    child.on('close', finish)
    child.stdin!.on('error', () => undefined)
    child.stdin!.end(shas.join('\n') + '\n')
  })
}

/** Reads working-tree files whole (streamed), within the limit of files and the deadline. */
function readWorktree(root: string, files: GatheredFile[], ctx: Ctx): void {
  const order = [...files].sort((a, b) => Number(!!privateByName(b.path)) - Number(!!privateByName(a.path)))
  for (const f of order) {
    if (f.found !== undefined || f.text !== undefined) continue
    if (ctx.read >= ctx.limits.maxFiles) {
      f.unread = 'over the limit of files read'
      continue
    }
    ctx.read++
    readInto(path.resolve(root, f.path), f, ctx)
  }
}

function readInto(abs: string, f: GatheredFile, ctx: Ctx): void {
  let fd: number | undefined
  try {
    // Non-blocking: opening a FIFO for reading waits for a writer, and the hook would hang on it.
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
    const st = fs.fstatSync(fd)
    if (!st.isFile()) {
      f.partial = 'not a regular file'
      f.special = kindOf(st)
      return
    }
    if (Date.now() >= ctx.deadline) {
      f.unread = 'not read before the time ran out'
      return
    }
    const reading = new Reading(f, st.size, ctx)
    const buf = Buffer.allocUnsafe(Math.min(PIECE, Math.max(1, st.size)))
    let pos = 0
    let why: string | undefined
    while (pos < st.size) {
      if (Date.now() >= ctx.deadline) {
        why = `read ${size(pos)} of ${size(st.size)} before the time ran out`
        break
      }
      const got = fs.readSync(fd, buf, 0, buf.length, pos)
      if (got <= 0) break
      reading.take(Buffer.from(buf.subarray(0, got)))
      pos += got
    }
    reading.end(why)
  } catch (e) {
    f.partial = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'could not be read'
    if (f.partial !== 'does not exist') f.unread = 'could not be read'
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

// ---- packages: the file list npm would publish -----------------------------------------------------

async function gatherPackage(t: Extract<EvidenceTarget, { kind: 'package' }>, ctx: Ctx): Promise<Gathered> {
  const what = `\`${oneLine(t.command)}\``
  if (t.tarball) {
    const r = await run('tar', ['-tzf', t.tarball], path.dirname(t.tarball), ctx)
    if (r.code !== 0) return { what, files: [], incomplete: `could not list ${t.tarball}` }
    const files = r.stdout
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((p) => ({
        path: p.replace(/^package\//, ''),
        how: 'in the tarball',
        partial: 'inside a tarball (names checked, contents not read)',
      }))
    return { what, files, incomplete: 'the contents inside a tarball are not scanned' }
  }
  // No package.json: npm publishes nothing from here (it fails).
  if (!fs.existsSync(path.join(t.dir, 'package.json')))
    return { what: `${what} (no package.json: nothing to publish)`, files: [] }
  // --ignore-scripts: a check must not run the project's build; the list is of the files as they are now.
  // npm itself takes ~0.4-1.5 s to start on a busy machine: it gets most of the budget, and if it does not
  // answer, Ratchet lists the package itself (npm's rules, erring on the side of including).
  const reserve = 250
  let list: { files?: { path: string }[] }[] | undefined
  try {
    const r = await run(
      'npm',
      ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=silent'],
      t.dir,
      ctx,
      undefined,
      16 << 20,
      Math.max(0, ctx.deadline - Date.now() - reserve),
    )
    list = JSON.parse(r.stdout.toString('utf8'))
  } catch (e) {
    if (e instanceof Timeout) throw e
  }
  const names = list?.[0]?.files?.map((f) => f.path) ?? packageFiles(t.dir, ctx)
  if (!names) return { what, files: [], incomplete: 'neither `npm pack --dry-run` nor Ratchet could list the package' }
  const files: GatheredFile[] = names.map((p) => ({ path: p, how: 'in the package' }))
  readWorktree(t.dir, files, ctx)
  return { what: list ? what : `${what} (file list by Ratchet: npm did not answer in time)`, files }
}

// npm always leaves these out, whatever `files` or .npmignore say.
const NPM_NEVER =
  /(^|\/)(\.git|node_modules|\.npmrc|npm-debug\.log|\.DS_Store|\.[^/]*\.swp|\._[^/]*|\.wafpickle-\d+|CVS|\.svn|\.hg|\.lock-wscript|config\.gypi|[^/]*\.orig|package-lock\.json)(\/|$)/
const NPM_ALWAYS = /^(package\.json|README[^/]*|LICEN[CS]E[^/]*|CHANGELOG[^/]*)$/i

/**
 * The files npm would publish, by its rules, approximately and never fewer: the `files` list (plus
 * package.json, README, LICENSE), else everything not excluded by .npmignore (or .gitignore without one).
 */
function packageFiles(dir: string, ctx: Ctx): string[] | undefined {
  let pkg: { files?: unknown; main?: unknown }
  try {
    pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
  } catch {
    return undefined
  }
  const all: string[] = []
  walk(
    dir,
    (f) => {
      const rel = path.relative(dir, f)
      if (!NPM_NEVER.test(rel)) all.push(rel)
    },
    ctx,
  )
  if (Array.isArray(pkg.files)) {
    const entries = pkg.files
      .filter((x): x is string => typeof x === 'string')
      .map((x) => x.replace(/^\.\//, '').replace(/\/$/, ''))
    const hit = (rel: string) => entries.some((e) => rel === e || rel.startsWith(e + '/') || globRe(e).test(rel))
    return all.filter((rel) => NPM_ALWAYS.test(rel) || hit(rel) || rel === pkg.main)
  }
  const ignoreFile = ['.npmignore', '.gitignore'].map((n) => path.join(dir, n)).find((f) => fs.existsSync(f))
  const patterns = ignoreFile
    ? fs
        .readFileSync(ignoreFile, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#') && !l.startsWith('!'))
    : []
  // Erring on the side of including: a negation (`!x`) is not undone, but an ignore pattern must match plainly.
  const ignored = (rel: string) =>
    patterns.some((p) => {
      const q = p.replace(/^\//, '').replace(/\/$/, '')
      const re = globRe(q)
      return rel
        .split('/')
        .some((_, i, parts) => re.test(parts.slice(0, i + 1).join('/')) || (!q.includes('/') && re.test(parts[i])))
    })
  return all.filter((rel) => NPM_ALWAYS.test(rel) || !ignored(rel))
}

function globRe(glob: string): RegExp {
  return new RegExp(
    '^' +
      glob
        .replace(/[.+^${}()|\\]/g, '\\$&')
        .replace(/\*\*\/?/g, '\u0000')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]')
        .replaceAll('\u0000', '.*') +
      '$',
  )
}

// ---- uploads: named files, directories walked --------------------------------------------------------

function gatherFiles(
  paths: string[],
  command: string,
  dest: string | undefined,
  ctx: Ctx,
  how = 'sent by the upload',
  optional = false,
): Gathered {
  const files: GatheredFile[] = []
  let unlisted = 0
  const where = new Map<GatheredFile, string>()
  const add = (abs: string, shown: string, how: string) => {
    if (files.length >= ctx.limits.maxNames) return void unlisted++
    const f: GatheredFile = { path: shown, how, ...linkTarget(abs, shown) }
    files.push(f)
    where.set(f, abs)
  }
  for (const p of paths) {
    if (p.startsWith(`<body>`)) {
      files.push(bodyFile(p.slice(6), BODY, 'sent as the request body', ctx))
      continue
    }
    // Devices that hold nothing of the user's (`ssh h cmd < /dev/null`): nothing private leaves through them.
    if (/^\/dev\/(null|zero|u?random|full)$/.test(p)) continue
    for (const abs of expandGlob(p)) {
      let st: fs.Stats | undefined
      try {
        st = fs.statSync(abs)
      } catch {
        /* missing: the command will fail on it, but say so */
      }
      // A reader's operand that is not a file (a value, a pattern) reads nothing, unless its name is private.
      if (!st && optional && !privateByName(abs)) continue
      if (st?.isDirectory()) {
        walk(abs, (file) => add(file, path.relative(path.dirname(abs), file), `in ${path.basename(abs)}/, ${how}`), ctx)
      } else add(abs, displayPath(abs), how)
    }
  }
  const order = [...where].sort(([a], [b]) => Number(!!privateByName(b.path)) - Number(!!privateByName(a.path)))
  let n = 0
  for (const [f, abs] of order) {
    if (n++ >= ctx.limits.maxFiles) {
      f.unread = 'over the limit of files read'
      continue
    }
    readInto(abs, f, ctx)
  }
  // A file that does not exist yet is made by an earlier command in the line: what it holds is unknown.
  const missing = files.filter((f) => f.partial === 'does not exist').map((f) => `\`${f.path}\``)
  // A FIFO, socket or device is never read (it could hang, or never end): what it yields is unknown.
  const special = files.filter((f) => f.special).map((f) => `\`${f.path}\` is ${f.special}`)
  const why = [
    ...(missing.length
      ? [
          `${missing.slice(0, 3).join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist yet, so ${missing.length === 1 ? 'its' : 'their'} contents cannot be checked`,
        ]
      : []),
    ...(special.length ? [`${special.slice(0, 3).join(', ')}: what it would send cannot be known before it runs`] : []),
  ]
  const incomplete = why.length ? why.join('; ') : undefined
  return {
    what: `\`${oneLine(command)}\``,
    dest,
    files,
    ...(unlisted ? { unlisted } : {}),
    ...(incomplete ? { incomplete } : {}),
  }
}

/** Text sent as it is (a request body, a URL, a query, a tool's input): scanned up to the limit, the rest unread. */
function bodyFile(text: string, name: string, how: string, ctx: Ctx): GatheredFile {
  const max = ctx.limits.maxBytesPerFile
  return {
    path: name,
    how,
    text: text.slice(0, max),
    digest: sha1(text),
    ...(name !== BODY ? { meta: true } : {}),
    ...(text.length > max ? { unread: `the first ${size(max)} of ${size(text.length)}` } : {}),
  }
}

function sha1(text: string): string {
  return (require('node:crypto') as typeof import('node:crypto')).createHash('sha1').update(text).digest('hex')
}

function kindOf(st: fs.Stats): string {
  return st.isFIFO()
    ? 'a FIFO'
    : st.isSocket()
      ? 'a socket'
      : st.isCharacterDevice() || st.isBlockDevice()
        ? 'a device'
        : 'not a regular file'
}

/**
 * What a file really is when its name hides it: a symbolic link's final target (`k.txt` → `.env`), or for a
 * file with several hard links, a private-named sibling with the same inode (in its folder or the working
 * folder). Private by name is judged on that too, so a link made earlier cannot launder a name.
 */
function linkTarget(abs: string, shown: string): { target?: string } {
  try {
    const lst = fs.lstatSync(abs)
    if (lst.isSymbolicLink()) {
      const real = fs.realpathSync(abs)
      return real !== abs ? { target: displayPath(real) } : {}
    }
    if (lst.isFile() && lst.nlink > 1) {
      for (const dir of new Set([path.dirname(abs), process.cwd()])) {
        for (const name of fs.readdirSync(dir).slice(0, 2000)) {
          if (!privateByName(name) || path.join(dir, name) === abs) continue
          const st = fs.lstatSync(path.join(dir, name))
          if (st.ino === lst.ino && st.dev === lst.dev) return { target: displayPath(path.join(dir, name)) }
        }
      }
    }
  } catch {
    /* missing or unreadable: judged by its own name */
  }
  void shown
  return {}
}

function displayPath(abs: string): string {
  const rel = path.relative(process.cwd(), abs)
  return rel && !rel.startsWith('..') ? rel : abs
}

function walk(dir: string, each: (file: string) => void, ctx: Ctx, depth = 0): void {
  if (depth > 20 || Date.now() >= ctx.deadline) return
  let entries: fs.Dirent[]
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const e of entries) {
    const abs = path.join(dir, e.name)
    if (e.isDirectory()) {
      if (e.name !== '.git') walk(abs, each, ctx, depth + 1)
    } else if (e.isFile() || e.isSymbolicLink()) each(abs)
  }
}

/** The shell would expand `dist/*`; the command line reader keeps it literal. Globs in the last segment. */
function expandGlob(p: string): string[] {
  const base = path.basename(p)
  if (!/[*?[]/.test(base)) return [p]
  const dir = path.dirname(p)
  const re = new RegExp(
    '^' +
      base
        .replace(/[.+^${}()|\\]/g, '\\$&')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '.') +
      '$',
  )
  try {
    const hits = fs.readdirSync(dir).filter((n) => re.test(n) && (!n.startsWith('.') || base.startsWith('.')))
    return hits.length ? hits.map((n) => path.join(dir, n)) : [p]
  } catch {
    return [p]
  }
}

function oneLine(s: string, max = 100): string {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > max ? t.slice(0, max - 1) + '…' : t
}

/**
 * The evidence for one tool call, or undefined when the call sends and stages nothing Ratchet gathers
 * (most calls: then no process is started and nothing is read). `known` is asked only when something would
 * leave: it recognises the secrets this session has seen (lib/io/known-secrets.ts).
 */
export async function evidenceForCall(
  call: { tool_name: string; tool_input: Record<string, unknown>; cwd?: string },
  projectDir: string,
  home: string,
  opts: GatherOptions & { known?: () => Recognizer | undefined } = {},
): Promise<EvidenceFacts | undefined> {
  const commands = shellCommandsOf(call.tool_name, call.tool_input)
  const sent = sentByTool(call.tool_name, call.tool_input)
  if (!commands.length && !sent.length) return undefined
  // Scripts on disk the command runs are read (bounded, regular files only) so a push inside one is gathered too.
  const start = call.cwd || projectDir
  const reader = (file: string, cwdChanges: string[]) => {
    let dir = start
    for (const d of cwdChanges) dir = path.resolve(dir, d.replace(/^~(?=\/|$)/, home))
    const abs = path.resolve(dir, file.replace(/^~(?=\/|$)/, home))
    const got = readScript(abs)
    return got && { abs, ...got }
  }
  const plan = commands.length
    ? planEvidence(commands.join('\n'), start, home, reader, projectDir)
    : { targets: [], incomplete: false }
  plan.targets.push(...sent)
  if (!plan.targets.length) return undefined
  const recognize = opts.recognize ?? safely(opts.known)
  return assessEvidence(await gatherEvidence(plan, { ...opts, recognize }), recognize)
}

/** A failure to build the recognizer (an unreadable key) leaves the scan for well-known shapes only: logged by the caller's log, never fatal. */
function safely(known: (() => Recognizer | undefined) | undefined): Recognizer | undefined {
  try {
    return known?.()
  } catch {
    return undefined
  }
}

/**
 * What a tool other than a shell sends off the machine as it is: a web fetch's URL (its path and query reach
 * the host), a web search's query, and an MCP tool's input (the server is another program, often on another
 * machine). A command in an MCP shell tool's input is planned as shell instead.
 */
function sentByTool(tool: string, input: Record<string, unknown>): EvidenceTarget[] {
  const str = (v: unknown) => (typeof v === 'string' ? v : '')
  if (tool === 'WebFetch')
    return str(input.url)
      ? [
          {
            kind: 'body',
            name: LEAVING.url,
            text: str(input.url),
            command: `WebFetch ${oneLine(str(input.url), 80)}`,
            dest: hostOf(str(input.url)),
          },
        ]
      : []
  if (tool === 'WebSearch')
    return str(input.query)
      ? [
          {
            kind: 'body',
            name: LEAVING.query,
            text: str(input.query),
            command: `WebSearch ${oneLine(str(input.query), 80)}`,
            dest: 'a web search',
          },
        ]
      : []
  if (!tool.startsWith('mcp__')) return []
  const texts: string[] = []
  const walk = (v: unknown, key: string, depth: number): void => {
    if (depth > 6 || texts.length > 500) return
    if (typeof v === 'string') {
      if (!SHELL_INPUT_KEYS.has(key)) texts.push(v)
    } else if (Array.isArray(v)) for (const x of v) walk(x, key, depth + 1)
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k, depth + 1)
  }
  walk(input, '', 0)
  const text = texts.join('\n')
  return text
    ? [{ kind: 'body', name: LEAVING.input, text, command: tool, dest: `the ${tool.split('__')[1] ?? ''} MCP server` }]
    : []
}

const SHELL_INPUT_KEYS = new Set(['command', 'cmd', 'script', 'shell', 'bash'])

function hostOf(url: string): string | undefined {
  return /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:?#]+)/i.exec(url)?.[1]
}
