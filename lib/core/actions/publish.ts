// Publishing packages to a registry, and taking published versions back (unpublish, yank), which others may
// already depend on. Dry runs publish nothing.

import { dbMigration } from './database'
import { withRows, type RowArgs, type RowTable } from './rows'
import type { Detector, FamilyMeta } from './types'
import { dryRun, operandsAfter } from './util'

export const meta: FamilyMeta = {
  id: 'publish',
  classes: ['public_surface', 'irreversible'],
  patterns: ['package_publish', 'package_unpublish'],
  description:
    'Publishing a package (npm/yarn/pnpm publish, cargo publish, twine upload, gem push, mvn deploy, gradle publish, dotnet nuget push, …); unpublishing or yanking one',
  examples: [
    'npm publish --access public',
    'cargo publish',
    'twine upload dist/*',
    'mvn deploy',
    './gradlew publish',
    'dotnet nuget push app.1.0.0.nupkg',
    'npm unpublish pkg@1.0.0',
    'cargo yank --version 1.0.0',
  ],
}

/** `verbs` publish, `back` take a version back; `--dry-run` does neither. */
/** Options that take a value before the verb (`npm --prefix dir publish`, `pnpm --filter pkg publish`, `cargo --manifest-path x publish`). */
const VALUES = [
  '--prefix',
  '-C',
  '--dir',
  '--filter',
  '-F',
  '--workspace',
  '--registry',
  '--userconfig',
  '--cwd',
  '--manifest-path',
  '--config',
  '-Z',
  '--repository',
  '-r',
  '--repository-url',
  '-u',
  '--username',
  '-p',
  '--password',
  '--token',
  '--index',
]

function registry(verbs: string[], back: string[] = []): Detector {
  return (c, inv, f) => {
    const sub = operandsAfter(inv.args, VALUES, { leadingPlus: true })[0] ?? ''
    if (dryRun(inv.args)) return
    if (verbs.includes(sub)) c.add('package_publish', f.cmd)
    if (back.includes(sub)) c.add('package_unpublish', f.cmd)
  }
}

const npmLike: Detector = (c, inv, f) => {
  const [sub, verb] = operandsAfter(inv.args, VALUES, { leadingPlus: true })
  if (dryRun(inv.args)) return
  if (
    sub === 'publish' ||
    sub === 'deprecate' ||
    sub === 'undeprecate' ||
    (sub === 'dist-tag' && /^(add|rm)$/.test(verb ?? '')) ||
    (sub === 'access' && /^(set|grant|revoke|public|restricted)$/.test(verb ?? ''))
  )
    c.add('package_publish', f.cmd)
  if (sub === 'unpublish') c.add('package_unpublish', f.cmd)
}

// ---- build tools: their publishing goals and tasks -------------------------------------------------------

const MVN_VALUES = [
  '-pl',
  '--projects',
  '-f',
  '--file',
  '-s',
  '--settings',
  '-gs',
  '--global-settings',
  '-P',
  '--activate-profiles',
  '-rf',
  '--resume-from',
  '-T',
  '--threads',
  '-l',
  '--log-file',
  '-t',
  '--toolchains',
  '-b',
  '--builder',
]
/** Maven goals that upload artifacts to a remote repository (`install` only copies them into ~/.m2). */
const mvn: Detector = (c, inv, f) => {
  if (
    operandsAfter(inv.args, MVN_VALUES).some((g) =>
      /^(deploy|release:perform|deploy:deploy-file|nexus-staging:(deploy|release)|gpg:sign-and-deploy-file|central-publishing:publish)$/.test(
        g,
      ),
    )
  )
    c.add('package_publish', f.cmd)
}
/** Gradle tasks that publish (`publish`, `:lib:publishAllPublicationsToSonatypeRepository`, `publishPlugins`); `publishToMavenLocal` stays on the machine. */
const gradle: Detector = (c, inv, f) => {
  if (
    operandsAfter(inv.args, [
      '-p',
      '--project-dir',
      '-x',
      '--exclude-task',
      '-b',
      '--build-file',
      '-c',
      '--settings-file',
      '-I',
      '--init-script',
      '-g',
      '--gradle-user-home',
    ]).some((t) =>
      /(^|:)(publish(?!ToMavenLocal$)\w*|uploadArchives|closeAndReleaseRepository|closeAndReleaseSonatypeStagingRepository|releaseRepository|bintrayUpload)$/.test(
        t,
      ),
    )
  )
    c.add('package_publish', f.cmd)
}
const dotnet: Detector = (c, inv, f) => {
  const [a, b] = f.operands
  if (a === 'nuget' && b === 'push') c.add('package_publish', f.cmd)
  if (a === 'nuget' && b === 'delete') c.add('package_unpublish', f.cmd)
  // `dotnet ef database drop|update 0`: the database family's rows.
  if (a === 'ef') dbMigration(c, inv, f)
}

