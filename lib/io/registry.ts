// Every file Ratchet keeps, in one table: where it lives, its schema, who writes it, whether git may
// track it, what a corrupt copy means, and its mode. Everything else derives from it: `Paths`
// (resolvePaths), the state folder's .gitignore (only human-authored files stay trackable), the modes
// the store creates files and folders with (0600 / 0700), and the one-line errors that name the file
// and the field. lib/io/store.ts is the only module that reads or writes these files (a test scans the
// sources for any other fs write), through `readState` / `updateState` / `writeState` keyed by this table.
//
// Schemas are built on first use, one file at a time: a hook reads three or four of these files and
// must not pay for building the others (zod/mini costs ~1 ms to load; building every schema up front
// costs more than the reads).

import path from 'node:path'
import * as z from 'zod/mini'
import { describeIssues } from '../core/payloads'
import { validatePendingList, type PendingEntry } from '../core/pending'
import { validateIncidents, type Incident } from '../core/incidents'
import { validateProposals, type Proposal } from '../core/proposals'
import { validateAsks, validateLabels, type Label, type LabelAsk } from '../core/labels'
import { validateGuardrails } from '../core/guardrails'
import { emptyState, normalizeState, type CustodietState } from '../core/custodiet'
import type { ProbationFile } from '../core/courtroom/probation'
import { DIR_MODE, FILE_MODE } from './modes'
import { plainConfig, plainSession } from '../core/state-shapes'
import { CLI } from '../core/manifest'

export type Owner = 'human' | 'machine'
/**
 * reset: moved aside (kept for inspection) and started afresh: machine state that can be rebuilt.
 * fail: never rewritten; reading or changing it fails with one line naming the file and field.
 * ignore: read as absent (logs, caches, derived indexes): nothing depends on its content.
 */
export type CorruptPolicy = 'reset' | 'fail' | 'ignore'
/** state: the project's state folder. config: the per-user folder outside every project ($XDG_CONFIG_HOME/ratchet). */
export type Root = 'state' | 'config'
export type Format = 'json' | 'jsonl' | 'text' | 'folder'

/** Validates a parsed file: the value, or one line naming the field (`[2].status: expected …`). */
export type Check<T> = (raw: unknown) => T | string

export interface StateFileSpec<T = unknown> {
  /** Path under its root; `{id}` is a session, agent or docket id (sanitised); a trailing / is a folder. */
  name: string
  root: Root
  format: Format
  owner: Owner
  /** Trackable in git? Only human-authored files without secrets. */
  tracked: boolean
  onCorrupt: CorruptPolicy
  mode: number
  what: string
  /** JSON files: the schema, built on first use. */
  schema?: () => Check<T>
  /** JSON files: the value of an absent file. */
  empty?: () => T
  /** What Ratchet does while the file cannot be read, when that is not just the policy (shown by `ratchet doctor`). */
  whenUnreadable?: string
}

export { DIR_MODE, FILE_MODE }

/** A zod/mini schema as a Check, built once on first use; its message names the field path. */
function zod<T>(build: () => z.ZodMiniType<T>): () => Check<T> {
  let s: z.ZodMiniType<T> | undefined
  return () => (raw) => {
    const r = (s ??= build()).safeParse(raw)
    return r.success ? r.data : describeIssues(r.error)
  }
}
const hand =
  <T>(check: Check<T>) =>
  () =>
    check
/**
 * The files a hook reads on every call (the session, config.json), checked by hand for the shape they
 * normally have, with exactly their schema's acceptance and value: loading zod and building a schema cost
 * each call ~1 ms. Anything the hand check does not take plainly goes to the schema, which also words
 * the problem. (test/unit/state-hand-checks.test.ts compares the two.)
 */
