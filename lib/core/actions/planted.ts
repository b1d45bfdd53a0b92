// What the agent plants now that acts later, outside this session or outside the sandbox, where the floor does not
// reach. Ordinary work edits instructions, scripts and config all day, so only the high-signal cases are heard:
// - instructions for later sessions (CLAUDE.md, AGENTS.md, …) that claim the user's approval, tell a later agent to
//   retry what was denied, or to get around the guard: authority the user never gave, written where the next agent
//   reads it as the user's word;
// - files that make a tool run code implicitly, later and unsandboxed: a Python `.pth` line that imports,
//   `sitecustomize.py`/`usercustomize.py`, an `.envrc` that runs more than settings, a mise config with hooks or a
//   sourced script, an editor task that runs when the folder opens, an editor terminal profile the folder sets, a
//   cargo config that runs a program from the project.
// Both pause for a human. Package scripts, Makefiles and test helpers the user's tools run later are ordinary work:
// they stay quiet, and the residual risk is written down (docs/residual-risk.md).

import path from 'node:path'
import { runsLater } from './git-config'
import type { FamilyMeta, Sink } from './types'

export const meta: FamilyMeta = {
  id: 'planted',
  classes: ['scope_beyond_request'],
  patterns: ['planted_authority', 'planted_code'],
  description:
    "Instructions for later sessions that claim the user's approval or tell the agent to get past a denial; files that make a tool run code implicitly later",
  examples: ['a CLAUDE.md saying the user pre-approved force pushes', 'sitecustomize.py', 'a .pth file that imports'],
}

/** Files an agent reads as its user's standing instructions. */
const INSTRUCTIONS =
  /(^|\/)(CLAUDE(\.local)?\.md|AGENTS\.md|GEMINI\.md|\.cursorrules|copilot-instructions\.md|\.windsurfrules|CONVENTIONS\.md)$|(^|\/)\.(claude|cursor)\/(rules|commands|agents|skills)\/.+\.md$/i

/** Phrases that claim authority for a later agent. Each is a claim no instruction file needs to make for ordinary work. */
const CLAIMS: { re: RegExp; what: string }[] = [
  { re: /\bpre-?(approved|authori[sz]ed)\b/i, what: 'claims approval given in advance' },
  {
    re: /\b(user|owner|human|maintainer|team)s?\b[^.\n]{0,40}\b(has|have|already|explicitly)\s+(approved|authori[sz]ed|allowed|permitted|granted|agreed)\b/i,
    what: "claims the user's approval",
  },
  {
    re: /\b(retry|re-?run|repeat|try (it )?again)\b[^.\n]{0,60}\b(denied|blocked|refused|rejected)\b|\b(denied|blocked|refused|rejected)\b[^.\n]{0,60}\b(retry|re-?run|repeat|try (it )?again)\b/i,
    what: 'tells a later agent to retry what was denied',
  },
  {
    re: /\b(ignore|bypass|skip|disable|turn off|get around|work around|circumvent)\b[^.\n]{0,40}\b(ratchet|hooks?|guardrails?|pre-?flight|sandbox|permission (checks?|prompts?)|safety checks?)\b/i,
    what: 'tells a later agent to get around the guard',
  },
  {
    re: /\b(dangerouslyDisableSandbox|disableAllHooks|dangerously-skip-permissions|bypassPermissions)\b/,
    what: 'names a switch that turns the guard off',
  },
  {
    re: /\bwithout (asking|confirmation|approval|checking with)\b[^.\n]{0,40}\b(push|deploy|publish|delete|force|release)|\b(push|deploy|publish|delete|force|release)\w*\b[^.\n]{0,40}\bwithout (asking|confirmation|approval)\b/i,
    what: 'tells a later agent to act without asking',
  },
]

/**
 * Text written into an instruction file: every authority claim in it, quoted. `added` is what the call adds (a
 * Write's whole content, an Edit's new text); what was already there is the user's and is not judged again.
 */
