// Shell builtins that change what later words mean or run code: cd, alias, trap, command, eval, source.

import { catOf, runGenerated } from '../generated'
import { runsFile } from '../scripts'
import { rest, type Cmd, type Peeled, type ReaderFamily } from '../types'
import { short } from '../words'

/** `cd dir`: later commands in the line run there. */
function cd(c: Cmd): Peeled {
  if (c.args[0]) c.cwdChanges.push(c.args[0])
  c.push()
  return 'read'
}

/** `alias x='…'`: a later `x` in the line is that text (read, and unreadable: see line.ts). */
function alias(c: Cmd): Peeled {
  for (const a of c.args) {
    const eq = a.indexOf('=')
    if (eq > 0) c.st.aliases.set(a.slice(0, eq), a.slice(eq + 1))
  }
  c.push()
  return 'read'
}

/** `trap 'rm -rf x' EXIT`: the handler is code that runs later in this shell. */
function trap(c: Cmd): Peeled {
  if (c.args[0] && !c.args[0].startsWith('-')) c.code(c.args[0], 'trap')
  c.push()
  return 'read'
}

/** `command rm x` runs rm; `command -v rm` only looks a program up and runs nothing. */
function command(c: Cmd): Peeled {
  if (c.args.some((a) => a === '-v' || a === '-V')) {
    c.push()
    return 'read'
  }
  c.via.push(c.name)
  return rest(c, c.args[0] === '-p' ? c.args.slice(1) : c.args)
}

/** `eval "$(ssh-agent -s)"` and friends: well-known programs whose output is environment setup. */
const EVAL_IDIOM =
  /^\$\(\s*(?:[\w./-]*\/)?(ssh-agent|direnv|pyenv|rbenv|nodenv|goenv|jenv|plenv|brew|conda|fnm|mise|rtx|zoxide|starship|opam|luarocks|dircolors|keychain|gpg-agent|thefuck|rustup|asdf)(?: [\w.=:-]+)*\s*\)$/

function evalCode(c: Cmd): Peeled {
  const { args, argComp } = c
  const text = args.join(' ')
  const only = args.length === 1 ? args[0] : undefined
  const one = only !== undefined && argComp[0]
  // Its generator was read where it stands; its output is environment set-up.
  const idiom = one && EVAL_IDIOM.test(only)
  // `eval "$(cat x.sh)"`: the file's text is the code.
  const cat = one && !idiom ? catOf(only) : undefined
  if (idiom || (cat && runsFile(c, cat, 'shell', []))) {
    c.push()
    return 'read'
  }
  if (argComp.some(Boolean)) c.st.unreadable.add(`eval of a computed string (${short(text)})`)
  c.code(text, 'eval')
  return 'read'
}

/** `source x.sh`, `. ./env.sh`, `source <(cat x.sh)`: the file's text runs in this shell. */
function source(c: Cmd): Peeled {
  const { name, args, st } = c
  const file = args[0]
  const cat = file ? catOf(file) : undefined
  if (cat && runsFile(c, cat, 'shell', [])) {
    // `source <(cat x.sh)`: the file on disk is the code.
  } else if (file && (/^[<>]\(/.test(file) || file === '/dev/stdin' || (file === '-' && c.simple.pipedFrom)))
    st.unreadable.add(`${name} runs code that is not visible (${short(file)})`)
  else if (file && !runGenerated(file, st, (text) => c.code(text, `${name} ${file}`)))
    runsFile(c, file, 'shell', args.slice(1))
  c.push()
  return 'read'
}

export const family: ReaderFamily = {
  family: 'builtins',
  programs: { cd, pushd: cd, alias, trap, command, builtin: command, eval: evalCode, source, '.': source },
}
