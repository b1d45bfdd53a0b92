// The layering the README promises, kept by a test: walks every import (static, dynamic, require)
// under lib/ and hooks/ and fails on the first edge that breaks it.
//   lib/core   pure: imports only lib/core, lib/manifest.ts (data) and pure node modules; no fs, env
//              or clock in its text
//   lib/io     never imports hooks/ or lib/cli
//   hooks/x    never imports another hook's shell (hooks/y/main.ts)
//   lib/*      never imports a hook's shell
//   and no import cycles anywhere.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(__dirname, '../..')
const EXTS = ['.ts', '.cjs', '.js', '.mjs']

function walk(dir: string): string[] {
  const out: string[] = []
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name)
    if (e.isDirectory()) out.push(...walk(rel))
    else if (EXTS.some((x) => e.name.endsWith(x))) out.push(rel)
  }
  return out
}

// Comments can name modules; strip them before looking for imports (strings stay intact).
const stripComments = (s: string) => s.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')

const IMPORT_RES = [
  /\b(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]/g,
  /\bimport\s*['"]([^'"]+)['"]/g,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
]

function importsOf(file: string): string[] {
  const text = stripComments(fs.readFileSync(path.join(ROOT, file), 'utf8'))
  const specs = new Set<string>()
  for (const re of IMPORT_RES) for (const m of text.matchAll(re)) specs.add(m[1])
  return [...specs]
}

/** A relative specifier resolved to a repository file, or the bare specifier itself. */
function resolve(from: string, spec: string): string {
  if (!spec.startsWith('.')) return spec
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec))
  for (const cand of [base, ...EXTS.map((x) => base + x), ...EXTS.map((x) => `${base}/index${x}`)]) {
    if (fs.existsSync(path.join(ROOT, cand)) && fs.statSync(path.join(ROOT, cand)).isFile()) return cand
  }
  return base
}

const files = [...walk('lib'), ...walk('hooks')]
const graph = new Map(files.map((f) => [f, importsOf(f).map((s) => resolve(f, s))]))

/** The manifest of executables: pure data, loaded by the build before anything is bundled. */
const MANIFEST = 'lib/manifest.ts'
const PURE_NODE = new Set(['node:path', 'path', 'node:util', 'util'])
const isShell = (f: string) => /^hooks\/[^/]+\/main\.[a-z]+$/.test(f)
const hookOf = (f: string) => f.split('/')[1]

function violations(): string[] {
  const bad: string[] = []
  for (const [file, deps] of graph) {
    for (const dep of deps) {
      const edge = `${file} → ${dep}`
      if (file.startsWith('lib/core/')) {
        if (dep.startsWith('node:') || ['fs', 'os', 'child_process', 'crypto'].includes(dep)) {
          if (!PURE_NODE.has(dep)) bad.push(`${edge}: lib/core is pure (no fs, os, processes); pass the data in`)
        } else if (/^(lib|hooks)\//.test(dep) && !dep.startsWith('lib/core/') && dep !== MANIFEST)
          bad.push(`${edge}: lib/core imports only lib/core (and the manifest, pure data)`)
      }
      if (file.startsWith('lib/io/') && /^(hooks|lib\/cli)\//.test(dep))
        bad.push(`${edge}: lib/io never imports hooks/ or lib/cli`)
      // The resident decision service (lib/runtime/service.ts) is the one place that runs hooks' shells in-process.
      if (
        isShell(dep) &&
        file !== 'lib/runtime/service.ts' &&
        (!file.startsWith('hooks/') || hookOf(file) !== hookOf(dep))
      )
        bad.push(`${edge}: a hook's shell is imported only by its own hook`)
    }
    if (file.startsWith('lib/core/')) {
      const text = stripComments(fs.readFileSync(path.join(ROOT, file), 'utf8'))
      for (const [re, what] of [
        [/\bprocess\.(env|cwd|argv|exit|stdin|stdout|stderr)\b/, 'process state'],
        [/\bDate\.now\(/, 'the clock (Date.now)'],
        [/\bnew Date\(\s*\)/, 'the clock (new Date())'],
        [/\brequire\(/, 'require'],
      ] as const)
        if (re.test(text)) bad.push(`${file}: lib/core uses ${what}; pass it in`)
    }
  }
  return bad
}

/** Every cycle's smallest witness, as "a → b → a". Tarjan's strongly connected components. */
function cycles(): string[] {
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const on = new Set<string>()
  const out: string[] = []
  const strong = (v: string) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    on.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!idx.has(w)) {
        strong(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = []
      let w: string
      do {
        w = stack.pop()!
        on.delete(w)
        comp.push(w)
      } while (w !== v)
      if (comp.length > 1 || graph.get(v)!.includes(v)) out.push(comp.sort().join(' ↔ '))
    }
  }
  for (const v of graph.keys()) if (!idx.has(v)) strong(v)
  return out
}

describe('layering', () => {
  it('finds the modules it walks (the walker itself works)', () => {
    expect(graph.get('hooks/preflight-check/main.ts')).toContain('lib/runtime/run-hook.ts')
    expect(files.length).toBeGreaterThan(40)
  })

  it('lib/core is pure, lib/io never reaches up, no hook imports another hook’s shell', () => {
    expect(violations()).toEqual([])
  })

  it('has no import cycles (static or dynamic)', () => {
    expect(cycles()).toEqual([])
  })

  it('ships no stray executables: bin/ holds exactly the launchers package.json declares', () => {
    const declared = [
      ...new Set(
        Object.values(
          JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).bin as Record<string, string>,
        ),
      ),
    ].sort()
    expect(
      fs
        .readdirSync(path.join(ROOT, 'bin'))
        .map((f) => `bin/${f}`)
        .sort(),
    ).toEqual(declared)
  })
})
