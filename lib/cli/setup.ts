// `npx ratchet-guard install | update | uninstall`: Ratchet made the project's own dependency, so a teammate's fresh
// clone gets the same guard from its own `npm install`, then `init` run by that copy (the hooks it registers run
// "$CLAUDE_PROJECT_DIR"/node_modules/.bin/<hook>). With --user: a global install and the user's settings instead.
//
// A project without a package.json gets a minimal private one: the hooks have to come from somewhere every clone
// can install from, and npm is what runs them (a teammate runs `npm install` once, whatever the project's language).

import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { RatchetError } from '../core/errors'
import { BIN_NAMES, CLI, PACKAGE_NAME } from '../core/manifest'
import {
  dependencyOf,
  dependencyPlan,
  lineDiff,
  lockWithout,
  minimalPackage,
  withDependency,
  withoutDependency,
  type Source,
} from '../core/dependency'
import { ratchetPlugin, sandboxTools } from '../io/floor'
import { npm, packageVersion, readJson, runningSource, vendorTarball } from '../io/package-source'
import { writeFileAtomic } from '../io/store'
import { PACKAGE_ROOT, warmProcess } from '../io/package-root'
import { initPlan, planDiff, uninstall as removeHooks } from './install'

interface SetupOptions {
  projectDir: string
  user?: boolean
  dryRun?: boolean
  json?: boolean
  /** false: best-effort mode (`--no-sandbox`). */
  sandbox?: boolean
}

interface Step {
  what: string
  ok: boolean
  detail: string
  warn?: boolean
}

/** Claude Code, as the project or the PATH has it: its version, or why not. */
function claudeCode(projectDir: string): Step {
  for (const bin of [
    path.join(projectDir, 'node_modules', '.bin', 'claude'),
    process.env.RATCHET_CLAUDE_BIN || 'claude',
  ]) {
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 15_000 })
    const v = /(\d+\.\d+\.\d+)/.exec(r.stdout ?? '')?.[1]
    if (v) return { what: 'claude code', ok: true, detail: `${v} (${bin === 'claude' ? 'on PATH' : bin})` }
  }
  return {
    what: 'claude code',
    ok: false,
    warn: true,
    detail:
      'not found (claude): the hooks are registered anyway and guard the first session; install it with npm install -g @anthropic-ai/claude-code',
  }
}

const stringify = (v: unknown, indent: string | number) => JSON.stringify(v, null, indent) + '\n'

