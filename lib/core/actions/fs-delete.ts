// Deleting files: rm and friends, find -delete / -exec rm, interpreter one-liners. `/`, a system folder
// or the home folder itself is catastrophic (the seed's P1 class).

import path from 'node:path'
import { findRoots, programName, type Invocation } from '../commands'
import { protectedPath, protectedRemoval } from './protected-paths'
import type { CodeScanner, Detector, FamilyMeta, InvocationFacts, Sink } from './types'
import { globMatch, hasFlag, outsideProject, recoverableDeletion, trimTrailingSlashes } from './util'

export const meta: FamilyMeta = {
  id: 'fs-delete',
  classes: ['irreversible'],
  patterns: ['file_delete'],
  description: 'Deleting files (rm, unlink, shred, find -delete, xargs rm, interpreter one-liners)',
  examples: ['rm -rf build', 'find . -name "*.tmp" -delete', 'python -c "import shutil; shutil.rmtree(\'x\')"'],
}

const SYSTEM_DIRS = new Set([
  '/',
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/home',
  '/lib',
  '/lib64',
  '/opt',
  '/proc',
  '/root',
  '/sbin',
  '/srv',
  '/sys',
  '/usr',
  '/var',
  '/Users',
  '/System',
  '/Applications',
])

/** Deleting `/`, a system folder, or the home folder itself. */
export function catastrophicTarget(c: Sink, raw: string, abs: string): boolean {
  if (/^\/\*?$/.test(raw) || raw === '/*') return true
  const home = c.ctx.homeDir
  const stripped = abs.replace(/\/\*$/, '')
  return SYSTEM_DIRS.has(stripped) || stripped === home || /^(~|\$\{?HOME\}?)\/?\*?$/.test(raw)
}

/**
 * Irreversible means unrecoverable: deleting the agent's own files, content git restores (tracked and clean) or
 * ignored build output is not flagged; anything else, unknown targets (`xargs rm`, `$VAR`) and catastrophic
 * targets are.
 */
