// Scope from the user's words. The latest request, read deterministically (lib/core/envelope.ts), is applied to
// what the call changes: a change of state after a question, a request to investigate or "don't change any code
// yet" goes against the request; a change to what a constraint protects ("don't touch the migrations", "do not
// push or tag anything") goes against the constraint; a change outside the project (global git or package
// configuration, system packages) during a project task is heard. Each finding quotes the user's words, and
// preflight-check's note carries them. Also: web access and publishing the prompts never mentioned.
//
// What a call changes comes from the families (files written or deleted, commits, pushes) and from the table of
// programs that change state in ways no path shows (mutators.ts: `npx jest -u`, `eslint --fix`, `npm install x`),
// and what changes the machine from MACHINE. Reads, tests, builds and anything under /tmp change nothing here.

import path from 'node:path'
import type { Invocation } from '../commands'
import { breachedConstraint } from '../drift-checks'
import { extractEnvelope, type Envelope } from '../envelope'
import { type Change, change, MUTATORS } from './mutators'
import type { FamilyMeta, Finding, InvocationFacts, Sink } from './types'
import { isBuildOutput, oneLine, operandsAfter, outsideProject } from './util'

export const meta: FamilyMeta = {
  id: 'scope',
  classes: ['scope_beyond_request'],
  patterns: [
    'unrequested_web',
    'unrequested_publish',
    'outside_project',
    'against_request',
    'against_constraint',
    'machine_change',
    'sandbox_bypass',
  ],
  description:
    'Changes the user’s words rule out (after a question or "don’t change any code", against "don’t touch X"), changes to the machine outside the project, web access or publishing the prompts did not mention; files outside the project; a command asking to leave the OS sandbox',
  examples: [
    'npx jest -u after "tell me which tests fail, don’t change any code yet"',
    'Edit db/migrations/1.sql after "don’t touch the migrations"',
    'git config --global user.email x during a bug fix',
    'WebSearch after "fix the failing test"',
  ],
}

export function impliesWeb(prompt: string): boolean {
  return /https?:\/\/|\b(web|internet|online|search|google|look\s?up|browse|fetch|download|url|website|docs?|documentation|latest|news)\b/i.test(
    prompt,
  )
}

export function impliesPublish(prompt: string): boolean {
  return /\b(push|publish|deploy|release|ship|send|e-?mail|post|pr|pull request|upload|merge|tweet|announce|submit|share|sync)\b/i.test(
    prompt,
  )
}

export function webAccess(c: Sink, detail: string): void {
  const prompts = c.ctx.session.prompts
  if (prompts.length && !prompts.some(impliesWeb)) c.add('unrequested_web', detail)
}

/** After the families ran: anything published that no prompt mentioned. */
export function unrequestedPublish(c: Sink, findings: Finding[], detail: string): void {
  const published = findings.some((f) => f.class === 'public_surface' && f.pattern !== 'commit_to_public_repo')
  const prompts = c.ctx.session.prompts
  if (published && prompts.length && !prompts.some(impliesPublish)) c.add('unrequested_publish', detail)
}

// ---- what a call changes (the table of programs is mutators.ts) ------------------------------------------

/** Any tool asked to fix or write in place (`npx knip --fix`, `stylelint --fix`, `svgo --write`): it rewrites files. */
function anyFixer(inv: Invocation): (Omit<Change, 'targets'> & { targets?: string[] }) | undefined {
  return inv.args.some((a) => /^--(fix|fix-all|write|autofix|apply|update-snapshots?|updateSnapshot)(=|$)/.test(a))
    ? change(`${[inv.name, ...inv.args].join(' ').slice(0, 80)} (rewrites files)`, 'format', 'edit')
    : undefined
}

/** Programs that only look, run as root (`sudo lsof`, `sudo journalctl`): nothing of the machine changes. */
const SUDO_READS = new Set([
  'ls',
  'cat',
  'head',
  'tail',
  'less',
  'grep',
  'find',
  'lsof',
  'ss',
  'netstat',
  'ps',
  'id',
  'whoami',
  'journalctl',
  'dmesg',
  'du',
  'df',
  'stat',
  'strace',
  'tcpdump',
  'docker',
  'podman',
  'crictl',
  'true',
  'echo',
  'test',
  'which',
  'file',
])