/** `install` (and `update`: the newest the source has, then the same steps, then the warm process restarted). */
export function install(o: SetupOptions & { update?: boolean }): void {
  const projectDir = path.resolve(o.projectDir)
  if (!fs.existsSync(projectDir)) throw new RatchetError('usage', `${projectDir} does not exist`)
  const steps: Step[] = [claudeCode(projectDir)]
  const tools =
    o.sandbox === false ? { ok: true, detail: 'best-effort mode: no OS sandbox (--no-sandbox)' } : sandboxTools()
  steps.push({ what: 'sandbox', ok: tools.ok, detail: tools.detail })
  if (!tools.ok) return finish(o, steps, `the OS sandbox cannot run here, so nothing was changed: ${tools.detail}`)
  const plugin = ratchetPlugin(projectDir)
  // Both would register the hooks, and Claude Code would run each twice (it merges hooks, deduplicating only identical commands).
  if (plugin?.enabled)
    steps.push({
      what: 'plugin',
      ok: false,
      warn: true,
      detail: `${plugin.id} is enabled here too: its hooks and these would both run; \`claude plugin disable ${plugin.id}\` (the plugin cannot set up the floor this install writes)`,
    })
  const source = runningSource()
  const version = packageVersion()
  if (o.user) return installUser(o, steps, source)

  const plan = dependencyPlan(source, PACKAGE_NAME, version)
  // `update` from the registry or git: whatever is newest there (npm writes the range it resolved).
  const latest = o.update && source.kind !== 'local'
  // The project's own vendored copy knows of nothing newer: a tarball update runs from the new tarball.
  if (
    o.update &&
    plan.vendor &&
    source.kind === 'local' &&
    source.tarball &&
    path.resolve(source.path) === path.join(projectDir, plan.vendor)
  ) {
    steps.push({
      what: 'update',
      ok: true,
      detail: `${PACKAGE_NAME} ${version} is the copy vendored in ${plan.vendor}, and nothing here is newer: nothing changed`,
    })
    return finish(
      o,
      steps,
      undefined,
      `To update, run update from the newer release's tarball: npx -y ./${PACKAGE_NAME}-<version>.tgz update`,
    )
  }
  const pkgFile = path.join(projectDir, 'package.json')
  const had = readJson(pkgFile)
  const before = had?.value ?? {}
  const after = withDependency(had ? before : minimalPackage(path.basename(projectDir)), PACKAGE_NAME, plan.spec)
  steps.push({
    what: 'dependency',
    ok: true,
    detail: `${PACKAGE_NAME}: ${latest ? `${source.kind === 'git' ? source.url : 'latest'} (update)` : plan.spec} — ${plan.why}${had ? '' : '; no package.json here, so a minimal private one is created'}`,
  })

  if (o.dryRun) {
    const settings = planDiff(initPlan({ projectDir, sandbox: o.sandbox, projectBins: true }).writes)
    const files = [
      {
        file: pkgFile,
        changed: JSON.stringify(before) !== JSON.stringify(after) || !had,
        diff: lineDiff(had ? stringify(before, had.indent) : '', stringify(after, had?.indent ?? 2)).filter(
          (l) => !l.startsWith('  '),
        ),
      },
      ...settings,
    ]
    if (o.json)
      return void process.stdout.write(
        JSON.stringify({ ok: true, dryRun: true, steps, vendor: plan.vendor, files }, null, 2) + '\n',
      )
    const lines = [
      ...steps.map(stepLine),
      ...(plan.vendor ? [`Would copy ${source.kind === 'local' ? source.path : ''} to ${plan.vendor}`] : []),
      ...files.map((x) => (x.changed ? `Would change ${x.file}:\n${x.diff.join('\n')}` : `Unchanged: ${x.file}`)),
      `Then: npm install in ${projectDir}, and the installed copy's init.`,
    ]
    return void process.stdout.write(lines.join('\n') + '\n')
  }

  if (plan.vendor && source.kind === 'local') {
    ensureVendorTracked(projectDir)
    // A folder or a local git repository: the copy npm installed (this one) packed, as npm would ship it.
    vendorTarball(source.tarball ? source : { ...source, path: PACKAGE_ROOT }, path.join(projectDir, plan.vendor))
    // The README's `npx ./ratchet-guard-x.tgz install` leaves that copy in the project, where `git add -A` takes it.
    const copied = path.relative(projectDir, source.path)
    if (source.tarball && !copied.startsWith('..') && !path.isAbsolute(copied) && copied !== plan.vendor)
      steps.push({
        what: 'tarball',
        ok: false,
        warn: true,
        detail: `${copied} is a second copy of ${plan.vendor}: delete it rather than commit it`,
      })
  }
  if (!latest && JSON.stringify(before) !== JSON.stringify(after))
    writeFileAtomic(pkgFile, stringify(after, had?.indent ?? 2))
  const r = latest
    ? npm(['install', '--save-dev', source.kind === 'git' ? source.url : `${PACKAGE_NAME}@latest`], projectDir)
    : npm(['install'], projectDir)
  steps.push({
    what: 'npm install',
    ok: r.ok,
    detail: r.ok ? `${PACKAGE_NAME} is in node_modules` : lastLines(r.output),
  })
  if (!r.ok) return finish(o, steps, `npm install failed in ${projectDir}: ${lastLines(r.output)}`)
  if (o.update) steps.push(stopWarm(projectDir))
  const ignored = ignoreNodeModules(projectDir)
  if (ignored) steps.push(ignored)
  steps.push(initFromProject(projectDir, o))
  keepPersonalOut(projectDir)
  finish(o, steps)
}

/**
 * .claude/settings.local.json holds what names this machine's own folders (a git remote that is a local folder):
 * never committed, so `git add -A` must not pick it up. Claude Code ignores it when it creates it; init may create it
 * first, so it goes in the repository's own exclude list (not committed) unless git already ignores it.
 */
function keepPersonalOut(projectDir: string): void {
  const rel = '.claude/settings.local.json'
  if (!fs.existsSync(path.join(projectDir, rel))) return
  const git = (args: string[]) => spawnSync('git', ['-C', projectDir, ...args], { encoding: 'utf8', timeout: 10_000 })
  if (git(['check-ignore', '-q', rel]).status !== 1) return // ignored already, or not a git repository
  const exclude = git(['rev-parse', '--git-path', 'info/exclude']).stdout?.trim()
  const prefix = git(['rev-parse', '--show-prefix']).stdout?.trim() ?? ''
  if (!exclude) return
  const file = path.resolve(projectDir, exclude)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.appendFileSync(file, `/${prefix}${rel}\n`)
}

