// The git commands of one line, read into one target per repository: what `git add` and `git commit -a` stage,
// the messages the line writes, the push at the end and where it goes (an alias, a `-c` that redirects it).

import type { Invocation } from '../commands'
import { splitWords } from '../shell'
import { type EvidenceTarget, type LineMessage, oneLine, resolvePath, worstCasePush } from './targets'

export const GIT_GLOBAL_WITH_VALUE = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--exec-path',
  '--config-env',
])

type GitTarget = Extract<EvidenceTarget, { kind: 'git' }>

/** One git command of the line, its global options read: the subcommand and what follows it, where it runs. */
interface GitCall {
  dir: string
  home: string
  cmd: string
  sub: string
  rest: string[]
  /** `-c remote.origin.pushurl=…` or `--config-env` on the command itself. */
  redirectedBy?: string
  /** The line's target for this repository, made when a command first adds to it. */
  repo: () => GitTarget
}

/** What the git commands of one line have done so far, for the ones after them. */
export interface GitLine {
  /** The line's target per repository, made when a command first adds to it. */
  byDir: Map<string, GitTarget>
  targets: EvidenceTarget[]
  /** Commands earlier in the line that change where a push goes (`git remote set-url`, `git config url.…`). */
  redirects: string[]
  /**
   * Per repository, the branches the line creates, renames or switches to (`git checkout -b <name> && git push
   * origin HEAD`): they do not exist yet when the push's evidence is gathered, but their names leave with it.
   */
  branches: Map<string, string[]>
  /**
   * Per repository, the branches the line creates from a known start (`git checkout -b x [start]`, `git branch x
   * [start]`): what a push of one carries is what its start carries, plus what the line commits.
   */
  starts: Map<string, Map<string, string>>
}

/** Adds what one git command of the line stages, commits, tags or pushes to the target of its repository. */
export function gitStep(inv: Invocation, cwd: string, home: string, cmd: string, line: GitLine): void {
  const call = readGitCall(inv, cwd, home, cmd, line.byDir, line.targets)
  if (!call) return
  const { sub, rest } = call
  if (sub === 'add' || sub === 'stage') return addStep(call)
  if (sub === 'commit') return commitStep(call)
  if (sub === 'push') return pushStep(call, line)
  const made = branchMade(sub, rest)
  if (made) line.branches.set(call.dir, [...(line.branches.get(call.dir) ?? []), made.name])
  if (made?.start) line.starts.set(call.dir, new Map(line.starts.get(call.dir)).set(made.name, made.start))
  // An annotated tag made in the line: its message leaves with `git push --tags` or `--follow-tags`.
  if (sub === 'tag') return tagStep(call)
  // Where later pushes in the line go is changed before they run: what git config says now is not what they use.
  if (
    (sub === 'remote' && /^(add|set-url|rename)$/.test(rest[0] ?? '')) ||
    (sub === 'config' && rest.some((x) => REDIRECTING_KEY.test(x)))
  )
    line.redirects.push(oneLine(cmd))
}

/**
 * The branch a `checkout`, `switch`, `branch` or `worktree add` creates, renames to or switches to; for a plain
 * `git checkout <x>` it may be a file being restored instead, which only costs a name checked for nothing. `start`:
 * where a branch it creates begins (HEAD unless named), when that is plain (not an orphan, no `--` in the line).
 */
function branchMade(sub: string, rest: string[]): { name: string; start?: string } | undefined {
  const plain = !rest.includes('--')
  if (sub === 'checkout' || sub === 'switch') {
    const o = gitOptions(rest, new Set(['--orphan', '--create', '--force-create']), new Set(['b', 'B', 'c', 'C']))
    const created = o.values('-b', '-B', '-c', '-C', '--create', '--force-create').pop()
    if (created) return { name: created, ...(plain ? { start: o.operands[0] ?? 'HEAD' } : {}) }
    const named = o.values('--orphan').pop() ?? (plain ? o.operands[0] : undefined)
    return named ? { name: named } : undefined
  }
  if (sub === 'branch') {
    const o = gitOptions(
      rest,
      new Set(['--set-upstream-to', '-u', '--contains', '--no-contains', '--merged']),
      new Set(),
    )
    if (['d', 'D', '--delete', 'l', '--list', 'a', 'r', '--all', '--remotes'].some((f) => o.has(f))) return undefined
    const renames = ['m', 'M', 'c', 'C', '--move', '--copy'].some((f) => o.has(f))
    const name = renames ? o.operands.at(-1) : o.operands[0]
    if (!name) return undefined
    return renames || !plain ? { name } : { name, start: o.operands[1] ?? 'HEAD' }
  }
  if (sub === 'worktree' && rest[0] === 'add') {
    const o = gitOptions(rest.slice(1), new Set(['--reason']), new Set(['b', 'B']))
    const name = o.values('-b', '-B').pop()
    return name ? { name, ...(plain ? { start: o.operands[1] ?? 'HEAD' } : {}) } : undefined
  }
  return undefined
}

