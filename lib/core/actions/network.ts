// Data leaving the machine: HTTP uploads (curl, wget, httpie) and copies to other hosts (scp, rsync, rclone).

import { writesTo } from './fs-write'
import type { Invocation } from '../commands'
import { paymentEndpoint } from './payments'
import { lastPart } from './rows'
import type { CodeScanner, Detector, FamilyMeta, InvocationFacts, Sink } from './types'
import { dryRun, hasFlag, isLocalUrl } from './util'

export const meta: FamilyMeta = {
  id: 'network',
  classes: ['public_surface'],
  patterns: ['http_upload', 'remote_delete', 'payment', 'remote_copy', 'network_send', 'email_send', 'file_delete'],
  description:
    'HTTP POST/PUT/upload to an external host, HTTP DELETE and payment API calls; copying files to another host; raw socket sends (nc, socat, /dev/tcp)',
  examples: [
    'curl -F file=@report.pdf https://upload.example.com',
    'curl -X DELETE https://api.example.com/v1/users/42',
    'scp build.tar.gz host:/srv/',
    'rsync -av dist/ host:/var/www/',
  ],
}

/**
 * What cannot be taken back over HTTP: a DELETE to another host destroys what the URL names; a POST to a payment
 * API moves money. Both wait for a human unless the user asked for exactly this (naming what the URL names).
 */
export function httpIrrevocable(c: Sink, method: string, url: string, detail: string): void {
  if (!url || isLocalUrl(url)) return
  const full = /^https?:\/\//i.test(url) ? url : `https://${url}`
  const path = /^https?:\/\/[^/?#]+(\/[^?#]*)?/i.exec(full)?.[1] ?? '/'
  if (method.toUpperCase() === 'DELETE')
    c.irrevocable('remote_delete', detail, {
      kind: 'destroys',
      what: `what ${full.replace(/[?#].*$/, '')} names (HTTP DELETE; the server keeps no undo)`,
      names: [[lastPart(path) || full]],
    })
  const pay = paymentEndpoint(full, method)
  if (pay)
    c.irrevocable('payment', detail, {
      kind: 'pays',
      what: pay,
      names: [[lastPart(path), 'refund', 'charge', 'payout', 'transfer', 'payment'].filter(Boolean)],
    })
}

const httpie: Detector = (c, _inv, f) => {
  const method = f.operands[0] ?? ''
  const url = f.operands.find((o) => /^https?:\/\/|^[\w.-]+\.[a-z]{2,}|^localhost\b|^:\d*(\/|$)/i.test(o)) ?? ''
  const hasBody = f.operands.some((o) => /^[\w.-]+(:=|=|@)/.test(o))
  // httpie's `:3000/path` is shorthand for localhost.
  const local = isLocalUrl(url) || /^:\d*(\/|$)/.test(url)
  if (!local)
    httpIrrevocable(
      c,
      /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)$/i.test(method) ? method : hasBody ? 'POST' : 'GET',
      url,
      f.cmd,
    )
  if ((/^(POST|PUT|PATCH)$/i.test(method) || hasBody) && !local) c.add('http_upload', f.cmd)
}