/**
 * A project that had no package.json rarely ignores node_modules, and the README's next step is to commit: `git add
 * -A` would take the installed package with it. So node_modules/ goes in the project's .gitignore (committed, so a
 * teammate's clone ignores it too) when git does not ignore it already.
 */
function ignoreNodeModules(projectDir: string): Step | undefined {
  const r = spawnSync('git', ['-C', projectDir, 'check-ignore', '-q', 'node_modules/'], {
    encoding: 'utf8',
    timeout: 10_000,
  })
  if (r.status !== 1) return undefined // ignored already, or not a git repository
  const file = path.join(projectDir, '.gitignore')
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''
  fs.writeFileSync(file, `${text}${text && !text.endsWith('\n') ? '\n' : ''}node_modules/\n`)
  return {
    what: '.gitignore',
    ok: true,
    detail: 'node_modules/ added: git did not ignore it, and the install must not be committed',
  }
}

/** The project's own copy runs init: the version the project now depends on writes its own registrations. */
function initFromProject(projectDir: string, o: SetupOptions): Step {
  const bin = path.join(projectDir, 'node_modules', PACKAGE_NAME, 'bin', 'ratchet')
  if (!fs.existsSync(bin)) return { what: 'init', ok: false, detail: `${bin} is missing after npm install` }
  const r = spawnSync(
    process.execPath,
    [bin, 'init', '--project-dir', projectDir, '--json', ...(o.sandbox === false ? ['--no-sandbox'] : [])],
    { cwd: projectDir, encoding: 'utf8', timeout: 120_000 },
  )
  if (r.status !== 0) return { what: 'init', ok: false, detail: (r.stderr || r.stdout).trim() }
  const s = JSON.parse(r.stdout) as {
    mode: string
    files: string[]
    hooks: { registrations: unknown[] }
    state: string
  }
  return {
    what: 'init',
    ok: true,
    detail: `${s.hooks.registrations.length} hook registrations and the floor (${s.mode}) in ${s.files.map((f) => path.relative(projectDir, f)).join(', ')}; state in ${path.relative(projectDir, s.state) || s.state}`,
  }
}

/** --user: a global install (absolute paths are fine: this machine's own), then its init --user. */
function installUser(o: SetupOptions & { update?: boolean }, steps: Step[], source: Source): void {
  const spec =
    source.kind === 'registry'
      ? `${PACKAGE_NAME}@${o.update ? 'latest' : `^${packageVersion()}`}`
      : source.kind === 'git'
        ? source.url
        : source.path
  if (o.dryRun) {
    steps.push({ what: 'dependency', ok: true, detail: `npm install -g ${spec}, then ${PACKAGE_NAME} init --user` })
    const settings = planDiff(initPlan({ projectDir: o.projectDir, user: true, sandbox: o.sandbox }).writes)
    if (o.json)
      return void process.stdout.write(
        JSON.stringify({ ok: true, dryRun: true, steps, files: settings }, null, 2) + '\n',
      )
    return void process.stdout.write(
      [
        ...steps.map(stepLine),
        ...settings.map((x) => (x.changed ? `Would change ${x.file}:\n${x.diff.join('\n')}` : `Unchanged: ${x.file}`)),
      ].join('\n') + '\n',
    )
  }
  const r = npm(['install', '-g', spec], o.projectDir)
  steps.push({ what: 'npm install -g', ok: r.ok, detail: r.ok ? spec : lastLines(r.output) })
  if (!r.ok) return finish(o, steps, `npm install -g ${spec} failed: ${lastLines(r.output)}`)
  const prefix = npm(['prefix', '-g'], o.projectDir).output.trim()
  const bin = path.join(prefix, 'lib', 'node_modules', PACKAGE_NAME, 'bin', 'ratchet')
  const i = spawnSync(
    process.execPath,
    [bin, 'init', '--user', '--project-dir', o.projectDir, '--json', ...(o.sandbox === false ? ['--no-sandbox'] : [])],
    { encoding: 'utf8', timeout: 120_000 },
  )
  steps.push({
    what: 'init --user',
    ok: i.status === 0,
    detail: i.status === 0 ? 'hooks and floor in ~/.claude/settings.json' : (i.stderr || i.stdout).trim(),
  })
  finish(o, steps)
}

/** A state folder made before vendoring existed ignores everything but its human files: vendor/ is one now. */
function ensureVendorTracked(projectDir: string): void {
  const file = path.join(projectDir, '.ratchet', '.gitignore')
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return // init writes it, with vendor/ kept
  }
  if (!text.split('\n').includes('!vendor/'))
    writeFileAtomic(file, `${text.replace(/\n?$/, '\n')}!vendor/\n!vendor/*\n`)
}

