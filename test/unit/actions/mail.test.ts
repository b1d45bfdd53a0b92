import * as family from '../../../lib/core/actions/mail'
import { familyTable } from './table'

familyTable(family, {
  valid: [
    ['echo hi | mail -s subject boss@example.com', 'email_send'],
    ['mailx -s report team@example.com < report.txt', 'email_send'],
    ['sendmail -t < msg.eml', 'email_send'],
    ['mutt -s hi a@b.c < body.txt', 'email_send'],
    ['swaks --to a@b.c --server smtp.example.com', 'email_send'],
    ['msmtp a@b.c < msg.eml', 'email_send'],
    ['python -c "import smtplib; smtplib.SMTP(\'x\').sendmail(a,b,c)"', 'email_send'],
    ['node -e "require(\'nodemailer\').createTransport(o).sendMail(m)"', 'email_send'],
  ],
  invalid: ['mail --help', 'mailx --version', 'sendmail --help', 'mutt --version', 'swaks --help', 'msmtp --version', 'echo "send mail to bob"'],
})