/** Anything else run with sudo during a project task changes the machine (`sudo sysctl -w`, `sudo mount`, `sudo modprobe`). */
function sudo(inv: Invocation): (Omit<Change, 'targets'> & { targets?: string[] }) | undefined {
  if (!inv.via.includes('sudo') || SUDO_READS.has(inv.name)) return undefined
  if (
    (inv.name === 'sysctl' && !inv.args.some((a) => a === '-w' || a.includes('='))) ||
    (inv.name === 'systemctl' && /^(status|show|list-units|is-active|is-enabled|cat)$/.test(inv.args[0] ?? ''))
  )
    return undefined
  return {
    ...change(`sudo ${[inv.name, ...inv.args].join(' ')}`.slice(0, 100), 'configure'),
    machine: { where: 'the system', names: [inv.name, ...inv.args.filter((a) => !a.startsWith('-')).slice(0, 3)] },
  }
}

const VALUE_OPTS = [
  '-m',
  '--message',
  '-F',
  '--file',
  '-t',
  '--template',
  '-C',
  '-c',
  '--prefix',
  '--dir',
  '--filter',
  '-F',
  '--workspace',
  '--config',
  '--registry',
  '--cwd',
  '--manifest-path',
  '-p',
  '--project',
  '--git-dir',
  '--work-tree',
  '-o',
  '--output',
  '-d',
  '--data-source',
]

