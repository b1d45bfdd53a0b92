// A small POSIX-shell reader: enough of bash's grammar to know which commands a string *runs*.
//
// It splits on control operators (&&, ||, ;, |, &, newlines), descends into subshells, command
// substitutions ($(…), backticks, <(…)), parameter expansions (${X:-$(…)}), arithmetic ($(( $(…) ))),
// array assignments (a=($(…))) and here-documents, and resolves quoting, so that a mention inside
// quotes (`echo "git push"`) stays an argument while `$(git push)` is a use.
// It never executes or expands anything: `$HOME` stays the literal text `$HOME`. What it cannot read
// it says so (`incomplete`, `unreadable`): the caller treats that by its worst reading.
//
// Every loop here advances through the input; nothing backtracks, so the time is linear in the input
// times the nesting depth, and the depth is bounded.

export interface Redirect {
  op: string // '>', '>>', '<', '>|', '&>', '&>>', '<<<', '<<', '<<-', '>&', '<&', '<>'
  fd?: number
  target: string
}

export interface SimpleCommand {
  /** Words after quote removal. Assignments (`FOO=1`) stay at the front; see commands.ts. */
  argv: string[]
  /**
   * Parallel to argv: the word holds an expansion outside single quotes ($X, ${…}, $(…), `…`, <(…)),
   * so what it becomes at run time is not the text we see.
   */
  computed: boolean[]
  redirects: Redirect[]
  /** Body of a here-document or here-string fed to this command's stdin, if any. */
  stdin?: string
  /** The command whose output is piped into this one (`a | b`: b's pipedFrom is a). */
  pipedFrom?: SimpleCommand
  /** Read inside the body of this shell function's definition (it runs when the function is called). */
  fn?: string
}

export interface ParseResult {
  commands: SimpleCommand[]
  /** Set when the input could not be read completely (unterminated quote, nesting past the limit, …). */
  incomplete: boolean
  /** Why, in a few words each; empty when everything was read. */
  unreadable: string[]
  /** Names of shell functions defined in the input (`f() { … }`, `function f { … }`). */
  functions: string[]
  /** The text inside each function's body braces (or parentheses), by name: a call is read as its body with its arguments filled in. */
  bodies: Map<string, string>
}

const OPERATORS = [
  '&&',
  '||',
  ';;',
  '|&',
  '&>>',
  '&>',
  '>>',
  '>|',
  '<<<',
  '<<-',
  '<<',
  '>&',
  '<&',
  '<>',
  ';',
  '|',
  '&',
  '(',
  ')',
  '>',
  '<',
  '\n',
]

/** Deeper nesting of substitutions/subshells than this is not read: the command is unreadable. */
export const MAX_DEPTH = 8
/** More simple commands than this in one input are not read (the rest is unreadable): the work stays bounded. */
export const MAX_COMMANDS = 1000
/** Function bodies kept for filling in calls (commands.ts): at most this many per input, of at most this many characters. */
const MAX_FUNCTIONS = 64
const MAX_FUNCTION_CHARS = 64 * 1024
/** Likewise for redirections of one command. */
export const MAX_REDIRECTS = 100

interface Shared {
  out: SimpleCommand[]
  incomplete: boolean
  unreadable: Set<string>
  functions: string[]
  bodies: Map<string, string>
  /** The function whose body is being read: its commands are tagged with its name. */
  inFn?: string
  /** Function definitions seen so far (their bodies are looked ahead at most MAX_FUNCTIONS times). */
  defs?: number
}

export function parseShell(input: string, depth = 0): ParseResult {
  const shared: Shared = { out: [], incomplete: false, unreadable: new Set(), functions: [], bodies: new Map() }
  parseInto(input, shared, depth)
  return {
    commands: shared.out,
    incomplete: shared.incomplete,
    unreadable: [...shared.unreadable],
    functions: shared.functions,
    bodies: shared.bodies,
  }
}

function parseInto(input: string, shared: Shared, depth: number, pipedFrom?: SimpleCommand): void {
  if (depth > MAX_DEPTH) {
    shared.incomplete = true
    shared.unreadable.add(`nested more than ${MAX_DEPTH} levels deep`)
    return
  }
  new Reader(input, shared, depth, pipedFrom).run()
}

