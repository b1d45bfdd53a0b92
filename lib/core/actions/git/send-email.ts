// `git send-email`: patches sent by mail, which nothing brings back.

import type { SubcommandHandler } from './call'

export const sendEmail: SubcommandHandler = ({ c, f, rest, dry }) => {
  if (dry) return
  const to = rest
    .flatMap((x, k) =>
      x === '--to' || x === '--cc'
        ? [rest[k + 1] ?? '']
        : x.startsWith('--to=') || x.startsWith('--cc=')
          ? [x.slice(x.indexOf('=') + 1)]
          : [],
    )
    .filter(Boolean)
  c.irrevocable('email_send', f.cmd, {
    kind: 'sends',
    what: `patches by mail to ${to.length ? to.join(', ') : 'the recipients in git’s configuration or the patches’ headers'}`,
    names: to.length ? to.map((r) => [r, r.split('@')[0]]) : [['send-email', 'patches', 'patch']],
  })
}
