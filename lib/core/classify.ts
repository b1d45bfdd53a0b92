// Classifies one pending tool call into the seed's trigger classes. Pure: everything it needs to
// know about the world (which files exist, what was read, the current branch) comes in `ctx`.
//
// This module only routes: each tool to its reader, each shell invocation to its program's detector in the
// action catalogue (lib/core/actions/, one file per family), each interpreter one-liner to the code scanners, each
// script on disk a command runs to classify-scripts.ts (its lines are read as if typed).

import path from 'node:path'
import { readCommandLine, shellCallsIn, type CodeSnippet, type Invocation } from './commands'
import { ScriptFindings, type ScriptHost } from './classify-scripts'
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

class Collector implements ScopeSink, ScriptHost {
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
  readonly cwd: string
  /** Scripts on disk the command runs, read as if their lines were here (classify-scripts.ts). */
  private readonly scripts = new ScriptFindings(this)

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

  private bashOnce(command: string): void {
    const line = readCommandLine(
      command,
      this.ctx.fs?.script ? this.scripts.read : undefined,
      this.ctx.fs?.script ? this.scripts.testFiles : undefined,
    )
    if (line.incomplete) this.incomplete = true
    unreadableLine(this, line)
    line.invocations.forEach((inv, i) => {
      this.scripts.within(inv.origin, () =>
        this.invocation(
          inv,
          line.invocations.slice(0, i).filter((e) => e.origin === inv.origin),
        ),
      )
    })
    for (const s of line.snippets) this.scripts.within(s.origin, () => this.snippet(s))
    for (const run of line.scripts) {
      if (run.problem)
        this.add(
          'unreadable',
          `${command.length > 80 ? run.file : oneLine(command, 80)} runs ${run.file}, which cannot be read: ${run.problem}`,
        )
      for (const why of run.unreadable) this.scripts.unreadable({ file: run.file, abs: run.abs, text: run.text }, why)
    }
    this.scripts.judge()
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
    const probe = this.readAtWorst(text)
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

  probeFindings(text: string): readonly Finding[] {
    return this.readAtWorst(text).findings
  }

  /** Classifies the readings of a command at its worst, one per line, in a probe that takes no worst readings. */
  private readAtWorst(text: string): Collector {
    const probe = new Collector({ tool_name: 'Bash', tool_input: { command: text }, cwd: this.cwd }, this.ctx)
    probe.probe = true
    probe.bash(text)
    return probe
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
    // In a committed script only the catastrophic ones count; the shell commands it runs (below) are judged in full.
    if (s.origin) this.scripts.judgeCode(s.origin, before)
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
