// Programs that upload: the file(s) or body that curl, wget, httpie, scp, rsync, cloud copies, gh gist/release and
// nc send, read from their options.

import type { Invocation } from '../commands'
import type { EvidenceTarget } from './targets'

/** One call of an uploading program: the program, the one before it in a pipe, and where its paths resolve. */
interface Upload {
  inv: Invocation
  name: string
  args: string[]
  previous: Invocation | undefined
  abs: (p: string) => string
  cmd: string
  /** The file redirected into its standard input (`< .env`). */
  stdinFile: string | undefined
}

/** What a call sends: a file, a literal text, or its standard input. */
type Sent = { file: string } | { text: string } | 'stdin'

/** curl, wget, httpie, scp, rsync, cloud copies, gh gist/release, nc: the file(s) or body they send. */
export function uploadOf(
  inv: Invocation,
  previous: Invocation | undefined,
  abs: (p: string) => string,
  cmd: string,
): EvidenceTarget | undefined {
  const stdinFile = inv.redirects.find((r) => r.op === '<')?.target
  const u: Upload = { inv, name: inv.name, args: inv.args, previous, abs, cmd, stdinFile }
  switch (inv.name) {
    case 'curl':
      return curlSends(u)
    case 'wget':
      return wgetSends(u)
    case 'http':
    case 'https':
    case 'xh':
      return httpieSends(u)
    case 'scp':
    case 'rsync':
      return remoteCopySends(u)
    case 'gh':
      return ghSends(u)
    case 'aws':
      return awsSends(u)
    case 'gsutil':
    case 'gcloud':
    case 'rclone':
      return cloudCopySends(u)
    case 'nc':
    case 'ncat':
    case 'netcat':
    case 'socat':
    case 'telnet':
      if (
        stdinFile ||
        inv.stdin !== undefined ||
        (previous && (READERS.has(previous.name) || previous.name === 'echo' || previous.name === 'printf'))
      )
        return fromStdin(u)
      return undefined
  }
  return undefined
}

/** What flows into the call's standard input: a file, a here-document, or what the program before the pipe prints. */
function fromStdin({ inv, previous, abs, cmd, stdinFile }: Upload): EvidenceTarget {
  if (stdinFile) return { kind: 'files', paths: [abs(stdinFile)], command: cmd }
  if (inv.stdin !== undefined) return { kind: 'body', text: inv.stdin, command: cmd }
  // `cat .env | curl --data-binary @- …`: the program before the pipe says what flows in.
  if (previous && READERS.has(previous.name)) {
    const files = previous.args.filter((x) => !x.startsWith('-'))
    if (files.length) return { kind: 'files', paths: files.map(abs), command: cmd }
  }
  if (previous && (previous.name === 'echo' || previous.name === 'printf'))
    return { kind: 'body', text: previous.args.filter((x) => !/^-[neE]+$/.test(x)).join(' '), command: cmd }
  return { kind: 'unknown', why: 'it sends its standard input, which comes from another command', command: cmd }
}

/** The call's one target from what it sends. */
function collect(u: Upload, items: Sent[], dest?: string): EvidenceTarget | undefined {
  const { abs, cmd } = u
  const files: string[] = []
  const texts: string[] = []
  const out: EvidenceTarget[] = []
  for (const it of items) {
    if (it === 'stdin') out.push(fromStdin(u))
    else if ('file' in it) files.push(abs(it.file))
    else texts.push(it.text)
  }
  if (files.length) out.push({ kind: 'files', paths: files, command: cmd, dest })
  if (texts.length) out.push({ kind: 'body', text: texts.join('\n'), command: cmd, dest })
  if (!out.length) return undefined
  // One call, one target: an unknown part makes the whole unknown; otherwise files win, the body rides along.
  return out.find((t) => t.kind === 'unknown') ?? (out.length === 1 ? out[0] : mergeTargets(out, cmd, dest))
}

function isRemote(x: string): boolean {
  return /^[^/\s]*[^/\\\s]:/.test(x) && !/^[A-Za-z]:[\\/]/.test(x)
}

