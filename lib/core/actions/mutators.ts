// What a call changes that no written path shows (MUTATORS: `npx jest -u`, `eslint --fix`, `npm install x`), and
// what changes the machine (global git or package configuration, system packages): one row per program, read by
// scope.ts's recordChange. Reads, tests, builds and anything under /tmp change nothing here.

import type { Invocation } from '../commands'
import type { InvocationFacts } from './types'

/** A change of state one invocation makes that no written path shows, or that changes the machine. */
export interface Change {
  /** In words: `npx jest -u (rewrites test snapshots)`. */
  what: string
  /** The actions it is (`commit`, `push`, `install`, `format`…), for constraints that name an action. */
  actions: string[]
  /** Files it names (operands), project-relative where inside. */
  targets: string[]
  /** A change outside the project: where, and the names a request for it would use. */
  machine?: { where: string; names: string[] }
}

type Mutator = (
  inv: Invocation,
  ops: string[],
  f: InvocationFacts,
) => (Omit<Change, 'targets'> & { targets?: string[] }) | undefined

const has = (args: string[], ...flags: string[]) =>
  args.some((a) => flags.includes(a) || flags.some((f) => f.startsWith('--') && a.startsWith(f + '=')))
const shortHas = (args: string[], letter: string) => args.some((a) => /^-[a-zA-Z]+$/.test(a) && a.includes(letter))
export const change = (what: string, ...actions: string[]) => ({ what, actions })

const GIT_CHANGES: Record<string, string> = {
  add: 'commit',
  commit: 'commit',
  stash: 'discard',
  checkout: 'discard',
  switch: 'discard',
  restore: 'discard',
  reset: 'discard',
  clean: 'delete',
  merge: 'merge',
  rebase: 'rebase',
  'cherry-pick': 'commit',
  revert: 'commit',
  apply: 'edit',
  am: 'commit',
  rm: 'delete',
  mv: 'edit',
  push: 'push',
  pull: 'merge',
  tag: 'tag',
  branch: 'branch',
  init: 'edit',
  'filter-branch': 'rebase',
  'filter-repo': 'rebase',
  notes: 'commit',
  'update-ref': 'branch',
}

const git: Mutator = (inv, ops) => {
  const sub = ops[0] ?? ''
  const rest = inv.args.slice(inv.args.indexOf(sub) + 1)
  if (sub === 'config') {
    const global = has(rest, '--global', '--system')
    const reads =
      has(rest, '--get', '--get-all', '--get-regexp', '--list', '-l', '--show-origin', '--show-scope') || ops.length < 3
    if (reads) return undefined
    const key = ops[1] ?? ''
    return global
      ? {
          ...change(`git config ${has(rest, '--system') ? '--system' : '--global'} ${key}`, 'configure'),
          machine: {
            where: has(rest, '--system') ? '/etc/gitconfig' : '~/.gitconfig',
            names: [key, key.split('.').pop() ?? key, 'global'],
          },
        }
      : change(`git config ${key} (this repository's settings)`, 'configure')
  }
  const action = GIT_CHANGES[sub]
  if (!action) return undefined
  // Listing forms change nothing: `git stash list|show`, `git tag` / `-l`, `git branch` / `-a` / `--list`.
  if (sub === 'stash' && /^(list|show)$/.test(ops[1] ?? '')) return undefined
  if (
    sub === 'tag' &&
    (ops.length < 2 || has(rest, '-l', '--list', '-n') || has(rest, '--contains', '--points-at', '--merged'))
  )
    return undefined
  if (
    sub === 'branch' &&
    (ops.length < 2 ||
      has(rest, '-a', '-r', '-l', '--list', '-v', '-vv', '--show-current', '--contains', '--merged', '--no-merged'))
  )
    return undefined
  if (sub === 'tag' || sub === 'branch' || sub === 'push')
    return change(`git ${[sub, ...ops.slice(1)].join(' ')}`.slice(0, 100), action)
  if ((sub === 'checkout' || sub === 'switch') && shortHas(rest, 'b'))
    return change(`git ${sub} -b (a new branch)`, 'branch')
  if (has(rest, '--dry-run', '-n') && (sub === 'add' || sub === 'clean' || sub === 'push' || sub === 'rm'))
    return undefined
  return change(
    `git ${sub}${sub === 'commit' && has(rest, '--amend') ? ' --amend (rewrites the last commit)' : ''}`,
    action,
    ...(sub === 'commit' && has(rest, '--amend') ? ['rebase'] : []),
  )
}