function handThenZod<T>(plain: (raw: unknown) => T | undefined, build: () => z.ZodMiniType<T>): () => Check<T> {
  const schema = zod(build)
  return () => (raw) => plain(raw) ?? schema()(raw)
}
/** The hand checks as Checks: the value itself when they take it. */
const handSession = (raw: unknown) => plainSession(raw) as SessionState | undefined
const handConfig = (raw: unknown) => (plainConfig(raw) ? (raw as Config) : undefined)

export const sessionSchema = () =>
  z.object({
    reads: z.record(z.string(), z.number()),
    prompts: z.array(z.string()),
    checks: z.record(z.string(), z.number()),
    blocked: z.optional(
      z.array(
        z.object({
          at: z.number(),
          fingerprint: z.string(),
          patterns: z.array(z.string()),
          paths: z.array(z.string()),
          summary: z.string(),
        }),
      ),
    ),
    compactions: z.optional(z.number()),
    updated: z.optional(z.number()),
    /** Files the agent created in this session (catalogue: deleting them loses nothing of the user's). */
    created: z.optional(z.record(z.string(), z.number())),
    /** Secrets read in this session (catalogue: a later send off the machine is checked). */
    secrets: z.optional(z.record(z.string(), z.number())),
  })
export type SessionState = z.infer<ReturnType<typeof sessionSchema>>

export const configSchema = () =>
  z.looseObject({
    checkWindowSeconds: z.optional(z.number()),
    firstUsePause: z.optional(z.boolean()),
    headlessDefer: z.optional(z.boolean()),
    telegram: z.optional(
      z.looseObject({
        token: z.optional(z.string()),
        chat_id: z.optional(z.union([z.string(), z.number()])),
        api_url: z.optional(z.string()),
      }),
    ),
  })
export type Config = z.infer<ReturnType<typeof configSchema>>

export interface FiresMark {
  /** inode and offset of the part of fires.jsonl already folded. */
  ino: number | null
  offset: number
  rotated?: { file: string; offset: number }
}
/** How often each rule fired and when last: machine state, never written into the user's guardrails.json. */
export type FireCounts = Record<string, { n: number; last: string }>
export type Schedule = { mined_at?: string; digest_at?: string }
export type TelegramState = { offset: number }
export interface LiveSession {
  pid: number
  start: number
  tty: number
  at: string
}
/** The floor as a human last saw it (lib/io/floor.ts), and what `ratchet init` added to which settings file. */
export interface FloorRecord {
  v: 1
  facts?: Record<string, string>
  at?: string
  /** Per settings file: the entries init added and the sandbox switches as they were before (null: absent). */
  added?: Record<string, { deny: string[]; domains: string[]; writable: string[]; set: Record<string, boolean | null> }>
}
export interface FloorHold {
  at: string
  changes: string[]
}
export type Capabilities = Record<string, string>
/** Keyed hashes of fragments of the secret values a session read (lib/io/known-secrets.ts): never a value. */
export interface KnownSecretsFile {
  v: 1
  /** The secret files they came from (names as the classifier gives them) and when. */
  sources: Record<string, number>
  /** How many values (for the note). */
  values: number
  digests: string[]
  /** The project's remotes (name → URL) when the user last asked for something: a push elsewhere is evidence. */
  remotes?: Record<string, string>
}
export interface ReviewCacheEntry {
  key: string
  at: number
  text: string
}
export interface DayCost {
  calls: number
  input_tokens: number
  output_tokens: number
  usd: number
}

// Small helper so each row reads as one line of the table.
const f = <T = unknown>(
  name: string,
  s: Omit<StateFileSpec<T>, 'name' | 'root' | 'mode' | 'format'> & { root?: Root; format?: Format },
): StateFileSpec<T> => ({
  name,
  root: s.root ?? 'state',
  format:
    s.format ??
    (name.endsWith('/') ? 'folder' : name.endsWith('.jsonl') ? 'jsonl' : name.endsWith('.json') ? 'json' : 'text'),
  mode: name.endsWith('/') ? DIR_MODE : FILE_MODE,
  ...s,
})
const obj = (raw: unknown) => !!raw && typeof raw === 'object' && !Array.isArray(raw)

