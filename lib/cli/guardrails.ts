// `ratchet guardrails list|add|explain|patterns` and `ratchet log`.

import fs from 'node:fs'
import { RatchetError } from '../core/errors'
import { judge } from '../../hooks/preflight-check/judge'
import type { ActiveRule } from '../core/builtins'
import { decisionOf, matchability, nextGuardrailId, validateGuardrails, type Guardrail } from '../core/guardrails'
import { ACTION_CLASSES, CLASS_LABEL, PATTERNS, isKnownPattern } from '../core/patterns'
import { parsePayload } from '../core/payloads'
import { editGuardrails, loadGuardrails, type LoadedGuardrails } from '../io/guardrails'
import { resolvePaths } from '../io/paths'
import { openRegular } from '../io/store'
import { CLI } from '../core/manifest'

const out = (s: string): void => void process.stdout.write(s.endsWith('\n') ? s : s + '\n')

/** One line on what is in force and from where, for `guardrails list` and `doctor`. */
export function activeSummary(loaded: LoadedGuardrails): string {
  const builtins = loaded.rules.filter((r) => r.origin === 'built-in')
  const on = builtins.filter((r) => r.enabled !== false)
  const off = builtins.filter((r) => r.enabled === false).map((r) => `${r.id} off`)
  const tuned = builtins.filter((r) => r.enabled !== false && r.tuned?.length).map((r) => `${r.id} → ${decisionOf(r)}`)
  const own = loaded.rules.filter((r) => r.origin !== 'built-in')
  const from =
    loaded.origin === 'project'
      ? loaded.file
      : loaded.origin === 'last-good'
        ? `the last valid version of ${loaded.file}`
        : 'no project file'
  return `${on.length} of ${builtins.length} built-in${tuned.length || off.length ? ` (${[...tuned, ...off].join(', ')})` : ''} + ${own.length} from the project (${from})`
}

