// Git configuration that runs code later (issue 9): `git config core.fsmonitor|core.hooksPath|core.pager|
// core.sshCommand|core.editor|diff.<d>.textconv|filter.<f>.clean|alias.<a> '!…'|credential.helper …`, the same
// through `git -c key=val`, and writes into `.git/config`, `.git/hooks/*` and `.gitattributes` (which point git at
// a driver). The value is code that git runs outside any hook, on a later `git status`, `diff`, `commit` or `push`:
// it is read now as the command it is, by the same classifier (so `core.pager 'rm -rf ~'` is catastrophic now, and
// a value computed at run time is unreadable). Ordinary settings (`user.name`, `pull.rebase`, `core.autocrlf`,
// `core.editor vim`) stay quiet.

import path from 'node:path'
import { scriptLang } from '../scripts'
import type { Sink } from './types'

/** Keys whose value git runs as a command (lower-cased; `<x>` parts are any name). */
const CODE_KEY =
  /^(?:core\.(?:fsmonitor|pager|sshcommand|editor|askpass|gitproxy)|sequence\.editor|diff\.external|diff\.[^\s]+\.(?:textconv|command)|merge\.[^\s]+\.driver|filter\.[^\s]+\.(?:clean|smudge|process)|credential(?:\.[^\s]+)?\.helper|gpg(?:\.[^\s.]+)?\.program|pager\.[^\s.]+|web\.browser|(?:browser|man|difftool|mergetool)\.[^\s]+\.(?:cmd|path)|uploadpack\.packobjectshook|remote\.[^\s]+\.(?:uploadpack|receivepack)|sendemail\.(?:sendmailcmd|smtpserver)|core\.hookspath|include\.path|includeif\.[^\s]+\.path|alias\.[^\s]+)$/

/** The last part of a code key, for a `key = value` line whose section is not in view (an Edit of one line). */
const CODE_LEAF =
  /^(?:fsmonitor|pager|sshcommand|editor|askpass|gitproxy|textconv|clean|smudge|process|driver|helper|program|hookspath|packobjectshook|uploadpack|receivepack|sendmailcmd)$/

/** Credential helpers that are git's own (`git-credential-store` and friends): a name, not code. */
const HELPER_NAMES =
  /^(?:store|cache|osxkeychain|libsecret|gnome-keyring|wincred|manager|manager-core|netrc|oauth)(?:\s|$)/

const isCodeKey = (key: string) => CODE_KEY.test(key.toLowerCase())

/**
 * Judges one setting: when `key` runs code, its value is read as that command now. `dir` is the repository's
 * folder (for hooks folders and included files), `how` names where it was set.
 */
function judgeSetting(
  c: Sink,
  key: string,
  value: string,
  dir: string,
  how: string,
  depth = 0,
  persistent = false,
): void {
  const k = key.toLowerCase()
  if (!isCodeKey(k) && !(key.includes('.') ? false : CODE_LEAF.test(k))) return
  const v = value.trim()
  if (!v) return
  if (persistent) plantedSetting(c, k, v, how)
  if (k.startsWith('alias.')) {
    // `!cmd` runs a shell; otherwise it is git's own subcommand with these words (`push --force origin main`).
    runsLater(c, v.startsWith('!') ? v.slice(1) : `git ${v}`, how)
    return
  }
  if (/(^|\.)helper$/.test(k)) {
    if (v.startsWith('!')) runsLater(c, v.slice(1), how)
    else if (!HELPER_NAMES.test(v)) runsLater(c, v.includes('/') ? `${v} get` : `git-credential-${v} get`, how)
    return
  }
  if (k === 'core.hookspath')
    return hooksFolder(c, path.posix.resolve(dir, v.replace(/^~(?=\/|$)/, c.ctx.homeDir)), how)
  if (k === 'include.path' || (k.startsWith('includeif.') && k.endsWith('.path'))) {
    const file = path.posix.resolve(path.posix.join(dir, '.git'), v.replace(/^~(?=\/|$)/, c.ctx.homeDir))
    const text = c.ctx.fs?.readText(file)
    if (text === undefined)
      c.add('unreadable', `${how}: includes ${v}, which cannot be read; settings in it may run code later`)
    else if (depth < 3) configText(c, text, dir, `${how} (included ${v})`, depth + 1)
    return
  }
  runsLater(c, v, how)
}