function curlSends(u: Upload): EvidenceTarget | undefined {
  const { args } = u
  const items: Sent[] = []
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = splitFlag(
      args[i],
      /^(-d|--data|--data-ascii|--data-binary|--data-raw|--data-urlencode|--json|-F|--form|--form-string|-T|--upload-file)$/,
    )
    if (!flag) continue
    const v = inline ?? args[++i] ?? ''
    if (flag === '-T' || flag === '--upload-file') items.push(v === '-' || v === '.' ? 'stdin' : { file: v })
    else if (flag === '-F' || flag === '--form') {
      const m = /^[^=]*=([@<])([^;]*)/.exec(v)
      if (m) items.push(m[2] === '-' ? 'stdin' : { file: m[2] })
      else items.push({ text: v })
    } else if (flag === '--data-raw' || flag === '--form-string') items.push({ text: v })
    else if (flag === '--data-urlencode') {
      const m = /^[^=@]*@(.+)$/.exec(v)
      items.push(m ? (m[1] === '-' ? 'stdin' : { file: m[1] }) : { text: v })
    } else items.push(v.startsWith('@') ? (v === '@-' ? 'stdin' : { file: v.slice(1) }) : { text: v })
  }
  return collect(
    u,
    items,
    args.find((x) => /^https?:\/\//.test(x)),
  )
}

function wgetSends(u: Upload): EvidenceTarget | undefined {
  const { args } = u
  const items: Sent[] = []
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = splitFlag(args[i], /^--(post-file|body-file|post-data|body-data)$/)
    if (!flag) continue
    const v = inline ?? args[++i] ?? ''
    items.push(/file$/.test(flag) ? { file: v } : { text: v })
  }
  return collect(
    u,
    items,
    args.find((x) => /^https?:\/\//.test(x)),
  )
}

function httpieSends(u: Upload): EvidenceTarget | undefined {
  const items: Sent[] = []
  for (const x of u.args) {
    const m = /^(?:[^=:@\s]*(?:=|:=))?@(.+)$/.exec(x)
    if (m && !x.startsWith('-')) items.push({ file: m[1] })
  }
  if (u.stdinFile || u.inv.stdin !== undefined) items.push('stdin')
  return collect(u, items)
}

const SCP_WITH_VALUE = new Set(['-P', '-i', '-o', '-F', '-c', '-l', '-S', '-J'])
const RSYNC_WITH_VALUE = new Set([
  '-e',
  '--rsh',
  '--exclude',
  '--include',
  '--filter',
  '-f',
  '--files-from',
  '--exclude-from',
  '--include-from',
  '--rsync-path',
  '--log-file',
  '--port',
  '--chmod',
])

/** scp and rsync to another host: the local sources. */
function remoteCopySends(u: Upload): EvidenceTarget | undefined {
  const ops = operandsSkipping(u.args, u.name === 'scp' ? SCP_WITH_VALUE : RSYNC_WITH_VALUE)
  const dest = ops[ops.length - 1]
  if (ops.length < 2 || !(isRemote(dest) || dest.startsWith('rsync://'))) return undefined
  const sources = ops.slice(0, -1).filter((s) => !isRemote(s))
  return collect(
    u,
    sources.map((file) => ({ file })),
    dest,
  )
}

const GH_RELEASE_WITH_VALUE = new Set([
  '-t',
  '--title',
  '-n',
  '--notes',
  '-F',
  '--notes-file',
  '--target',
  '--repo',
  '-R',
  '--discussion-category',
  '--notes-start-tag',
])

/** `gh gist create` and `gh release create/upload`: the files they publish. */
function ghSends(u: Upload): EvidenceTarget | undefined {
  const [noun, verb, ...more] = u.args.filter((x) => !x.startsWith('-'))
  if (noun === 'gist' && verb === 'create') {
    const files = more
    if (!files.length || files.includes('-'))
      return collect(u, ['stdin', ...files.filter((f) => f !== '-').map((file) => ({ file }))])
    return collect(
      u,
      files.map((file) => ({ file })),
      'a GitHub gist',
    )
  }
  if (noun === 'release' && (verb === 'upload' || verb === 'create')) {
    const files = operandsSkipping(u.args, GH_RELEASE_WITH_VALUE).slice(3)
    return files.length
      ? collect(
          u,
          files.map((f) => ({ file: f.split('#')[0] })),
          'a GitHub release',
        )
      : undefined
  }
  return undefined
}

