// The inverted rule index: which rules could possibly match a call, looked up by tool name and program
// word instead of evaluated one by one. Pure, with no imports, so preflight-check's fast path
// (hooks/preflight-check/fast.ts) can ask it without loading the rule engine (zod, minimatch).
//
// The fast path only settles calls with no finding, no changed path and no URL in the classification: reads
// and simple read-only commands. For those, a rule keyed by a pattern or class can never fire, nor can a rule
// with URL globs. A rule with path globs can, by the paths such a call reads: a Read or NotebookRead's file
// for a rule that lists those tools, any path the call names for a rule that lists no tools (matchRules); it
// is probed by the folder or file name its globs need. The rest are rules on the tool alone and rules on the
// command. Anything that could match sends the call to the full engine (which matches exactly); a "maybe" is
// always safe.

/** What matching a call of one tool could need: the union over the rules that name it. */
export interface ToolProbe {
  /** A rule names only the tool (or nothing at all): every call of it matches. */
  all?: true
  /** Program words that command globs start with (`deploy-tool *` → `deploy-tool`). */
  words?: Record<string, 1>
  /** For command globs whose first word has a wildcard: the literal every match must contain ('' = any). */
  lits?: string[]
  /** Path globs: a folder or file name each match holds, one of which a path the call names must have. */
  names?: Record<string, 1>
  /** A path glob that promises no name (`**\/*.md`, `!docs/**`): any call that names a path. */
  anyPath?: true
}

export interface FastIndex {
  /** 2: path rules on Read and NotebookRead are in it (a v1 index left them out, and is not read). */
  v: 2
  /** statKey of guardrails.json (size:mtime:inode) the index was derived at, and its content hash. */
  key: string
  hash: string
  /** Problems the rules in force have (bad tunings): the full engine shows them on every call. */
  problems: number
  /** Rules listing exact tool names, merged per tool. */
  tools: Record<string, ToolProbe>
  /** Rules with tool globs (`t`) or no tool list (`t` null), one probe each. */
  wild: (ToolProbe & { t: string[] | null })[]
}

const WILD = '*?'

/**
 * The longest run of characters a match must contain. For paths, only whole segments without glob
 * syntax count (so `**\/x.env` yields `x.env`, which a top-level `x.env` also contains).
 * A plain loop: a regex split here costs milliseconds in a cold process with many rules.
 */
export function longestLiteral(glob: string, isPath: boolean): string {
  // A path glob's `\` escapes the next character (`a\*b` matches `a*b`), so a segment holding one is not
  // literal. A leading `!` negates the whole glob (`!docs/api` matches `src/a.ts`), and `..` cancels the
  // segment before it (`config/../x` matches `x`): such globs promise no literal at all.
  const PATH_WILD = '*?[]{}()!+@\\'
  if (isPath && (glob.startsWith('!') || glob.split('/').some((seg) => seg === '..' || seg === '.'))) return ''
  let best = ''
  let start = 0
  let clean = true
  for (let i = 0; i <= glob.length; i++) {
    const c = i < glob.length ? glob[i] : '/'
    if (isPath) {
      if (c === '/') {
        if (clean && i - start > best.length) best = glob.slice(start, i)
        start = i + 1
        clean = true
      } else if (PATH_WILD.includes(c)) clean = false
    } else if (i === glob.length || WILD.includes(c)) {
      if (i - start > best.length) best = glob.slice(start, i)
      start = i + 1
    }
  }
  return best
}

/** `*` matches anything (slashes too), `?` one character; everything else is literal. */
export function wildcard(glob: string, flags = ''): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')
  return new RegExp(`^${body}$`, flags)
}

const has = (o: object | undefined, k: string) => !!o && Object.hasOwn(o, k)

/** The program word of a command as the classifier lists it (`name arg …`). */
const wordOf = (command: string) => {
  const i = command.indexOf(' ')
  return i < 0 ? command : command.slice(0, i)
}

/**
 * A command glob as the classifier's commands read: trimmed, and its program word without the folder it was
 * typed with (`./deploy.sh *` → `deploy.sh *`), since a call lists its program by name (`./deploy.sh prod` is
 * `deploy.sh prod`). Written with the path, the glob never matched anything.
 */
export function commandGlob(glob: string): string {
  const g = glob.trim()
  const space = g.indexOf(' ')
  const slash = g.lastIndexOf('/', space < 0 ? g.length : space)
  return slash < 0 ? g : g.slice(slash + 1)
}

/** Adds one rule's command globs (as commandGlob reads them) to a probe. */
export function addCommandGlobs(p: ToolProbe, globs: string[]): void {
  for (const g of globs) {
    const w = wordOf(g)
    if (w && !/[*?]/.test(w)) (p.words ??= Object.create(null) as Record<string, 1>)[w] = 1
    else (p.lits ??= []).push(longestLiteral(g, false))
  }
}

function probeHits(p: ToolProbe, commands: readonly string[], paths: readonly string[]): boolean {
  if (p.all) return true
  if (p.anyPath && paths.length) return true
  if (p.names) for (const f of paths) for (const seg of f.split('/')) if (has(p.names, seg)) return true
  for (const c of commands) {
    if (has(p.words, wordOf(c))) return true
    if (p.lits) for (const l of p.lits) if (c.includes(l)) return true
  }
  return false
}

/**
 * Could any rule match a call of `tool` with these commands and these paths named (read, not changed), and no
 * finding, changed path or URL? False only when no rule can; true means "ask the full engine".
 */
export function mayMatch(
  index: FastIndex,
  tool: string,
  commands: readonly string[],
  paths: readonly string[] = [],
): boolean {
  if (has(index.tools, tool) && probeHits(index.tools[tool], commands, paths)) return true
  for (const p of index.wild)
    if ((p.t === null || p.t.some((g) => wildcard(g).test(tool))) && probeHits(p, commands, paths)) return true
  return false
}

/**
 * The names a rule's path globs need in a matching path: each glob's longest literal segment (a folder or file
 * name every path it matches holds whole: literals are whole segments, and a glob without a slash matches the
 * base name). Null when there are none, or a glob promises none (`**\/*.md`, `!docs/**`): the rule is then a
 * candidate for every path. Both indexes file path rules by these names.
 */
export function pathNames(globs: readonly string[] | undefined): Set<string> | null {
  if (!globs?.length) return null
  const out = new Set<string>()
  for (const g of globs) {
    const lit = longestLiteral(g, true)
    if (!lit) return null
    out.add(lit)
  }
  return out
}

/** Adds one rule's path globs to a probe: the names they need (pathNames), or any path when one promises none. */
export function addPathGlobs(p: ToolProbe, globs: string[]): void {
  const names = pathNames(globs)
  if (!names) p.anyPath = true
  else for (const n of names) (p.names ??= Object.create(null) as Record<string, 1>)[n] = 1
}
