// Bundles each executable into one CommonJS file in dist/, so a hook starts close to bare node:
// no module resolution at run time, and zod/mini + minimatch tree-shaken to what is used. Then runs
// each hook once on a representative payload to write its V8 code cache (see lib/runtime/loader.ts).
import { build } from 'esbuild'
import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'

// What to build comes from lib/core/manifest.ts (pure data; with the launcher template), compiled in memory: Node 20 cannot import .ts.
const compiled = await build({
  stdin: {
    contents:
      "export { CHUNKS, EXECUTABLES, NATIVE_CLIENT } from './lib/core/manifest'; export { launcherSource } from './lib/runtime/launcher'; export { pluginHooks } from './lib/core/settings'",
    resolveDir: process.cwd(),
    loader: 'ts',
  },
  bundle: true,
  write: false,
  platform: 'node',
  format: 'cjs',
  logLevel: 'warning',
})
const manifest = { exports: {} }
new Function('module', 'exports', compiled.outputFiles[0].text)(manifest, manifest.exports)
const { CHUNKS: CHUNK_NAMES, EXECUTABLES, NATIVE_CLIENT, launcherSource, pluginHooks } = manifest.exports
// The Claude Code plugin's hooks (the package root is the plugin root: .claude-plugin/plugin.json).
const pluginHooksText = JSON.stringify(pluginHooks(), null, 2) + '\n'
if (!existsSync('hooks/hooks.json') || readFileSync('hooks/hooks.json', 'utf8') !== pluginHooksText)
  writeFileSync('hooks/hooks.json', pluginHooksText)
// A hook's fast path is its own small bundle, <name>.fast.cjs (see the manifest's `fast`).
export const entries = Object.fromEntries(
  EXECUTABLES.flatMap((e) => [[e.name, e.entry], ...(e.fast ? [[`${e.name}.fast`, e.fast]] : [])]),
)

// The bin/ launchers, written from the manifest; anything else in bin/ is a stray and goes.
const launchers = Object.fromEntries(EXECUTABLES.filter((e) => e.bin).map((e) => [e.name, launcherSource(e)]))
for (const f of readdirSync('bin')) if (!(f in launchers)) rmSync(join('bin', f))
for (const [name, text] of Object.entries(launchers)) {
  const file = join('bin', name)
  let old = ''
  try {
    old = readFileSync(file, 'utf8')
  } catch {}
  if (old !== text) writeFileSync(file, text)
  chmodSync(file, 0o755)
}

// `import fs from 'node:fs'` compiles to `__toESM(require('node:fs'))` in every module that says it: a fresh
// copy of fs's ~100 properties per importing module, ~1.5 ms of a hook's start-up over some 50 modules.
// These resolve to one shared module whose default export is the built-in itself (default imports only:
// a named import of them fails the build, so nothing is silently wrong).
const sharedBuiltins = {
  name: 'shared-builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?(fs|path)$/ }, (args) =>
      args.kind === 'import-statement'
        ? { path: args.path.replace(/^node:/, ''), namespace: 'shared-builtin' }
        : undefined,
    )
    b.onLoad({ filter: /.*/, namespace: 'shared-builtin' }, (args) => ({
      contents: `export default require(${JSON.stringify('node:' + args.path)})`,
      loader: 'js',
    }))
  },
}

// Libraries a call seldom needs are chunks of their own, loaded on first use (lib/runtime/loader.ts chunk):
// zod validates a state file only when its hand check cannot, minimatch compiles a path glob only when a
// rule's literal is in the path. Inlined, every hook start paid for reading, deserialising and initialising
// them (~1 ms of a ~5 ms budget). A chunk exports exactly what the sources use (still tree-shaken): the names
// `z.<name>` in the files that import zod/mini (a name zod/mini lacks, a type, is left out), `Minimatch`.
rmSync('dist', { recursive: true, force: true })
const require = createRequire(import.meta.url)
const zodNames = () => {
  const zod = require('zod/mini')
  const used = new Set()
  const walk = (dir) => {
    for (const f of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, f.name)
      if (f.isDirectory()) walk(p)
      else if (p.endsWith('.ts') && /from 'zod\/mini'/.test(readFileSync(p, 'utf8')))
        for (const m of readFileSync(p, 'utf8').matchAll(/\bz\.([A-Za-z_$][\w$]*)/g)) used.add(m[1])
    }
  }
  for (const d of ['lib', 'hooks']) walk(d)
  return [...used].filter((n) => typeof zod[n] === 'function').sort()
}
const CHUNKS = {
  'zod/mini': { name: CHUNK_NAMES['zod/mini'], names: zodNames() },
  minimatch: { name: CHUNK_NAMES.minimatch, names: ['Minimatch'] },
}
if (Object.keys(CHUNKS).join() !== Object.keys(CHUNK_NAMES).join())
  throw new Error('scripts/build.mjs builds other chunks than lib/core/manifest.ts CHUNKS lists')
const lazyChunks = {
  name: 'lazy-chunks',
  setup(b) {
    b.onResolve({ filter: /^(zod\/mini|minimatch)$/ }, (args) =>
      args.kind === 'import-statement' ? { path: args.path, namespace: 'lazy-chunk' } : undefined,
    )
    b.onLoad({ filter: /.*/, namespace: 'lazy-chunk' }, (args) => {
      const c = CHUNKS[args.path]
      return {
        contents: `module.exports = require('./loader.cjs').chunk(${JSON.stringify(c.name)}, ${JSON.stringify(c.names)})`,
        loader: 'js',
      }
    })
  },
}

