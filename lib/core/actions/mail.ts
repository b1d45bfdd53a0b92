// Sending email.

import type { CodeScanner, Detector, FamilyMeta } from './types'

export const meta: FamilyMeta = {
  id: 'mail',
  classes: ['public_surface'],
  patterns: ['email_send'],
  description: 'Sending email (mail, sendmail, mutt, swaks, smtplib, nodemailer, …)',
  examples: ['echo hi | mail -s subject boss@example.com', 'sendmail -t < msg.eml'],
}

const send: Detector = (c, _inv, f) => c.add('email_send', f.cmd)

export const programs: Record<string, Detector> = {
  mail: send,
  mailx: send,
  sendmail: send,
  mutt: send,
  swaks: send,
  msmtp: send,
}

export const scanCode: CodeScanner = (c, s, detail) => {
  if (/\bsmtplib\b|nodemailer|Net::SMTP|sendmail/.test(s.code)) c.add('email_send', detail)
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
