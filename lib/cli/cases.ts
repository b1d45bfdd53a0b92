// `ratchet cases list|show|verify|export`: the signed case ledger, read and checked. Verification
// walks the chain from genesis against the key and the signed head kept outside the project, and
// names the first bad entry.

import { emit } from './print'
import fs from 'node:fs'
import { writeUserFile } from './output'
import { RatchetError } from '../core/errors'
import type { CaseRecord } from '../core/courtroom/hearing'
import type { Entry } from '../core/courtroom/chain'
import { resolvePaths } from '../io/paths'
import { readConsent } from '../io/courtroom/consent'
import { courtroomFiles } from '../io/courtroom/files'
import { nodeCrypto, readKeyStore } from '../io/courtroom/keys'
import { verifyChain, type VerifyResult } from '../core/courtroom/chain'
import { readRegularFile } from '../io/store'
import { listAgents, readHead, readLines, verifyLedger } from '../io/courtroom/ledger'
import { CLI } from '../core/manifest'

const out = (s: string): void => void process.stdout.write(s + '\n')

function agentOf(o: { agent?: string }): string {
  const paths = resolvePaths()
  if (o.agent) return o.agent
  const c = readConsent(paths)
  if (c) return c.agent
  const agents = listAgents(courtroomFiles(paths).ledgerDir)
  if (agents.length === 1) return agents[0]
  throw new RatchetError(
    'not_found',
    agents.length
      ? `several ledgers here (${agents.join(', ')}): pick one with --agent`
      : `no case ledger here yet (${CLI} courtroom enable)`,
  )
}

/** Entries as written, without verifying (list/show say when the ledger does not verify). */
function entries(agent: string): Entry[] {
  const out: Entry[] = []
  for (const line of readLines(courtroomFiles(resolvePaths()).ledger(agent))) {
    try {
      out.push(JSON.parse(Buffer.from(JSON.parse(line).payload, 'base64').toString('utf8')))
    } catch {
      /* shown by verify */
    }
  }
  return out
}

const casesOf = (agent: string) =>
  entries(agent)
    .filter((e) => e.kind === 'case')
    .map((e) => ({ seq: e.seq, ...(e.body as unknown as CaseRecord) }))

export function list(o: { agent?: string; json?: boolean }): void {
  const agent = agentOf(o)
  const cases = casesOf(agent)
  if (o.json) return out(JSON.stringify(cases, null, 2))
  if (!cases.length) return out(`No cases on record for ${agent}.`)
  for (const c of cases)
    out(
      `${c.case_id}  ${c.timestamp.slice(0, 16).replace('T', ' ')}  ${c.verdict.padEnd(10)} ${c.vote.padEnd(4)} ${c.severity.padEnd(8)} ${c.pack}/${c.offense_type}`,
    )
  const v = verifyLedger(agent, courtroomFiles(resolvePaths()).ledger(agent))
  if (!v.ok) out(`WARNING: the ledger does not verify (entry ${v.index}: ${v.problem}); run ${CLI} cases verify`)
}

export function show(id: string, o: { agent?: string; json?: boolean }): void {
  const agent = agentOf(o)
  const c = casesOf(agent).find((x) => x.case_id === id)
  if (!c) throw new RatchetError('not_found', `no case ${id} in the ledger of ${agent} (${CLI} cases list)`)
  if (o.json) return out(JSON.stringify(c, null, 2))
  for (const [k, v] of Object.entries(c)) out(`${k.padEnd(20)} ${Array.isArray(v) ? v.join('\n' + ' '.repeat(21)) : v}`)
}

/**
 * An exported ledger, verified on its own: the chain against a genesis key (--key; else this machine's key store
 * for that agent; else the key the file names, which proves the file is intact and self-consistent, not who made
 * it: said in a warning) and the signed head the file carries.
 */