export const STATE = {
  guardrails: f('guardrails.json', {
    owner: 'human',
    tracked: true,
    onCorrupt: 'fail',
    what: 'the rules (never rewritten by a counter: fire counts live in fire-counts.json)',
    schema: hand((raw: unknown) => {
      const v = validateGuardrails(raw)
      return v.fatal ? v.problems.map((p) => `${p.where}: ${p.message}`).join('; ') : raw
    }),
  }),
  incidents: f<Incident[]>('incidents.json', {
    owner: 'human',
    tracked: true,
    onCorrupt: 'fail',
    what: 'the incident log',
    schema: hand(validateIncidents),
    empty: () => [],
  }),
  config: f<Config>('config.json', {
    owner: 'human',
    tracked: true,
    onCorrupt: 'ignore',
    what: 'settings (no secrets: the Telegram token lives outside the project)',
    schema: handThenZod(handConfig, configSchema),
    empty: () => ({}),
  }),
  vendor: f('vendor/', {
    owner: 'human',
    tracked: true,
    onCorrupt: 'ignore',
    what: 'the package tarball a project installed from a file on one machine depends on (`file:.ratchet/vendor/…`), committed so every clone installs the same',
  }),
  gitignore: f('.gitignore', {
    owner: 'machine',
    tracked: true,
    onCorrupt: 'ignore',
    what: 'keeps machine state out of git',
  }),
  pending: f<PendingEntry[]>('pending-actions.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'the approval queue (masked text and fingerprints)',
    schema: hand(validatePendingList),
    empty: () => [],
  }),
  activity: f('activity.jsonl', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'ignore',
    what: 'one masked line per decision',
  }),
  fires: f('fires.jsonl', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'ignore',
    what: 'rule firings not yet folded into fire-counts.json',
  }),
  fireCounts: f<FireCounts>('fire-counts.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: "how often each rule fired and when last (kept out of guardrails.json, the user's tracked file; seeded once from its old fire_count/last_fired)",
    schema: hand((raw: unknown) =>
      obj(raw) &&
      Object.values(raw as object).every(
        (v) =>
          obj(v) && typeof (v as { n?: unknown }).n === 'number' && typeof (v as { last?: unknown }).last === 'string',
      )
        ? (raw as FireCounts)
        : 'expected {"<rule id>": {"n": count, "last": time}}',
    ),
    empty: () => ({}),
  }),
  firesRotated: f('fires.{id}.jsonl', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'ignore',
    what: 'a rotated fire log, read once more for late writers',
  }),
  firesMark: f<FiresMark>('fires.offset.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'how far the fire log was folded',
    schema: zod(() =>
      z.looseObject({
        ino: z.nullable(z.number()),
        offset: z.number(),
        rotated: z.optional(z.object({ file: z.string(), offset: z.number() })),
      }),
    ),
    empty: () => ({ ino: null, offset: 0 }),
  }),
  ruleIndex: f('.guardrails-index.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'ignore',
    what: 'derived rule index, bound to a content hash of guardrails.json',
  }),
  fastIndex: f('.guardrails-fast.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'ignore',
    what: "preflight-check fast path's inverted rule index, bound like .guardrails-index.json",
  }),
  capabilities: f<Capabilities>('capabilities.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'capabilities already used (first-use pauses)',
    schema: zod(() => z.record(z.string(), z.string())),
    empty: () => ({}),
  }),
  liveSessions: f<LiveSession[]>('live-sessions.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'Claude Code sessions running with these hooks (pid, start, terminal): deciding commands need a terminal of their own meanwhile',
    schema: hand((raw: unknown) =>
      Array.isArray(raw) &&
      raw.every(
        (x) =>
          obj(x) &&
          typeof (x as LiveSession).pid === 'number' &&
          typeof (x as LiveSession).start === 'number' &&
          typeof (x as LiveSession).tty === 'number',
      )
        ? (raw as LiveSession[])
        : 'expected a list of {pid, start, tty}',
    ),
    empty: () => [],
  }),
  telegramState: f<TelegramState>('telegram-state.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'the Telegram update offset',
    schema: zod(() => z.looseObject({ offset: z.number() })),
    empty: () => ({ offset: 0 }),
  }),
  schedule: f<Schedule>('schedule.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'when the heartbeat last mined and sent the digest',
    schema: zod(() => z.looseObject({ mined_at: z.optional(z.string()), digest_at: z.optional(z.string()) })),
    empty: () => ({}),
  }),
  labels: f<Label[]>('labels.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    what: 'humans\' answers to "was this check needed?" (the false-positive rate)',
    schema: hand(validateLabels),
    empty: () => [],
  }),
  labelAsks: f<LabelAsk[]>('label-asks.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'fires asked about over Telegram with buttons (claimed before sending, so each is asked once)',
    schema: hand(validateAsks),
    empty: () => [],
  }),
  proposals: f<Proposal[]>('proposals.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: "pattern-detect's proposals and their decisions",
    schema: hand(validateProposals),
    empty: () => [],
  }),
  heartbeatLog: f('heartbeat.log', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'ignore',
    what: 'the cron heartbeat output',
  }),
  errors: f('errors.log', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'ignore',
    what: 'stack traces, never shown to the agent',
  }),
  sessions: f('sessions/', { owner: 'machine', tracked: false, onCorrupt: 'reset', what: 'per-session facts' }),
  session: f<SessionState>('sessions/{id}.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'one session: masked prompts, files read, checks',
    schema: handThenZod(handSession, sessionSchema),
    empty: () => ({ reads: {}, prompts: [], checks: {} }),
  }),
  known: f('known/', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'per-session hashed fragments of secret values read',
  }),
  knownSecrets: f<KnownSecretsFile>('known/{id}.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'keyed hashes of fragments of the secret values one session read (never a value): what leaves is checked against them',
    schema: hand((raw: unknown) =>
      obj(raw) &&
      (raw as KnownSecretsFile).v === 1 &&
      obj((raw as KnownSecretsFile).sources) &&
      typeof (raw as KnownSecretsFile).values === 'number' &&
      Array.isArray((raw as KnownSecretsFile).digests) &&
      (raw as KnownSecretsFile).digests.every((d) => typeof d === 'string') &&
      ((raw as KnownSecretsFile).remotes === undefined ||
        (obj((raw as KnownSecretsFile).remotes) &&
          Object.values((raw as KnownSecretsFile).remotes!).every((u) => typeof u === 'string')))
        ? (raw as KnownSecretsFile)
        : 'v, sources, values, digests: expected known-secret digests',
    ),
    empty: () => ({ v: 1, sources: {}, values: 0, digests: [] }),
  }),
  fragmentKeyLocal: f('known/key', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    what: 'the key known secrets are hashed with, when the config folder cannot hold it',
  }),
  custodiet: f('custodiet/', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'custodiet records, holds and the review cache',
  }),
  custodietState: f<CustodietState>('custodiet/{id}.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: "one session's custodiet record",
    schema: hand((raw: unknown) =>
      obj(raw) &&
      typeof (raw as CustodietState).toolCount === 'number' &&
      Array.isArray((raw as CustodietState).findings)
        ? normalizeState(raw as CustodietState)
        : 'toolCount and findings: expected a custodiet state',
    ),
    empty: emptyState,
  }),
  custodietHold: f('custodiet/{id}.hold.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'ignore',
    what: 'a hold preflight-check honours (its existence is the fast check)',
  }),
  reviewCache: f<ReviewCacheEntry[]>('custodiet/review-cache.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'identical review windows are not bought twice',
    schema: zod(() => z.array(z.looseObject({ key: z.string(), at: z.number(), text: z.string() }))),
    empty: () => [],
  }),
  reviewCost: f<Record<string, DayCost>>('custodiet/cost-daily.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    whenUnreadable:
      "custodiet's reviews are off as if today's cost cap were reached (the deterministic checks go on) until the file is fixed or removed",
    what: "the reviewer's cost per day",
    schema: zod(() =>
      z.record(
        z.string(),
        z.looseObject({ calls: z.number(), input_tokens: z.number(), output_tokens: z.number(), usd: z.number() }),
      ),
    ),
    empty: () => ({}),
  }),
  courtroom: f('courtroom/', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    what: 'courtroom ledgers, consent and probation',
  }),
  consent: f('courtroom/consent.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    whenUnreadable: `hearings go on, on the default packs, for the agent whose ledger and live signing key show consent (${CLI} courtroom status)`,
    what: "the user's consent to hearings",
    schema: hand((raw: unknown) =>
      raw === null || (obj(raw) && typeof (raw as { agent?: unknown }).agent === 'string')
        ? raw
        : 'agent: expected a consent record',
    ),
    empty: () => null,
  }),
  probation: f<ProbationFile>('courtroom/probation.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'probations in force (absent unless on probation)',
    schema: hand((raw: unknown) =>
      obj(raw) && Array.isArray((raw as ProbationFile).probations)
        ? (raw as ProbationFile)
        : 'probations: expected an array',
    ),
    empty: () => ({ v: 1, probations: [] }),
  }),
  hearings: f('courtroom/hearings.jsonl', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'ignore',
    what: 'one line per hearing',
  }),
  docket: f('courtroom/docket/{id}.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'ignore',
    what: 'a charge waiting for its hearing (read once, then removed)',
  }),
  courtroomCache: f('courtroom/cache.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'reset',
    what: 'verdicts already bought',
    schema: hand((raw: unknown) => (Array.isArray(raw) ? raw : 'expected an array')),
    empty: () => [],
  }),
  courtroomCosts: f('courtroom/costs.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    whenUnreadable: "no new hearings, as if today's cost cap were reached, until the file is fixed or removed",
    what: "today's hearing costs",
    schema: hand((raw: unknown) =>
      obj(raw) && typeof (raw as { usd?: unknown }).usd === 'number' ? raw : 'usd: expected a costs record',
    ),
  }),
  ledger: f('courtroom/ledger/{id}.jsonl', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    what: "an agent's signed case ledger (append-only)",
  }),
  receipts: f('courtroom/receipts/{id}.jsonl', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'ignore',
    what: `a case server's receipts for an agent's ledger entries (leaf, inclusion proof, signed checkpoint); kept beside the ledger, re-proven by ${CLI} cases verify --server`,
  }),
  floor: f<FloorRecord>('floor.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    whenUnreadable: `every session is held for a human, as after a change to the floor, until \`${CLI} floor confirm\` records it afresh`,
    what: `the floor as a human last saw it (settings in force, hooks, install, rules), and what \`${CLI} init\` added to settings`,
    schema: hand((raw: unknown) =>
      obj(raw) && (raw as FloorRecord).v === 1 ? (raw as FloorRecord) : 'v: expected a floor record, version 1',
    ),
    empty: () => ({ v: 1 }),
  }),
  floorHold: f<FloorHold>('floor-hold.json', {
    owner: 'machine',
    tracked: false,
    onCorrupt: 'ignore',
    what: `the floor changed since a human last saw it: every tool call waits for \`${CLI} floor confirm\` (its existence is the fast check)`,
    schema: hand((raw: unknown) =>
      obj(raw) && Array.isArray((raw as FloorHold).changes) ? (raw as FloorHold) : 'changes: expected a list',
    ),
    empty: () => ({ at: '', changes: [] }),
  }),
  telegramToken: f('telegram.json', {
    root: 'config',
    owner: 'human',
    tracked: false,
    onCorrupt: 'fail',
    what: 'the Telegram bot token, outside every project',
  }),
  telegramKey: f('telegram-key', {
    root: 'config',
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    what: 'the key that seals Telegram buttons (HMAC), outside every project',
  }),
  fragmentKey: f('fragment-key', {
    root: 'config',
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    what: 'the key the fragments of known secrets are hashed with, outside every project',
  }),
  courtroomKey: f('keys/{id}.json', {
    root: 'config',
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    what: "an agent's signing keys",
  }),
  ledgerHead: f('heads/{id}.json', {
    root: 'config',
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    what: "the signed head of an agent's ledger",
  }),
  caseServer: f('servers/{id}.json', {
    root: 'config',
    owner: 'machine',
    tracked: false,
    onCorrupt: 'fail',
    what: "a case server's log key (pinned on first contact) and the last checkpoint this machine saw of it",
  }),
} satisfies Record<string, StateFileSpec<unknown>>