/** Settings that name a command but run nothing of the agent's choosing: booleans, git's own helpers, plain editors and pagers. */
const TAME_VALUE =
  /^(?:true|false|yes|no|on|off|[01])$|^(?:vim?|nvim|nano|emacs|less(?: -[A-Za-z]+)*|more|cat|code --wait|subl -w|delta)$/

/**
 * A code-running setting written into a repository's config to stay: git runs it on every later `git status`,
 * `diff`, `commit` or push, with the user's authority and outside the sandbox (a `git status` in the project
 * descends into a nested repository and runs its fsmonitor). What it names can be swapped after it was read (a
 * script, a hooks folder, an included file), so it is heard, whatever it reads like now. The floor keeps the
 * project's own `.git/config` unwritable; this is every other repository the agent can make or reach.
 */
function plantedSetting(c: Sink, key: string, value: string, how: string): void {
  if (TAME_VALUE.test(value) || (/(^|\.)helper$/.test(key) && HELPER_NAMES.test(value))) return
  if (key.startsWith('alias.') && !value.startsWith('!')) return // git's own subcommand, read now as what it runs
  c.add(
    'planted_code',
    `${how}: sets ${key} = ${value.slice(0, 120)} in a repository's config: git runs it later, on the user's next git command there, with the user's authority and outside the sandbox`,
  )
}

/**
 * Code git runs later, outside any hook, read now as a command. What it would send cannot be shown to a human
 * when it runs, so code that reads a secret and sends anything off the machine is denied now (a check whose retry
 * passes let `git -c core.pager='curl -d @.env …' log` send the file).
 */
export function runsLater(c: Sink, command: string, how: string): void {
  const findings = c.findings.length
  const secrets = new Set(c.secrets)
  c.shell(command)
  const read = [...c.secrets].filter((s) => !secrets.has(s))
  const send = c.findings.slice(findings).find((f) => f.class === 'public_surface')
  if (read.length && send)
    c.add(
      'unreadable',
      `${how}: git would run this later, outside any hook, and it reads ${read.slice(0, 3).join(', ')} and sends data off the machine (${send.detail})`,
      true,
    )
}

/** A hooks folder: every hook in it runs on a later commit, checkout, merge or push. Read each one now. */
function hooksFolder(c: Sink, dir: string, how: string): void {
  const names = c.ctx.fs?.list(dir)
  if (names === undefined) {
    // Whatever is put there later runs outside any hook: unknowable now, so denied until the hooks exist and can be read
    // (a check whose retry passed let the red team point git at an empty folder).
    c.add(
      'unreadable',
      `${how}: git would run hooks from ${dir}, which cannot be read now; whatever is put there later runs outside any hook — create the hooks first, then point git at them`,
      true,
    )
    return
  }
  for (const n of names.slice(0, 64)) {
    if (n.endsWith('.sample') || n.startsWith('.')) continue
    hookText(c, path.posix.join(dir, n), c.ctx.fs?.readText(path.posix.join(dir, n)), how)
  }
}

