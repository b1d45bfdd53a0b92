// git aliases: `git -c alias.x='push --force' x`, or one set by `git config alias.x …` earlier in the line, is the
// command it names (`!cmd` aliases are shell code). `git config alias.ship "!git add -A && git commit && git push";
// git ship` must read as the push it is.

import type { Cmd, Peeled, ReaderFamily } from '../types'
import { quote } from '../words'

/** `git [opts] config [--global|--local|…] alias.x VALUE` → the alias it defines. */
function gitConfigAlias(args: string[]): { name: string; value: string } | null {
  let i = 0
  for (let a = args[i]; a?.startsWith('-'); a = args[i])
    i += ['-c', '-C', '--git-dir', '--work-tree', '--namespace'].includes(a) ? 2 : 1
  if (args[i] !== 'config') return null
  i++
  for (let a = args[i]; a?.startsWith('-'); a = args[i]) i += ['-f', '--file', '--blob', '--type'].includes(a) ? 2 : 1
  const m = /^alias\.(.+)$/i.exec(args[i] ?? '')
  const value = args[i + 1]
  return m && value !== undefined ? { name: m[1]!.toLowerCase(), value } : null
}

/** `git -c alias.x='push --force' x …` → the alias's words; `!cmd` aliases are shell code. */
function gitAlias(args: string[], defined: Map<string, string> = new Map()): { words?: string; shell?: string } | null {
  const aliases = new Map(defined)
  let i = 0
  for (let a = args[i]; a?.startsWith('-'); a = args[i]) {
    const setting = args[i + 1]
    if (a === '-c' && setting) {
      const m = /^alias\.([^=]+)=([\s\S]*)$/i.exec(setting)
      if (m) aliases.set(m[1]!.toLowerCase(), m[2]!)
    }
    i += a === '-c' || a === '-C' || a === '--git-dir' || a === '--work-tree' || a === '--namespace' ? 2 : 1
  }
  const value = aliases.get((args[i] ?? '').toLowerCase())
  if (value === undefined) return null
  const rest = args
    .slice(i + 1)
    .map(quote)
    .join(' ')
  return value.startsWith('!') ? { shell: `${value.slice(1)} ${rest}` } : { words: `${value} ${rest}` }
}

function git(c: Cmd): Peeled {
  const defined = gitConfigAlias(c.args)
  if (defined) c.st.gitAliases.set(defined.name, defined.value)
  const alias = gitAlias(c.args, c.st.gitAliases)
  if (!alias) return 'none'
  c.push()
  if (alias.shell) c.code(alias.shell, 'git alias')
  else c.code(`git ${alias.words}`, 'git alias')
  return 'read'
}

export const family: ReaderFamily = {
  family: 'git-aliases',
  programs: { git },
}