export type FileKey = keyof typeof STATE
/** The value type of a JSON file of the registry. */
export type ValueOf<K extends FileKey> = (typeof STATE)[K] extends StateFileSpec<infer T> ? T : unknown
/** Files with one fixed path (no `{id}`): these are the fields of `Paths`. */
type FixedKey = {
  [K in FileKey]: (typeof STATE)[K]['name'] extends `${string}{id}${string}`
    ? never
    : (typeof STATE)[K]['root'] extends 'config'
      ? never
      : K
}[FileKey]

/** Every state file, for the .gitignore, the tests and `ratchet doctor`. */
export const STATE_FILES: readonly (StateFileSpec & { key: FileKey })[] = Object.entries(STATE).map(([key, s]) => ({
  ...(s as StateFileSpec),
  key: key as FileKey,
}))

/** Where the state of one project is, and each fixed file in it (derived from the table). */
export type Paths = { projectDir: string; stateDir: string; packagedGuardrails: string; configHome: string } & {
  [K in FixedKey]: string
}

export function pathsFor(projectDir: string, stateDir: string, packageRoot: string, configHome: string): Paths {
  const out: Record<string, string> = {
    projectDir,
    stateDir,
    configHome,
    packagedGuardrails: path.join(packageRoot, 'guardrails.json'),
  }
  for (const s of STATE_FILES)
    if (s.root === 'state' && !s.name.includes('{id}')) out[s.key] = path.join(stateDir, s.name)
  return out as Paths
}

