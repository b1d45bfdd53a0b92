// ssh runs its command on another machine: still a use, read as shell code. sshpass wraps ssh.

import { pipedCode } from '../generated'
import type { Cmd, Peeled, ReaderFamily } from '../types'
import { skipOptions } from '../words'
import { prefix } from './prefix'

const SSH_VALUES = new Set([
  '-p',
  '-i',
  '-l',
  '-o',
  '-F',
  '-J',
  '-L',
  '-R',
  '-D',
  '-b',
  '-c',
  '-E',
  '-e',
  '-m',
  '-O',
  '-Q',
  '-S',
  '-W',
  '-w',
  '-B',
])

/** `ssh host 'rm -rf /srv'`, `ssh host rm -rf /srv`, `echo 'rm -rf x' | ssh host`. */
function ssh(c: Cmd): Peeled {
  const words = skipOptions(c.args, SSH_VALUES)
  c.push()
  if (words.length > 1) c.code(words.slice(1).join(' '), 'ssh')
  else if (words.length === 1 && c.simple.pipedFrom)
    pipedCode(c.simple.pipedFrom, 'ssh', c.st, (text) => c.code(text, 'ssh <|'))
  return 'read'
}

export const family: ReaderFamily = {
  family: 'ssh',
  // `sshpass -p pw ssh host cmd`: the password is an option; the rest is the command it runs.
  programs: { ssh, sshpass: prefix(['-p', '-f', '-d', '-P']) },
}
