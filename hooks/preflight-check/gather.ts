// The I/O side of PreToolUse, part 1: read every fact the decision needs, once, into one value.
// Expensive facts (the capabilities file, full rule texts, git HEAD) are functions, read only when the
// decision asks for them: most calls are reads and simple commands that never do.

import { secretFileFacts } from '../../lib/io/secret-files'
import fs from 'node:fs'
import path from 'node:path'
import { readRegularFile } from '../../lib/io/store'
import { fingerprint } from '../../lib/core/fingerprint'
import type { PendingEntry } from '../../lib/core/pending'
import type { PayloadOf } from '../../lib/core/payloads'
import { currentBranch, fileStates } from '../../lib/io/git'
import { fsFacts, packageDirOf } from '../../lib/io/fs-facts'
import { lossFacts } from '../../lib/io/loss-facts'
import { destroyedState } from '../../lib/io/destroyed'
import { holdFile, readState } from '../../lib/io/custodiet-state'
import { custodietConfig } from '../../lib/io/custodiet-config'
import { queueEntries } from '../../lib/io/queue'
import { probationFile } from '../../lib/io/courtroom/files'
import { readProbation } from '../../lib/io/courtroom/probation'
import { homeDir } from '../../lib/io/paths'
import { loadGuardrails, ruleIndexOf } from '../../lib/io/guardrails'
import { readConfig } from '../../lib/io/config'
import { readSession } from '../../lib/io/session-state'
import { warmSpools } from '../../lib/io/package-root'
import type { Paths } from '../../lib/io/registry'
import { telegramConfig } from '../../lib/io/telegram-config'
import { floorHold, sandboxedCall } from '../../lib/io/floor'
import type { Finding as HoldFinding } from '../../lib/core/custodiet'
import type { PreflightFacts, QueueFacts } from './facts'
import { capabilitiesUsed, isHeadless } from './pause'

export function gatherFacts(
  payload: PayloadOf<'PreToolUse'>,
  paths: Paths,
  env: NodeJS.ProcessEnv = process.env,
  now = Date.now(),
): PreflightFacts {
  const loaded = loadGuardrails(paths)
  const rules = ruleIndexOf(loaded, () => loadGuardrails(paths, { full: true, fold: false }).rules)
  const { config, problem } = readConfig(paths)
  // Bound to the folder it runs in: an approval of `git push` in one repository is not one in another.
  const fp = fingerprint(payload.tool_name, payload.tool_input, payload.cwd || paths.projectDir)
  let caps: Set<string> | undefined
  // The seed's mandatory first-use pause is the built-in RG-FIRST-USE (tuned or turned off by id), or off in config.
  const firstUse = loaded.rules.find((r) => r.id === 'RG-FIRST-USE')
  const firstUseOn = config.firstUsePause !== false && firstUse?.enabled !== false
  return {
    now,
    fingerprint: fp,
    projectDir: paths.projectDir,
    homeDir: homeDir(),
    stateDir: paths.stateDir,
    rules,
    problems: [...loaded.problems, ...(problem ? [problem] : [])],
    fallback: loaded.origin === 'packaged-fallback' ? 'packaged' : loaded.origin === 'last-good' ? 'last-good' : false,
    session: readSession(paths, payload.session_id),
    queue: queueFacts(queueEntries(paths), fp, payload.session_id),
    hold: readHold(paths, payload.session_id),
    floorHold: floorHold(paths),
    sandboxed: sandboxedCall(
      paths,
      (config as { floor?: unknown }).floor === 'best-effort' ? 'best-effort' : 'sandbox',
      payload.tool_name,
      typeof payload.tool_input.command === 'string' ? payload.tool_input.command : '',
    ),
    // The courtroom: nothing of it loads here; its small probation file is read only when it exists.
    probation: fs.existsSync(probationFile(paths))
      ? {
          list: readProbation(paths),
          moderate:
            (config as { courtroom?: { probation?: { moderate?: string } } }).courtroom?.probation?.moderate === 'ask'
              ? 'ask'
              : 'check',
        }
      : undefined,
    config: {
      checkWindowMs: (config.checkWindowSeconds ?? 600) * 1000,
      defer: config.headlessDefer !== false && isHeadless(env),
      telegram: !!telegramConfig(env, config),
      firstUse: firstUse?.decision === 'ask' ? 'ask' : 'pause',
    },
    fileExists: fs.existsSync,
    currentBranch,
    publicRemote: (dir) => {
      const setting = (config as { publicRemotes?: unknown }).publicRemotes
      return !!setting && isPublicRemote(remoteUrls(dir), setting)
    },
    fileState: fileStates(paths.projectDir),
    // Evidence of loss: asked only when a call deletes something the classifier could not call recoverable.
    loss: (deleted, created) =>
      lossFacts({ projectDir: paths.projectDir, created, homeDir: homeDir(), stateDir: paths.stateDir })(deleted),
    destroyed: (findings, deleted) => destroyedState(findings, deleted, env),
    fs: fsFacts(),
    packageDir: packageDirOf(__dirname),
    configHome: paths.configHome,
    warmDirs: warmSpools(env),
    env: (name) => env[name],
    ...secretFileFacts({ projectDir: paths.projectDir, homeDir: homeDir() }),
    routeAroundLevel: () => {
      const { policy } = custodietConfig(paths)
      return Math.min(
        4,
        (policy.levels.route_around ?? 2) +
          (policy.escalate ? readState(paths, payload.session_id).findings.length : 0),
      )
    },
    isNewCapability: !firstUseOn ? undefined : (p) => !(caps ??= capabilitiesUsed(paths)).has(p),
  }
}