// What every bundle shares: node 20, minified, CommonJS; ESM builds of dependencies preferred, as they
// tree-shake (zod/mini: 15 KB instead of 450 KB).
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  mainFields: ['module', 'main'],
  conditions: ['import'],
}
for (const [lib, c] of Object.entries(CHUNKS))
  await build({
    ...common,
    stdin: {
      contents: `export { ${c.names.join(', ')} } from ${JSON.stringify(lib)}`,
      resolveDir: process.cwd(),
      sourcefile: `${c.name}.chunk.js`,
    },
    outfile: join('dist', `${c.name}.cjs`),
  })
const { serve: serveEntry, ...hookAndCliEntries } = entries
await build({
  ...common,
  plugins: [sharedBuiltins, lazyChunks],
  external: ['./loader.cjs'],
  entryPoints: hookAndCliEntries,
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
})
// The case server: its libraries as Node loads them (their CommonJS builds: pg's ESM wrapper does not bundle),
// the native store (an optional dependency) and pg's optional native client left outside the bundle.
await build({
  ...common,
  mainFields: ['main', 'module'],
  conditions: ['require', 'node'],
  plugins: [sharedBuiltins, lazyChunks],
  external: ['./loader.cjs', 'better-sqlite3', 'pg-native'],
  entryPoints: { serve: serveEntry },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
})
// The loader (what the bin/ launchers and the bundles' chunks require) and the warm process with its node client
// (required by the loader on a call that needs an engine): small bundles of their own, node built-ins and the
// manifest only.
await build({
  ...common,
  plugins: [sharedBuiltins],
  external: ['./warm.cjs'],
  entryPoints: { loader: 'lib/runtime/loader.ts', warm: 'lib/runtime/warm.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
})
// The compiled hook client (native/hook-client.c; lib/core/manifest.ts NATIVE_CLIENT), where this machine can build
// it: static, so it runs on any x86-64 Linux whatever its C library. Without a compiler the hooks run through node,
// as everywhere else; the published package carries the binary, so an install never needs one.
if (
  process.platform === NATIVE_CLIENT.platform &&
  process.arch === NATIVE_CLIENT.arch &&
  process.env.RATCHET_NATIVE !== '0'
) {
  const out = join('dist', NATIVE_CLIENT.file)
  // The hooks the warm process serves (the manifest's `warm`), as C string literals.
  const served = EXECUTABLES.filter((e) => e.warm).map((e) => JSON.stringify(e.name))
  const cc = spawnSync(
    process.env.CC || 'cc',
    [
      '-std=c99',
      '-O2',
      '-Wall',
      '-Werror',
      '-static',
      '-s',
      `-DWARM_HOOKS=${served.join(',')}`,
      '-o',
      out,
      'native/hook-client.c',
    ],
    { encoding: 'utf8' },
  )
  if (cc.error?.code === 'ENOENT')
    console.warn(`build: no C compiler (${process.env.CC || 'cc'}): ${out} not built, hooks run through node`)
  else if (cc.status !== 0) throw new Error(`building ${out} failed: ${cc.stderr}`)
}
// A fast path's screen (its SCREEN export): what the loader checks before loading the fast bundle at all.
for (const e of EXECUTABLES.filter((x) => x.fast)) {
  const { SCREEN } = createRequire(import.meta.url)(join(process.cwd(), 'dist', `${e.name}.fast.cjs`))
  if (SCREEN) writeFileSync(join('dist', `${e.name}.fast.screen.json`), JSON.stringify(SCREEN))
}

// Warm-up runs that write the code caches. A scratch project, so nothing real is touched.
const scratch = mkdtempSync(join(tmpdir(), 'ratchet-build-'))
mkdirSync(join(scratch, '.ratchet'))
copyFileSync('guardrails.json', join(scratch, '.ratchet', 'guardrails.json'))
writeFileSync(join(scratch, 'README.md'), 'scratch\n')
const env = {
  ...process.env,
  RATCHET_WRITE_CODE_CACHE: '1',
  CLAUDE_PROJECT_DIR: scratch,
  RATCHET_DIR: join(scratch, '.ratchet'),
}
const pre = (tool_name, tool_input) => ({
  session_id: 'build',
  hook_event_name: 'PreToolUse',
  tool_name,
  tool_input,
  cwd: scratch,
})
const warm = [
  // The first call builds the rule index through the full engine; the fast path settles the later reads.
  ['preflight-check', pre('Read', { file_path: join(scratch, 'README.md') })],
  ['preflight-check', pre('Bash', { command: 'sudo rm -rf build && git push origin main' })],
  ['preflight-check', pre('Read', { file_path: join(scratch, 'README.md') })],
  ['preflight-check', pre('Bash', { command: 'cat README.md' })],
  ['session-start', { session_id: 'build', hook_event_name: 'SessionStart', source: 'startup', cwd: scratch }],
  [
    'custodiet',
    {
      session_id: 'build',
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: join(scratch, 'x') },
      tool_response: {},
      cwd: scratch,
    },
  ],
]
for (const [hook, payload] of warm) {
  const r = spawnSync(process.execPath, [join('bin', hook)], { input: JSON.stringify(payload), env, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`warm-up of ${hook} failed (exit ${r.status}): ${r.stderr}`)
}
spawnSync(process.execPath, [join('bin', 'ratchet'), '--help'], { env: { ...env, RATCHET_WRITE_CODE_CACHE: '1' } })
rmSync(scratch, { recursive: true, force: true })
