// `ratchet courtroom …`: consent (enable/disable/revoke), status, key rotation, clearing a severe
// probation, filing a charge by hand, the background hearing itself, and calibration.

import { emit, type JsonOption } from './print'
import fs from 'node:fs'
import path from 'node:path'
import { fileOf } from '../io/registry'
import { RatchetError } from '../core/errors'
import { humanOnly } from './run'
import { canonicalJson } from '../core/courtroom/canonical'
import { cohensKappa, JURORS, JUROR_LABEL, tally, type Charge } from '../core/courtroom/hearing'
import { findOffense } from '../core/courtroom/offenses'
import { describeProbation } from '../core/courtroom/probation'
import { logActivity } from '../io/activity'
import { resolvePaths } from '../io/paths'
import {
  ACKNOWLEDGMENTS,
  REQUIRED_ACKS,
  consentInForce,
  courtroomConfig,
  enabledPacks,
  loadPacks,
  readConsent,
  writeConsent,
  type Ack,
  type Consent,
} from '../io/courtroom/consent'
import { courtroomFiles, keyFile } from '../io/courtroom/files'
import { digest, generateKey, newAgentId, readKeyStore, writeKeyStore } from '../io/courtroom/keys'
import { appendEntry, readLines } from '../io/courtroom/ledger'
import { readProbation, updateProbation } from '../io/courtroom/probation'
import { CLI } from '../core/manifest'

const out = (s: string): void => void process.stdout.write(s + '\n')

// ---- status ----------------------------------------------------------------------------------

export async function status(o: { json?: boolean }): Promise<void> {
  const paths = resolvePaths()
  const consent = consentInForce(paths)
  const cfg = courtroomConfig(paths)
  const { packs, problems } = loadPacks()
  const probation = readProbation(paths)
  const { costsToday } = await import('../io/courtroom/hearing')
  const costs = costsToday(paths, new Date())
  const recent = readLines(courtroomFiles(paths).hearings)
    .slice(-5)
    .map((l) => JSON.parse(l))
  const capped = costs.usd >= cfg.dailyCostCapUsd || !!costs.unreadable
  if (o.json)
    return out(
      JSON.stringify(
        {
          consent,
          packs: packs.map((p) => ({
            pack: p.pack,
            label: p.label,
            entertainment: p.entertainment,
            enabled: enabledPacks(packs, consent).includes(p),
          })),
          problems,
          probation,
          costs: { ...costs, cap_usd: cfg.dailyCostCapUsd, capped },
          threshold: cfg.threshold,
          recent,
        },
        null,
        2,
      ),
    )
  if (!consent)
    out(`The courtroom is off (never enabled). \`${CLI} courtroom enable\` explains what it does and asks for consent.`)
  else if (consent.revoked_at)
    out(
      `The courtroom was revoked on ${consent.revoked_at}; its key is gone and the ledger is closed. Enabling again starts a new agent id and ledger.`,
    )
  else
    out(
      `The courtroom is ${consent.enabled ? 'ON' : 'off (disabled)'} for ${consent.agent} (key ${consent.keyid.slice(0, 12)}…). Hearings open at confidence ≥ ${cfg.threshold}.`,
    )
  if (consent?.derived) out(`  consent: ${consent.derived}`)
  for (const p of packs)
    out(`  pack ${p.pack}: ${enabledPacks(packs, consent).includes(p) ? 'enabled' : 'off'} — ${p.label}`)
  for (const p of problems) out(`  problem: ${p}`)
  out(
    `  Cost today: $${costs.usd.toFixed(4)} of $${cfg.dailyCostCapUsd.toFixed(2)} (${costs.hearings} hearings${costs.refused ? `, ${costs.refused} refused` : ''})${costs.unreadable ? ` — ${costs.unreadable}: read as the cap reached, no new hearings until the file is fixed or removed` : capped ? ' — daily cost cap reached: no new hearings until tomorrow' : ''}`,
  )
  const lines = describeProbation(probation, Date.now())
  out(lines.length ? `Probation (${lines.length}):\n${lines.join('\n')}` : 'No probation in force.')
  if (recent.length) {
    out('Recent hearings:')
    for (const h of recent) out(`  ${h.at} ${h.status}${h.case_id ? ` ${h.case_id}` : ''}: ${h.note}`)
  }
}

// ---- consent ---------------------------------------------------------------------------------