export function deletion(
  c: Sink,
  inv: Invocation,
  f: InvocationFacts,
  given: string[],
  recursive: boolean,
  names?: string[],
): void {
  let catastrophic = inv.args.includes('--no-preserve-root')
  let lost = given.length === 0
  // `rm -rf data/uploads/*`: the shell hands rm what the glob matches, so it is weighed as those entries are (the
  // same evidence as `rm -rf data/uploads`), not as one name nothing is at.
  // (A glob on home or a system folder stays as written: the catastrophic test reads the glob itself.)
  const targets = given.flatMap((t) => {
    const expanded = recursive && catastrophicTarget(c, t, f.at(t)) ? undefined : expandGlob(c, f, t)
    if (expanded) c.paths.add(f.at(t))
    return expanded ?? [t]
  })
  // `{}` is filled in at run time (`find root -exec … rm {} +`, `parallel rm {} ::: …`): the target is
  // whatever lies under the folder before it, so that folder is what must be recoverable.
  for (const t of targets.map((t) =>
    t.includes('{}') ? trimTrailingSlashes(t.slice(0, t.indexOf('{}'))) || '.' : t,
  )) {
    const abs = f.at(t)
    // Removing a folder that holds Ratchet's files removes them; a search by name (`find . -name '*.pyc' -delete`), or the
    // project as a whole (the loss and catastrophic checks say more), only what it names.
    if (names || abs === c.ctx.projectDir ? protectedPath(c.ctx, abs) : protectedRemoval(c.ctx, abs))
      c.add('ratchet_state_edit', f.cmd)
    c.paths.add(abs)
    if (recursive && catastrophicTarget(c, t, abs)) catastrophic = true
    if (outsideProject(c.ctx, abs)) c.add('outside_project', f.cmd)
    if (!recoverableDeletion(c, t, abs, f.earlier)) {
      lost = true
      // A named target (no `$`, no `{}` left): its loss can be weighed from the disk.
      if (!/[$`]/.test(t)) c.deleted.set(abs, names ? { lose: 'all', names } : { lose: 'all' })
    }
  }
  if (catastrophic || lost) c.add('file_delete', f.cmd, catastrophic)
  // Every target restorable: quiet for the built-ins, but a rule on file_delete itself still hears of it.
  else c.restorable('file_delete', f.cmd)
}

/** Entries a glob in the last part of a path matches, from a listing of its folder; undefined when it is no such glob or the folder cannot be listed (bounded). */
function expandGlob(c: Sink, f: InvocationFacts, t: string): string[] | undefined {
  const slash = t.lastIndexOf('/')
  const dir = slash < 0 ? '.' : t.slice(0, slash) || '/'
  const glob = t.slice(slash + 1)
  // Not a plain glob, or something earlier on the line may change what it matches by the time it runs.
  if (!/[*?[]/.test(glob) || /[*?[$`{}]/.test(dir) || /^\*?$/.test(t) || t === '/*' || f.earlier?.length)
    return undefined
  const list = c.ctx.fs?.list(f.at(dir))
  if (!list || list.length > 256) return undefined
  // The shell's `*` skips names starting with a dot unless the glob starts with one.
  const hits = list.filter(
    (n) => n !== '.' && n !== '..' && (glob.startsWith('.') || !n.startsWith('.')) && globMatch(glob, n),
  )
  return hits.length ? hits.map((n) => (slash < 0 ? n : `${dir === '/' ? '' : dir}/${n}`)) : undefined
}

export const programs: Record<string, Detector> = {
  rm: (c, inv, f) => deletion(c, inv, f, f.operands, hasFlag(inv.args, 'r', '--recursive') || hasFlag(inv.args, 'R')),
  unlink: (c, inv, f) => deletion(c, inv, f, f.operands, false),
  rmdir: (c, inv, f) => deletion(c, inv, f, f.operands, false),
  shred: (c, inv, f) => {
    if (f.operands.some((o) => o.startsWith('/dev/'))) c.add('disk_format', f.cmd, true)
    else deletion(c, inv, f, f.operands, false)
  },
  srm: (c, inv, f) => deletion(c, inv, f, f.operands, true),
  // The npm packages that delete (`npx rimraf dist`, `npx del-cli x`): recursive by nature.
  rimraf: (c, inv, f) => deletion(c, inv, f, f.operands, true),
  'del-cli': (c, inv, f) => deletion(c, inv, f, f.operands, true),
  find: (c, inv, f) => {
    const deletes =
      inv.args.includes('-delete') ||
      inv.args.some(
        (a, i) =>
          (a === '-exec' || a === '-execdir' || a === '-ok') &&
          /^(\\?rm|unlink|shred)$/.test(programName(inv.args[i + 1] ?? '')),
      )
    if (!deletes) return
    const roots = findRoots(inv.args)
    deletion(c, inv, f, roots.length ? roots : ['.'], true, findNames(inv.args))
  },
}

/**
 * The `-name`/`-iname` globs of a find that deletes, when they are all that selects what goes (a superset of what is
 * deleted: other tests only narrow it). Undefined when anything else could select other names (`-path`, `-regex`,
 * `!`/`-not`, `-o`): then everything under the roots is weighed.
 */
function findNames(args: string[]): string[] | undefined {
  const names: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (/^-(?:i?path|i?wholename|i?regex|not|o|or)$/.test(a) || a === '!' || a === ',') return undefined
    if ((a === '-name' || a === '-iname') && args[i + 1] !== undefined)
      names.push(a === '-iname' ? args[++i].toLowerCase() : args[++i])
  }
  return names.length ? names : undefined
}

const DELETES: Record<string, RegExp> = {
  python: /\b(os\.(remove|unlink|rmdir|removedirs)|shutil\.rmtree|\.unlink\(|\.rmdir\(|send2trash)/,
  node: /\b(rmSync|unlinkSync|rmdirSync|fs\.(promises\.)?(rm|unlink|rmdir)\b|rimraf)/,
  perl: /\b(unlink|rmdir|remove_tree|rmtree)\b/,
  ruby: /\b(File\.(delete|unlink)|FileUtils\.(rm|rm_r|rm_rf|remove|remove_dir|remove_entry))\b/,
  php: /\b(unlink|rmdir)\s*\(/,
}

/** A deleting call with a literal path: `os.remove('x')`, `shutil.rmtree("x")`, `Path('x').unlink()`, `fs.rmSync('x')`, `unlink "x"`. */
const LITERAL_TARGET = [
  /\b(?:os\.(?:remove|unlink|rmdir|removedirs)|shutil\.rmtree|send2trash(?:\.send2trash)?|rmSync|unlinkSync|rmdirSync|fs\.(?:promises\.)?(?:rm|unlink|rmdir)|rimraf(?:\.sync)?|File\.(?:delete|unlink)|FileUtils\.(?:rm|rm_r|rm_rf|remove|remove_dir|remove_entry)|unlink|rmdir|remove_tree|rmtree)\s*\(?\s*(['"`])([^'"`\n]{1,1024})\1/g,
  /\bPath\(\s*(['"])([^'"\n]{1,1024})\1\s*\)\.(?:unlink|rmdir)\(/g,
]

export const scanCode: CodeScanner = (c, s, detail) => {
  if (!DELETES[s.lang]?.test(s.code)) return
  c.add('file_delete', detail)
  // What it names is weighed like `rm` of it (the loss stage); names built at run time stay unknown.
  for (const re of LITERAL_TARGET)
    for (const m of s.code.matchAll(re)) {
      const raw = m[2]
      if (/[$`{}]/.test(raw)) continue
      const abs = raw.startsWith('~/') ? c.ctx.homeDir + raw.slice(1) : path.posix.resolve(c.ctx.projectDir, raw)
      c.paths.add(abs)
      if (!recoverableDeletion(c, raw, abs)) c.deleted.set(abs, { lose: 'all' })
    }
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs, DELETES]) Object.setPrototypeOf(table, null)