function verifyExport(file: string, o: { key?: string }): { agent: string; where: string; v: VerifyResult } {
  let doc: { format?: unknown; agent?: unknown; genesis_public_key?: unknown; head?: unknown; envelopes?: unknown }
  try {
    doc = JSON.parse(readRegularFile(file))
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new RatchetError(
      code === 'ENOENT' ? 'not_found' : 'usage',
      `${file}: ${code === 'ENOENT' ? 'no such file' : e instanceof SyntaxError ? 'not JSON' : (e as Error).message}`,
    )
  }
  if (doc?.format !== 'ratchet-case-ledger/1' || typeof doc.agent !== 'string' || !Array.isArray(doc.envelopes))
    throw new RatchetError(
      'usage',
      `${file}: not an exported case ledger (format ratchet-case-ledger/1, from ${CLI} cases export)`,
    )
  const agent = doc.agent
  const local = readKeyStore(agent)?.genesis_public
  const named = typeof doc.genesis_public_key === 'string' ? doc.genesis_public_key : undefined
  const genesisKey = o.key ?? local ?? named
  const v = verifyChain(
    nodeCrypto,
    doc.envelopes.map((e) => JSON.stringify(e)),
    { agent, genesisKey, head: (doc.head ?? undefined) as Parameters<typeof verifyChain>[2]['head'] },
  )
  if (!o.key && !local)
    v.warnings.push(
      `verified against the genesis key the file itself names: it shows the file is intact, not who wrote it (pass --key with the key you trust)`,
    )
  else if (!o.key && local && named && named !== local)
    v.warnings.push(
      `the file names another genesis key than this machine's for ${agent}: verified against this machine's`,
    )
  return { agent, where: file, v }
}

export async function verify(o: {
  agent?: string
  json?: boolean
  key?: string
  file?: string
  server?: string
}): Promise<void> {
  if (o.server) return verifyServer(o)
  let agent: string
  let file: string
  let v: VerifyResult
  if (o.file) ({ agent, where: file, v } = verifyExport(o.file, o))
  else {
    agent = agentOf(o)
    file = courtroomFiles(resolvePaths()).ledger(agent)
    if (!fs.existsSync(file)) throw new RatchetError('not_found', `no ledger at ${file}`)
    v = verifyLedger(agent, file, process.env, { genesisKey: o.key })
  }
  if (o.json) {
    out(
      JSON.stringify(
        v.ok
          ? {
              ok: true,
              agent,
              entries: v.entries.length,
              cases: v.entries.filter((e) => e.kind === 'case').length,
              head: v.head,
              warnings: v.warnings,
            }
          : {
              ok: false,
              agent,
              first_bad: v.index,
              problem: v.problem,
              verified: v.entries.length,
              warnings: v.warnings,
            },
        null,
        2,
      ),
    )
  } else if (v.ok) {
    out(
      `OK: ${v.entries.length} entries (${v.entries.filter((e) => e.kind === 'case').length} cases) verify for ${agent}, from genesis to the signed head.`,
    )
    for (const w of v.warnings) out(`  warning: ${w}`)
  } else {
    out(`FAILED: entry ${v.index} of ${file}: ${v.problem}. Entries 0–${v.index - 1} verify.`)
    for (const w of v.warnings) out(`  warning: ${w}`)
  }
  if (!v.ok) process.exitCode = 1
}

/**
 * The ledger against the case server's transparency log: the chain verifies here, the server's checkpoint
 * is signed by the key pinned on first contact and extends the last one seen (the server did not rewrite
 * history), every entry the log holds is in the local ledger byte for byte (no rollback, truncation or
 * re-keying here) and proven in the log.
 */
async function verifyServer(o: { agent?: string; json?: boolean; key?: string; server?: string }): Promise<void> {
  const agent = agentOf(o)
  const paths = resolvePaths()
  const file = courtroomFiles(paths).ledger(agent)
  if (!fs.existsSync(file)) throw new RatchetError('not_found', `no ledger at ${file}`)
  const local = verifyLedger(agent, file, process.env, { genesisKey: o.key })
  const { verifyWithServer } = await import('../io/courtroom/remote')
  const r = await verifyWithServer(paths, agent, o.server!, file)
  const problems = [
    ...(local.ok
      ? []
      : [{ seq: local.index, problem: `the local ledger does not verify at entry ${local.index}: ${local.problem}` }]),
    ...r.problems,
  ]
  const ok = problems.length === 0
  if (o.json)
    out(
      JSON.stringify(
        {
          ok,
          agent,
          ...r,
          local: local.ok
            ? { ok: true, entries: local.entries.length }
            : { ok: false, first_bad: local.index, problem: local.problem },
          problems,
          warnings: local.warnings,
        },
        null,
        2,
      ),
    )
  else {
    if (r.pinned_now) out(`Pinned ${r.server}'s log key (${r.log}) on first contact.`)
    if (ok)
      out(
        `OK: ${r.proven} entries of ${agent} proven in ${r.server}'s log (checkpoint of ${r.checkpoint.size}, consistent with the last one seen here); the local ledger holds everything the log holds.`,
      )
    else {
      out(
        `FAILED: ${problems.length} problem${problems.length > 1 ? 's' : ''} between the local ledger of ${agent} and ${r.server}'s log:`,
      )
      for (const p of problems) out(`  seq ${p.seq}: ${p.problem}`)
    }
    if (r.unsent)
      out(
        `  ${r.unsent} local entr${r.unsent > 1 ? 'ies are' : 'y is'} not on the log yet (${CLI} cases submit --server ${r.server})`,
      )
  }
  if (!ok) process.exitCode = 1
}

