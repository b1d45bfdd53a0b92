// Scripts on disk (issue 9): `sh x.sh`, `npm test`, `make deploy` are read as if their lines were in the command.
// The classifier (classify.ts) reads their commands; this module reads the script files, names the script and line
// in what they find, and judges what could not be read in them by whose script it is. Pure: the files come from
// `ctx.fs`, what git says of them from `ctx.fileState`.

import { PROGRAMS, programKey } from './actions'
import { hasEffect } from './actions/ratchet-self'
import type { ClassifyContext, Finding } from './actions/types'
import { worstReadings } from './actions/unreadable'
import { oneLine } from './actions/util'
import type { ScriptFile, ScriptOrigin } from './commands'
import { lineAt } from './scripts'

/** What reading scripts needs of the call's collector (classify.ts). */
export interface ScriptHost {
  readonly ctx: ClassifyContext
  /** The folder the call runs in. */
  readonly cwd: string
  readonly findings: Finding[]
  /** Reading a worst reading: no further worst readings from here. */
  readonly probe: boolean
  readonly summary: string
  add(pattern: string, detail: string, catastrophic?: boolean): void
  resolve(p: string, base?: string): string
  /** What commands find when read at their worst (one per line), by a probe that takes no worst readings. */
  probeFindings(text: string): readonly Finding[]
}

/** The files `node --test` runs when none is named (node 20's patterns; anything under a `test` folder too). */
const NODE_TEST_FILE = /^(?:.+[.\-_]test|test-.+|test)\.[cm]?js$/
/** Folder entries looked at to find them: a bound on a hook's time in a large tree. */
const MAX_TEST_WALK = 5000

export class ScriptFindings {
  /** What could not be read inside scripts, by script, until judged (judge). */
  private readonly pending = new Map<string, { origin: ScriptOrigin; reasons: Set<string> }>()

  constructor(private readonly host: ScriptHost) {}

  /** Reads a file a command names, from the folder the command runs in (after its `cd`s). */
  /** The folder a command runs in after its `cd`s. */
  private folderAfter(cwdChanges: string[]): string {
    let base = this.host.cwd
    for (const d of cwdChanges) base = this.host.resolve(d, base)
    return base
  }

  readonly read = (file: string, cwdChanges: string[]): ScriptFile | undefined => {
    const abs = this.host.resolve(file, this.folderAfter(cwdChanges))
    const got = this.host.ctx.fs?.script?.(abs)
    return got && { abs, ...got }
  }

  /**
   * The test files `node --test` finds for itself from the command's folder (node's own patterns; node_modules and
   * dot-folders skipped; at most MAX_TEST_WALK entries looked at), and only those that may be the agent's: the
   * project's committed tests are its own code, as a committed script is.
   */
  readonly testFiles = (cwdChanges: string[]): string[] | undefined => {
    const fs = this.host.ctx.fs
    if (!fs) return undefined
    const found: string[] = []
    const queue: { dir: string; inTest: boolean }[] = [{ dir: this.folderAfter(cwdChanges), inTest: false }]
    let seen = 0
    for (let next = queue.shift(); next && seen < MAX_TEST_WALK; next = queue.shift()) {
      for (const name of fs.list(next.dir) ?? []) {
        if (++seen > MAX_TEST_WALK) break
        if (name === 'node_modules' || name.startsWith('.')) continue
        const abs = this.host.resolve(name, next.dir)
        if (fs.isDir(abs)) queue.push({ dir: abs, inTest: next.inTest || name === 'test' })
        else if ((NODE_TEST_FILE.test(name) || (next.inTest && /\.[cm]?js$/.test(name))) && this.agentsScript(abs))
          found.push(abs)
      }
    }
    return found
  }

  /**
   * Whether a script may be the agent's: created in this session, or untracked or modified in git (or not known).
   * A committed, unchanged script is the project's own code.
   */
  private agentsScript(abs: string): boolean {
    const { ctx } = this.host
    if (abs in (ctx.session.created ?? {})) return true
    const state = ctx.fileState?.(abs)
    return state === undefined || state === 'untracked' || state === 'tracked-modified' || state === 'missing'
  }

  unreadable(origin: ScriptOrigin, why: string): void {
    const key = `${origin.abs}\u0000${origin.file}\u0000${origin.line ?? ''}`
    const p = this.pending.get(key) ?? { origin, reasons: new Set<string>() }
    p.reasons.add(why)
    this.pending.set(key, p)
  }

  /**
   * Findings from a script's commands name the script and line. A computed word inside a script is kept apart
   * (judge): committed scripts are full of `"$(dirname "$0")"`, and that is not the agent's doing.
   */
  within(origin: ScriptOrigin | undefined, work: () => void): void {
    if (!origin) return work()
    const { findings } = this.host
    const before = findings.length
    work()
    const added = findings.splice(before)
    for (const f of added) {
      if (f.pattern === 'unreadable' && !f.catastrophic) this.unreadable(origin, f.detail)
      else findings.push({ ...f, detail: `${f.detail} (${where(origin, f.detail)})` })
    }
  }

  /**
   * What the code scanners found in a script's code since `from`. They look for kinds of calls anywhere in a
   * snippet (any deletion, any write near a mention of `.ratchet`): right for a one-liner the agent typed, noise
   * over a whole committed build script. There only the catastrophic ones count.
   * (Whose script it is is asked only when a scanner found something: the answer costs a git run.)
   */
  judgeCode(origin: ScriptOrigin, from: number): void {
    const { findings } = this.host
    if (findings.slice(from).some((f) => !f.catastrophic) && !this.agentsScript(origin.abs))
      findings.splice(from, findings.length - from, ...findings.slice(from).filter((f) => f.catastrophic))
  }

  /**
   * What could not be read in a script: in one the agent wrote or changed (created this session, untracked or
   * modified in git) it is unreadable like the same text typed in the command (a check, at least). In a committed
   * script it stays quiet unless its worst reading is catastrophic or touches Ratchet's files (then a deny).
   */
  judge(): void {
    if (!this.pending.size) return
    const host = this.host
    const pending = [...this.pending.values()]
    this.pending.clear()
    for (const { origin, reasons } of pending) {
      // A committed script's computed words are the project's own code, not the agent's doing: what it plainly
      // does is judged (above); what it computes is left to it. Reading a whole file at its worst (every word
      // that names a program, comments included) would interrupt every ordinary `npm test`.
      if (!this.agentsScript(origin.abs)) continue
      const place = origin.line ? `${origin.file} line ${origin.line}` : origin.file
      for (const why of [...reasons].slice(0, 4))
        host.add('unreadable', `${place} (a script changed in this session or not committed): ${why}`)
      if (host.probe || !origin.text) continue
      const { readings, truncated } = worstReadings(origin.text, (n) => programKey(n) in PROGRAMS || hasEffect(n))
      if (truncated)
        host.add('unreadable', `${place}: too many commands are hidden in it to read them all at their worst`, true)
      if (!readings.length) continue
      const found = host.probeFindings(readings.join('\n'))
      const self = found.find((f) => f.class === 'self_protection')
      const worst = found.find((f) => f.catastrophic)
      if (self)
        host.add(
          'ratchet_state_edit',
          `${host.summary ? oneLine(host.summary, 80) : place} runs ${place}, which read at its worst changes Ratchet's files: ${self.detail}`,
        )
      else if (worst) host.add('unreadable', `${place}, read at its worst, is catastrophic: ${worst.detail}`, true)
    }
  }
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
