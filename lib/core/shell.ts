// A small POSIX-shell reader: enough of bash's grammar to know which commands a string *runs*.
//
// It splits on control operators (&&, ||, ;, |, &, newlines), descends into subshells, command
// substitutions ($(…), backticks, <(…)) and here-documents, and resolves quoting, so that a
// mention inside quotes (`echo "git push"`) stays an argument while `$(git push)` is a use.
// It never executes or expands anything: `$HOME` stays the literal text `$HOME`.

export interface Redirect {
  op: string // '>', '>>', '<', '>|', '&>', '&>>', '<<<', '<<', '<<-', '>&', '<&'
  fd?: number
  target: string
}

export interface SimpleCommand {
  /** Words after quote removal. Assignments (`FOO=1`) stay at the front; see commands.ts. */
  argv: string[]
  redirects: Redirect[]
  /** Body of a here-document or here-string fed to this command's stdin, if any. */
  stdin?: string
}

export interface ParseResult {
  commands: SimpleCommand[]
  /** Set when the input could not be read completely (unterminated quote, …). */
  incomplete: boolean
}

const OPERATORS = ['&&', '||', ';;', '|&', '&>>', '&>', '>>', '>|', '<<<', '<<-', '<<', '>&', '<&', '<>', ';', '|', '&', '(', ')', '>', '<', '\n']

const MAX_DEPTH = 8

export function parseShell(input: string, depth = 0): ParseResult {
  const out: SimpleCommand[] = []
  const state = { incomplete: false }
  if (depth > MAX_DEPTH) return { commands: [], incomplete: true }
  new Reader(input, out, state, depth).run()
  return { commands: out, incomplete: state.incomplete }
}

class Reader {
  private i = 0
  private cur: SimpleCommand = { argv: [], redirects: [] }
  private pendingHeredocs: { delim: string; strip: boolean; cmd: SimpleCommand; quoted: boolean }[] = []

  constructor(
    private readonly s: string,
    private readonly out: SimpleCommand[],
    private readonly state: { incomplete: boolean },
    private readonly depth: number,
  ) {}

  run(): void {
    const s = this.s
    while (this.i < s.length) {
      const c = s[this.i]
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
      const op = this.operatorAt()
      if (op) {
        this.handleOperator(op)
        continue
      }
      // Optional fd number before a redirection: `2>file`, `2>&1`.
      const fdMatch = /^(\d+)(>>|>&|>\||>|<&|<<<|<<-|<<|<)/.exec(s.slice(this.i, this.i + 6))
      if (fdMatch) {
        this.i += fdMatch[1].length
        const rop = fdMatch[2]
        this.i += rop.length
        this.readRedirectTarget(rop, Number(fdMatch[1]))
        continue
      }
      const word = this.readWord()
      if (word !== null) this.cur.argv.push(word)
    }
    this.finishCommand()
    if (this.pendingHeredocs.length) this.state.incomplete = true
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
      case '>': case '>>': case '>|': case '&>': case '&>>': case '<': case '<<<': case '>&': case '<&': case '<>':
        this.readRedirectTarget(op)
        return
      case '<<': case '<<-':
        this.readRedirectTarget(op)
        return
      case '(':
        // Subshell or function body: its commands run; parse the balanced inside recursively.
        this.finishCommand()
        this.recurse(this.readBalanced('(', ')'))
        return
      case ')':
        this.finishCommand()
        return
      case '\n':
        this.finishCommand()
        this.readHeredocBodies()
        return
      default: // && || ; ;; | |& &
        this.finishCommand()
    }
  }

  private readRedirectTarget(op: string, fd?: number): void {
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
      if (!found) this.state.incomplete = true
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
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === ';' || c === '&' || c === '|' || c === ')' || c === '<' || c === '>') {
        // `(` only starts a subshell at word start; `<(`/`>(` is process substitution.
        if ((c === '<' || c === '>') && s[this.i + 1] === '(') {
          this.i += 2
          this.recurse(this.readBalanced('(', ')'))
          any = true
          continue
        }
        break
      }
      if (c === '(' ) {
        if (!any) break
        // `foo(` inside a word (e.g. an array assignment `a=(1 2)`): take the balanced text literally.
        word += '(' + this.readBalancedAfter('(', ')') + ')'
        any = true
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
          this.state.incomplete = true
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
            const e = s[this.i + 1]
            word += e === 'n' ? '\n' : e === 't' ? '\t' : e
            this.i += 2
          } else word += s[this.i++]
        }
        if (this.i >= s.length) this.state.incomplete = true
        this.i++
        continue
      }
      if (c === '"') {
        word += this.readDoubleQuoted()
        continue
      }
      if (c === '$' && s[this.i + 1] === '(') {
        if (s[this.i + 2] === '(') {
          // Arithmetic $(( … )): no commands run inside.
          this.i += 1
          word += '$(' + this.readBalancedAfter('(', ')') + ')'
          continue
        }
        this.i += 2
        const inner = this.readBalanced('(', ')')
        this.recurse(inner)
        word += '$(' + inner + ')'
        continue
      }
      if (c === '`') {
        const inner = this.readBacktick()
        this.recurse(inner)
        word += '`' + inner + '`'
        continue
      }
      if (c === '$' && s[this.i + 1] === '{') {
        this.i += 1
        word += '$' + '{' + this.readBalancedAfter('{', '}') + '}'
        continue
      }
      word += c
      this.i++
    }
    return any ? word : null
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
        else if (n === '\n') { /* line continuation */ }
        else word += '\\' + n
        this.i += 2
        continue
      }
      if (c === '$' && s[this.i + 1] === '(' && s[this.i + 2] !== '(') {
        this.i += 2
        const inner = this.readBalanced('(', ')')
        this.recurse(inner)
        word += '$(' + inner + ')'
        continue
      }
      if (c === '`') {
        const inner = this.readBacktick()
        this.recurse(inner)
        word += '`' + inner + '`'
        continue
      }
      word += c
      this.i++
    }
    if (this.i >= s.length) this.state.incomplete = true
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
    if (this.i >= s.length) this.state.incomplete = true
    this.i++
    return inner
  }

  /** Reads from just after an opening bracket to its balanced closer, honouring quotes. */
  private readBalanced(open: string, close: string): string {
    const s = this.s
    const start = this.i
    let level = 1
    while (this.i < s.length) {
      const c = s[this.i]
      if (c === '\\') { this.i += 2; continue }
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
    this.state.incomplete = true
    return s.slice(start)
  }

  private readBalancedAfter(open: string, close: string): string {
    this.i++ // skip the opener
    return this.readBalanced(open, close)
  }

  private recurse(code: string): void {
    const r = parseShell(code, this.depth + 1)
    this.out.push(...r.commands)
    if (r.incomplete) this.state.incomplete = true
  }

  /** Finds $(…) and backticks inside expanded text (an unquoted here-document body). */
  private scanSubstitutions(text: string): void {
    const re = /\$\(([^()]*(?:\([^()]*\)[^()]*)*)\)|`([^`]*)`/g
    let m: RegExpExecArray | null
    while ((m = re.exec(text))) this.recurse(m[1] ?? m[2] ?? '')
  }

  private finishCommand(): void {
    const c = this.cur
    if (c.argv.length || c.redirects.length) this.out.push(c)
    this.cur = { argv: [], redirects: [] }
  }
}

/** Splits a string the way `env -S` or `xargs` would: whitespace, honouring quotes. */
export function splitWords(text: string): string[] {
  const r = parseShell(text)
  return r.commands.flatMap((c) => c.argv)
}
