// How a project depends on Ratchet's package, so that a teammate's fresh clone gets the same guard from its own
// `npm install`: the hooks a project commits run `node_modules/.bin/<hook>`, and a dependency line a clone cannot
// install (`file:../ratchet/ratchet-0.1.0.tgz`) leaves every one of that teammate's prompts blocked. Pure: specs and
// package.json objects in, specs, objects and text out.

/** Where the running package came from, as npm recorded the spec it was installed with. */
export type Source =
  | { kind: 'registry'; version: string }
  | { kind: 'git'; url: string }
  /** A tarball or a folder on this machine (absolute): a clone elsewhere cannot reach it. */
  | { kind: 'local'; path: string; tarball: boolean }

/** The folder, inside the repository, a local tarball is copied to and committed (under the guarded state folder). */
export const VENDOR_DIR = '.ratchet/vendor'

/**
 * An npm spec (as written in a package.json: `^0.1.0`, `latest`, `github:o/r`, `git+https://…`, `file:…`) read as a
 * source. `resolve` makes a `file:` path absolute against the folder whose package.json holds the spec.
 */
export function sourceOf(spec: string | undefined, version: string, resolve: (p: string) => string): Source {
  const s = (spec ?? '').trim()
  if (/^file:/.test(s)) {
    const p = resolve(s.slice(5).replace(/^\/\/(?=\/)/, ''))
    return { kind: 'local', path: p, tarball: /\.(tgz|tar\.gz|tar)$/.test(p) }
  }
  if (/^git\+file:|^git:\/\/\/|^file:\/\//.test(s))
    return { kind: 'local', path: s.replace(/^git\+file:\/\/|^file:\/\//, '').replace(/#.*$/, ''), tarball: false }
  if (/^(git(\+[a-z]+)?:|github:|gitlab:|bitbucket:|gist:)|^[\w.-]+\/[\w.-]+(#.*)?$/.test(s))
    return { kind: 'git', url: s }
  if (/^https?:\/\/.*\.(tgz|tar\.gz)$/.test(s)) return { kind: 'git', url: s }
  if (s.startsWith('/') || s.startsWith('.') || s.startsWith('~'))
    return { kind: 'local', path: resolve(s), tarball: /\.(tgz|tar\.gz|tar)$/.test(s) }
  return { kind: 'registry', version }
}

export interface DependencyPlan {
  /** The spec written into the project's package.json. */
  spec: string
  /** For a local source: the tarball's place in the repository (relative to the project), committed with it. */
  vendor?: string
  /** One line for the user: why this spec. */
  why: string
}

/**
 * The dependency line a fresh clone can install: the registry's range for a registry install, the git URL for a git
 * install, and for anything on this machine a tarball vendored inside the repository, `file:` relative to it.
 */
export function dependencyPlan(source: Source, name: string, version: string): DependencyPlan {
  if (source.kind === 'registry') return { spec: `^${version}`, why: `from the npm registry (${name}@^${version})` }
  if (source.kind === 'git')
    return { spec: source.url, why: `from git (${source.url}); every clone fetches the same URL` }
  const vendor = `${VENDOR_DIR}/${name}-${version}.tgz`
  return {
    spec: `file:${vendor}`,
    vendor,
    why: `vendored: ${source.path} is on this machine only, so a copy goes in the repository at ${vendor} (commit it)`,
  }
}

const DEP_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const
type Pkg = Record<string, unknown>
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)

/** The spec a package.json gives `name`, and in which field, or undefined. */
/**
 * The package.json made for a project that has none. It carries a name: without one npm writes the folder's name
 * into package-lock.json, so every clone in a folder of another name rewrites the lockfile on `npm install`.
 */
export function minimalPackage(folder: string): Pkg {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|-+$/g, '')
    .slice(0, 214)
  return { name: name || 'project', private: true }
}

export function dependencyOf(pkg: Pkg, name: string): { field: (typeof DEP_FIELDS)[number]; spec: string } | undefined {
  for (const field of DEP_FIELDS) {
    const deps = pkg[field]
    if (isObj(deps) && typeof deps[name] === 'string') return { field, spec: deps[name] as string }
  }
  return undefined
}

/** package.json with `name` at `spec`: where it already is, else in devDependencies (kept in name order). */
export function withDependency(pkg: Pkg, name: string, spec: string): Pkg {
  const field = dependencyOf(pkg, name)?.field ?? 'devDependencies'
  const deps = { ...(isObj(pkg[field]) ? (pkg[field] as Record<string, unknown>) : {}), [name]: spec }
  return { ...pkg, [field]: Object.fromEntries(Object.entries(deps).sort(([a], [b]) => a.localeCompare(b))) }
}

/** package.json without `name` in any dependency field (a field left empty is removed). */
export function withoutDependency(pkg: Pkg, name: string): Pkg {
  const next: Pkg = { ...pkg }
  for (const field of DEP_FIELDS) {
    if (!isObj(pkg[field]) || !(name in (pkg[field] as object))) continue
    const { [name]: _gone, ...rest } = pkg[field] as Record<string, unknown>
    if (Object.keys(rest).length) next[field] = rest
    else delete next[field]
  }
  return next
}

/**
 * A package-lock.json (v2/v3) without `name`: the root's dependency entry and the package's own entry. What only it
 * needed stays listed until the next `npm install` prunes it (Ratchet's package has no dependencies of its own).
 */
export function lockWithout(lock: Pkg, name: string): Pkg {
  if (!isObj(lock.packages)) return lock
  const packages: Record<string, unknown> = { ...(lock.packages as Record<string, unknown>) }
  delete packages[`node_modules/${name}`]
  if (isObj(packages[''])) packages[''] = withoutDependency(packages[''] as Pkg, name)
  const next: Pkg = { ...lock, packages }
  if (isObj(lock.dependencies)) {
    const { [name]: _gone, ...rest } = lock.dependencies as Record<string, unknown>
    next.dependencies = rest
  }
  return next
}

/** A line diff of two texts (`-` removed, `+` added, two spaces kept), for `--dry-run`. Small inputs: O(n·m). */
export function lineDiff(before: string, after: string): string[] {
  const a = before ? before.replace(/\n$/, '').split('\n') : []
  const b = after ? after.replace(/\n$/, '').split('\n') : []
  const n = a.length
  const m = b.length
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0))
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1])
  const out: string[] = []
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) out.push(`  ${a[i++]}`), j++
    else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) out.push(`- ${a[i++]}`)
    else out.push(`+ ${b[j++]}`)
  }
  return out
}