/** What the queue says about this call and session (read without the lock; apply.ts re-checks under it). */
export function queueFacts(entries: PendingEntry[], fp: string, session: string): QueueFacts {
  const q: QueueFacts = { undelivered: [] }
  for (const e of entries) {
    if (e.fingerprint === fp) {
      if (e.status === 'approved') {
        q.approved ??= e
        ;(q.approvals ??= []).push(e)
      }
      if (e.status === 'pending') {
        q.open = e
        ;(q.opens ??= []).push(e)
      }
      if (e.status === 'denied' && e.session_id === session) q.denied = e
    }
    if (e.session_id === session && e.delivered === false && e.status !== 'pending') q.undelivered.push(e)
  }
  return q
}

/** Forges whose repositories are often public: `"publicRemotes": "forges"` counts a remote there as public. */
const PUBLIC_FORGES = ['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org', 'git.sr.ht', 'huggingface.co']

/**
 * config.json `publicRemotes`: whether a local add/commit counts as the seed's commit_to_public_repo. false or
 * absent (default: only a push does), true (any remote), "forges" (PUBLIC_FORGES), or a list of host names.
 * Whether a repository is public cannot be known offline, so the user says so. No remote, never public.
 */
export function isPublicRemote(urls: string[], setting: unknown): boolean {
  if (!urls.length || !setting) return false
  if (setting === true) return true
  const hosts = Array.isArray(setting)
    ? setting.filter((h): h is string => typeof h === 'string')
    : setting === 'forges'
      ? PUBLIC_FORGES
      : []
  return urls.some((u) => {
    const host = (/^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:]+)/i.exec(u) ??
      /^(?:[^@/]*@)?([^/:]+):/.exec(u))?.[1]?.toLowerCase()
    return !!host && hosts.some((h) => host === h.toLowerCase() || host.endsWith('.' + h.toLowerCase()))
  })
}

/** The remote URLs in the .git/config of the repository containing `dir` (never reads a non-regular file). */
function remoteUrls(dir: string): string[] {
  let d = dir
  for (let i = 0; i < 40; i++) {
    const dotgit = path.join(d, '.git')
    try {
      const st = fs.statSync(dotgit)
      let gitDir = dotgit
      if (st.isFile()) {
        const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotgit, 'utf8'))
        if (!m) return []
        gitDir = path.resolve(d, m[1].trim())
        // A worktree's config lives in the common dir.
        const common = path.join(gitDir, 'commondir')
        if (fs.existsSync(common) && fs.statSync(common).isFile())
          gitDir = path.resolve(gitDir, fs.readFileSync(common, 'utf8').trim())
      }
      const cfg = path.join(gitDir, 'config')
      if (!fs.statSync(cfg).isFile()) return []
      return [...fs.readFileSync(cfg, 'utf8').matchAll(/^\s*(?:push)?url\s*=\s*(.+?)\s*$/gm)].map((m) => m[1])
    } catch {
      const up = path.dirname(d)
      if (up === d) return []
      d = up
    }
  }
  return []
}

function readHold(paths: Paths, session: string): HoldFinding | null {
  const file = holdFile(paths, session)
  if (!fs.existsSync(file)) return null
  try {
    return JSON.parse(readRegularFile(file)) as HoldFinding // never blocks on a planted FIFO
  } catch (e) {
    // A hold that exists but cannot be read is not "no hold": it is read as the strictest one (level 4).
    const why = e instanceof SyntaxError ? 'not valid JSON' : (e as Error).message.replace(`${file}: `, '')
    return {
      at: 'an unreadable hold file',
      level: 4,
      verdict: {
        issue: `${file} exists but cannot be read (${why}).`,
        correction: 'Read as the strictest hold until the user fixes or removes it.',
      },
    } as HoldFinding
  }
}