/** The whole ledger as one JSON document, verifiable elsewhere with the genesis key it names. */
export function exportLedger(o: { agent?: string; out?: string; json?: boolean }): void {
  const agent = agentOf(o)
  const file = courtroomFiles(resolvePaths()).ledger(agent)
  const v = verifyLedger(agent, file)
  if (!v.ok)
    throw new RatchetError('conflict', `not exported: the ledger does not verify (entry ${v.index}: ${v.problem})`)
  const store = readKeyStore(agent)
  const doc = {
    format: 'ratchet-case-ledger/1',
    agent,
    genesis_public_key: store?.genesis_public ?? null,
    head: readHead(agent) ?? null,
    envelopes: readLines(file).map((l) => JSON.parse(l)),
  }
  const text = JSON.stringify(doc, null, 2) + '\n'
  if (o.out) {
    writeUserFile(resolvePaths(), o.out, text, '--out')
    emit(o, { out: o.out, entries: doc.envelopes.length }, `Exported ${doc.envelopes.length} entries to ${o.out}.`)
  } else process.stdout.write(text)
}

/**
 * Sends what the ledger holds and the case server has not accepted yet (`ratchet serve`), in order, each
 * submission signed for that server and signed afresh; keeps each entry's receipt (leaf, inclusion proof,
 * signed checkpoint) beside the ledger. Refused unless the remote-submission acknowledgment was given: by
 * default nothing leaves the machine. Idempotent: entries already on the server's log are not sent again.
 */
export async function submit(o: { agent?: string; server?: string; url?: string; json?: boolean }): Promise<void> {
  ;(await import('./run')).humanOnly(`${CLI} cases submit`)
  const paths = resolvePaths()
  const consent = readConsent(paths)
  // A revoked courtroom may still send what its ledger holds (ending with the revocation), so the server learns the key is dead.
  if (!consent?.acknowledgments.remote_submission)
    throw new RatchetError(
      'conflict',
      `not sent: remote submission was not acknowledged (${CLI} courtroom enable --accept remote_submission). Nothing left this machine.`,
    )
  const { courtroomConfig } = await import('../io/courtroom/consent')
  const server = o.server ?? o.url ?? courtroomConfig(paths).remote?.url
  if (!server)
    throw new RatchetError(
      'usage',
      `no server: pass --server URL (a \`${CLI} serve\`) or set courtroom.remote.url in .ratchet/config.json`,
    )
  const agent = agentOf(o)
  const file = courtroomFiles(paths).ledger(agent)
  const v = verifyLedger(agent, file)
  if (!v.ok) throw new RatchetError('conflict', `not sent: the ledger does not verify (entry ${v.index}: ${v.problem})`)
  const { submitToServer } = await import('../io/courtroom/remote')
  const r = await submitToServer(paths, agent, server, file, readKeyStore(agent)?.current ?? null)
  if (o.json) return out(JSON.stringify({ ok: true, agent, ...r }, null, 2))
  if (r.pinned_now)
    out(
      `Pinned ${r.server}'s log key (${r.log}) on first contact: later checkpoints must be signed by it and extend what this machine saw.`,
    )
  out(
    r.sent
      ? `Sent ${r.sent} entries (${r.cases_sent} cases) to ${r.server}; ${r.already} were already on its log. Log size ${r.tree_size}; every receipt verified and kept.`
      : `Nothing to send: the ${r.already} entries of ${agent} are already on ${r.server}'s log (size ${r.tree_size}).`,
  )
}
