// Data leaving the machine: HTTP uploads (curl, wget, httpie) and copies to other hosts (scp, rsync, rclone).

import { writesTo } from './fs-write'
import type { CodeScanner, Detector, FamilyMeta } from './types'
import { isLocalUrl } from './util'

export const meta: FamilyMeta = {
  id: 'network',
  classes: ['public_surface'],
  patterns: ['http_upload', 'remote_copy', 'email_send', 'file_delete'],
  description: 'HTTP POST/PUT/upload to an external host; copying files to another host',
  examples: ['curl -F file=@report.pdf https://upload.example.com', 'scp build.tar.gz host:/srv/', 'rsync -av dist/ host:/var/www/'],
}

const httpie: Detector = (c, _inv, f) => {
  const method = f.operands[0] ?? ''
  const url = f.operands.find((o) => /^https?:\/\/|^[\w.-]+\.[a-z]{2,}|^localhost\b|^:\d*(\/|$)/i.test(o)) ?? ''
  const hasBody = f.operands.some((o) => /^[\w.-]+(:=|=|@)/.test(o))
  // httpie's `:3000/path` is shorthand for localhost.
  const local = isLocalUrl(url) || /^:\d*(\/|$)/.test(url)
  if ((/^(POST|PUT|PATCH|DELETE)$/i.test(method) || hasBody) && !local) c.add('http_upload', f.cmd)
}

export const programs: Record<string, Detector> = {
  curl: (c, inv, f) => {
    const a = inv.args
    const url = a.find((x) => /^https?:\/\//.test(x) || /^[\w.-]+\.[a-z]{2,}(\/|:|$)/i.test(x)) ?? ''
    const upload =
      a.some((x, i) => /^(-X|--request)$/.test(a[i - 1] ?? '') && /^(POST|PUT|PATCH|DELETE)$/i.test(x)) ||
      a.some((x) => /^-X(POST|PUT|PATCH|DELETE)$/i.test(x) || /^--request=(POST|PUT|PATCH|DELETE)$/i.test(x)) ||
      a.some((x) => /^(-d|--data|--data-raw|--data-binary|--data-urlencode|-F|--form|--form-string|-T|--upload-file|--json)(=|$)/.test(x) || (/^-[a-zA-Z]*[dFT]$/.test(x) && x.length <= 3))
    if (upload && !isLocalUrl(url)) c.add('http_upload', f.cmd)
    if (a.some((x) => /^smtps?:\/\//.test(x)) || a.includes('--mail-rcpt')) c.add('email_send', f.cmd)
  },
  wget: (c, inv, f) => {
    const url = inv.args.find((x) => /^https?:\/\//.test(x)) ?? ''
    if (inv.args.some((x) => /^--(post-data|post-file|method=(POST|PUT|PATCH|DELETE)|body-data|body-file)/i.test(x)) && !isLocalUrl(url)) c.add('http_upload', f.cmd)
  },
  http: httpie,
  https: httpie,
  xh: httpie,
  rsync: (c, inv, f) => {
    const dest = f.operands[f.operands.length - 1] ?? ''
    if (/^[^/]*:/.test(dest) || dest.startsWith('rsync://')) c.add('remote_copy', f.cmd)
    else writesTo(c, f, [dest], false)
    if (inv.args.some((a) => a.startsWith('--delete'))) c.add('file_delete', f.cmd)
  },
  scp: (c, _inv, f) => {
    if (/^[^/]*:/.test(f.operands[f.operands.length - 1] ?? '')) c.add('remote_copy', f.cmd)
  },
  sftp: (c, _inv, f) => c.add('remote_copy', f.cmd),
  rclone: (c, inv, f) => {
    if (/^(copy|sync|move|copyto|moveto)$/.test(inv.args[0] ?? '')) c.add('remote_copy', f.cmd)
    if (/^(delete|purge|deletefile|sync)$/.test(inv.args[0] ?? '')) c.add('file_delete', f.cmd)
  },
}

/** HTTP writes from interpreter code: requests.post, fetch with method POST, urlopen with data. */
export const scanCode: CodeScanner = (c, s, detail) => {
  if (/\b(requests|httpx|session)\.(post|put|patch|delete)\(|method\s*[:=]\s*['"](POST|PUT|PATCH|DELETE)['"]|urlopen\([^)]{0,512}data\s*=|HTTP::Request->new\(\s*['"]?(POST|PUT)/i.test(s.code))
    c.add('http_upload', detail)
}