/** npm/pnpm/yarn/bun: adding, removing or upgrading packages, global installs, config, package.json edits. */
const nodePm: Mutator = (inv, ops) => {
  const [sub, ...rest] = ops
  const global = has(inv.args, '-g', '--global', '--location=global') || (inv.name === 'yarn' && sub === 'global')
  const pkgs = (sub === 'global' ? rest.slice(1) : rest).filter((p) => !p.startsWith('-'))
  if (sub === 'config' || sub === 'set') {
    const verb = sub === 'set' ? 'set' : rest[0]
    const key = sub === 'set' ? rest[0] : rest[1]
    if (
      !/^(set|delete|edit|rm)$/.test(verb ?? '') ||
      has(inv.args, '--location=project', '-L=project') ||
      inv.args.join(' ').includes('--location project')
    )
      return undefined
    return {
      ...change(`${inv.name} config ${verb} ${key ?? ''}`.trim(), 'configure'),
      machine: {
        where: inv.name === 'yarn' ? '~/.yarnrc' : '~/.npmrc',
        names: [key ?? 'config', (key ?? '').split(/[.:/]/).pop() ?? '', 'npmrc', 'registry'].filter(Boolean),
      },
    }
  }
  if (sub === 'pkg' && /^(set|delete|fix)$/.test(rest[0] ?? ''))
    return { ...change(`${inv.name} pkg ${rest[0]} (edits package.json)`, 'edit'), targets: ['package.json'] }
  if (sub === 'version' && rest.length)
    return {
      ...change(`${inv.name} version ${rest[0]} (edits package.json, commits and tags)`, 'upgrade', 'commit', 'tag'),
      targets: ['package.json'],
    }
  const adds = /^(install|i|add|isntall|in)$/.test(sub ?? '') || (sub === 'global' && rest[0] === 'add')
  const upgrades = /^(update|upgrade|up|outdated-upgrade)$/.test(sub ?? '')
  const removes = /^(remove|rm|uninstall|un|unlink|r)$/.test(sub ?? '')
  if (!adds && !upgrades && !removes) return undefined
  // A bare install restores what the lockfile already says: nothing the user wrote changes.
  if (adds && !pkgs.length && !global) return undefined
  const what = `${inv.name} ${sub}${pkgs.length ? ' ' + pkgs.join(' ') : ''}`
  if (global)
    return {
      ...change(`${what} (a global package)`, 'install'),
      machine: { where: 'the global packages', names: pkgs.map((p) => p.replace(/@[^@/]*$/, '')) },
    }
  return {
    ...change(`${what} (changes package.json and the lockfile)`, removes ? 'delete' : upgrades ? 'upgrade' : 'install'),
    targets: ['package.json'],
  }
}

