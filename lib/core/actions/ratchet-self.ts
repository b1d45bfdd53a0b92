// Self-protection, now that the OS holds the line. With the floor on (docs/threat-model.md), Claude Code's sandbox
// keeps every command and everything it starts off Ratchet's state, Claude Code's settings and Ratchet's install, at
// the kernel; permission rules keep the file tools off them. What is left here is what no sandbox sees:
// - the tools that run outside it: Write/Edit (exact paths, defence in depth beside the permission rules) and MCP
//   tools (by the paths in their input);
// - Ratchet's own CLI and hooks run by name, refused with a message the agent can act on, in every mode;
// - a package.json edit that changes how Ratchet is installed: the user's next install, outside the sandbox, would
//   replace it (judged when it is planted);
// - in best-effort mode (no sandbox) and for commands the settings exclude from it: a coarse screen. A command that
//   names a guarded path and is not a plain read is refused; a spelling that hides the name gets past it, by design
//   (docs/residual-risk.md): proving from a command's text that it cannot touch Ratchet is a race a reader loses.

import type { CodeSnippet, Invocation } from '../commands'
import { EXECUTABLES } from '../manifest'
import { globHits, markers, mentions, protectedRemoval } from './protected-paths'
import { scanKeyCode } from './ratchet-keys'
import type { CodeScanner, Detector, FamilyMeta, InvocationFacts, Sink } from './types'
import { joinLiterals } from './util'

export type { FsFacts } from './types'

export const meta: FamilyMeta = {
  id: 'ratchet-self',
  classes: ['self_protection'],
  patterns: ['ratchet_state_edit', 'ratchet_key_read'],
  description: "Changing Ratchet's state, rules, hook registrations or installed files, or deciding its pauses",
  examples: [
    'echo [] > .ratchet/guardrails.json',
    'ratchet pending approve pa-1',
    'cp settings.local.json .claude/',
    'rm -rf .claude',
  ],
}

/**
 * The executables Claude Code runs with a hook payload on stdin. Run by hand, one would record the payload as
 * Claude Code's (a prompt the user never typed widens what the agent was asked for). Inside the sandbox it could not
 * write that record; the name is still refused, so the agent hears why.
 */
const HOOK_BINS = new Set<string>(EXECUTABLES.filter((e) => e.kind === 'hook').map((e) => e.name))

// ---- in every mode: Ratchet's own CLI and hooks, by name ------------------------------------

/** Ratchet's deciding commands (what humanOnly guards), by their words: `pending approve`, `uninstall`, `heartbeat`… */
const DECIDING: Record<string, RegExp | true> = {
  pending: /^(approve|deny)$/,
  proposals: /^(approve|reject)$/,
  custodiet: /^(release|gate)$/,
  courtroom: /^(enable|disable|revoke|rotate-key|clear|hear|calibrate)$/,
  guardrails: /^(add|remove|edit|enable|disable|set)$/,
  cases: /^submit$/,
  incident: /^close$/,
  floor: /^(confirm|allow)$/,
  report: /^label$/,
  keys: /^(add|revoke)$/, // `ratchet serve keys add|revoke`: who the team's record trusts
  uninstall: true,
  install: true,
  update: true,
  init: true,
  heartbeat: true,
}

