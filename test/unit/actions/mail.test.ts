import * as family from '../../../lib/core/actions/mail'
import { familyTable } from './table'

familyTable(family, {
  valid: [
    // a mail cannot be called back: the note says who it goes to (issue 19)
    ['echo hi | mail -s report boss@example.com', 'email_send', /^mail to boss@example\.com \("report"\)$/],
    ['sendmail -t < msg.eml', 'email_send', /the recipients in the message’s headers/],
    ['swaks --to a@b.co --server smtp.example.com', 'email_send', /mail to a@b\.co/],
    [
      "python3 -c \"import smtplib; s=smtplib.SMTP('x'); s.sendmail('me@x.io', 'ceo@acme.com', m)\"",
      'email_send',
      /mail from python code to me@x\.io, ceo@acme\.com/,
    ],
    ['echo hi | mail -s subject boss@example.com', 'email_send'],
    ['mailx -s report team@example.com < report.txt', 'email_send'],
    ['sendmail -t < msg.eml', 'email_send'],
    ['mutt -s hi a@b.c < body.txt', 'email_send'],
    ['swaks --to a@b.c --server smtp.example.com', 'email_send'],
    ['msmtp a@b.c < msg.eml', 'email_send'],
    ['python -c "import smtplib; smtplib.SMTP(\'x\').sendmail(a,b,c)"', 'email_send'],
    ['node -e "require(\'nodemailer\').createTransport(o).sendMail(m)"', 'email_send'],
  ],
  invalid: [
    'grep -r smtplib src/',
    'mail --help',
    'mailx --version',
    'sendmail --help',
    'mutt --version',
    'swaks --help',
    'msmtp --version',
    'echo "send mail to bob"',
  ],
})