/** pip: project installs are changes; --user and sudo ones change the machine. */
const pip: Mutator = (inv, ops) => {
  const [sub, ...rest] = ops
  if (!/^(install|uninstall)$/.test(sub ?? '')) return undefined
  const pkgs = rest.filter((p) => !p.startsWith('-'))
  const fromFile = has(inv.args, '-r', '--requirement', '-e', '--editable')
  if (has(inv.args, '--user') || inv.via.includes('sudo') || has(inv.args, '--break-system-packages'))
    return {
      ...change(`${inv.name} ${sub} ${pkgs.join(' ')}`.trim(), 'install'),
      machine: {
        where: has(inv.args, '--user') ? 'the user site-packages' : 'the system Python',
        names: pkgs.map((p) => p.replace(/[<>=!~[].*$/, '')),
      },
    }
  if (fromFile && !pkgs.length) return undefined
  return pkgs.length
    ? change(`${inv.name} ${sub} ${pkgs.join(' ')}`, sub === 'uninstall' ? 'delete' : 'install')
    : undefined
}

/** System package managers: every install, removal or upgrade changes the machine. */
const system =
  (verbs: RegExp): Mutator =>
  (inv, ops) => {
    const sub = ops[0] ?? ''
    if (!verbs.test(sub)) return undefined
    const pkgs = ops.slice(1).filter((p) => !p.startsWith('-'))
    return {
      ...change(
        `${inv.via.includes('sudo') ? 'sudo ' : ''}${inv.name} ${sub}${pkgs.length ? ' ' + pkgs.join(' ') : ''}`,
        'install',
      ),
      machine: { where: 'the system packages', names: pkgs.length ? pkgs : [inv.name] },
    }
  }

/** Installers into the user's home (`cargo install`, `go install`, `pipx install`, `gem install`). */
const homeInstall =
  (verbs: RegExp, where: string): Mutator =>
  (inv, ops) => {
    if (!verbs.test(ops[0] ?? '')) return undefined
    const pkgs = ops.slice(1).filter((p) => !p.startsWith('-'))
    if (inv.name === 'cargo' && ops[0] === 'install' && has(inv.args, '--path'))
      return {
        ...change(`cargo install --path (into ${where})`, 'install'),
        machine: { where, names: ['cargo install'] },
      }
    return {
      ...change(`${inv.name} ${ops[0]} ${pkgs.join(' ')}`.trim(), 'install'),
      machine: { where, names: pkgs.map((p) => p.replace(/@.*$/, '').split('/').pop() ?? p) },
    }
  }

/** Formatters and fixers that rewrite files in place, unless they only check. */
const rewrites =
  (when: (args: string[], ops: string[]) => boolean, what: string): Mutator =>
  (inv, ops) =>
    when(inv.args, ops)
      ? change(`${[inv.name, ...inv.args].join(' ').slice(0, 80)} (${what})`, 'format', 'edit')
      : undefined
const notChecking = (args: string[]) => !has(args, '--check', '--diff', '-c', '--dry-run', '--list-different', '-l')

/** Test runners that rewrite snapshots. */
const snapshots: Mutator = (inv) =>
  has(inv.args, '-u', '--updateSnapshot', '--update', '--update-snapshots', '--snapshot-update') ||
  shortHas(
    inv.args.filter((a) => !a.startsWith('--')),
    'u',
  )
    ? change(`${inv.name} ${inv.args.join(' ')} (rewrites test snapshots)`.slice(0, 120), 'edit')
    : undefined

/** Applying migrations changes the database's schema. */
const migrates =
  (when: (ops: string[], args: string[]) => boolean): Mutator =>
  (inv, ops) =>
    when(ops, inv.args)
      ? change(`${inv.name} ${ops.join(' ')} (changes the database schema)`.slice(0, 120), 'migrate')
      : undefined

export const MUTATORS: Record<string, Mutator> = {
  git,
  npm: nodePm,
  pnpm: nodePm,
  yarn: nodePm,
  bun: nodePm,
  pip,
  pip3: pip,
  'apt-get': system(/^(install|remove|purge|upgrade|dist-upgrade|full-upgrade|autoremove|update)$/),
  apt: system(/^(install|remove|purge|upgrade|full-upgrade|autoremove|update)$/),
  dnf: system(/^(install|remove|erase|upgrade|update)$/),
  yum: system(/^(install|remove|erase|upgrade|update)$/),
  pacman: system(/^-S|^-R|^-U/),
  apk: system(/^(add|del|upgrade)$/),
  zypper: system(/^(install|in|remove|rm|update|up)$/),
  snap: system(/^(install|remove|refresh)$/),
  brew: system(/^(install|uninstall|remove|upgrade|reinstall|tap|untap|link|unlink)$/),
  port: system(/^(install|uninstall|upgrade)$/),
  gem: homeInstall(/^(install|uninstall|update)$/, 'the installed gems'),
  cargo: (inv, ops, f) =>
    homeInstall(/^install$/, '~/.cargo/bin')(inv, ops, f) ??
    (/^(add|remove|rm|update|upgrade)$/.test(ops[0] ?? '')
      ? change(
          `cargo ${ops.join(' ')} (changes Cargo.toml or Cargo.lock)`,
          ops[0] === 'remove' || ops[0] === 'rm' ? 'delete' : 'install',
        )
      : ops[0] === 'fmt' && notChecking(inv.args)
        ? change('cargo fmt (rewrites the sources)', 'format', 'edit')
        : ops[0] === 'clippy' && has(inv.args, '--fix')
          ? change('cargo clippy --fix (rewrites the sources)', 'format', 'edit')
          : undefined),
  go: (inv, ops, f) =>
    homeInstall(/^install$/, 'GOBIN (~/go/bin)')(inv, ops, f) ??
    (ops[0] === 'fmt'
      ? change('go fmt (rewrites the sources)', 'format', 'edit')
      : ops[0] === 'mod' && ops[1] === 'tidy'
        ? { ...change('go mod tidy (rewrites go.mod and go.sum)', 'upgrade'), targets: ['go.mod', 'go.sum'] }
        : ops[0] === 'get'
          ? { ...change(`go get ${ops.slice(1).join(' ')} (changes go.mod)`, 'install'), targets: ['go.mod'] }
          : undefined),
  pipx: homeInstall(/^(install|uninstall|upgrade|inject)$/, '~/.local (pipx)'),
  rustup: homeInstall(/^(install|default|update|toolchain|component|target)$/, 'the Rust toolchains in ~/.rustup'),
  nvm: homeInstall(/^(install|alias|uninstall)$/, 'the Node versions in ~/.nvm'),
  corepack: (_inv, ops) =>
    ops[0] === 'enable' || ops[0] === 'disable'
      ? { ...change(`corepack ${ops[0]}`, 'install'), machine: { where: 'the Node installation', names: ['corepack'] } }
      : undefined,
  prettier: rewrites((a) => has(a, '--write', '-w'), 'rewrites the files'),
  eslint: rewrites((a) => has(a, '--fix', '--fix-dry-run') && !has(a, '--fix-dry-run'), 'rewrites the files'),
  black: rewrites((a, o) => notChecking(a) && o.length > 0, 'rewrites the files'),
  isort: rewrites((a, o) => notChecking(a) && o.length > 0, 'rewrites the files'),
  ruff: rewrites((a, o) => (o[0] === 'format' && notChecking(a)) || has(a, '--fix'), 'rewrites the files'),
  autopep8: rewrites((a) => has(a, '-i', '--in-place'), 'rewrites the files'),
  gofmt: rewrites((a) => shortHas(a, 'w'), 'rewrites the files'),
  rustfmt: rewrites((a) => notChecking(a), 'rewrites the files'),
  'clang-format': rewrites((a) => has(a, '-i'), 'rewrites the files'),
  rubocop: rewrites(
    (a) => has(a, '-a', '-A', '--autocorrect', '--autocorrect-all', '--auto-correct'),
    'rewrites the files',
  ),
  standard: rewrites((a) => has(a, '--fix'), 'rewrites the files'),
  biome: rewrites(
    (a, o) => has(a, '--write', '--apply', '--fix') || (o[0] === 'format' && has(a, '--write')),
    'rewrites the files',
  ),
  terraform: (inv, ops, f) =>
    ops[0] === 'fmt' && !has(inv.args, '-check', '-diff')
      ? rewrites(() => true, 'rewrites the .tf files')(inv, ops, f)
      : undefined,
  jest: snapshots,
  vitest: snapshots,
  pytest: (inv, ops, f) =>
    has(inv.args, '--snapshot-update', '--inline-snapshot=fix', '--inline-snapshot=create')
      ? (snapshots(inv, ops, f) ?? change('pytest --snapshot-update (rewrites test snapshots)', 'edit'))
      : undefined,
  alembic: migrates((o) => o[0] === 'upgrade' || o[0] === 'stamp'),
  prisma: migrates(
    (o) => (o[0] === 'migrate' && /^(dev|deploy)$/.test(o[1] ?? '')) || (o[0] === 'db' && o[1] === 'push'),
  ),
  knex: migrates((o) => /^(migrate:latest|migrate:up|seed:run)$/.test(o[0] ?? '')),
  flyway: migrates((o) => o[0] === 'migrate' || o[0] === 'repair' || o[0] === 'baseline'),
  rails: migrates((o) => o.some((x) => /^db:(migrate|seed|setup|prepare)$/.test(x))),
  rake: migrates((o) => o.some((x) => /^db:(migrate|seed|setup|prepare)$/.test(x))),
  python: (inv) =>
    inv.args[0] === 'manage.py' && /^(migrate|makemigrations|loaddata|createsuperuser)$/.test(inv.args[1] ?? '')
      ? change(
          `python manage.py ${inv.args.slice(1).join(' ')}`.slice(0, 100),
          inv.args[1] === 'makemigrations' ? 'edit' : 'migrate',
        )
      : undefined,
  systemctl: (inv, ops) =>
    /^(enable|disable|start|stop|restart|mask|unmask|daemon-reload)$/.test(ops[0] ?? '') && !has(inv.args, '--user')
      ? {
          ...change(`systemctl ${ops.join(' ')}`, 'configure'),
          machine: { where: 'the system services', names: ops.slice(1) },
        }
      : undefined,
  'update-alternatives': (_inv, ops) => ({
    ...change(`update-alternatives ${ops.join(' ')}`, 'configure'),
    machine: { where: 'the system alternatives', names: ops.slice(0, 2) },
  }),
  chsh: () => ({
    ...change('chsh (the login shell)', 'configure'),
    machine: { where: 'the login shell', names: ['shell', 'chsh'] },
  }),
  defaults: (_inv, ops) =>
    ops[0] === 'write' || ops[0] === 'delete'
      ? {
          ...change(`defaults ${ops.slice(0, 3).join(' ')}`, 'configure'),
          machine: { where: 'the macOS preferences', names: ops.slice(1, 3) },
        }
      : undefined,
  gcloud: (_inv, ops) =>
    ops[0] === 'config' && /^(set|unset)$/.test(ops[1] ?? '')
      ? {
          ...change(`gcloud config ${ops.slice(1, 3).join(' ')}`, 'configure'),
          machine: { where: '~/.config/gcloud', names: [ops[2] ?? 'gcloud'] },
        }
      : undefined,
  aws: (_inv, ops) =>
    ops[0] === 'configure' && /^(set)$/.test(ops[1] ?? '')
      ? {
          ...change(`aws configure set ${ops[2] ?? ''}`, 'configure'),
          machine: { where: '~/.aws', names: [ops[2] ?? 'aws'] },
        }
      : undefined,
  kubectl: (_inv, ops) =>
    ops[0] === 'config' &&
    /^(use-context|set-context|set-cluster|set-credentials|delete-context|use)$/.test(ops[1] ?? '')
      ? {
          ...change(`kubectl config ${ops.slice(1, 3).join(' ')}`, 'configure'),
          machine: { where: '~/.kube/config', names: [ops[2] ?? 'kubectl'] },
        }
      : undefined,
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
Object.setPrototypeOf(MUTATORS, null)