function stopWarm(projectDir: string): Step {
  let stopped = false
  try {
    stopped = warmProcess(projectDir, 'stop')
  } catch {
    /* none, or one that cannot be asked: it stops by itself after 10 idle minutes */
  }
  return {
    what: 'warm process',
    ok: true,
    detail: stopped ? 'stopped: the next call starts one with the new version' : 'none running',
  }
}

export function uninstall(o: SetupOptions & { keepPackage?: boolean; local?: boolean }): void {
  const projectDir = path.resolve(o.projectDir)
  const pkgFile = path.join(projectDir, 'package.json')
  const had = o.user || o.keepPackage ? undefined : readJson(pkgFile)
  const dep = had ? dependencyOf(had.value, PACKAGE_NAME) : undefined
  if (o.dryRun) {
    const lines = [
      `Would remove Ratchet's hooks and the floor it added from ${o.user ? '~/.claude/settings.json' : '.claude/settings.json (and settings.local.json)'}`,
    ]
    if (had && dep)
      lines.push(
        `Would change ${pkgFile}:`,
        ...lineDiff(
          stringify(had.value, had.indent),
          stringify(withoutDependency(had.value, PACKAGE_NAME), had.indent),
        ).filter((l) => !l.startsWith('  ')),
      )
    if (dep?.spec.startsWith('file:.ratchet/vendor/')) lines.push(`Would remove ${dep.spec.slice(5)}`)
    return void process.stdout.write(
      o.json ? JSON.stringify({ ok: true, dryRun: true, lines }, null, 2) + '\n' : lines.join('\n') + '\n',
    )
  }
  // The hooks first: this copy (npx's, when the project's is gone) knows them by their launcher names.
  let said = ''
  const write = process.stdout.write.bind(process.stdout)
  process.stdout.write = ((chunk: string) => ((said += chunk), true)) as typeof process.stdout.write
  try {
    removeHooks({ projectDir, user: o.user, local: o.local })
  } finally {
    process.stdout.write = write
  }
  const steps: Step[] = [{ what: 'hooks', ok: true, detail: said.trim() }]
  if (had && dep) {
    writeFileAtomic(pkgFile, stringify(withoutDependency(had.value, PACKAGE_NAME), had.indent))
    const lockFile = path.join(projectDir, 'package-lock.json')
    const lock = readJson(lockFile)
    if (lock) writeFileAtomic(lockFile, stringify(lockWithout(lock.value, PACKAGE_NAME), lock.indent))
    if (dep.spec.startsWith('file:.ratchet/vendor/'))
      fs.rmSync(path.join(projectDir, dep.spec.slice(5)), { force: true })
    const installed = path.join(projectDir, 'node_modules', PACKAGE_NAME)
    fs.rmSync(installed, { recursive: true, force: true })
    for (const b of [PACKAGE_NAME, ...BIN_NAMES]) {
      const link = path.join(projectDir, 'node_modules', '.bin', b)
      try {
        if (fs.readlinkSync(link).includes(`${PACKAGE_NAME}/`)) fs.rmSync(link)
      } catch {
        /* not a link of ours */
      }
    }
    steps.push({
      what: 'dependency',
      ok: true,
      detail: `removed ${PACKAGE_NAME} (${dep.spec}) from package.json${lock ? ' and package-lock.json' : ''}, and from node_modules`,
    })
  }
  finish(
    o,
    steps,
    undefined,
    "Commit the change so teammates' clones drop the hooks too. The state folder (.ratchet/) was kept.",
  )
}

function stepLine(s: Step): string {
  return `${s.ok ? '✓' : s.warn ? '!' : '✗'} ${s.what.padEnd(14)} ${s.detail}`
}

function lastLines(text: string): string {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .slice(-3)
    .join(' ')
    .slice(0, 400)
}

/** The steps, then the one line that matters; a failure is a RatchetError (one line, its exit code). */
function finish(
  o: { json?: boolean },
  steps: Step[],
  failure?: string,
  next = `Next: commit package.json, its lockfile, .claude/settings.json and .ratchet/, then start \`claude\`. \`${CLI} doctor\` proves the floor.`,
): void {
  const ok = !failure && steps.every((s) => s.ok || s.warn)
  if (o.json)
    process.stdout.write(JSON.stringify({ ok, steps, ...(failure ? { error: failure } : {}) }, null, 2) + '\n')
  else process.stdout.write(steps.map(stepLine).join('\n') + '\n' + (ok ? `${next}\n` : ''))
  if (failure) {
    if (o.json) process.exitCode = 1
    else throw new RatchetError('not_installed', failure)
  } else if (!ok) process.exitCode = 1
}