/** An id as a file name: anything but [A-Za-z0-9_.-] becomes _, so no id can climb out of its folder. */
export const safeId = (id: string): string => id.replace(/[^A-Za-z0-9_.-]/g, '_')

/** The absolute path of a registry file (`id` fills its `{id}`). */
export function fileOf(paths: Pick<Paths, 'stateDir' | 'configHome'>, key: FileKey, id?: string): string {
  const s: StateFileSpec = STATE[key]
  const name = s.name.includes('{id}') ? s.name.replace('{id}', safeId(id ?? '')) : s.name
  return path.join(s.root === 'config' ? paths.configHome : paths.stateDir, name)
}

/**
 * The state folder's .gitignore: ignore everything, then allow back only the human-authored files.
 * Deny-by-default, so a machine file added later (or a lock, temp or corrupt copy) is never committed.
 */
export function stateGitignore(): string {
  // A tracked folder: the folder and what is in it (`*` matches names at every depth).
  const keep = STATE_FILES.filter((s) => s.tracked && s.root === 'state').flatMap((s) =>
    s.name.endsWith('/') ? [`!${s.name}`, `!${s.name}*`] : [`!${s.name}`],
  )
  return [
    '# Written by Ratchet. Machine state (queue, logs, sessions, indexes, caches) stays out of git;',
    '# only the human-authored files below are trackable. See lib/io/registry.ts.',
    '*',
    ...keep,
    '',
  ].join('\n')
}