/** The text of a hook script (or of a write into one), read as the code it is. */
function hookText(c: Sink, file: string, text: string | undefined, how: string): void {
  if (c.ctx.fs?.isDir(file)) return
  if (text === undefined) {
    c.add('unreadable', `${how}: the hook ${file} cannot be read; git runs it later, outside any hook`)
    return
  }
  const lang = scriptLang(text, file, 'shell')
  if (lang === 'shell' || lang === undefined) runsLater(c, text, how)
  else runsLater(c, `${lang === 'python' ? 'python3' : lang} -${lang === 'python' ? 'c' : 'e'} ${quote(text)}`, how)
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/**
 * The text of a git config file (or the part an Edit puts in): each `key = value` under its `[section "sub"]`.
 * A line whose section is not in view is judged by its last key part alone (`fsmonitor = …`).
 */
function configText(c: Sink, text: string, dir: string, how: string, depth = 0, persistent = false): void {
  let section = ''
  let n = 0
  for (const raw of text.split('\n')) {
    if (++n > 5000) break
    const line = raw.trim()
    if (!line || line.startsWith('#') || line.startsWith(';')) continue
    const sec = /^\[\s*([^\s"\]]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line)
    let rest = line
    if (sec) {
      section = sec[2] !== undefined ? `${sec[1]}.${sec[2]}` : sec[1]
      rest = sec[3]
      if (!rest) continue
    }
    const kv = /^([A-Za-z][\w-]*)\s*(?:=\s*(.*))?$/.exec(rest)
    if (!kv) continue
    let value = kv[2] ?? ''
    // Quoted values: git takes the quotes off (and `\"`).
    if (/^".*"$/.test(value)) value = value.slice(1, -1).replace(/\\"/g, '"').replace(/\\\\/g, '\\')
    const key = section ? `${section}.${kv[1]}` : kv[1]
    judgeSetting(c, key, value, dir, how, depth, persistent)
  }
}

/** `git [-c k=v]… config [opts] key value` and `git -c key=value <cmd>`: `args` after `git`. */
export function gitConfigArgs(c: Sink, args: string[], dir: string, cmd: string): void {
  let i = 0
  while (i < args.length && args[i].startsWith('-')) {
    if (args[i] === '-c' && args[i + 1] !== undefined) {
      const eq = args[i + 1].indexOf('=')
      if (eq > 0) judgeSetting(c, args[i + 1].slice(0, eq), args[i + 1].slice(eq + 1), dir, cmd)
    } else if (args[i].startsWith('--config-env')) {
      // `--config-env=core.pager=VAR`: the value comes from the environment: not visible.
      const spec = args[i].includes('=') ? args[i].slice(args[i].indexOf('=') + 1) : (args[i + 1] ?? '')
      if (isCodeKey(spec.slice(0, spec.indexOf('=') < 0 ? spec.length : spec.indexOf('='))))
        c.add('unreadable', `${cmd}: ${spec} takes a command from the environment`)
    }
    i += /^(-c|-C|--git-dir|--work-tree|--namespace|--config-env)$/.test(args[i]) ? 2 : 1
  }
  if (args[i] === 'clone' || args[i] === 'init') return newRepository(c, args.slice(i + 1), dir, cmd)
  if (args[i] !== 'config') return
  const rest = args.slice(i + 1)
  // Reading, listing, unsetting, editing in an editor: no value is set here.
  if (
    rest.some((a) =>
      /^(--get|--get-all|--get-regexp|--get-urlmatch|-l|--list|--unset|--unset-all|--remove-section|--rename-section|-e|--edit|--show-origin|--show-scope|--name-only)$/.test(
        a,
      ),
    )
  )
    return
  const ops: string[] = []
  for (let k = 0; k < rest.length; k++) {
    const a = rest[k]
    if (/^(-f|--file|--blob|--type|--default|--comment|--value)$/.test(a)) k++
    else if (!a.startsWith('-')) ops.push(a)
  }
  // git 2.46: `git config set key value`, `get`, `unset`, `list`.
  if (
    ops[0] === 'get' ||
    ops[0] === 'list' ||
    ops[0] === 'unset' ||
    ops[0] === 'remove-section' ||
    ops[0] === 'rename-section' ||
    ops[0] === 'edit'
  )
    return
  if (ops[0] === 'set') ops.shift()
  // The project's own config is the floor's (unwritable in sandbox mode) and judged by what it runs; any other
  // repository's, a `--file` or the user's global config is planted for later.
  const own =
    dir === c.ctx.projectDir &&
    !args.slice(0, i).some((a) => a.startsWith('--git-dir')) &&
    !rest.some((a) => /^(--global|--system|-f|--file|--blob)$/.test(a))
  if (ops.length >= 2) judgeSetting(c, ops[0], ops[1], dir, cmd, 0, !own)
}

/**
 * `git clone -c key=value` and `git init|clone --template=DIR` write settings and hooks into the new repository's
 * `.git` to stay: planted for later like `git config` (a nested clone's fsmonitor runs on the project's `git status`).
 */
function newRepository(c: Sink, args: string[], dir: string, cmd: string): void {
  for (let k = 0; k < args.length; k++) {
    const a = args[k]
    const pair = a === '-c' || a === '--config' ? args[++k] : a.startsWith('--config=') ? a.slice(9) : undefined
    if (pair !== undefined && pair.indexOf('=') > 0)
      judgeSetting(c, pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1), dir, cmd, 0, true)
    const template = a === '--template' ? args[++k] : a.startsWith('--template=') ? a.slice(11) : undefined
    if (template === undefined || !template) continue
    const t = path.posix.resolve(dir, template.replace(/^~(?=\/|$)/, c.ctx.homeDir))
    const config = c.ctx.fs?.readText(path.posix.join(t, 'config'))
    if (config !== undefined) configText(c, config, dir, `${cmd} (template ${template})`, 0, true)
    const hooks = (c.ctx.fs?.list(path.posix.join(t, 'hooks')) ?? []).filter(
      (n) => !n.endsWith('.sample') && !n.startsWith('.'),
    )
    if (hooks.length)
      c.add(
        'planted_code',
        `${cmd}: the template ${template} puts hooks (${hooks.slice(0, 3).join(', ')}) in the new repository: git runs them later, with the user's authority and outside the sandbox`,
      )
  }
}

/** Variables git runs as a command, whatever the config says. */
const CODE_VARS = new Set([
  'GIT_EXTERNAL_DIFF',
  'GIT_PAGER',
  'PAGER',
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_PROXY_COMMAND',
])

/**
 * Settings git takes from its environment: `GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`,
 * `GIT_CONFIG_PARAMETERS`, a whole config file (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG`), and
 * the variables git runs as commands. An innocent `git status` given these runs their code now: it is read now.
 */
export function gitConfigEnv(c: Sink, env: Record<string, string> | undefined, dir: string, cmd: string): void {
  if (!env) return
  const count = Number(env.GIT_CONFIG_COUNT)
  for (let n = 0; Number.isInteger(count) && n < Math.min(count, 64); n++) {
    const key = env[`GIT_CONFIG_KEY_${n}`]
    if (key !== undefined) judgeSetting(c, key, env[`GIT_CONFIG_VALUE_${n}`] ?? '', dir, `${cmd} (GIT_CONFIG_KEY_${n})`)
  }
  // `'core.pager'='less -R' 'alias.x'='!sh'`: git's own quoting of -c pairs.
  for (const m of (env.GIT_CONFIG_PARAMETERS ?? '').matchAll(/'([^']*)'(?:='([^']*)')?/g)) {
    const [key, value] =
      m[2] !== undefined ? [m[1], m[2]] : [m[1].slice(0, m[1].indexOf('=')), m[1].slice(m[1].indexOf('=') + 1)]
    if (key) judgeSetting(c, key, value, dir, `${cmd} (GIT_CONFIG_PARAMETERS)`)
  }
  for (const v of ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG']) {
    const file = env[v]
    if (!file || file === '/dev/null') continue
    const abs = path.posix.resolve(dir, file.replace(/^~(?=\/|$)/, c.ctx.homeDir))
    const text = c.ctx.fs?.readText(abs)
    if (text === undefined)
      c.add(
        'unreadable',
        `${cmd}: ${v}=${file} gives git a config file that cannot be read now; settings in it may run code`,
      )
    else configText(c, text, dir, `${cmd} (${v}=${file})`)
  }
  for (const [k, v] of Object.entries(env)) {
    // `GIT_SSH_COMMAND='ssh -i ~/.ssh/deploy_key'`: ssh with options, the ordinary use: its key is for logging in.
    if (/^GIT_SSH(_COMMAND)?$/.test(k) && /^ssh(\s+[^;&|`$<>()\n]*)?$/.test(v.trim())) continue
    if (CODE_VARS.has(k) && v.trim()) runsLater(c, v, `${cmd} (${k})`)
  }
}

/** Which git file a path is, if it is one that makes git run code later. */
function gitCodeFile(abs: string): 'config' | 'hook' | 'attributes' | undefined {
  // The project's own, a worktree's, a submodule's (`.git/modules/<name>/`), and a bare repository's (`remote.git/`).
  if (/\/\.git\/(?:worktrees\/[^/]+\/|modules\/.+\/)?config(?:\.worktree)?$|[^/]\.git\/config$/.test(abs))
    return 'config'
  if (/\/\.git\/(?:modules\/.+\/)?hooks\/[^/]+$|[^/]\.git\/hooks\/[^/]+$/.test(abs) && !abs.endsWith('.sample'))
    return 'hook'
  if (/(^|\/)\.gitattributes$/.test(abs) || /\/\.git\/info\/attributes$/.test(abs)) return 'attributes'
  return undefined
}

/**
 * Text written into one of those files (Write content, an Edit's new text, what a redirect appends): read as
 * config, as a hook script, or as attributes naming drivers whose commands are defined in `.git/config`.
 * `text` undefined: what is written is not visible (a copy, a computed string): unreadable.
 */
export function gitFileWrite(c: Sink, abs: string, text: string | undefined, how: string): void {
  const kind = gitCodeFile(abs)
  if (!kind) return
  const repo = abs.slice(0, abs.indexOf('/.git/') >= 0 ? abs.indexOf('/.git/') : abs.lastIndexOf('/'))
  if (text === undefined) {
    if (kind !== 'attributes')
      c.add(
        'unreadable',
        `${how}: writes ${abs}, which git runs or reads as code later; what is written is not visible`,
      )
    return
  }
  // The project's own `.git/config` and `.git/hooks` are the floor's, and judged by what they run.
  const own =
    abs.startsWith(`${c.ctx.projectDir}/.git/`) &&
    !abs.startsWith(`${c.ctx.projectDir}/.git/modules/`) &&
    !abs.startsWith(`${c.ctx.projectDir}/.git/worktrees/`)
  if (kind === 'config') return configText(c, text, repo, how, 0, !own)
  if (kind === 'hook') {
    if (own) return hookText(c, abs, text, how)
    // What a hook runs can be swapped after it was read (`sh ./x.sh`), and git runs it outside the sandbox.
    c.add(
      'planted_code',
      `${how}: writes the git hook ${abs}: git runs it later, with the user's authority and outside the sandbox`,
    )
    return hookText(c, abs, text, how)
  }
  // `*.txt filter=x diff=y merge=z`: the drivers' commands, as `.git/config` defines them now.
  const drivers = new Set<string>()
  for (const m of text.matchAll(/\b(filter|diff|merge)=([\w.-]{1,100})/g)) drivers.add(`${m[1]}.${m[2]}.`.toLowerCase())
  if (!drivers.size) return
  const cfg = c.ctx.fs?.readText(path.posix.join(repo, '.git', 'config'))
  if (cfg === undefined) return
  let section = ''
  for (const raw of cfg.split('\n').slice(0, 5000)) {
    const line = raw.trim()
    const sec = /^\[\s*([^\s"\]]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line)
    if (sec) {
      section = sec[2] !== undefined ? `${sec[1]}.${sec[2]}.`.toLowerCase() : `${sec[1]}.`.toLowerCase()
      continue
    }
    const kv = /^([A-Za-z][\w-]*)\s*=\s*(.*)$/.exec(line)
    if (kv && drivers.has(section)) judgeSetting(c, `${section}${kv[1]}`, kv[2].replace(/^"(.*)"$/, '$1'), repo, how)
  }
}