export function list(o: { json?: boolean }): void {
  const paths = resolvePaths()
  const loaded = loadGuardrails(paths, { full: true })
  const rank = (r: ActiveRule) => (r.origin === 'built-in' ? 0 : 1)
  const rows = [...loaded.rules].sort(
    (a, b) =>
      rank(a) - rank(b) || (a.severity === b.severity ? a.id.localeCompare(b.id) : a.severity === 'hard' ? -1 : 1),
  )
  if (o.json) {
    out(
      JSON.stringify(
        {
          file: loaded.file,
          origin: loaded.origin,
          summary: activeSummary(loaded),
          problems: loaded.problems,
          guardrails: rows.map((r) => ({ ...r, effective_decision: decisionOf(r), matched_by: matchability(r) })),
        },
        null,
        2,
      ),
    )
    return
  }
  out(
    `${loaded.file}${loaded.origin === 'project' ? '' : loaded.origin === 'packaged' ? ` (no project file yet: built-ins only; run \`${CLI} init\`)` : loaded.origin === 'last-good' ? ' (the project file is broken: its last valid rules stay in force until it is fixed)' : ' (the project file is broken: built-ins only until it is fixed)'}`,
  )
  out(`In force: ${activeSummary(loaded)}`)
  out(
    'Built-ins are always on; tune or turn one off by naming its id in guardrails.json, e.g. {"id":"RG-IRREVERSIBLE","decision":"warn"}.',
  )
  for (const p of loaded.problems) out(`  ! ${p}`)
  const w = Math.max(...rows.map((r) => r.id.length))
  for (const r of rows) {
    const how = matchability(r)
    const what =
      r.id === 'RG-FIRST-USE' || r.id === 'RG-SELF'
        ? `${r.pattern} (enforced by preflight-check itself)`
        : how === 'awareness'
          ? `${r.pattern} (not machine-matched: shown at session start only)`
          : [isKnownPattern(r.pattern) ? r.pattern : '', r.match ? `match ${JSON.stringify(r.match)}` : '']
              .filter(Boolean)
              .join(' + ')
    const fired = r.fire_count ? `fired ${r.fire_count}×, last ${r.last_fired ?? '?'}` : 'never fired'
    const origin =
      r.origin === 'built-in'
        ? `built-in${r.tuned?.length ? `, tuned by the project (${r.tuned.join(', ')})` : ''}`
        : `${r.origin}${r.source ? `, from ${r.source}` : ''}`
    out(
      `${r.enabled === false ? '-' : ' '} ${r.id.padEnd(w)}  ${r.severity.padEnd(4)} → ${(r.enabled === false ? 'off' : decisionOf(r)).padEnd(5)}  ${what}`,
    )
    out(`  ${' '.repeat(w)}  ${r.rule}`)
    out(`  ${' '.repeat(w)}  ${origin}; ${fired}`)
  }
}

interface AddOptions {
  rule: string
  pattern?: string
  id?: string
  trigger?: string
  check?: string
  source?: string
  severity: 'hard' | 'soft'
  decision?: Guardrail['decision']
  tools?: string[]
  command?: string[]
  paths?: string[]
  urls?: string[]
  json?: boolean
}

export function add(o: AddOptions): void {
  const match = Object.fromEntries(
    Object.entries({ tools: o.tools, command: o.command, paths: o.paths, urls: o.urls }).filter(([, v]) => v?.length),
  )
  if (!o.pattern && !Object.keys(match).length)
    throw new RatchetError(
      'usage',
      `give --pattern (see \`${CLI} guardrails patterns\`) or at least one of --tools/--command/--paths/--urls`,
    )
  if (o.pattern && !isKnownPattern(o.pattern) && !Object.keys(match).length)
    process.stderr.write(
      `ratchet: note: "${o.pattern}" is not a known detector, so this rule is shown at session start but never matched (add --command/--paths/… to match it)\n`,
    )
  const paths = resolvePaths()
  const added = editGuardrails(paths, (list) => {
    const ids = new Set(list.map((g) => g.id as string))
    const id = o.id ?? nextGuardrailId(ids)
    if (ids.has(id)) throw new RatchetError('conflict', `a guardrail with id ${id} already exists`)
    const rule: Guardrail = {
      id,
      source: o.source ?? null,
      pattern: o.pattern ?? 'custom',
      trigger: o.trigger ?? null,
      rule: o.rule,
      severity: o.severity,
      added: new Date().toISOString().slice(0, 10),
      last_fired: null,
      fire_count: 0,
      ...(o.decision ? { decision: o.decision } : {}),
      ...(o.check ? { check: o.check } : {}),
      ...(Object.keys(match).length ? { match } : {}),
    }
    const v = validateGuardrails([rule])
    if (v.problems.length)
      throw new RatchetError('rules_invalid', v.problems.map((p) => `${p.where}: ${p.message}`).join('; '))
    return { next: [...list, rule], result: rule }
  })
  if (o.json) out(JSON.stringify(added, null, 2))
  else out(`Added ${added.id} (${added.severity} → ${decisionOf(added)}) to ${paths.guardrails}`)
}

interface ExplainOptions {
  command?: string
  tool: string
  input?: string
  session?: string
  json?: boolean
}

export async function explain(payloadArg: string | undefined, o: ExplainOptions): Promise<void> {
  let call: { tool_name: string; tool_input: Record<string, unknown>; cwd?: string; session_id?: string }
  if (payloadArg) {
    const text = fs.readFileSync(payloadArg === '-' ? 0 : payloadArg, 'utf8')
    const p = parsePayload(text)
    if (!p.ok) throw new RatchetError('usage', `${payloadArg === '-' ? 'stdin' : payloadArg}: ${p.error.message}`)
    if (p.value.hook_event_name !== 'PreToolUse')
      throw new RatchetError('usage', `explain takes a PreToolUse payload, got ${p.value.hook_event_name}`)
    call = p.value
  } else if (o.command !== undefined) call = { tool_name: 'Bash', tool_input: { command: o.command } }
  else if (o.input !== undefined) {
    let input: unknown
    try {
      input = JSON.parse(o.input)
    } catch (e) {
      throw new RatchetError('usage', `--input is not JSON: ${(e as Error).message}`)
    }
    if (!input || typeof input !== 'object') throw new RatchetError('usage', '--input must be a JSON object')
    call = { tool_name: o.tool, tool_input: input as Record<string, unknown> }
  } else
    throw new RatchetError('usage', 'give a payload file (or - for stdin), --command "…", or --tool NAME --input JSON')

  const paths = resolvePaths()
  const sessionId = o.session ?? call.session_id ?? 'explain'
  const payload = {
    session_id: sessionId,
    transcript_path: '',
    cwd: call.cwd ?? process.cwd(),
    hook_event_name: 'PreToolUse' as const,
    tool_name: call.tool_name,
    tool_input: call.tool_input,
  }
  // The hook's own judgement (hooks/preflight-check/judge.ts), read-only: nothing is queued, counted or remembered.
  // Explain the first attempt: an earlier check of the same call in that session does not count.
  const j = await judge(payload, paths, (f) => ({ ...f, session: { ...f.session, checks: {} } }))
  const o2 = j.decide(j.facts)
  const r = o2.result
  const loaded = loadGuardrails(paths, { full: true })
  const verdict = o2.verdict
  const pending = (o2.record as { pending_id?: string }).pending_id
  const queued = o2.effects.some((e) => e.kind === 'enqueue')
  if (o.json) {
    out(
      JSON.stringify(
        {
          action: r.action.summary,
          tool: r.action.tool,
          classes: r.classes,
          findings: r.action.findings,
          guardrails: r.fired.map((f) => ({ id: f.id, decision: f.decision, because: f.because })),
          builtin: r.builtin ?? null,
          verdict,
          decision: o2.decision,
          ...(pending && !queued ? { pending_id: pending } : {}),
          rules_file: loaded.file,
          rules_in_force: activeSummary(loaded),
          problems: loaded.problems,
        },
        null,
        2,
      ),
    )
    return
  }
  out(`Action:   ${r.action.summary}`)
  out(`Classes:  ${r.classes.length ? r.classes.map((c) => CLASS_LABEL[c]).join(', ') : 'none'}`)
  for (const f of r.action.findings) out(`  - ${f.pattern}${f.catastrophic ? ' (catastrophic)' : ''}: ${f.detail}`)
  if (r.action.incomplete) out('  ! the command could not be read completely (unterminated quote or bracket)')
  out(`Rules:    ${r.fired.length ? '' : 'none fired'}`)
  for (const f of r.fired) out(`  - ${f.id} → ${f.decision}: ${f.because.join('; ')}`)
  if (r.builtin) out(`Built-in: ${r.builtin}`)
  const what: Partial<Record<string, string>> = {
    check: ' (denied once; an identical retry within the window runs)',
    pause: queued
      ? ` (a human decides: the agent's call would be queued and wait for \`${CLI} pending approve|deny\`)`
      : ` (waiting for a human: ${pending})`,
    approved_by_human: ` (${pending} was approved: the call runs once)`,
    denied_by_human: ` (${pending} was denied by the human)`,
  }
  out(`Decision: ${verdict}${what[verdict] ?? ''}`)
  if (!o.session && !call.session_id && r.action.findings.some((f) => f.class === 'stale_data'))
    out('          (no session given: explain assumes nothing was read yet; pass --session ID)')
  const d = o2.decision
  const text = 'reason' in d ? d.reason : d.kind === 'allow' ? d.context : undefined
  // A pause not yet queued has no id: the note's "Pending:" line would name one that does not exist.
  if (text) out('\n' + (queued ? text.replace(/\nPending: .*$/s, '') : text))
  for (const p of loaded.problems) out(`! ${p}`)
}

export function patterns(o: { json?: boolean }): void {
  if (o.json) return out(JSON.stringify({ classes: ACTION_CLASSES, patterns: PATTERNS }, null, 2))
  out('Classes (match every pattern of the class): ' + ACTION_CLASSES.join(', ') + ', catastrophic')
  const w = Math.max(...Object.keys(PATTERNS).map((k) => k.length))
  for (const c of ACTION_CLASSES) {
    const names = Object.entries(PATTERNS).filter(([, p]) => p.class === c)
    if (!names.length) continue
    out(`\n${CLASS_LABEL[c]} (${c}):`)
    for (const [name, p] of names) out(`  ${name.padEnd(w)}  ${p.description}`)
  }
}

export function log(o: { lines: string; json?: boolean }): void {
  const paths = resolvePaths()
  const n = Math.max(1, Number(o.lines) || 20)
  let text = ''
  try {
    // Read only the tail: the log grows without bound.
    // A regular file only (a folder, FIFO or device there is refused with one line, never read or waited on).
    const fd = openRegular(paths.activity)
    const size = fs.fstatSync(fd).size
    const want = Math.min(size, n * 2000)
    const buf = Buffer.alloc(want)
    fs.readSync(fd, buf, 0, want, size - want)
    fs.closeSync(fd)
    text = buf.toString('utf8')
  } catch (e) {
    // With --json: no lines (the log's own JSON lines, of which there are none yet).
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      return o.json ? undefined : out(`No activity yet (${paths.activity}).`)
    if (e instanceof RatchetError) throw e
    throw new RatchetError(
      'state_unreadable',
      `${paths.activity}: ${(e as NodeJS.ErrnoException).code === 'EACCES' ? 'is not readable (permission denied)' : (e as Error).message}`,
      { file: paths.activity },
    )
  }
  const lines = text.split('\n').filter(Boolean).slice(-n)
  for (const line of lines) {
    if (o.json) {
      out(line)
      continue
    }
    try {
      const r = JSON.parse(line)
      out(
        `${r.time}  ${String(r.decision).padEnd(21)} ${r.tool ?? r.event}  ${r.action ?? r.note ?? ''}${r.guardrails?.length ? `  [${r.guardrails.join(', ')}]` : ''}`,
      )
    } catch {
      /* a partial first line of the tail window */
    }
  }
}