// ---- what cannot be undone: one row per command form (rows.ts) ----------------------------------------

/** `pkg@1.0.0` → name and version (`@scope/pkg@1` keeps its scope). */
function spec(s: string | undefined): { name?: string; version?: string } {
  if (!s) return {}
  const at = s.lastIndexOf('@')
  return at > 0 ? { name: s.slice(0, at), version: s.slice(at + 1) } : { name: s }
}
const npmUnpublish = (a: RowArgs) => {
  const { name, version } = spec(a.rest[0])
  return name
    ? version
      ? `version ${version} of ${name} from the npm registry (that version number can never be published again)`
      : `every version of ${name} from the npm registry (the name is blocked for 24 hours, and others may take it)`
    : 'the package in this folder (package.json’s version) from the npm registry'
}
const npmNames = (a: RowArgs) => {
  const { name, version } = spec(a.rest[0])
  return name ? [name, version] : ['unpublish']
}
const NPM_ROWS: RowTable = {
  values: VALUES,
  rows: [{ cmd: ['unpublish'], pattern: 'package_unpublish', kind: 'destroys', what: npmUnpublish, names: npmNames }],
}

export const rows: Record<string, RowTable> = {
  npm: NPM_ROWS,
  pnpm: NPM_ROWS,
  yarn: {
    values: VALUES,
    rows: [
      {
        cmd: ['npm', 'unpublish'],
        pattern: 'package_unpublish',
        kind: 'destroys',
        what: npmUnpublish,
        names: npmNames,
      },
      { cmd: ['unpublish'], pattern: 'package_unpublish', kind: 'destroys', what: npmUnpublish, names: npmNames },
    ],
  },
  // cargo yank is undone by `cargo yank --undo`: a check, not a row. A yanked gem cannot be restored.
  gem: {
    values: ['-v', '--version', '--platform', '--host', '-k', '--key', '--otp'],
    rows: [
      {
        cmd: ['yank'],
        pattern: 'package_unpublish',
        kind: 'destroys',
        what: (a) =>
          `${a.opt('-v', '--version') ? `version ${a.opt('-v', '--version')}` : 'a version'} of gem ${a.rest[0] ?? ''} from rubygems.org (a yanked version cannot be restored)`,
        names: (a) => [a.rest[0], a.opt('-v', '--version')],
      },
    ],
  },
  vsce: {
    values: VALUES,
    rows: [
      {
        cmd: ['unpublish'],
        pattern: 'package_unpublish',
        kind: 'destroys',
        what: (a) =>
          `extension ${a.rest[0] ?? '(this folder’s)'} from the VS Code Marketplace, with its ratings and install count`,
        names: (a) => [a.rest[0] ?? 'unpublish'],
      },
    ],
  },
}

const own: Record<string, Detector> = {
  npm: npmLike,
  pnpm: npmLike,
  yarn: (c, inv, f) => {
    if (dryRun(inv.args)) return
    const [a, b] = operandsAfter(inv.args, VALUES, { leadingPlus: true })
    if (a === 'publish' || (a === 'npm' && b === 'publish')) c.add('package_publish', f.cmd)
    if (a === 'unpublish' || (a === 'npm' && b === 'unpublish')) c.add('package_unpublish', f.cmd)
  },
  cargo: registry(['publish'], ['yank']),
  twine: registry(['upload']),
  gem: registry(['push'], ['yank']),
  poetry: registry(['publish']),
  flit: registry(['publish']),
  hatch: registry(['publish']),
  uv: registry(['publish']),
  vsce: registry(['publish'], ['unpublish']),
  mvn,
  mvnw: mvn,
  gradle,
  gradlew: gradle,
  dotnet,
}

export const programs: Record<string, Detector> = withRows(own, rows)

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [own, rows]) Object.setPrototypeOf(table, null)