export const programs: Record<string, Detector> = {
  curl: (c, inv, f) => {
    const a = inv.args
    const url = a.find((x) => /^https?:\/\//.test(x) || /^[\w.-]+\.[a-z]{2,}(\/|:|$)/i.test(x)) ?? ''
    const method =
      a.some((x, i) => /^(-X|--request)$/.test(a[i - 1] ?? '') && /^(POST|PUT|PATCH|DELETE)$/i.test(x)) ||
      a.some((x) => /^-X(POST|PUT|PATCH|DELETE)$/i.test(x) || /^--request=(POST|PUT|PATCH|DELETE)$/i.test(x))
    // `-G` (`--get`) puts the -d data in the query string of a GET: nothing is uploaded but the URL.
    const get = a.includes('-G') || a.includes('--get')
    const data = a.some(
      (x) =>
        /^(-d|--data|--data-raw|--data-binary|--data-urlencode|--json)(=|$)/.test(x) ||
        (/^-[a-zA-Z]*d$/.test(x) && x.length <= 3),
    )
    const file = a.some(
      (x) =>
        /^(-F|--form|--form-string|-T|--upload-file)(=|$)/.test(x) || (/^-[a-zA-Z]*[FT]$/.test(x) && x.length <= 3),
    )
    const upload = method || file || (data && !get)
    const verb = (
      a.find((_x, i) => /^(-X|--request)$/.test(a[i - 1] ?? '')) ??
      a.find((x) => /^(-X.+|--request=.+)$/.test(x))?.replace(/^(-X|--request=)/, '') ??
      (file || (data && !get) ? (a.some((x) => /^(-T|--upload-file)(=|$)/.test(x)) ? 'PUT' : 'POST') : 'GET')
    ).toUpperCase()
    httpIrrevocable(c, verb, url, f.cmd)
    // A DELETE with nothing to send is only a deletion; anything with a body or a file is an upload too.
    if (upload && !isLocalUrl(url) && !(verb === 'DELETE' && !file && !data)) c.add('http_upload', f.cmd)
    if (a.some((x) => /^smtps?:\/\//.test(x)) || a.includes('--mail-rcpt')) c.add('email_send', f.cmd)
  },
  wget: (c, inv, f) => {
    const url = inv.args.find((x) => /^https?:\/\//.test(x)) ?? ''
    const method =
      inv.args.find((x) => /^--method=/i.test(x))?.slice(9) ??
      (inv.args.some((x) => /^--post-(data|file)/.test(x)) ? 'POST' : 'GET')
    httpIrrevocable(c, method, url, f.cmd)
    if (
      inv.args.some((x) => /^--(post-data|post-file|method=(POST|PUT|PATCH)|body-data|body-file)/i.test(x)) &&
      !isLocalUrl(url)
    )
      c.add('http_upload', f.cmd)
  },
  http: httpie,
  https: httpie,
  xh: httpie,
  rsync: (c, inv, f) => {
    if (dryRun(inv.args) || hasFlag(inv.args, 'n')) return
    const dest = f.operands[f.operands.length - 1] ?? ''
    if (/^[^/]*:/.test(dest) || dest.startsWith('rsync://')) c.add('remote_copy', f.cmd)
    else writesTo(c, f, [dest], false)
    if (inv.args.some((a) => a.startsWith('--delete'))) c.add('file_delete', f.cmd)
  },
  scp: (c, _inv, f) => {
    if (/^[^/]*:/.test(f.operands[f.operands.length - 1] ?? '')) c.add('remote_copy', f.cmd)
  },
  sftp: (c, _inv, f) => c.add('remote_copy', f.cmd),
  // `… | ssh host 'cat > x'`, `ssh host < file`: what feeds ssh goes to the other host.
  ssh: (c, inv, f) => {
    const fed =
      inv.redirects.some((r) => r.op === '<') ||
      inv.stdin !== undefined ||
      (f.prev !== undefined && !['cd', 'pushd'].includes(f.prev.name))
    if (fed && !inv.args.includes('-n')) c.add('remote_copy', f.cmd)
  },
  nc: rawSocket,
  ncat: rawSocket,
  netcat: rawSocket,
  telnet: rawSocket,
  socat: (c, _inv, f) => {
    // socat ADDRESS ADDRESS: data flows between them; a network address on either side with a file, stdin or exec on the other.
    const addrs = f.operands
    if (
      addrs.some((x) => /^(tcp|udp|openssl|ssl|sctp)[46]?(-connect|-sendto)?:/i.test(x)) &&
      addrs.some((x) => /^(-|stdin|stdio|file:|open:|exec:|system:|gopen:|create:)/i.test(x) || x.startsWith('/'))
    )
      c.add('network_send', f.cmd)
  },
  rclone: (c, inv, f) => {
    if (/^(copy|sync|move|copyto|moveto)$/.test(inv.args[0] ?? '')) c.add('remote_copy', f.cmd)
    if (/^(delete|purge|deletefile|sync)$/.test(inv.args[0] ?? '')) c.add('file_delete', f.cmd)
  },
}

/** nc/ncat/netcat/telnet: data leaves when something feeds their input (`< file`, a pipe, a here-doc) or `-e`/`-c` runs a program for the peer. Port scans (`-z`) send nothing. */
function rawSocket(c: Sink, inv: Invocation, f: InvocationFacts): void {
  if (inv.args.some((a) => a === '-z' || a === '--help' || a === '-h')) return
  const fed =
    inv.redirects.some((r) => r.op === '<' || r.op === '<>') || inv.stdin !== undefined || f.prev !== undefined
  const exec = inv.args.some((a) => /^(-e|-c|--exec|--sh-exec|--lua-exec)$/.test(a))
  if (fed || exec) c.add('network_send', f.cmd)
}

/** `> /dev/tcp/host/port`: bash opens a socket and sends the output. */
export function socketRedirects(c: Sink, inv: Invocation, f: InvocationFacts): void {
  for (const r of inv.redirects)
    if (/^\/dev\/(tcp|udp)\//.test(r.target ?? '') && !/^\/dev\/(tcp|udp)\/(localhost|127\.)/.test(r.target ?? ''))
      c.add('network_send', `${f.cmd} ${r.op} ${r.target}`)
}

/** HTTP writes from interpreter code: requests.post, fetch with method POST, urlopen with data. */
export const scanCode: CodeScanner = (c, s, detail) => {
  if (
    /\b(requests|httpx|session)\.(post|put|patch)\(|method\s*[:=]\s*['"](POST|PUT|PATCH)['"]|urlopen\([^)]{0,512}data\s*=|HTTP::Request->new\(\s*['"]?(POST|PUT)/i.test(
      s.code,
    )
  )
    c.add('http_upload', detail)
  // A DELETE from code: to the literal URL it names, or (none) to wherever the code sends it.
  if (
    /\b(requests|httpx|session|axios)\.delete\(|\.request\(\s*['"]DELETE['"]|method\s*[:=]\s*['"]DELETE['"]|HTTP::Request->new\(\s*['"]?DELETE|Net::HTTP::Delete/i.test(
      s.code,
    )
  ) {
    const urls = [...s.code.matchAll(/['"`](https?:\/\/[^'"`\s]{1,2048})['"`]/g)]
      .map((m) => m[1])
      .filter((u) => !isLocalUrl(u))
    if (urls.length) for (const u of urls.slice(0, 4)) httpIrrevocable(c, 'DELETE', u, detail)
    else if (!/['"`]https?:\/\/(localhost|127\.)/.test(s.code))
      c.irrevocable('remote_delete', detail, {
        kind: 'destroys',
        what: `an HTTP DELETE from ${s.lang} code to a URL it computes at run time`,
        names: [['delete']],
      })
  }
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