/** `pending approve` (as words of a command line, or quoted items of code), or undefined. */
function decidingWords(words: string[]): string | undefined {
  const w = words.map((x) => x.replace(/^['"]|['"],?$/g, '')).filter((x) => x && !x.startsWith('-'))
  for (let i = 0; i < w.length; i++) {
    const d = DECIDING[w[i]]
    if (d === true && !(w[i] === 'heartbeat' && words.includes('--cron-line'))) return w[i]
    if (d && d !== true && d.test(w[i + 1] ?? '')) return `${w[i]} ${w[i + 1]}`
  }
  return undefined
}

/** Ratchet's CLI: `ratchet …`, `npx ratchet-guard …` (npx is peeled by the reader), `node <…>/bin/ratchet …`. */
function ratchetArgs(inv: Invocation): string[] | undefined {
  if (/^ratchet(-guard)?(@[^/]*)?$|^ratchet\.(c|m)?js$/.test(inv.name)) return inv.args
  if (/^(node|nodejs|bun|tsx)$/.test(inv.name)) {
    const i = inv.args.findIndex((a) => !a.startsWith('-'))
    if (i >= 0 && /(^|\/)(bin\/ratchet|dist\/ratchet\.cjs|lib\/cli\/main\.ts)$/.test(inv.args[i]))
      return inv.args.slice(i + 1)
  }
  return undefined
}

/** The hook a command runs by hand (`preflight-check`, `node …/dist/preflight-check.cjs`, the warm process), or undefined. */
function hookByHand(inv: Invocation): string | undefined {
  if (inv.args.some((a) => a === '--help' || a === '-h')) return undefined
  if (HOOK_BINS.has(inv.name)) return inv.name
  if (/^(node|nodejs|bun|tsx)$/.test(inv.name)) {
    const script = inv.args.find((a) => !a.startsWith('-')) ?? ''
    const m = /(?:^|\/)(?:bin|dist)\/(preflight-check|session-start|custodiet|loader)(?:\.(?:fast\.)?cjs)?$/.exec(
      script,
    )
    if (m) return m[1] === 'loader' ? 'preflight-check' : m[1]
  }
  return undefined
}

// ---- best-effort: the coarse screen ----------------------------------------------------------

/** Programs that only read, list or print (their write redirects are judged by path in fs-write.ts). */
const HARMLESS = new Set([
  'cat',
  'less',
  'more',
  'head',
  'tail',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'jq',
  'yq',
  'wc',
  'ls',
  'stat',
  'file',
  'diff',
  'cmp',
  'sha256sum',
  'sha1sum',
  'md5sum',
  'du',
  'tree',
  'realpath',
  'readlink',
  'basename',
  'dirname',
  'test',
  '[',
  '[[',
  'echo',
  'printf',
  'true',
  ':',
  'cd',
  'pushd',
  'popd',
  'pwd',
  'column',
  'sort',
  'uniq',
  'cut',
  'tr',
  'nl',
  'od',
  'xxd',
  'hexdump',
  'strings',
  'bat',
  'view',
])

/** git subcommands that change nothing on disk but the index and history (what they change is git's, not Ratchet's). */
const GIT_HARMLESS =
  /^(status|log|diff|show|blame|ls-files|ls-tree|rev-parse|cat-file|grep|add|commit|describe|shortlog|check-ignore)$/

function harmless(inv: Invocation): boolean {
  if (HARMLESS.has(inv.name)) return true
  if (/^(vi|vim|nvim|view)$/.test(inv.name)) return inv.args.includes('-R') || inv.name === 'view'
  if (inv.name === 'sed') return !inv.args.some((a) => /^-[a-zA-Z]*i|^--in-place/.test(a))
  if (inv.name === 'find') return !inv.args.some((a) => /^-(exec|execdir|ok|okdir|delete|fprint|fprintf|fls)/.test(a))
  if (inv.name === 'git') return GIT_HARMLESS.test(inv.args.find((a) => !a.startsWith('-')) ?? '')
  return false
}

const INTERPRETER = /^(python[\d.]*|node|nodejs|perl|ruby|php|bun|deno)$/

/** Interpreter code that can change files (its reads of Ratchet's files are allowed, as `cat` is). */
const CODE_WRITES =
  /\b(write\w*|touch|mkfifo|mknod|mkdir\w*|remove|unlink|rename|replace|rmtree|move|copy\w*|chmod|chown|truncate|mkdirs?|makedirs|symlink|link|system|popen|Popen|run|call|check_output|spawn\w*|exec\w*|appendFile\w*|writeFile\w*|rmSync|rmdirSync|cpSync|unpack_archive|extractall|extractAllTo|File\.(write|delete)|IO\.write)\b|\bopen\s*\([^)]*['"][wax+]|[>|]\s*['"]|`/

/** An install or removal that names Ratchet's package (`npm uninstall ratchet`, `npm i ratchet@0.0.1`, an alias to it). */
function namesOwnPackage(inv: Invocation): boolean {
  if (!/^(npm|pnpm|yarn|bun|cnpm)$/.test(inv.name)) return false
  const ops = inv.args.filter((a) => !a.startsWith('-'))
  if (!/^(install|i|add|update|up|upgrade|uninstall|remove|rm|r|un|unlink|link|ln|prune)$/.test(ops[0] ?? ''))
    return false
  return ops
    .slice(1)
    .some((s) =>
      /^(@[^/]+\/)?ratchet(-guard)?(@|$)|(^|\/)ratchet(-guard)?(-\d[^/]*)?\.t(ar\.)?gz$|@npm:ratchet(-guard)?\b/.test(
        s,
      ),
    )
}

/**
 * One invocation of a Bash call. Ratchet's CLI and hooks by name in every mode; the rest only where no sandbox
 * holds the line (best-effort mode, or a command the settings run outside it).
 */
export function selfProtection(c: Sink, inv: Invocation, f: InvocationFacts): void {
  const cli = ratchetArgs(inv)
  const deciding = cli ? decidingWords(cli) : undefined
  if (deciding)
    return c.add(
      'ratchet_state_edit',
      `${f.cmd} (Ratchet's CLI: \`${deciding}\` is the user's to run, in a terminal of their own)`,
    )
  const hook = hookByHand(inv)
  if (hook)
    return c.add(
      'ratchet_state_edit',
      `${f.cmd} (runs Ratchet's ${hook} hook by hand: it would record a payload Claude Code never sent)`,
    )
  // A deciding command spelled inside another's words (`node "$R" pending approve`, `$r uninstall` with a path to
  // Ratchet): the words say what it is, in every mode.
  const spelled = decidingWords(inv.args)
  if (spelled && [inv.name, ...inv.args].some((a) => /\bratchet\b/.test(a)))
    return c.add('ratchet_state_edit', `${f.cmd} (spells Ratchet's deciding command \`${spelled}\`)`)
  // A computed program or script given Ratchet's deciding words (`node $r pending approve`, `$R uninstall`).
  const script = INTERPRETER.test(inv.name) ? inv.args.find((a) => !a.startsWith('-')) : inv.name
  if (spelled && script && /[$`]/.test(script))
    return c.add(
      'ratchet_state_edit',
      `${f.cmd} (a program computed at run time, given Ratchet's deciding command \`${spelled}\`)`,
    )
  if (c.ctx.sandboxed) return
  // Interpreter code (`python3 -c …`, `node -e …`, a script on stdin) is judged as code, by scanCode below.
  if (INTERPRETER.test(inv.name) && inv.args.some((a) => /^(-c|-e|--eval|-p|--print|-)$/.test(a))) return
  // What a plain read or print writes through its redirects (`echo x 1<> …`, `> $(pwd)/.ratchet/…`) is still a write.
  const targets = inv.redirects
    .filter((r) => /[>]/.test(r.op) && r.target && !/^&?-?\d*$/.test(r.target))
    .map((r) => r.target!)
  const operands = harmless(inv) ? targets : [...inv.args.filter((a) => !a.startsWith('-')), ...targets]
  // A path it names, resolved where the command runs (`cd .ratchet && mkfifo config.json`), a glob that can name one
  // (`rm -rf .cl*`), or a mention in its text (`d=.claude; cp x $d/`, a variable the reader cannot see through).
  const hit =
    operands
      .map((w) =>
        /[*?[]/.test(w)
          ? globHits(c.ctx, f.at(w))
          : f.at(w) !== c.ctx.projectDir && protectedRemoval(c.ctx, f.at(w))
            ? w
            : undefined,
      )
      .find(Boolean) ??
    mentions(
      (harmless(inv) ? targets : [inv.name, ...inv.args, ...targets, inv.stdin ?? '']).join('\n'),
      markers(c.ctx),
    )
  if (hit)
    return c.add(
      'ratchet_state_edit',
      `${f.cmd} (names ${hit}: in best-effort mode Ratchet refuses any command that names its files and is not a plain read, since no sandbox holds them)`,
    )
  if (namesOwnPackage(inv)) c.add('ratchet_state_edit', `${f.cmd} (removes or replaces Ratchet's installed package)`)
}

/** Interpreter code, where no sandbox holds the line: code that names a guarded path is refused (joined literals too). */
const scanStateCode: CodeScanner = (c, s, detail) => {
  if (s.lang === 'sql') return
  const code = joinLiterals(s.code.slice(0, 65_536))
  // Loading Ratchet's own code runs it as its CLI, which could decide pauses or remove its hooks.
  if (
    /(^|[/'"])(node_modules\/ratchet\/(dist|bin|lib)|dist\/ratchet\.cjs|lib\/cli\/main)/.test(code) &&
    decidingWords(code.split(/[\s,()[\]]+/))
  )
    return c.add('ratchet_state_edit', `${detail} (runs Ratchet's CLI with a deciding command)`)
  if (c.ctx.sandboxed || !CODE_WRITES.test(code)) return
  const hit = mentions(code, markers(c.ctx))
  if (hit)
    c.add(
      'ratchet_state_edit',
      `${detail} (names ${hit} and can change files: in best-effort mode such code is refused)`,
    )
}

/** Programs whose effect on files the reader knows (worst readings of unreadable text try these). */
export const hasEffect = (name: string): boolean =>
  !harmless({ name, args: [], redirects: [], via: [], cwdChanges: [] }) && EFFECTFUL.has(name)
const EFFECTFUL = new Set([
  'chmod',
  'chown',
  'chgrp',
  'tee',
  'sponge',
  'touch',
  'shred',
  'mkdir',
  'truncate',
  'dd',
  'sed',
  'perl',
  'ruby',
  'awk',
  'gawk',
  'curl',
  'wget',
  'rm',
  'unlink',
  'rmdir',
  'srm',
  'trash',
  'rimraf',
  'find',
  'mv',
  'cp',
  'install',
  'ln',
  'rsync',
  'tar',
  'unzip',
  '7z',
  'patch',
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'git',
  'ratchet',
])

/** Interpreter code that writes Ratchet's state, then code that reads its keys. */
export const scanCode: CodeScanner = (c, s, detail) => {
  scanStateCode(c, s, detail)
  scanKeyCode(c, s, detail)
}

export const programs: Record<string, Detector> = {}

export type { CodeSnippet }

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [DECIDING, programs]) Object.setPrototypeOf(table, null)
