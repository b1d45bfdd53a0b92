// Interpreter code (a `python -c` one-liner, a script on disk and its local modules) that reads a file and talks
// to the network: the files it reads may be what it sends.

import path from 'node:path'
import type { CodeSnippet, ScriptReader } from '../commands'
import { type EvidenceTarget, oneLine, resolvePath } from './targets'

// Interpreter code that talks to the network, and code that reads a file. Both in one snippet: the file's
// contents may be what is sent, so they are scanned; a file name Ratchet cannot read (computed:
// `open('.e'+'nv')`, `readFileSync(process.argv[1])`) is the worst reading, something secret leaving.
const CODE_NETWORK =
  /require\(\s*['"](?:node:)?(?:dns|net|http|https|http2|dgram|tls)['"]\s*\)|\bimport\s+(?:socket|requests|httpx|urllib|http)\b|\b(urlopen|urllib|requests\.|httpx\.|http\.client|HTTPConnection|HTTPSConnection|socket\.|smtplib|ftplib|paramiko|aiohttp|fetch\(|https?\.(request|get)\(|net\.(connect|createConnection|Socket)|dgram|dns\.(resolve|lookup)|axios|got\(|XMLHttpRequest|WebSocket|LWP|HTTP::Tiny|IO::Socket|Net::|TCPSocket|UDPSocket|open-uri|HTTParty|Faraday|curl_exec|curl_init|fsockopen|stream_socket_client|file_get_contents\(\s*['"]https?:|gethostbyname|getaddrinfo|resolver)/
const CODE_READ_CALL =
  /\b(open|io\.open|codecs\.open|read_text|read_bytes|readFileSync|readFile|createReadStream|openSync|File\.read|IO\.read|File\.open|File\.readlines|IO\.readlines|file_get_contents|fopen|read_file|slurp|Path|pathlib\.Path)\s*\(/g

export function snippetSends(
  snippets: CodeSnippet[],
  cwd: string,
  home: string,
  command: string,
  reader?: ScriptReader,
): EvidenceTarget[] {
  const out: EvidenceTarget[] = []
  for (const sn of snippets) {
    const own = sn.code.slice(0, 64 * 1024)
    // A script's own modules are part of it: a sender split across two files (`a.py` reads `.env` and calls
    // `send.go()` from `send.py`, which posts it) is one sender. (Their computed reads are theirs: an app's
    // modules open files by variable all the time; only a name they spell out is taken.)
    const modules =
      sn.origin && reader
        ? localModules(sn, reader)
            .join('\n')
            .slice(0, 256 * 1024)
        : ''
    if (!CODE_NETWORK.test(own) && !CODE_NETWORK.test(modules)) continue
    const top = fileReads(own)
    const files = [...top.files, ...fileReads(modules).files]
    if (top.computed)
      out.push({
        kind: 'unknown',
        why: 'interpreter code reads a file whose name is computed and talks to the network: it may be sending a secret',
        command: oneLine(command),
      })
    else if (files.length)
      out.push({
        kind: 'files',
        paths: files.map((f) => resolvePath(f, cwd, home)),
        command: oneLine(command),
        how: modules
          ? 'read by interpreter code (with the modules it imports) that talks to the network'
          : 'read by interpreter code that talks to the network',
      })
  }
  return out
}

/** The files code reads by a literal name, and whether it also reads one whose name is computed. */
function fileReads(code: string): { files: string[]; computed: boolean } {
  const files: string[] = []
  let computed = false
  CODE_READ_CALL.lastIndex = 0
  let m: RegExpExecArray | null
  let n = 0
  while ((m = CODE_READ_CALL.exec(code)) && n++ < 200) {
    const after = code.slice(m.index + m[0].length, m.index + m[0].length + 512)
    // Writes are not reads: open(x, 'w'), File.open(x, "a").
    const lit = /^\s*(['"])([^'"\n]{1,400})\1\s*(?:,\s*(['"])([^'"\n]{0,8})\3)?\s*[,)]/.exec(after)
    if (lit) {
      if (lit[4] && /[wax]/.test(lit[4]) && !/[r+]/.test(lit[4])) continue
      if (/^https?:/.test(lit[2])) continue
      files.push(lit[2])
    } else if (/^\s*\)/.test(after))
      continue // Path() / open() with nothing: not a file read
    else computed = true
  }
  return { files, computed }
}

/** Local modules a script file imports (python, node, ruby), two levels deep, at most MAX_MODULES: their code. */
function localModules(sn: CodeSnippet, reader: ScriptReader): string[] {
  const out: string[] = []
  const seen = new Set<string>([sn.origin!.abs])
  const queue: { abs: string; code: string; depth: number }[] = [{ abs: sn.origin!.abs, code: sn.code, depth: 0 }]
  while (queue.length && out.length < MAX_MODULES) {
    const { abs, code, depth } = queue.shift()!
    if (depth >= 2) continue
    const dir = path.posix.dirname(abs)
    for (const rel of importsOf(code.slice(0, 256 * 1024), sn.lang)) {
      for (const cand of candidates(rel, dir, sn.lang)) {
        if (seen.has(cand)) continue
        seen.add(cand)
        const got = reader(cand, [])
        if (!got?.text) continue
        out.push(got.text)
        queue.push({ abs: cand, code: got.text, depth: depth + 1 })
        break
      }
      if (out.length >= MAX_MODULES) break
    }
  }
  return out
}

const MAX_MODULES = 12

/** The local module names a piece of code imports (`import send`, `from .util import x`, `require('./send')`). */
function importsOf(code: string, lang: CodeSnippet['lang']): string[] {
  const out = new Set<string>()
  if (lang === 'python') {
    for (const m of code.matchAll(
      /^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import|import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*))/gm,
    )) {
      if (m[1] !== undefined) out.add(m[1])
      else for (const x of m[2].split(',')) out.add(x.trim())
    }
  } else if (lang === 'node') {
    for (const m of code.matchAll(
      /(?:require|import)\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]|\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm,
    ))
      out.add(m[1] ?? m[2] ?? m[3])
  } else if (lang === 'ruby') {
    for (const m of code.matchAll(/\brequire_relative\s*\(?\s*['"]([^'"]+)['"]/g)) out.add(`./${m[1]}`)
  }
  return [...out].slice(0, 50)
}

/** The files a module name may be, next to the importing file. */
function candidates(name: string, dir: string, lang: CodeSnippet['lang']): string[] {
  if (lang === 'python') {
    const dots = /^\.*/.exec(name)![0].length
    let base = dir
    for (let i = 1; i < dots; i++) base = path.posix.dirname(base)
    const rel = name.slice(dots).replace(/\./g, '/')
    if (!rel) return []
    return [`${base}/${rel}.py`, `${base}/${rel}/__init__.py`]
  }
  const abs = path.posix.resolve(dir, name)
  return lang === 'ruby'
    ? [abs.endsWith('.rb') ? abs : `${abs}.rb`]
    : [abs, `${abs}.js`, `${abs}.cjs`, `${abs}.mjs`, `${abs}.ts`, `${abs}/index.js`]
}
