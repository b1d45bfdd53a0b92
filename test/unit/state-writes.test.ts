// One module writes state (lib/io/store.ts), and every state file is named in one table
// (lib/io/registry.ts). This test keeps it so: it scans the sources under lib/ and hooks/ for calls
// that change the file system, and for state file names spelled out, outside those two modules.
// Each exception is listed with the reason it is not state.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { STATE_FILES, stateGitignore } from '../../lib/io/registry'

const ROOT = path.resolve(__dirname, '../..')

function walk(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name)
    return e.isDirectory() ? walk(rel) : /\.(ts|cjs|mjs|js)$/.test(e.name) ? [rel] : []
  })
}
const stripComments = (s: string) => s.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
const sources = [...walk('lib'), ...walk('hooks')].map((f) => ({
  file: f,
  text: stripComments(fs.readFileSync(path.join(ROOT, f), 'utf8')),
}))

/** Calls that create, change or remove files: fs.x(…), fs.promises.x(…), and the same names imported bare. */
const MUTATORS = [
  'writeFile',
  'appendFile',
  'rename',
  'unlink',
  'mkdir',
  'mkdtemp',
  'rm',
  'rmdir',
  'copyFile',
  'cp',
  'symlink',
  'link',
  'chmod',
  'chown',
  'truncate',
  'utimes',
  'createWriteStream',
  'write',
  'writev',
  'ftruncate',
  'fchmod',
]
const CALL = new RegExp(
  `\\b(?:fs|fsp|promises)\\s*\\.\\s*(?:promises\\s*\\.\\s*)?(${MUTATORS.join('|')})(?:Sync)?\\s*\\(`,
  'g',
)
const BARE_IMPORT = /import\s*\{([^}]*)\}\s*from\s*['"](?:node:)?fs(?:\/promises)?['"]/g
/** An open for writing: flags 'w', 'a', 'wx', 'r+'… or O_WRONLY / O_RDWR / O_CREAT / O_APPEND. */
const OPEN_WRITE = /\bfs\s*\.\s*open(?:Sync)?\s*\(([^;]*?)\)/g

/** Where a file-system change outside the store is not a change of state, and why. */
const ALLOWED: Record<string, { calls: string[]; why: string }> = {
  'lib/io/store.ts': { calls: ['*'], why: 'the one module that writes state' },
  'lib/io/store-core.ts': {
    calls: ['*'],
    why: "the store's primitives (lock, atomic write, append), apart from the registry so the fast path can use them",
  },
  'lib/runtime/loader.ts': {
    calls: ['writeFile', 'rename', 'write'],
    why: "writes the V8 code cache beside the installed bundle (dist/), not state; and the warm process's answer to its own stdout and stderr (fd 1, 2)",
  },
  'lib/runtime/warm.ts': {
    calls: ['writeFile', 'rename', 'unlink', 'mkdir', 'open', 'appendFile'],
    why: "the warm process's keys (config folder) and its requests and answers (a private folder in memory), not state of a project",
  },
  'lib/runtime/stdio.ts': {
    calls: ['write'],
    why: "writes the hook's answer to its own stdout and stderr (fd 1, 2), not a file",
  },
  'lib/io/terminal.ts': {
    calls: ['write', 'open'],
    why: "writes one line to the user's terminal (the parent's stderr), not a file",
  },
  'lib/cli/output.ts': {
    calls: ['writeFile'],
    why: 'writes an export or report to the path a human named (--out, --html), never over a guarded path',
  },
  'lib/cli/install.ts': {
    calls: ['mkdir'],
    why: "creates Claude Code's settings folder (.claude/), not Ratchet state; the settings file itself goes through the store",
  },
  'lib/cli/setup.ts': {
    calls: ['rm', 'mkdir', 'appendFile', 'writeFile'],
    why: "install/uninstall change the project's package (node_modules, the vendored tarball), its git exclude list and its .gitignore (node_modules/), not Ratchet state; package.json goes through writeFileAtomic",
  },
  'lib/io/package-source.ts': {
    calls: ['mkdir', 'copyFile', 'rename', 'rm'],
    why: 'vendors the package tarball into .ratchet/vendor/ (a tracked file the human ships, not state the hooks write)',
  },
  'lib/cli/run.ts': {
    calls: ['write'],
    why: 'one line to its own stderr (fd 2) when stdout cannot be written, not a file',
  },
  'lib/io/service.ts': {
    calls: ['open'],
    why: "the decision service's stderr log, only where RATCHET_SERVICE_LOG names one; not state",
  },
  'lib/runtime/service.ts': {
    calls: ['mkdir', 'writeFile', 'rename', 'unlink'],
    why: "the resident service's key and session list in the per-user config folder (0600), as the warm process keeps its keys; not state of a project",
  },
  'lib/cli/doctor.ts': {
    calls: ['mkdtemp', 'writeFile', 'rm'],
    why: 'times preflight-check in a scratch folder under the OS temp folder, removed after',
  },
}

function mutations(): string[] {
  const found: string[] = []
  for (const { file, text } of sources) {
    const allowed = ALLOWED[file]?.calls ?? []
    if (allowed.includes('*')) continue
    const calls = new Set<string>()
    for (const m of text.matchAll(CALL)) calls.add(m[1])
    for (const m of text.matchAll(BARE_IMPORT))
      for (const name of m[1].split(',').map((s) =>
        s
          .trim()
          .split(/\s+as\s+/)[0]
          .replace(/Sync$/, ''),
      ))
        if (MUTATORS.includes(name)) calls.add(name)
    for (const m of text.matchAll(OPEN_WRITE))
      if (/['"](?:w|a|r\+|wx|ax)[+x]?['"]|O_(?:WRONLY|RDWR|CREAT|APPEND|TRUNC)/.test(m[1])) calls.add('open')
    for (const c of calls)
      if (!allowed.includes(c))
        found.push(
          `${file}: fs.${c}: state is written only through lib/io/store.ts (or list the exception here with its reason)`,
        )
  }
  return found
}

describe('one writer of state', () => {
  it('no module but lib/io/store.ts creates, changes or removes files (the exceptions are listed with a reason)', () => {
    expect(mutations()).toEqual([])
  })

  it('the scan itself works: it sees the store’s writes and a write hidden in a bare import', () => {
    const store = sources
      .filter((s) => s.file === 'lib/io/store.ts' || s.file === 'lib/io/store-core.ts')
      .map((s) => s.text)
      .join('\n')
    expect([...store.matchAll(CALL)].map((m) => m[1])).toEqual(
      expect.arrayContaining(['writeFile', 'rename', 'write', 'mkdir', 'rm']),
    )
    const bare = "import { writeFileSync as w } from 'node:fs'"
    expect([...bare.matchAll(BARE_IMPORT)].length).toBe(1)
    expect("fs.openSync(p, 'a')".match(OPEN_WRITE)).toBeTruthy()
  })

  it('each exception is still needed (a stale one would hide a new write)', () => {
    for (const [file, a] of Object.entries(ALLOWED)) {
      if (a.calls.includes('*')) continue
      const text = sources.find((s) => s.file === file)?.text ?? ''
      for (const c of a.calls)
        expect(
          new RegExp(`\\b${c}(?:Sync)?\\s*\\(`).test(text),
          `${file} no longer calls ${c}: drop it from ALLOWED`,
        ).toBe(true)
    }
  })
})

describe('one table of state files', () => {
  it('no module but the registry spells out a state file name (they ask the registry for the path)', () => {
    // .gitignore is also every project's own file (evidence reads the project's), so it is not searched for.
    const names = STATE_FILES.filter(
      (s) => !s.name.includes('{id}') && !s.name.endsWith('/') && s.name !== '.gitignore',
    ).map((s) => s.name)
    // lib/core names a few of them to protect them from the agent: it is pure and cannot import lib/io,
    // and the protection must hold whatever the registry says (a test in the catalogue keeps them in step).
    // preflight-check's fast path must not load the registry (its schemas pull in zod and the rule engine) on
    // every tool call: it names the few files it reads, and test/unit/fast-path.test.ts checks them against it.
    const exempt = new Set([
      'lib/io/registry.ts',
      'lib/io/store.ts',
      'lib/core/actions/protected-paths.ts',
      'lib/core/evidence/private-names.ts',
      'hooks/preflight-check/fast.ts',
      'lib/io/fast-index.ts',
    ])
    const bad: string[] = []
    for (const { file, text } of sources) {
      if (exempt.has(file)) continue
      for (const n of names)
        if (new RegExp(`['"\`]${n.replace(/\./g, '\\.')}['"\`]`).test(text)) bad.push(`${file}: names ${n}`)
    }
    expect(bad).toEqual([])
  })

  it('no module builds a path under the state folder by hand (fileOf(paths, key) or a Paths field instead)', () => {
    // The fast path builds the few paths it reads itself, for the reason above (checked against the registry in its test).
    const bad = sources
      .filter(
        ({ file, text }) =>
          !['lib/io/registry.ts', 'lib/io/store.ts', 'hooks/preflight-check/fast.ts', 'lib/io/fast-index.ts'].includes(
            file,
          ) && /\bjoin\(\s*(?:paths\.)?stateDir\s*,/.test(text),
      )
      .map((s) => s.file)
    expect(bad).toEqual([])
  })

  it('every file has an owner, a mode and a corrupt-file policy; only human-authored state files are trackable', () => {
    for (const s of STATE_FILES) {
      expect(s.mode, s.name).toBe(s.name.endsWith('/') ? 0o700 : 0o600)
      expect(['reset', 'fail', 'ignore']).toContain(s.onCorrupt)
      if (s.tracked) expect(s.owner === 'human' || s.name === '.gitignore', s.name).toBe(true)
      if (s.owner === 'machine' && s.format === 'json' && s.onCorrupt === 'reset')
        expect(s.schema, `${s.name} is reset when bad, so it needs a schema`).toBeTruthy()
    }
    expect(stateGitignore().split('\n')).toContain('*')
  })
})