/** The global options before the subcommand (`-C`, `-c`, an alias defined there); undefined when nothing is left to read. */
function readGitCall(
  inv: Invocation,
  cwd: string,
  home: string,
  cmd: string,
  byDir: Map<string, GitTarget>,
  targets: EvidenceTarget[],
): GitCall | undefined {
  let a = inv.args
  let i = 0
  let dir = cwd
  const aliases = new Map<string, string>()
  let redirectedBy: string | undefined
  while (i < a.length && a[i].startsWith('-')) {
    if (a[i] === '-C') dir = resolvePath(a[i + 1] ?? '.', dir, home)
    const alias = a[i] === '-c' ? /^alias\.([^=]+)=(.*)$/s.exec(a[i + 1] ?? '') : null
    if (alias) aliases.set(alias[1], alias[2])
    if ((a[i] === '-c' && REDIRECTING_KEY.test(a[i + 1] ?? '')) || a[i] === '--config-env')
      redirectedBy = `${a[i]} ${a[i + 1] ?? ''}`
    i += GIT_GLOBAL_WITH_VALUE.has(a[i]) ? 2 : 1
  }
  // `git -c alias.x='push --force' x`: the alias is what runs. A shell alias (`!…`) is not read: worst case.
  const expansion = aliases.get(a[i])
  if (expansion !== undefined) {
    if (expansion.startsWith('!')) {
      if (/\bpush\b/.test(expansion)) targets.push(worstCasePush(dir, cmd))
      return undefined
    }
    a = [...a.slice(0, i), ...splitWords(expansion), ...a.slice(i + 1)]
  }
  const uncertain = a.slice(0, i).some((x) => /^--(git-dir|work-tree)/.test(x)) || /[$`]/.test(dir)
  const repo = () => {
    let t = byDir.get(dir)
    if (!t) {
      t = { kind: 'git', dir, stages: [], commits: 0, command: cmd, commands: [] }
      byDir.set(dir, t)
      targets.push(t)
    }
    if (uncertain) t.uncertain = true
    return t
  }
  return { dir, home, cmd, sub: a[i], rest: a.slice(i + 1), redirectedBy, repo }
}

/** `git add`: which files it stages. */
function addStep({ rest, cmd, repo }: GitCall): void {
  const o = gitOptions(rest, new Set(['--chmod', '--pathspec-from-file']), new Set())
  if (o.has('n') || o.has('--dry-run')) return
  const untracked = !(o.has('u') || o.has('--update'))
  const pathspecs = o.operands
  // `git add` with no pathspec and no -A/-u stages nothing.
  if (
    !pathspecs.length &&
    !(o.has('A') || o.has('--all') || o.has('u') || o.has('--update') || o.has('--no-ignore-removal'))
  )
    return
  const t = repo()
  t.stages.push({ untracked, pathspecs, force: o.has('f') || o.has('--force'), by: oneLine(cmd) })
  t.command = cmd
  t.commands.push(cmd)
}

const COMMIT_WITH_VALUE = new Set([
  '-m',
  '--message',
  '-F',
  '--file',
  '-C',
  '--reuse-message',
  '-c',
  '--reedit-message',
  '--author',
  '--date',
  '-t',
  '--template',
  '--fixup',
  '--squash',
  '--trailer',
  '--cleanup',
  '-S',
  '--pathspec-from-file',
])

/** `git commit`: one more commit, its message, and what `-a` or named paths stage with it. */
function commitStep({ rest, dir, home, cmd, repo }: GitCall): void {
  const o = gitOptions(rest, COMMIT_WITH_VALUE, new Set(['m', 'F', 'C', 'c', 't']))
  if (o.has('--dry-run')) return
  const t = repo()
  addMessages(t, o, dir, home, cmd)
  if (o.has('a') || o.has('--all')) t.stages.push({ untracked: false, pathspecs: [], force: false, by: oneLine(cmd) })
  // `git commit <paths>` commits those (tracked) paths as they are in the working tree.
  else if (o.operands.length) t.stages.push({ untracked: false, pathspecs: o.operands, force: false, by: oneLine(cmd) })
  t.commits++
  t.command = cmd
  t.commands.push(cmd)
}

/** `git push`: where it goes and which refs it sends. */
function pushStep({ rest, cmd, dir, redirectedBy, repo }: GitCall, line: GitLine): void {
  const o = gitOptions(
    rest,
    new Set(['--repo', '-o', '--push-option', '--receive-pack', '--exec', '--signed', '--recurse-submodules']),
    new Set(['o']),
  )
  if (o.has('n') || o.has('--dry-run')) return
  const [remote, ...refspecs] = o.operands
  const sources = refspecs
    .map((r) => r.replace(/^\+/, ''))
    .filter((r) => !r.startsWith(':') && !(o.has('d') || o.has('--delete')))
    .map((r) => r.split(':')[0] || 'HEAD')
  const allBranches = o.has('--all') || o.has('--branches') || o.has('--mirror')
  const tags = o.has('--tags') || o.has('--mirror') || o.has('--follow-tags')
  // `git push origin --delete x` or `:x` sends no content.
  if (!sources.length && refspecs.length && !allBranches && !tags) return
  const t = repo()
  t.push = {
    remote: remote ?? (o.value('--repo') || undefined),
    sources: sources.length ? sources : allBranches ? [] : ['HEAD'],
    allBranches,
    tags,
    refspecs,
    ...(line.branches.get(dir)?.length ? { lineBranches: [...line.branches.get(dir)!] } : {}),
    ...(line.starts.get(dir)?.size ? { lineStarts: Object.fromEntries(line.starts.get(dir)!) } : {}),
    ...(redirectedBy ? { redirected: redirectedBy } : {}),
    command: cmd,
  }
  if (line.redirects.length) t.redirected = line.redirects[0]
  t.command = cmd
  t.commands.push(cmd)
}

const TAG_WITH_VALUE = new Set([
  '-m',
  '--message',
  '-F',
  '--file',
  '-u',
  '--local-user',
  '--cleanup',
  '--sort',
  '--format',
  '--points-at',
  '--contains',
  '--no-contains',
  '--merged',
  '--no-merged',
  '--trailer',
])

/** `git tag -a v1 -m x`: the tag's message. */
function tagStep({ rest, dir, home, cmd, repo }: GitCall): void {
  const o = gitOptions(rest, TAG_WITH_VALUE, new Set(['m', 'F', 'u']))
  if (!o.values('-m', '--message', '-F', '--file').length) return
  addMessages(repo(), o, dir, home, cmd)
}

/** Git configuration keys that decide where a push goes. */
const REDIRECTING_KEY =
  /^(remote\.[^=]*\.(url|pushurl)|url\.[^=]*\.(pushinsteadof|insteadof)|remote\.pushdefault|branch\.[^=]*\.(remote|pushremote))(=|$)/i

/** `git commit -m x -F f`, `git tag -a v1 -m x`: the messages the line writes, by text or by file. */
function addMessages(t: GitTarget, o: GitOpts, dir: string, home: string, cmd: string): void {
  const by = oneLine(cmd)
  const texts = o.values('-m', '--message').map((text): LineMessage => ({ text, by }))
  const files = o
    .values('-F', '--file')
    .map((f): LineMessage => (f === '-' ? { by } : { file: resolvePath(f, dir, home), by }))
  if (texts.length || files.length) t.messages = [...(t.messages ?? []), ...texts, ...files]
}

interface GitOpts {
  has(flag: string): boolean
  value(flag: string): string | undefined
  /** Every value given to any of these flags, in order (`-m a -m b`). */
  values(...flags: string[]): string[]
  operands: string[]
}

/** Git-style options: clustered short flags (`-am msg`), long flags with `=value`, `--` ending options. */
function gitOptions(args: string[], withValue: Set<string>, shortWithValue: Set<string>): GitOpts {
  const flags = new Set<string>()
  const values = new Map<string, string>()
  const all: [string, string][] = []
  const set = (k: string, v: string) => (values.set(k, v), all.push([k, v]))
  const operands: string[] = []
  for (let i = 0; i < args.length; i++) {
    const x = args[i]
    if (x === '--') {
      operands.push(...args.slice(i + 1))
      break
    }
    if (x.startsWith('--')) {
      const eq = x.indexOf('=')
      const name = eq > 0 ? x.slice(0, eq) : x
      flags.add(name)
      if (eq > 0) set(name, x.slice(eq + 1))
      else if (withValue.has(name)) set(name, args[++i] ?? '')
      continue
    }
    if (x.startsWith('-') && x.length > 1) {
      if (withValue.has(x)) {
        flags.add(x.slice(1))
        set(x, args[++i] ?? '')
        continue
      }
      for (let j = 1; j < x.length; j++) {
        const ch = x[j]
        flags.add(ch)
        if (shortWithValue.has(ch)) {
          // `-am msg`, `-mmsg`: the value is the rest of the word, or the next word.
          set(`-${ch}`, j === x.length - 1 ? (args[++i] ?? '') : x.slice(j + 1))
          break
        }
      }
      continue
    }
    operands.push(x)
  }
  return {
    has: (f) => flags.has(f.replace(/^-(?!-)/, '')),
    value: (f) => values.get(f),
    values: (...fs) => all.filter(([k]) => fs.includes(k)).map(([, v]) => v),
    operands,
  }
}
