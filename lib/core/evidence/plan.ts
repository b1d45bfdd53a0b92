// Evidence for a public-surface check: what a call would send off the machine, and what in it must not
// leave. Pure: the plan is read from the command, the facts are computed from what lib/io/evidence.ts
// gathered (file names, how they would leave, their first bytes). No fs, env, clock or child process.
//
// Three steps:
//   planEvidence(command)  → which things to look at (a push and the staging before it, a package, a file)
//   scanFile(path, text)   → why one file must not leave (a secret in it, or a private file by its name:
//                            content-scan.ts, private-names.ts, secrets-in-text.ts)
//   assessEvidence(found)  → one fact for the decision: clean / hazard / incomplete, and the note's lines
//                            (assess.ts; decision.ts says what the decision does with it)
// This module is the first: it reads the line and hands each command to the planner for its kind.

import { type CommandLine, type Invocation, readCommandLine, type ScriptReader, shellCallsIn } from '../commands'
import { publicServer } from '../actions/serve'
import { argumentsSent, carriedSecrets } from './arguments-sent'
import { type GitLine, gitStep } from './git-line'
import { snippetSends } from './interpreter-code'
import { outsideRepoPush } from './outside-repo'
import { PACKAGERS } from './packagers'
import { privateByName } from './private-names'
import { cwdOf, type EvidencePlan, type EvidenceTarget, oneLine, resolvePath, worstCasePush } from './targets'
import { uploadOf } from './uploads'

/**
 * Reads a Bash command into the things whose contents would leave or be staged. `cwd` is the directory
 * the command starts in (absolute); `home` resolves `~`.
 */
export function planEvidence(
  command: string,
  cwd: string,
  home = '/',
  reader?: ScriptReader,
  project?: string,
): EvidencePlan {
  // With a reader, a push inside a script on disk (`sh release.sh`, `npm run release`) is planned like a typed one.
  const line = readCommandLine(command, reader)
  const targets: EvidenceTarget[] = []
  const invs = line.invocations
  const touched: { path: string; by: string }[] = []
  const git: GitLine = {
    byDir: new Map(),
    targets,
    redirects: /\bGIT_CONFIG_(COUNT|PARAMETERS|GLOBAL|SYSTEM)\b/.test(command)
      ? ['GIT_CONFIG_* in the environment']
      : [],
    branches: new Map(),
    starts: new Map(),
  }
  for (let i = 0; i < invs.length; i++) {
    const inv = invs[i]
    const dir = cwdOf(inv, cwd, home)
    const abs = (p: string) => resolvePath(p, dir, home)
    const cmd = [inv.name, ...inv.args].join(' ')
    if (inv.name !== 'git') touched.push(...privateFilesTouched(inv, abs, cmd))
    const served = servedFolder(inv, abs, cmd)
    if (served) targets.push(served)
    // Into another repository's objects or refs, by git or by a file write: a push there (see outsideRepoPush).
    const outside = project ? outsideRepoPush(inv, dir, home, cmd, project) : undefined
    if (outside) targets.push(outside)
    if (inv.name === 'git') {
      gitStep(inv, dir, home, cmd, git)
      for (const t of git.byDir.values()) if (touched.length && t.stages.length) t.touched = [...touched]
    }
    // `gh repo create --source . --push` pushes the local commits to the new repository.
    else if (inv.name === 'gh' && inv.args[0] === 'repo' && inv.args[1] === 'create' && inv.args.includes('--push')) {
      const src = inv.args[inv.args.indexOf('--source') + 1]
      targets.push({
        ...worstCasePush(inv.args.includes('--source') && src ? abs(src) : dir, cmd),
        stages: [],
        commits: 0,
      })
    } else if (PACKAGERS[inv.name]) {
      const t = PACKAGERS[inv.name](inv.args, dir, abs, cmd)
      if (t) targets.push(t)
    } else {
      const t = uploadOf(inv, invs[i - 1], abs, cmd)
      if (t) targets.push(t)
    }
  }
  targets.push(
    ...carriedSecrets(command, invs, cwd, home),
    ...snippetSends(line.snippets, cwd, home, command, reader),
    ...argumentsSent(invs),
  )
  if (/\bGIT_(DIR|WORK_TREE)=/.test(command)) for (const t of git.byDir.values()) t.uncertain = true
  // A push Ratchet cannot read (inside an interpreter one-liner, an unreadable line): its worst reading.
  if (!targets.some((t) => t.kind === 'git' && t.push) && hiddenPush(line, command))
    targets.push(worstCasePush(cwd, command))
  // A commit alone stages nothing new and sends nothing: no evidence to gather for it.
  return { targets: targets.filter((t) => t.kind !== 'git' || t.stages.length || t.push), incomplete: line.incomplete }
}

/**
 * Private files (by name) a command other than git reads or writes: what a later `git add` picks up may be them.
 * Programs whose arguments are text or that cannot copy content into another file count only by
 * what they redirect into (`echo .env >> .gitignore` is the fix, not a leak; `echo x > .env` is not).
 */
function privateFilesTouched(inv: Invocation, abs: (p: string) => string, cmd: string): { path: string; by: string }[] {
  const words = NO_COPY.has(inv.name)
    ? inv.redirects.filter((r) => r.op.startsWith('>') || r.op.startsWith('&>')).map((r) => r.target)
    : [...inv.args.filter((x) => !x.startsWith('-')), ...inv.redirects.map((r) => r.target)]
  return words
    .filter((w) => w && privateByName(w)?.kind === 'private_file')
    .map((w) => ({ path: abs(w), by: oneLine(cmd) }))
}

/** A file server on every interface: what the folder holds is there for anyone to fetch. */
function servedFolder(inv: Invocation, abs: (p: string) => string, cmd: string): EvidenceTarget | undefined {
  const served = publicServer(inv, abs)
  if (!served?.dir) return undefined
  return {
    kind: 'files',
    paths: [served.dir],
    command: cmd,
    dest: served.host,
    how: `served to ${served.host} by \`${oneLine(cmd, 60)}\``,
  }
}

/**
 * Whether the line mentions a push Ratchet could not read: in an interpreter one-liner, or in a line it could not
 * read whole. (A script read from disk counts by the shell commands it runs, not by every mention of `git push` in
 * its text.)
 */
function hiddenPush(line: CommandLine, command: string): boolean {
  return (
    line.snippets.some((sn) =>
      /\bgit\b[\s\S]*\bpush\b|["']push["']/.test(sn.origin ? shellCallsIn(sn.code, sn.lang).join('\n') : sn.code),
    ) ||
    (line.incomplete && /\bgit\b[\s\S]*\bpush\b/.test(command))
  )
}

const NO_COPY = new Set([
  'echo',
  'printf',
  'source',
  '.',
  'test',
  '[',
  '[[',
  'ls',
  'stat',
  'file',
  'wc',
  'du',
  'rm',
  'unlink',
  'shred',
  'chmod',
  'chown',
  'realpath',
  'readlink',
  'basename',
  'dirname',
  'grep',
  'export',
  'unset',
  'true',
  'false',
  'cd',
  'pushd',
  'popd',
  'touch',
  'mkdir',
])