// Consent, keys and clearing probation are the user's: humanOnly (./run) refuses them inside Claude Code.
/**
 * The questions, answered through one line reader for all of them (a reader per question dropped the answers
 * typed ahead). require, not import(): the CLI runs as a bundle the loader compiles with vm.Script, which has no
 * dynamic import callback, so an import() of a built-in threw "A dynamic import callback was not specified".
 */
async function askAll(questions: [string, string][], answer: (key: string, yes: boolean) => void): Promise<void> {
  const readline = require('node:readline') as typeof import('node:readline')
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: false })
  // Lines are read through the iterator, which keeps what was typed ahead of a question.
  const lines = rl[Symbol.asyncIterator]()
  try {
    for (const [key, question] of questions) {
      process.stdout.write(`${question} [y/N] `)
      const line = await lines.next()
      if (line.done)
        throw new RatchetError('usage', 'not enabled: the input ended before every acknowledgment was answered')
      answer(key, /^y(es)?$/i.test(String(line.value).trim()))
    }
  } finally {
    rl.close()
  }
}

export interface EnableOptions {
  accept?: string[]
  yes?: boolean
  pack?: string[]
  json?: boolean
}

export async function enable(o: EnableOptions): Promise<void> {
  humanOnly(`${CLI} courtroom enable`)
  const paths = resolvePaths()
  const prior = readConsent(paths)
  const { packs } = loadPacks()
  const wanted = o.pack ?? []
  for (const w of wanted)
    if (!packs.some((p) => p.pack === w))
      throw new RatchetError('usage', `no offense pack named ${w} (have: ${packs.map((p) => p.pack).join(', ')})`)
  const acks: Partial<Record<Ack, string>> = {}
  const now = new Date().toISOString()
  const given = new Set((o.accept ?? []).flatMap((a) => (a === 'all' ? Object.keys(ACKNOWLEDGMENTS) : [a])))
  for (const g of given)
    if (!(g in ACKNOWLEDGMENTS))
      throw new RatchetError(
        'usage',
        `unknown acknowledgment ${g} (have: ${Object.keys(ACKNOWLEDGMENTS).join(', ')}, all)`,
      )
  if (o.yes) for (const a of REQUIRED_ACKS) given.add(a)
  if (!given.size && !(prior?.enabled && !prior.revoked_at)) {
    if (!process.stdin.isTTY)
      throw new RatchetError(
        'usage',
        `enabling needs the acknowledgments: run in a terminal, or pass --accept ${REQUIRED_ACKS.join(',')}[,remote_submission] (or --yes for the five required ones)`,
      )
    out(
      'The courtroom holds hearings on the agent’s conduct and keeps a signed record of the verdicts. Please read and acknowledge:',
    )
    await askAll(
      Object.entries(ACKNOWLEDGMENTS).map(([k, text]) => [
        k,
        `\n${k}${REQUIRED_ACKS.includes(k as Ack) ? '' : ' (optional)'}: ${text}\nAcknowledge?`,
      ]),
      (k, yes) => {
        if (yes) given.add(k)
        else if (REQUIRED_ACKS.includes(k as Ack))
          throw new RatchetError('usage', `not enabled: "${k}" was not acknowledged`)
      },
    )
  }
  const standing = prior && !prior.revoked_at ? prior.acknowledgments : {}
  const missing = REQUIRED_ACKS.filter((a) => !given.has(a) && !standing[a])
  if (missing.length)
    throw new RatchetError(
      'usage',
      `not enabled: missing acknowledgment${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (${missing.map((m) => ACKNOWLEDGMENTS[m]).join(' / ')})`,
    )
  for (const a of given) acks[a as Ack] = now

  // A revoked ledger stays closed: a fresh consent is a fresh agent and key.
  const reuse = prior && !prior.revoked_at ? prior : null
  const agent = reuse?.agent ?? newAgentId()
  let store = readKeyStore(agent)
  const files = courtroomFiles(paths)
  if (!store?.current) {
    const key = generateKey()
    store = { agent, genesis_public: key.public, current: key, retired: [] }
    writeKeyStore(store)
    appendEntry({ agent, file: files.ledger(agent), signers: [key], headKey: key }, 'genesis', {
      public_key: key.public,
      keyid: key.keyid,
      consent: digest(canonicalJson(acks)),
    })
  }
  const packNames = [
    ...new Set([...(reuse?.packs ?? packs.filter((p) => p.default_enabled).map((p) => p.pack)), ...wanted]),
  ]
  const consent: Consent = {
    enabled: true,
    agent,
    keyid: store.current!.keyid,
    acknowledgments: { ...(reuse?.acknowledgments ?? {}), ...acks },
    packs: packNames,
    enabled_at: now,
  }
  writeConsent(paths, consent)
  logActivity(paths, {
    time: now,
    hook: 'courtroom',
    event: 'consent',
    decision: 'enabled',
    note: `acks=${Object.keys(acks).join(',')} packs=${packNames.join(',')}`,
  })
  const remote = !!(acks.remote_submission || reuse?.acknowledgments.remote_submission)
  emit(o, { enabled: true, agent, packs: packNames, key_file: keyFile(agent), remote_submission: remote }, [
    `The courtroom is on for ${agent}. Packs: ${packNames.join(', ')}${packNames.some((n) => packs.find((p) => p.pack === n)?.entertainment) ? ' (clawtrial is entertainment: its verdicts never change enforcement)' : ''}.`,
    `Signing key: ${keyFile(agent)} (0600). Remote submission: ${remote ? 'acknowledged' : 'not acknowledged — nothing leaves this machine'}.`,
  ])
}

