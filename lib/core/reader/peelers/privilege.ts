// Running as another user: sudo, doas, pkexec, su, runuser, sg. What runs is the command they are given.

import { rest, type Cmd, type Peeled, type ReaderFamily } from '../types'
import { optionValue, skipOptions } from '../words'

const SUDO_VALUES = new Set([
  '-u',
  '-g',
  '-p',
  '-C',
  '-D',
  '-h',
  '-r',
  '-t',
  '-U',
  '-T',
  '--user',
  '--group',
  '--chdir',
  '--prompt',
  '--host',
  '--role',
  '--type',
  '--other-user',
  '--close-from',
  '--command-timeout',
])

function sudo(c: Cmd): Peeled {
  c.via.push(c.name)
  const words = skipOptions(c.args, SUDO_VALUES)
  const own = c.args.slice(0, c.args.length - words.length)
  if (own.some((a) => (/^-[a-zA-Z]+$/.test(a) && /[si]/.test(a)) || a === '--shell' || a === '--login')) {
    // `sudo -s cmd` runs cmd through the target user's shell.
    if (words.length) c.code(words.join(' '), `${c.name} -s`, c.simple.pipedFrom)
    else c.push()
    return 'read'
  }
  return rest(c, words)
}

/** `su -c 'cmd'`, `su user -c cmd`, `su - user --command=cmd`, `runuser -u user -- cmd`, `sg group cmd`. */
function su(c: Cmd): Peeled {
  const { name, args } = c
  const code = optionValue(args, ['-c', '--command'])
  if (code !== undefined) {
    c.code(code, `${name} -c`)
    return 'read'
  }
  c.via.push(name)
  const dd = args.indexOf('--')
  if (name === 'runuser' && dd >= 0 && args.includes('-u')) return rest(c, args.slice(dd + 1))
  const group = args[1]
  if (name === 'sg' && group !== undefined && !group.startsWith('-')) {
    c.code(args.slice(1).join(' '), 'sg')
    return 'read'
  }
  c.push()
  return 'read'
}

export const family: ReaderFamily = {
  family: 'privilege',
  programs: { sudo, doas: sudo, pkexec: sudo, su, runuser: su, sg: su },
}