const NAME_START = /[A-Za-z_]/
const SPECIAL_PARAM = /[0-9@*#?$!-]/

class Reader {
  i = 0
  private cur: SimpleCommand
  private pendingHeredocs: { delim: string; strip: boolean; cmd: SimpleCommand; quoted: boolean }[] = []
  /** Whether the word being read holds an expansion. */
  private wc = false
  /** The bodies of functions being defined here: where each ends, and the function being read before it. */
  private fnEnds: { until: number; outer?: string }[] = []

  constructor(
    private readonly s: string,
    readonly shared: Shared,
    private readonly depth: number,
    pipedFrom?: SimpleCommand,
  ) {
    this.cur = fresh(pipedFrom)
  }

  run(): void {
    const s = this.s
    if (this.shared.out.length >= MAX_COMMANDS) return
    while (this.i < s.length) {
      for (let last = this.fnEnds.at(-1); last && this.i >= last.until; last = this.fnEnds.at(-1)) {
        this.fnEnds.pop()
        this.shared.inFn = last.outer
      }
      const c = s.charAt(this.i)
      if (c === ' ' || c === '\t' || c === '\r') {
        this.i++
        continue
      }
      if (c === '\\' && s[this.i + 1] === '\n') {
        this.i += 2
        continue
      }
      if (c === '#' && this.atWordStart()) {
        while (this.i < s.length && s[this.i] !== '\n') this.i++
        continue
      }
      // `<(…)`/`>(…)` starts a word (process substitution), not a redirection.
      const op = (c === '<' || c === '>') && s[this.i + 1] === '(' ? null : this.operatorAt()
      if (op) {
        this.handleOperator(op)
        continue
      }
      // Optional fd number before a redirection: `2>file`, `2>&1`.
      const fdMatch =
        c >= '0' && c <= '9' ? /^(\d+)(>>|>&|>\||>|<&|<<<|<<-|<<|<>|<)/.exec(s.slice(this.i, this.i + 8)) : null
      if (fdMatch) {
        const [, fd = '', redirect = ''] = fdMatch // both groups take part in every match
        this.i += fd.length + redirect.length
        this.readRedirectTarget(redirect, Number(fd))
        continue
      }
      this.wc = false
      const word = this.readWord()
      if (word === null) continue
      // `f() { … }` and `function f { … }` define a function: the body's commands are read as they
      // come; the definition itself runs nothing.
      const fn = this.cur.argv.length === 0 ? /^([^\s()$`'"]+)\(\)$/.exec(word) : null
      if (fn) {
        const name = fn[1]! // the pattern's one group takes part in every match
        this.shared.functions.push(name)
        this.functionBody(name)
        continue
      }
      if (this.cur.argv.length === 1 && this.cur.argv[0] === 'function') {
        this.shared.functions.push(word.replace(/\(\)$/, ''))
        this.cur = fresh()
        this.functionBody(word.replace(/\(\)$/, ''))
        continue
      }
      this.cur.argv.push(word)
      this.cur.computed.push(this.wc)
    }
    this.finishCommand()
    if (this.pendingHeredocs.length) this.markIncomplete('a here-document has no end marker')
  }

  /**
   * Right after a function's name: finds its body (`{ … }` or `( … )`) without consuming it, so its commands are
   * still read where they stand, tagged with the function's name, and keeps the text inside for calls to fill in.
   */
  private functionBody(name: string): void {
    const s = this.s
    let j = this.i
    while (j < s.length && (s[j] === ' ' || s[j] === '\t' || s[j] === '\n' || s[j] === '\r')) j++
    const open = s[j]
    if (open !== '{' && open !== '(') return
    // Bounded look ahead (a window, a count per input): thousands of unclosed or nested definitions stay linear.
    if ((this.shared.defs = (this.shared.defs ?? 0) + 1) > MAX_FUNCTIONS) return
    const probe = new Reader(
      s.slice(j + 1, j + 1 + MAX_FUNCTION_CHARS),
      { out: [], incomplete: false, unreadable: new Set(), functions: [], bodies: new Map() },
      this.depth,
    )
    const inner = probe.readBalanced(open, open === '{' ? '}' : ')')
    if (probe.shared.incomplete) return
    const end = j + 1 + probe.i
    // A later definition of the same name replaces the earlier one for the calls after it; the reader keeps the
    // first, and commands.ts reads a name defined twice at its worst (both bodies are read where they stand).
    if (this.shared.bodies.has(name)) this.shared.bodies.set(name, '')
    else this.shared.bodies.set(name, inner)
    this.fnEnds.push({ until: end, outer: this.shared.inFn })
    this.shared.inFn = name
  }

  private markIncomplete(why: string): void {
    this.shared.incomplete = true
    this.shared.unreadable.add(why)
  }

  private atWordStart(): boolean {
    if (this.i === 0) return true
    const p = this.s[this.i - 1]
    return p === ' ' || p === '\t' || p === '\n' || p === ';' || p === '&' || p === '|' || p === '('
  }

  private operatorAt(): string | null {
    for (const op of OPERATORS) if (this.s.startsWith(op, this.i)) return op
    return null
  }

  private handleOperator(op: string): void {
    this.i += op.length
    switch (op) {
      case '>':
      case '>>':
      case '>|':
      case '&>':
      case '&>>':
      case '<':
      case '<<<':
      case '>&':
      case '<&':
      case '<>':
      case '<<':
      case '<<-':
        this.readRedirectTarget(op)
        return
      case '(': {
        // `f () { … }`: a function definition with a space before the parentheses.
        const [name, ...more] = this.cur.argv
        if (
          name !== undefined &&
          !more.length &&
          /^\s*\)/.test(this.s.slice(this.i, this.i + 64)) &&
          /^[^\s()$`'"]+$/.test(name)
        ) {
          this.shared.functions.push(name)
          this.i = this.s.indexOf(')', this.i) + 1
          this.cur = fresh()
          this.functionBody(name)
          return
        }
        // Subshell (or `((…))`): its commands run; parse the balanced inside recursively. A subshell
        // right after a pipe reads that pipe: `curl … | (sh)`.
        const piped = this.cur.argv.length === 0 ? this.cur.pipedFrom : undefined
        this.finishCommand()
        this.recurse(this.readBalanced('(', ')'), piped)
        return
      }
      case ')':
        this.finishCommand()
        return
      case '\n':
        this.finishCommand()
        this.readHeredocBodies()
        return
      case '|':
      case '|&': {
        const from = this.finishCommand()
        this.cur.pipedFrom = from
        return
      }
      default: // && || ; ;; &
        this.finishCommand()
    }
  }

  private readRedirectTarget(op: string, fd?: number): void {
    if (this.cur.redirects.length >= MAX_REDIRECTS) {
      this.markIncomplete(`more than ${MAX_REDIRECTS} redirections in one command`)
      this.i = this.s.length
      return
    }
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++
    if (op === '<<' || op === '<<-') {
      const start = this.i
      const raw = this.readWord() ?? ''
      const quoted = /['"\\]/.test(this.s.slice(start, this.i))
      this.pendingHeredocs.push({ delim: raw, strip: op === '<<-', cmd: this.cur, quoted })
      this.cur.redirects.push({ op, fd, target: raw })
      return
    }
    const target = this.readWord() ?? ''
    if (op === '<<<') this.cur.stdin = (this.cur.stdin ?? '') + target
    this.cur.redirects.push({ op, fd, target })
  }

  private readHeredocBodies(): void {
    const s = this.s
    while (this.pendingHeredocs.length) {
      const h = this.pendingHeredocs.shift()!
      const lines: string[] = []
      let found = false
      while (this.i < s.length) {
        let end = s.indexOf('\n', this.i)
        if (end < 0) end = s.length
        let line = s.slice(this.i, end)
        this.i = Math.min(end + 1, s.length)
        if (h.strip) line = line.replace(/^\t+/, '')
        if (line === h.delim) {
          found = true
          break
        }
        lines.push(line)
      }
      if (!found) this.markIncomplete('a here-document has no end marker')
      const body = lines.join('\n')
      h.cmd.stdin = (h.cmd.stdin ?? '') + body
      // An unquoted here-document still expands $(…) and backticks: those run.
      if (!h.quoted) this.scanSubstitutions(body)
    }
  }

  /** Reads one word with quote removal; returns null if nothing was read. */
  private readWord(): string | null {
    const s = this.s
    let word = ''
    let any = false
    while (this.i < s.length) {
      const c = s[this.i]
      if (
        c === ' ' ||
        c === '\t' ||
        c === '\n' ||
        c === '\r' ||
        c === ';' ||
        c === '&' ||
        c === '|' ||
        c === ')' ||
        c === '<' ||
        c === '>'
      ) {
        // `<(…)`/`>(…)` is process substitution: its commands run, and the word is a computed path.
        if ((c === '<' || c === '>') && s[this.i + 1] === '(') {
          this.i += 2
          const inner = this.readBalanced('(', ')')
          this.recurse(inner)
          word += c + '(' + inner + ')'
          this.wc = true
          any = true
          continue
        }
        break
      }
      if (c === '(') {
        if (!any) break
        // `f(){ …; }`: `()` ends a function's name even with no space before the body's `{`.
        if (s[this.i + 1] === ')' && this.cur.argv.length === 0 && /^[^\s()$`'"]+$/.test(word)) {
          this.i += 2
          return word + '()'
        }
        // `a=(1 2)` array assignment, `[[ x =~ (a|b) ]]`: literal text, whose substitutions still run.
        const inner = this.readBalancedAfter('(', ')')
        this.scanSubstitutions(inner)
        word += '(' + inner + ')'
        continue
      }
      any = true
      if (c === '\\') {
        if (this.i + 1 < s.length) word += s[this.i + 1]
        this.i += 2
        continue
      }
      if (c === "'") {
        const end = s.indexOf("'", this.i + 1)
        if (end < 0) {
          this.markIncomplete('a quote is not closed')
          word += s.slice(this.i + 1)
          this.i = s.length
        } else {
          word += s.slice(this.i + 1, end)
          this.i = end + 1
        }
        continue
      }
      if (c === '$' && s[this.i + 1] === "'") {
        // ANSI-C quoting: $'…' with backslash escapes.
        this.i += 2
        while (this.i < s.length && s[this.i] !== "'") {
          if (s[this.i] === '\\' && this.i + 1 < s.length) {
            // `$'\x72\x6d'` is `rm`: hex, octal and unicode escapes are read as the characters they are.
            const [ch, len] = ansiEscape(s, this.i + 1)
            word += ch
            this.i += 1 + len
          } else word += s[this.i++]
        }
        if (this.i >= s.length) this.markIncomplete('a quote is not closed')
        this.i++
        continue
      }
      if (c === '"') {
        word += this.readDoubleQuoted()
        continue
      }
      if (c === '$' || c === '`') {
        word += this.readDollar()
        continue
      }
      word += c
      this.i++
    }
    return any ? word : null
  }

  /** At `$` or a backtick (outside single quotes): reads one expansion, running what it runs. */
  private readDollar(): string {
    const s = this.s
    const c = s[this.i]
    if (c === '`') {
      this.wc = true
      const inner = this.readBacktick()
      this.recurse(inner)
      return '`' + inner + '`'
    }
    const n = s[this.i + 1]
    if (n === '(') {
      this.wc = true
      if (s[this.i + 2] === '(') {
        // Arithmetic $(( … )): no command runs, except substitutions inside it.
        this.i += 1
        const inner = this.readBalancedAfter('(', ')')
        this.scanSubstitutions(inner)
        return '$(' + inner + ')'
      }
      this.i += 2
      const inner = this.readBalanced('(', ')')
      this.recurse(inner)
      return '$(' + inner + ')'
    }
    if (n === '{') {
      // ${X:-$(…)}: the default is expanded (its substitutions run) when X is unset.
      this.wc = true
      this.i += 1
      const inner = this.readBalancedAfter('{', '}')
      this.scanSubstitutions(inner)
      return '${' + inner + '}'
    }
    if (n !== undefined && (NAME_START.test(n) || SPECIAL_PARAM.test(n))) this.wc = true
    this.i++
    return '$'
  }

  private readDoubleQuoted(): string {
    const s = this.s
    this.i++ // opening quote
    let word = ''
    while (this.i < s.length && s[this.i] !== '"') {
      const c = s[this.i]
      if (c === '\\' && this.i + 1 < s.length) {
        const n = s[this.i + 1]
        if (n === '"' || n === '\\' || n === '$' || n === '`') word += n
        else if (n === '\n') {
          /* line continuation */
        } else word += '\\' + n
        this.i += 2
        continue
      }
      if (c === '$' || c === '`') {
        word += this.readDollar()
        continue
      }
      word += c
      this.i++
    }
    if (this.i >= s.length) this.markIncomplete('a quote is not closed')
    this.i++ // closing quote
    return word
  }

  private readBacktick(): string {
    const s = this.s
    this.i++
    let inner = ''
    while (this.i < s.length && s[this.i] !== '`') {
      if (s[this.i] === '\\' && this.i + 1 < s.length) {
        inner += s[this.i + 1]
        this.i += 2
        continue
      }
      inner += s[this.i++]
    }
    if (this.i >= s.length) this.markIncomplete('a backtick is not closed')
    this.i++
    return inner
  }

  /** Reads from just after an opening bracket to its balanced closer, honouring quotes. */
  readBalanced(open: string, close: string): string {
    const s = this.s
    const start = this.i
    let level = 1
    while (this.i < s.length) {
      const c = s[this.i]
      if (c === '\\') {
        this.i += 2
        continue
      }
      if (c === "'") {
        const end = s.indexOf("'", this.i + 1)
        this.i = end < 0 ? s.length : end + 1
        continue
      }
      if (c === '"') {
        this.i++
        while (this.i < s.length && s[this.i] !== '"') this.i += s[this.i] === '\\' ? 2 : 1
        this.i++
        continue
      }
      if (c === open) level++
      else if (c === close) {
        level--
        if (level === 0) {
          const inner = s.slice(start, this.i)
          this.i++
          return inner
        }
      }
      this.i++
    }
    this.markIncomplete(`a "${open}" is not closed`)
    return s.slice(start)
  }

  private readBalancedAfter(open: string, close: string): string {
    this.i++ // skip the opener
    return this.readBalanced(open, close)
  }

  private recurse(code: string, pipedFrom?: SimpleCommand): void {
    parseInto(code, this.shared, this.depth + 1, pipedFrom)
  }

  /**
   * Finds the substitutions inside text that is expanded but not run as a command (an unquoted
   * here-document, `${…}`, `$((…))`, `a=(…)`), and reads the commands they run.
   */
  private scanSubstitutions(text: string): void {
    if (!/[$`<>]/.test(text)) return
    if (this.depth + 1 > MAX_DEPTH) {
      this.markIncomplete(`nested more than ${MAX_DEPTH} levels deep`)
      return
    }
    new Reader(text, this.shared, this.depth + 1).scan()
  }

  private scan(): void {
    const s = this.s
    while (this.i < s.length) {
      const c = s[this.i]
      if (c === '\\') {
        this.i += 2
        continue
      }
      if (c === "'") {
        // Inside ${…} and here-documents single quotes may be literal, but skipping them only hides
        // text that cannot run in the quoted case; in the literal case bash would run it, so read on.
        this.i++
        continue
      }
      if (c === '$' || c === '`') {
        this.readDollar()
        continue
      }
      if ((c === '<' || c === '>') && s[this.i + 1] === '(') {
        this.i += 2
        this.recurse(this.readBalanced('(', ')'))
        continue
      }
      this.i++
    }
  }

  private finishCommand(): SimpleCommand {
    const c = this.cur
    if (c.argv.length || c.redirects.length) {
      if (this.shared.inFn !== undefined) c.fn = this.shared.inFn
      this.shared.out.push(c)
      if (this.shared.out.length >= MAX_COMMANDS) {
        this.markIncomplete(`more than ${MAX_COMMANDS} commands`)
        this.i = this.s.length // stop reading; nested readers stop at their next command
      }
    }
    this.cur = fresh()
    return c
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  v: '\v',
}

/** One escape of ANSI-C quoting at `i` (just after the backslash): its character and how many characters it took. */
function ansiEscape(s: string, i: number): [string, number] {
  const e = s.charAt(i) // the caller has a character at i
  const hexRun = (from: number, max: number) => {
    let j = from
    while (j < from + max && j < s.length && /[0-9a-fA-F]/.test(s.charAt(j))) j++
    return j
  }
  if (e === 'x') {
    const end = hexRun(i + 1, 2)
    return end > i + 1 ? [String.fromCharCode(parseInt(s.slice(i + 1, end), 16)), end - i] : ['x', 1]
  }
  if (e === 'u' || e === 'U') {
    const end = hexRun(i + 1, e === 'u' ? 4 : 8)
    const code = end > i + 1 ? parseInt(s.slice(i + 1, end), 16) : NaN
    return code <= 0x10ffff ? [String.fromCodePoint(code), end - i] : [e, 1]
  }
  if (e >= '0' && e <= '7') {
    let j = i
    while (j < i + 3 && j < s.length && s.charAt(j) >= '0' && s.charAt(j) <= '7') j++
    return [String.fromCharCode(parseInt(s.slice(i, j), 8) & 0xff), j - i]
  }
  if (e === 'c' && i + 1 < s.length) return [String.fromCharCode(s.charCodeAt(i + 1) & 0x1f), 2]
  return [SIMPLE_ESCAPES[e] ?? e, 1]
}

function fresh(pipedFrom?: SimpleCommand): SimpleCommand {
  return pipedFrom ? { argv: [], computed: [], redirects: [], pipedFrom } : { argv: [], computed: [], redirects: [] }
}

/** Splits a string the way `env -S` or `xargs` would: whitespace, honouring quotes. */
export function splitWords(text: string): string[] {
  const r = parseShell(text)
  return r.commands.flatMap((c) => c.argv)
}