export function instructionWrite(c: Sink, abs: string, added: string, how: string): void {
  if (!INSTRUCTIONS.test(abs)) return
  for (const line of added.split('\n').slice(0, 2000)) {
    const claim = CLAIMS.find((k) => k.re.test(line))
    if (claim) {
      c.add(
        'planted_authority',
        `${how}: ${path.basename(abs)} ${claim.what} ("${line.trim().slice(0, 160)}"): instructions for later sessions carry the user's authority, which only the user can give`,
      )
      return
    }
  }
}

/** `.envrc` lines that only set things (direnv's own words); anything else runs each time a shell enters the folder. */
const ENVRC_SETTING =
  /^\s*(#|$|export\s+[A-Za-z_]\w*=|[A-Za-z_]\w*=|dotenv(_if_exists)?\b|layout\s|use\s|source_env(_if_exists)?\b|source_up\b|PATH_add\s|path_add\s|watch_file\s|strict_env\b|unstrict_env\b|env_vars_required\b)/

/**
 * A cargo config naming a program inside the project for cargo to run (`rustc-wrapper = "./w.sh"`, a `runner`, a
 * `linker`): the project's files can be swapped later, and cargo runs it on the user's next build. A program found on
 * PATH or elsewhere on the machine (`sccache`, `probe-rs run`, `/usr/bin/clang`) is the ordinary use.
 */
function cargoRunsProjectFile(c: Sink, added: string): boolean {
  for (const m of added.matchAll(
    /^\s*(?:rustc-wrapper|rustc-workspace-wrapper|rustc|rustdoc|runner|linker)\s*=\s*(?:"([^"]*)"|'([^']*)'|\[\s*"([^"]*)")/gm,
  )) {
    const prog = (m[1] ?? m[2] ?? m[3] ?? '').trim().split(/\s+/)[0] ?? ''
    if (
      /^\.{1,2}\//.test(prog) ||
      (!prog.startsWith('/') && prog.includes('/')) ||
      prog === c.ctx.projectDir ||
      prog.startsWith(`${c.ctx.projectDir}/`)
    )
      return true
  }
  return false
}

/** A file a tool runs implicitly later (Python at start-up, direnv on entering, an editor on opening the folder). */
export function codeRunningWrite(c: Sink, abs: string, added: string, how: string): void {
  const name = path.basename(abs)
  let why: string | undefined
  // Leading blanks are [ \t]*, not \s*: with /m, \s* at every line start would run on across the following newlines
  // (quadratic on a file of blank lines; redos.test.ts).
  if (/^(sitecustomize|usercustomize)\.py$/.test(name))
    why = 'Python runs it at every start, in every later process of that interpreter, outside the sandbox'
  else if (name.endsWith('.pth') && /^[ \t]*import\s/m.test(added))
    why = 'a .pth line starting with `import` runs at every Python start, outside the sandbox'
  else if (name === '.envrc' && added.split('\n').some((l) => !ENVRC_SETTING.test(l)))
    why = 'direnv runs it in every later shell that enters the folder, outside the sandbox'
  else if (
    /(^|\/)(\.?mise(\.local)?\.toml|\.config\/mise(\.toml|\/config\.toml))$/.test(abs) &&
    /^[ \t]*\[hooks\b|^[ \t]*_\.source[ \t]*=|^[ \t]*\[env\][^[]*\b_\.source\b/m.test(added)
  )
    why = 'mise runs its hooks and sourced scripts in every later shell that enters the folder, outside the sandbox'
  else if (
    /(^|\/)\.vscode\/settings\.json$/.test(abs) &&
    /"terminal\.integrated\.(profiles|shell|shellArgs|automationProfile|automationShell)\.[\w.]+"\s*:/.test(added)
  )
    why = 'the editor starts this program for every terminal opened in the folder, outside the sandbox'
  else if (/(^|\/)\.cargo\/config(\.toml)?$/.test(abs) && cargoRunsProjectFile(c, added))
    why = "cargo runs this program from the project's files on every later build or run, outside the sandbox"
  else if (/(^|\/)\.vscode\/tasks\.json$/.test(abs) && /"runOn"\s*:\s*"folderOpen"/.test(added))
    why = 'the editor runs this task when the folder is opened, outside the sandbox'
  if (why) c.add('planted_code', `${how}: ${name}: ${why}`)
}

/** Forges whose repositories a submodule ordinarily comes from; a relative URL is the project's own server. */
const SUBMODULE_HOSTS =
  /^(github\.com|gitlab\.com|bitbucket\.org|codeberg\.org|git\.sr\.ht|ssh\.dev\.azure\.com|dev\.azure\.com)$/i
/** Where Gradle's wrapper is downloaded from by default. */
const GRADLE_HOSTS = /^(services\.gradle\.org|downloads\.gradle\.org|downloads\.gradle-dn\.com)$/i

const hostOf = (url: string): string | undefined =>
  /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:?#]+)/i.exec(url)?.[1] ?? /^[^@/\s]+@([^:/\s]+):/.exec(url)?.[1]

/**
 * Files another tool reads later and acts on outside the sandbox, read now (red team G, J, K):
 * - `.gitmodules`: the user's `git submodule update` fetches each URL; one on a host no forge, or carrying a long
 *   encoded path (a secret smuggled as a repository name), is heard;
 * - `.pre-commit-config.yaml`: `repo: local` hooks' `entry` runs at the user's every commit: read as code that runs
 *   later (reading a secret and sending is denied, as a git hook's is);
 * - `gradle-wrapper.properties`: `./gradlew` downloads and runs the distribution at `distributionUrl`.
 */
function laterFetchOrRun(c: Sink, abs: string, added: string, how: string): void {
  const name = path.basename(abs)
  if (name === '.gitmodules') {
    for (const m of added.matchAll(/^\s*url\s*=\s*(\S+)/gm)) {
      const host = hostOf(m[1])
      const encoded = /[A-Za-z0-9+/=_-]{40,}/.test(m[1].replace(/^[^:]*:\/\/[^/]*/, ''))
      if ((host && !SUBMODULE_HOSTS.test(host)) || encoded)
        c.add(
          'planted_code',
          `${how}: .gitmodules: the user's later \`git submodule update\` fetches ${m[1].slice(0, 120)}, ${encoded ? 'a URL carrying a long encoded string' : `on ${host}, not a usual forge`}, outside the sandbox`,
        )
    }
  } else if (name === '.pre-commit-config.yaml' || name === '.pre-commit-config.yml') {
    // Each `repo: local` block's `entry:` lines; remote repositories' hooks are pinned packages, judged at install.
    for (const block of added.split(/^\s*-\s*repo:\s*/m).slice(1)) {
      if (!/^local\b/.test(block)) continue
      for (const m of block.matchAll(/^\s*entry:\s*(.+)$/gm))
        runsLater(
          c,
          m[1].trim().replace(/^(['"])(.*)\1$/, '$2'),
          `${how} (pre-commit runs it at the user's every commit)`,
        )
    }
  } else if (name === 'gradle-wrapper.properties') {
    const url = /^\s*distributionUrl\s*=\s*(\S+)/m.exec(added)?.[1]?.replace(/\\:/g, ':')
    const host = url && hostOf(url)
    if (host && !GRADLE_HOSTS.test(host))
      c.add(
        'planted_code',
        `${how}: gradle-wrapper.properties: \`./gradlew\` downloads and runs the Gradle distribution at ${url!.slice(0, 120)}, on ${host}, not services.gradle.org`,
      )
  }
}

/** Both judgements, for any write whose text is visible (Write content, Edit new text, echo/printf/here-document). */
export function plantedWrite(c: Sink, abs: string, added: string, how: string): void {
  instructionWrite(c, abs, added, how)
  codeRunningWrite(c, abs, added, how)
  laterFetchOrRun(c, abs, added, how)
}