/** `aws s3 cp/mv/sync` of a local source to a bucket. */
function awsSends(u: Upload): EvidenceTarget | undefined {
  const { args } = u
  // Options never hide an upload: an option whose value is not known here (`--acl public-read`) may leave a
  // stray word among the operands, so the source is the first operand after the verb, the destination the s3:// one.
  const ops = operandsSkipping(args, AWS_S3_WITH_VALUE)
  const dest = ops.slice(2).find((o) => /^s3:\/\//.test(o))
  const src = ops[2]
  if (ops[0] === 's3' && /^(cp|mv|sync)$/.test(ops[1] ?? '') && dest && src && !/^s3:\/\//.test(src)) {
    const acl = args[args.indexOf('--acl') + 1]
    const where = args.includes('--acl') && /public/.test(acl ?? '') ? `${dest} (${acl}: anyone can read it)` : dest
    return src === '-' ? fromStdin(u) : collect(u, [{ file: src }], where)
  }
  return undefined
}

/** gsutil, `gcloud storage` and rclone copies of local sources to a bucket or remote. */
function cloudCopySends(u: Upload): EvidenceTarget | undefined {
  const { name } = u
  const ops = operandsSkipping(u.args, new Set(['-h', '-o', '--project', '--config']))
  const verb = name === 'gcloud' ? (ops[0] === 'storage' ? ops[1] : undefined) : ops[0]
  const rest = name === 'gcloud' ? ops.slice(2) : ops.slice(1)
  const dest = rest[rest.length - 1]
  if (!verb || !/^(cp|mv|rsync|copy|sync|move|copyto|moveto)$/.test(verb) || rest.length < 2) return undefined
  if (!(/^gs:\/\//.test(dest) || (name === 'rclone' && isRemote(dest)))) return undefined
  return collect(
    u,
    rest
      .slice(0, -1)
      .filter((s) => !/^gs:\/\//.test(s) && !(name === 'rclone' && isRemote(s)))
      .map((file) => ({ file })),
    dest,
  )
}

const AWS_S3_WITH_VALUE = new Set([
  '--profile',
  '--region',
  '--exclude',
  '--include',
  '--acl',
  '--grants',
  '--storage-class',
  '--endpoint-url',
  '--sse',
  '--sse-kms-key-id',
  '--sse-c',
  '--sse-c-key',
  '--content-type',
  '--cache-control',
  '--content-disposition',
  '--content-encoding',
  '--content-language',
  '--expires',
  '--metadata',
  '--metadata-directive',
  '--website-redirect',
  '--source-region',
  '--page-size',
  '--expected-size',
  '--output',
  '--query',
  '--ca-bundle',
  '--cli-read-timeout',
  '--cli-connect-timeout',
  '--color',
])

const READERS = new Set([
  'cat',
  'head',
  'tail',
  'base64',
  'gzip',
  'zcat',
  'xxd',
  'jq',
  'tac',
  'sed',
  'awk',
  'tar',
  'zip',
  'gpg',
])

function mergeTargets(ts: EvidenceTarget[], cmd: string, dest?: string): EvidenceTarget {
  const files = ts.flatMap((t) => (t.kind === 'files' ? t.paths : []))
  const body = ts.flatMap((t) => (t.kind === 'body' ? [t.text] : [])).join('\n')
  // Files and an inline body together: scan the files; the body is scanned as one more "file".
  return { kind: 'files', paths: body ? [...files, `<body>${body}`] : files, command: cmd, dest }
}

function splitFlag(arg: string, re: RegExp): [string | undefined, string | undefined] {
  if (re.test(arg)) return [arg, undefined]
  const eq = arg.indexOf('=')
  if (arg.startsWith('--') && eq > 0 && re.test(arg.slice(0, eq))) return [arg.slice(0, eq), arg.slice(eq + 1)]
  // `-d@file`, `-Ffile=@x`: short flag glued to its value.
  if (/^-[a-zA-Z]./.test(arg) && !arg.startsWith('--') && re.test(arg.slice(0, 2)))
    return [arg.slice(0, 2), arg.slice(2)]
  return [undefined, undefined]
}

export function operandsSkipping(args: string[], withValue: Set<string>): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const x = args[i]
    if (x === '--') {
      out.push(...args.slice(i + 1))
      break
    }
    if (x.startsWith('-') && x !== '-') {
      if (withValue.has(x)) i++
      continue
    }
    out.push(x)
  }
  return out
}