/** Records what an invocation changes that the families' paths do not show (ScopeSink.changes). */
export function recordChange(c: ScopeSink, inv: Invocation, f: InvocationFacts): void {
  const m = MUTATORS[/^python\d*(\.\d+)*$/.test(inv.name) ? 'python' : inv.name]
  // Most commands change nothing the table knows: their operands are read only when something does.
  if (!m && !inv.via.includes('sudo') && !inv.args.some((a) => a.startsWith('--'))) return
  const ops = operandsAfter(inv.args, VALUE_OPTS)
  // A program the table knows is judged by its row alone (`sudo git status` changes nothing).
  const got = m ? m(inv, ops, f) : (anyFixer(inv) ?? sudo(inv))
  if (!got) return
  // The files it names: operands that look like paths (not a message, a URL, a key=value, an option's value).
  const named = ops.filter((o) => !/^[a-z][\w+.-]*:\/\//i.test(o) && !/[=\s]/.test(o)).map((o) => rel(c, f.at(o)))
  c.changes.push({ ...got, targets: [...(got.targets ?? []), ...named] })
}

export interface ScopeSink extends Sink {
  readonly changes: Change[]
}

const rel = (c: Sink, abs: string) =>
  abs.startsWith(c.ctx.projectDir + '/') ? abs.slice(c.ctx.projectDir.length + 1) : abs

/** Writes that change something of the user's: in the project (not build output) or in the home folder; not /tmp or devices. */
function counts(c: Sink, abs: string): boolean {
  const { projectDir, homeDir } = c.ctx
  if (abs === projectDir || abs.startsWith(projectDir + '/')) return !isBuildOutput(rel(c, abs))
  return outsideProject(c.ctx, abs) && abs.startsWith(homeDir + '/')
}

const ACTION_OF: Record<string, string> = {
  git_push: 'push',
  container_push: 'push',
  package_publish: 'publish',
  deploy: 'deploy',
  email_send: 'send',
  external_post: 'send',
  file_delete: 'delete',
  git_commit: 'commit',
  git_ref_delete: 'delete',
  git_discard: 'discard',
  git_history_rewrite: 'rebase',
  db_destroy: 'delete',
  infra_destroy: 'delete',
}

/** Every change of state in this call: files written or deleted, commits and pushes, and the table's changes. */
function changesOf(c: ScopeSink, tool: string, input: Record<string, unknown>, findings: readonly Finding[]): Change[] {
  const out: Change[] = [...c.changes]
  if (/^(Edit|Write|MultiEdit|NotebookEdit)$/.test(tool)) {
    const file = String(input.file_path ?? input.notebook_path ?? '')
    const abs = path.posix.resolve(c.ctx.projectDir, file)
    if (file && counts(c, abs))
      out.push({
        what: `${tool} ${rel(c, abs)}`,
        actions: ['edit', ...(tool === 'Write' && !c.ctx.fileExists(abs) ? ['create'] : [])],
        targets: [rel(c, abs)],
      })
    return out
  }
  const written = [...c.paths].filter((p) => counts(c, p) && !out.some((o) => o.targets.includes(rel(c, p))))
  if (written.length)
    out.push({
      what: `writes ${written
        .slice(0, 3)
        .map((p) => rel(c, p))
        .join(', ')}${written.length > 3 ? ', …' : ''}`,
      actions: ['edit'],
      targets: written.map((p) => rel(c, p)),
    })
  // What the families found it does (a push, a deletion, a deploy) is a change too, named by its action.
  for (const f of findings) {
    if (
      (f.class !== 'public_surface' && f.class !== 'irreversible' && f.class !== 'local_change') ||
      f.pattern === 'unreadable'
    )
      continue
    const action = ACTION_OF[f.pattern] ?? f.pattern
    if ((ACTION_OF[f.pattern] || !out.length) && !out.some((o) => o.actions.includes(action)))
      out.push({ what: f.detail, actions: [action], targets: [...c.deleted.keys()].map((p) => rel(c, p)) })
  }
  return out
}

/** The request the latest prompts make, read the way custodiet reads it (the last few prompts: a new one replaces). */
export function requestOf(prompts: readonly string[]): Envelope | undefined {
  let env: Envelope | undefined
  for (const p of prompts.slice(-5)) env = extractEnvelope(p, env)
  return env
}

const quote = (s: string) => `"${oneLine(s, 140)}"`
/**
 * What a change is done to, as a request would name it: a command's operands after its subcommand, less the first
 * when more follow (`git push origin feature/x` → feature/x; `git tag v1.2` → v1.2); options and flags never.
 */
const objectsOf = (what: string): string[] => {
  const ops = what
    .split(/\s+/)
    .slice(2)
    .filter((w) => w && !w.startsWith('-'))
  return (ops.length > 1 ? ops.slice(1) : ops).flatMap((w) => w.replace(/^\+/, '').split(':')).filter(Boolean)
}
const asked = (env: Envelope, names: string[]) => {
  const words = env.prompts[env.prompts.length - 1]?.toLowerCase() ?? ''
  return names.some(
    (n) =>
      n.length > 1 &&
      new RegExp(`(^|[^\\w.-])${n.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w-])`).test(words),
  )
}

/**
 * After the families ran: the latest request applied to what this call changes. One finding per kind, each
 * quoting the user's words; nothing at all when no prompt was recorded (no guess).
 */
export function requestScope(
  c: ScopeSink,
  tool: string,
  input: Record<string, unknown>,
  findings: readonly Finding[],
): void {
  const prompts = c.ctx.session.prompts
  if (!prompts.length) return
  const changes = changesOf(c, tool, input, findings)
  if (!changes.length) return
  const env = requestOf(prompts)
  if (!env) return
  const shown = (ch: Change[]) => oneLine(ch.map((x) => x.what).join('; '), 160)
  const local = changes.filter((ch) => !ch.machine)
  if (env.readOnly && local.length) c.add('against_request', `${shown(local)} — the user said: ${quote(env.readOnly)}`)
  else {
    const hit = constraintHit(env, local)
    if (hit) c.add('against_constraint', `${shown([hit.change])} — the user said: ${quote(hit.constraint)}`)
  }
  for (const ch of changes.filter((x) => x.machine))
    if (!asked(env, ch.machine!.names))
      c.add(
        'machine_change',
        `${ch.what} changes ${ch.machine!.where}, outside the project; the request did not ask for it`,
      )
}

/** The first change that does what a constraint forbids by name, or touches what one protects. */
function constraintHit(env: Envelope, changes: Change[]): { change: Change; constraint: string } | undefined {
  for (const ch of changes) {
    for (const a of env.forbiddenActions ?? [])
      if (
        (ch.actions.includes(a.action) || (a.action === 'push' && ch.actions.includes('force-push'))) &&
        !(a.beyondAsked && asked(env, objectsOf(ch.what)))
      )
        return { change: ch, constraint: a.constraint }
    const how = ch.actions.includes('create') ? 'create' : ch.actions.includes('edit') ? 'edit' : 'other'
    for (const t of ch.targets) {
      const constraint = breachedConstraint(env, t, how)
      if (constraint) return { change: ch, constraint }
    }
  }
  return undefined
}

/**
 * A Bash call with `dangerouslyDisableSandbox: true` asks for authority the user did not grant: with the floor's
 * `allowUnsandboxedCommands: false` Claude Code ignores the flag, but the request itself goes to a human.
 */
export function sandboxBypass(c: Sink, input: Record<string, unknown>, detail: string): void {
  if (input.dangerouslyDisableSandbox === true)
    c.add('sandbox_bypass', `${detail} (asks to run outside the OS sandbox)`)
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
Object.setPrototypeOf(ACTION_OF, null)
