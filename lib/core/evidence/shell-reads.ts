// What a piece of shell code reads: the bodies of its command substitutions, and the files its readers print
// (`head -c 30 .env | xxd -p` reads .env).

import { type Invocation, readCommandLine } from '../commands'

/** Programs that print a file's contents (or an encoding of them); the first operand of the script-takers is the script. */
export const CONTENT_READERS = new Set([
  'cat',
  'head',
  'tail',
  'base64',
  'base32',
  'basenc',
  'xxd',
  'od',
  'hexdump',
  'tac',
  'rev',
  'nl',
  'fold',
  'cut',
  'strings',
  'gzip',
  'zcat',
  'bzip2',
  'xz',
  'zstd',
  'tar',
  'zip',
  'gpg',
  'openssl',
  'sort',
  'uniq',
  'paste',
  'column',
  'tr',
  'less',
  'more',
  'dd',
  'iconv',
  'jq',
  'yq',
  'sed',
  'awk',
  'gawk',
  'grep',
  'egrep',
  'rg',
  'perl',
  'python',
  'python3',
  'ruby',
  'node',
  'xargs',
  'sh',
  'bash',
  'source',
  '.',
  'readlink',
  'envsubst',
])
const SCRIPT_FIRST = new Set(['jq', 'yq', 'sed', 'awk', 'gawk', 'grep', 'egrep', 'rg'])
/** Options of the readers that take a separate value (`head -c 30`, `cut -d =`, `sed -e s/x/y/`). */
const READER_VALUE_OPTS: Record<string, RegExp> = {
  head: /^-[cn]$/,
  tail: /^-[cn]$/,
  cut: /^-[dfbc]$/,
  fold: /^-w$/,
  base64: /^-w$/,
  xxd: /^-[clsg]$/,
  od: /^-[tNjAw]$/,
  sed: /^-[ef]$/,
  awk: /^-[Fvf]$/,
  gawk: /^-[Fvf]$/,
  grep: /^-[efmABC]$/,
  egrep: /^-[efmABC]$/,
  rg: /^-[efmABCgt]$/,
  jq: /^--(arg|argjson|slurpfile|rawfile)$/,
  tr: /^$/,
  sort: /^-[tko]$/,
  openssl: /^-(out|pass|passin|k|K|iv)$/, // `-in` is the file read
}

/** The `$(…)`, backtick and `<(…)` bodies in a word (outermost only; quotes inside are skipped). */
export function substitutionsIn(word: string): string[] {
  const out: string[] = []
  for (let i = 0; i < word.length && out.length < 32; i++) {
    const c = word[i]
    if (c === '`') {
      const end = word.indexOf('`', i + 1)
      if (end < 0) break
      out.push(word.slice(i + 1, end))
      i = end
      continue
    }
    if ((c === '$' || c === '<' || c === '>') && word[i + 1] === '(' && word[i + 2] !== '(') {
      let depth = 0
      let j = i + 1
      let quote: string | null = null
      for (; j < word.length; j++) {
        const d = word[j]
        if (quote) {
          if (d === quote) quote = null
          else if (d === '\\' && quote === '"') j++
          continue
        }
        if (d === "'" || d === '"') quote = d
        else if (d === '\\') j++
        else if (d === '(') depth++
        else if (d === ')' && --depth === 0) break
      }
      out.push(word.slice(i + 2, j))
      i = j
    }
  }
  return out
}

/** The files a piece of shell code prints the contents of (`head -c 30 .env | xxd -p` → .env; `$(<.env)` → .env). */
export function filesReadBy(code: string): string[] {
  const files: string[] = []
  for (const inv of readCommandLine(code).invocations) {
    for (const r of inv.redirects) if ((r.op === '<' || r.op === '<>') && r.target) files.push(r.target)
    if (!CONTENT_READERS.has(inv.name)) continue
    const ops: string[] = []
    for (let i = 0; i < inv.args.length; i++) {
      const a = inv.args[i]
      if (/^if=/.test(a)) ops.push(a.slice(3))
      else if (READER_VALUE_OPTS[inv.name]?.test(a)) i++
      else if (!a.startsWith('-') && !/^\d+$/.test(a) && !/^[a-z]+=/.test(a)) ops.push(a)
    }
    files.push(...(SCRIPT_FIRST.has(inv.name) && !inv.args.some((a) => a === '-e' || a === '-f') ? ops.slice(1) : ops))
  }
  return files
}

/** An invocation as shell text again, each word quoted (for filesReadBy). */
export function quoted(inv: Invocation): string {
  return [inv.name, ...inv.args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`)].join(' ')
}
// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
Object.setPrototypeOf(READER_VALUE_OPTS, null)
