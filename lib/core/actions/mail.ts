// Sending email.

import { withRows, type RowArgs, type RowTable } from './rows'
import type { CodeScanner, Detector, FamilyMeta } from './types'

export const meta: FamilyMeta = {
  id: 'mail',
  classes: ['public_surface'],
  patterns: ['email_send'],
  description: 'Sending email (mail, sendmail, mutt, swaks, smtplib, nodemailer, …)',
  examples: ['echo hi | mail -s subject boss@example.com', 'sendmail -t < msg.eml'],
}

const send: Detector = (c, _inv, f) => c.add('email_send', f.cmd)

// ---- a mail cannot be called back: who it goes to, for the human and for the request (rows.ts) ----------

const ADDRESS = /^[^@\s]+@[^@\s]+\.[^@\s]+$/
/** The recipients on the line (`-t` reads them from the message's headers). */
const recipients = (a: RowArgs) => [
  ...new Set([...a.ops, ...a.opts('--to', '-c', '-b', '--cc', '--bcc')].filter((o) => ADDRESS.test(o))),
]
const MAIL_VALUES = [
  '-s',
  '-a',
  '-A',
  '-r',
  '-c',
  '-b',
  '-S',
  '-F',
  '-f',
  '-i',
  '-e',
  '--subject',
  '--attach',
  '--from',
  '--header',
  '--server',
  '--body',
  '--to',
  '--cc',
  '--bcc',
]
const MAIL: RowTable = {
  values: MAIL_VALUES,
  rows: [
    {
      cmd: [],
      pattern: 'email_send',
      kind: 'sends',
      what: (a) => {
        const to = recipients(a)
        const subject = a.opt('-s', '--subject', '--header')
        return `mail to ${to.length ? to.join(', ') : a.has('-t') ? 'the recipients in the message’s headers' : '(no recipient named)'}${subject ? ` ("${subject}")` : ''}`
      },
      names: (a) => recipients(a).map((r) => [r, r.slice(0, r.indexOf('@'))]),
    },
  ],
}

export const rows: Record<string, RowTable> = {
  mail: MAIL,
  mailx: MAIL,
  sendmail: MAIL,
  mutt: MAIL,
  swaks: MAIL,
  msmtp: MAIL,
}

export const programs: Record<string, Detector> = withRows(
  { mail: send, mailx: send, sendmail: send, mutt: send, swaks: send, msmtp: send },
  rows,
)

export const scanCode: CodeScanner = (c, s, detail) => {
  if (!/\bsmtplib\b|nodemailer|Net::SMTP|sendmail/.test(s.code)) return
  const to = [
    ...new Set([...s.code.matchAll(/['"]([^'"@\s]{1,64}@[^'"@\s]{1,255}\.[a-z]{2,})['"]/gi)].map((m) => m[1])),
  ].slice(0, 8)
  c.irrevocable('email_send', detail, {
    kind: 'sends',
    what: `mail from ${s.lang} code${to.length ? ` to ${to.join(', ')}` : ' (its recipients are computed at run time)'}`,
    names: to.length ? to.map((r) => [r, r.slice(0, r.indexOf('@'))]) : [['mail', 'email', 'e-mail']],
  })
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs, rows]) Object.setPrototypeOf(table, null)