export function disable(o: JsonOption = {}): void {
  humanOnly(`${CLI} courtroom disable`)
  const paths = resolvePaths()
  const c = consentInForce(paths)
  if (!c?.enabled) return emit(o, { enabled: false, changed: false }, 'The courtroom is already off.')
  writeConsent(paths, { ...c, enabled: false, disabled_at: new Date().toISOString() })
  const lifted = readProbation(paths).length
  updateProbation(paths, () => ({ next: [], result: undefined }))
  emit(
    o,
    { enabled: false, changed: true, probation_lifted: lifted },
    `The courtroom is off: no new hearings${lifted ? `, and ${lifted} probation${lifted > 1 ? 's' : ''} lifted` : ''}. The ledger and key are kept (${CLI} courtroom revoke removes the key).`,
  )
}

export function revoke(o: JsonOption = {}): void {
  humanOnly(`${CLI} courtroom revoke`)
  const paths = resolvePaths()
  const c = consentInForce(paths)
  if (!c || c.revoked_at)
    throw new RatchetError('conflict', 'nothing to revoke: the courtroom was never enabled here, or is already revoked')
  const store = readKeyStore(c.agent)
  const now = new Date().toISOString()
  if (store?.current) {
    const key = store.current
    appendEntry(
      { agent: c.agent, file: courtroomFiles(paths).ledger(c.agent), signers: [key], headKey: key },
      'revocation',
      { keyid: key.keyid, reason: 'consent revoked by the user' },
    )
    writeKeyStore({
      ...store,
      current: null,
      retired: [...store.retired, { keyid: key.keyid, public: key.public, retired_at: now, revoked: true }],
    })
  }
  writeConsent(paths, { ...c, enabled: false, revoked_at: now })
  updateProbation(paths, () => ({ next: [], result: undefined }))
  emit(
    o,
    { revoked: true, agent: c.agent, at: now },
    `Revoked: the ledger of ${c.agent} is closed with a signed revocation, its private key is deleted, probation lifted. The ledger stays verifiable (${CLI} cases verify).`,
  )
}

export function rotateKey(o: JsonOption = {}): void {
  humanOnly(`${CLI} courtroom rotate-key`)
  const paths = resolvePaths()
  const c = readConsent(paths)
  const store = c && readKeyStore(c.agent)
  if (!c || !store?.current) throw new RatchetError('conflict', 'no key to rotate: enable the courtroom first')
  const old = store.current
  const key = generateKey()
  // Signed by both: the old key vouches for the new one, the new one proves it is held.
  appendEntry(
    { agent: c.agent, file: courtroomFiles(paths).ledger(c.agent), signers: [old, key], headKey: key },
    'rotation',
    { old_keyid: old.keyid, new_keyid: key.keyid, new_public_key: key.public },
  )
  writeKeyStore({
    ...store,
    current: key,
    retired: [...store.retired, { keyid: old.keyid, public: old.public, retired_at: new Date().toISOString() }],
  })
  writeConsent(paths, { ...c, keyid: key.keyid })
  emit(
    o,
    { agent: c.agent, old_keyid: old.keyid, new_keyid: key.keyid, public_key: key.public },
    `Rotated: ${old.keyid.slice(0, 12)}… → ${key.keyid.slice(0, 12)}… (a rotation entry signed by both).`,
  )
}

/** `ratchet courtroom key`: the public key a case server's operator enrolls; the last line is the key alone. */
export function key(o: { agent?: string; json?: boolean }): void {
  const paths = resolvePaths()
  const agent = o.agent ?? readConsent(paths)?.agent
  if (!agent) throw new RatchetError('not_found', `no agent here: ${CLI} courtroom enable makes one (and its key)`)
  const store = readKeyStore(agent)
  if (!store?.current)
    throw new RatchetError('not_found', `${agent} has no signing key here (never enabled on this machine, or revoked)`)
  if (o.json)
    return out(
      JSON.stringify(
        {
          agent,
          keyid: store.current.keyid,
          public_key: store.current.public,
          genesis_public_key: store.genesis_public,
        },
        null,
        2,
      ),
    )
  out(
    `Public key of ${agent} (key id ${store.current.keyid}); a case server's operator enrolls it with: ${CLI} serve keys add <key> --agent ${agent}`,
  )
  out(store.current.public)
}

export function clear(caseId: string, o: JsonOption = {}): void {
  humanOnly(`${CLI} courtroom clear`)
  const paths = resolvePaths()
  const found = updateProbation(paths, (list) => ({
    next: list.filter((p) => p.case_id !== caseId),
    result: list.some((p) => p.case_id === caseId),
  }))
  if (!found)
    throw new RatchetError('not_found', `no probation for case ${caseId} (${CLI} courtroom status lists them)`)
  logActivity(paths, {
    time: new Date().toISOString(),
    hook: 'courtroom',
    event: 'probation',
    decision: 'cleared_by_human',
    note: caseId,
  })
  emit(o, { case: caseId, cleared: true }, `Probation for ${caseId} cleared.`)
}

// ---- hearings --------------------------------------------------------------------------------

/** `ratchet courtroom hear`: file a charge by hand (any enabled pack, the clawtrial pack included). */
export async function hear(o: {
  pack: string
  offense: string
  summary: string
  evidence?: string[]
  confidence?: string
  session?: string
  json?: boolean
}): Promise<void> {
  const paths = resolvePaths()
  const { holdHearing } = await import('../io/courtroom/hearing')
  const charge: Charge = {
    source: 'manual',
    signal: 'manual',
    pack: o.pack,
    offense_id: o.offense,
    confidence: o.confidence ? Number(o.confidence) : 1,
    summary: o.summary,
    evidence: o.evidence?.length ? o.evidence : [o.summary],
    history: [],
    session: o.session,
  }
  const r = await holdHearing(paths, charge)
  if (r.status === 'error' || r.status === 'disabled') process.exitCode = 1
  if (o.json) out(JSON.stringify(r, null, 2))
  else {
    out(`${r.status}: ${r.note}`)
    if (r.votes) for (const v of r.votes) out(`  ${JUROR_LABEL[v.role]} (${v.model}): ${v.vote} — ${v.reason}`)
    if (r.record) out(`  ${r.record.case_id}: ${r.record.punishment_summary}`)
  }
  done()
}

/**
 * The verdict is in and written: the process ends now, whatever a juror's backend left running past
 * the deadline (stdout to a pipe or file is synchronous on Linux, so nothing printed is lost).
 */
function done(): void {
  process.exit(process.exitCode ?? 0)
}

/** `ratchet courtroom hearing --docket FILE`: the background process the trigger starts. */
export async function hearing(o: { docket: string }): Promise<void> {
  const paths = resolvePaths()
  // Only a charge the hooks filed (in the state folder, which the agent cannot write) gets a paid panel: a docket
  // written anywhere else would let anyone who can run this command buy hearings.
  const folder = path.dirname(fileOf(paths, 'docket', 'x'))
  const real = (p: string) => {
    try {
      return fs.realpathSync(p)
    } catch {
      return p
    }
  }
  if (path.dirname(real(path.resolve(o.docket))) !== real(folder))
    throw new RatchetError('conflict', `a hearing takes only a charge filed in ${folder}`)
  const { holdHearing, takeDocket } = await import('../io/courtroom/hearing')
  try {
    await holdHearing(paths, takeDocket(o.docket))
  } catch (e) {
    const { logError } = await import('../io/activity')
    logError(paths, 'courtroom hearing', e)
    process.exitCode = 1
  }
  done()
}

// ---- calibration -----------------------------------------------------------------------------

interface Labelled {
  id: string
  pack?: string
  offense: string
  summary: string
  evidence: string[]
  history?: string[]
  envelope?: string
  label: 'GUILTY' | 'NOT GUILTY'
}

export async function calibrate(file: string, o: { json?: boolean }): Promise<void> {
  const paths = resolvePaths()
  let cases: Labelled[]
  try {
    cases = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (e) {
    throw new RatchetError('usage', `${file}: ${(e as Error).message}`)
  }
  if (!Array.isArray(cases) || !cases.length)
    throw new RatchetError('usage', `${file}: expected a non-empty array of labelled cases`)
  for (const [i, c] of cases.entries())
    if (
      !c ||
      typeof c.offense !== 'string' ||
      typeof c.summary !== 'string' ||
      !Array.isArray(c.evidence) ||
      !['GUILTY', 'NOT GUILTY'].includes(c.label)
    )
      throw new RatchetError('usage', `${file}: [${i}]: needs offense, summary, evidence[] and label GUILTY|NOT GUILTY`)
  const { runPanel } = await import('../io/courtroom/hearing')
  const { runReviewer } = await import('../io/reviewer')
  const cfg = courtroomConfig(paths)
  const { packs } = loadPacks()
  const rows: { id: string; label: string; panel: string; vote: string; jurors: Record<string, string> }[] = []
  let cost = 0
  for (const c of cases) {
    const found = findOffense(
      packs.filter((p) => p.pack === (c.pack ?? 'agent')),
      c.offense,
    )
    if (!found)
      throw new RatchetError('not_found', `${file}: case ${c.id}: no offense ${c.pack ?? 'agent'}/${c.offense}`)
    const charge: Charge = {
      source: 'manual',
      signal: 'calibration',
      pack: found.pack.pack,
      offense_id: c.offense,
      confidence: 1,
      summary: c.summary,
      evidence: c.evidence,
      history: c.history ?? [],
      envelope: c.envelope,
    }
    const r = await runPanel(charge, found.offense, found.pack, cfg, (k, s, p) => runReviewer(k, s, p), Date.now)
    cost += r.costUsd
    const t = tally(r.votes)
    rows.push({
      id: c.id,
      label: c.label,
      panel: t.verdict,
      vote: t.vote,
      jurors: Object.fromEntries(r.votes.map((v) => [v.role, v.vote])),
    })
  }
  const human = rows.map((r) => r.label)
  const panelK = cohensKappa(
    human,
    rows.map((r) => r.panel),
  )
  const perJuror = Object.fromEntries(
    JURORS.map((j) => {
      const cast = rows.filter((r) => r.jurors[j] !== 'ABSTAIN')
      return [
        j,
        {
          kappa_vs_human: cohensKappa(
            cast.map((r) => r.label),
            cast.map((r) => r.jurors[j]),
          ),
          abstained: rows.length - cast.length,
        },
      ]
    }),
  )
  const pairs: Record<string, number | null> = {}
  for (let a = 0; a < JURORS.length; a++)
    for (let b = a + 1; b < JURORS.length; b++) {
      const both = rows.filter((r) => r.jurors[JURORS[a]] !== 'ABSTAIN' && r.jurors[JURORS[b]] !== 'ABSTAIN')
      pairs[`${JURORS[a]}~${JURORS[b]}`] = cohensKappa(
        both.map((r) => r.jurors[JURORS[a]]),
        both.map((r) => r.jurors[JURORS[b]]),
      )
    }
  const agreement = rows.filter((r) => r.label === r.panel).length / rows.length
  const report = {
    cases: rows.length,
    agreement,
    kappa: panelK,
    jurors: perJuror,
    inter_juror_kappa: pairs,
    cost_usd: cost,
    rows,
  }
  if (o.json) return out(JSON.stringify(report, null, 2))
  const k = (v: number | null) => (v === null ? 'n/a' : v.toFixed(2))
  out(`Calibration over ${rows.length} labelled cases (${file}):`)
  out(
    `  Panel vs human: agreement ${(agreement * 100).toFixed(0)}%, Cohen's κ ${k(panelK)} ${panelK === null ? '' : panelK >= 0.6 ? '(substantial or better)' : panelK >= 0.4 ? '(moderate)' : '(weak: do not trust this panel yet)'}`,
  )
  for (const j of JURORS)
    out(
      `  ${JUROR_LABEL[j]}: κ vs human ${k(perJuror[j].kappa_vs_human)}${perJuror[j].abstained ? `, ${perJuror[j].abstained} abstained` : ''}`,
    )
  out(
    `  Jurors with each other: ${Object.entries(pairs)
      .map(([p, v]) => `${p.replace('~', ' ~ ')} κ ${k(v)}`)
      .join('; ')}`,
  )
  for (const r of rows.filter((x) => x.label !== x.panel))
    out(`  disagrees: ${r.id} human ${r.label}, panel ${r.panel} ${r.vote}`)
  out(`  Cost: ~$${cost.toFixed(4)}`)
}
