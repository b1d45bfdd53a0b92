// Classifies one pending tool call into the seed's trigger classes. Pure: everything it needs to
// know about the world (which files exist, what was read, the current branch) comes in `ctx`.

import path from 'node:path'
import { readCommandLine, shellCallsIn, type CodeSnippet, type Invocation } from './commands'
import { type ActionClass, PATTERNS } from './patterns'

export interface Finding {
  class: ActionClass
  pattern: string
  /** One line naming what was seen, e.g. `git push origin main`. */
  detail: string
  /** The seed's "any action that would be P1 if wrong": hard by default, whatever the rules say. */
  catastrophic?: boolean
}

export interface SessionFacts {
  /** Absolute paths read (or created) since the last compaction. */
  reads: Record<string, number>
  /** The user's prompts in this session, oldest first. */
  prompts: string[]
}

export interface ClassifyContext {
  projectDir: string
  homeDir: string
  stateDir: string
  session: SessionFacts
  fileExists(absPath: string): boolean
  currentBranch(dir: string): string | undefined
  tmpDirs?: string[]
}

export interface Classification {
  tool: string
  summary: string
  findings: Finding[]
  commands: string[]
  paths: string[]
  urls: string[]
  /** Files this call reads or creates: they count as seen for the stale-data check. */
  reads: string[]
  /** Set when the command could not be read completely; callers treat it with suspicion. */
  incomplete: boolean
}

export interface ToolCall {
  tool_name: string
  tool_input: Record<string, unknown>
  cwd?: string
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

export function classify(call: ToolCall, ctx: ClassifyContext): Classification {
  const c = new Collector(call, ctx)
  c.run()
  return c.result()
}

class Collector {
  findings: Finding[] = []
  commands: string[] = []
  paths = new Set<string>()
  urls = new Set<string>()
  reads = new Set<string>()
  incomplete = false
  summary = ''
  private readonly cwd: string

  constructor(
    private readonly call: ToolCall,
    readonly ctx: ClassifyContext,
  ) {
    this.cwd = call.cwd || ctx.projectDir
  }

  result(): Classification {
    const seen = new Set<string>()
    const findings = this.findings.filter((f) => {
      const k = `${f.pattern}\u0000${f.detail}`
      if (seen.has(k)) return false
      seen.add(k)
      return true
    })
    return {
      tool: this.call.tool_name,
      summary: this.summary,
      findings,
      commands: this.commands,
      paths: [...this.paths],
      urls: [...this.urls],
      reads: [...this.reads],
      incomplete: this.incomplete,
    }
  }

  add(pattern: string, detail: string, catastrophic = false): void {
    const info = PATTERNS[pattern]
    this.findings.push({ class: info.class, pattern, detail, ...(catastrophic ? { catastrophic } : {}) })
  }

  resolve(p: string, base = this.cwd): string {
    let q = p
    if (q === '~' || q.startsWith('~/')) q = this.ctx.homeDir + q.slice(1)
    q = q.replace(/^\$\{?HOME\}?(?=\/|$)/, this.ctx.homeDir)
    return path.posix.resolve(base, q)
  }

  run(): void {
    const { tool_name: tool, tool_input: input } = this.call
    switch (tool) {
      case 'Bash': {
        const command = str(input.command)
        this.summary = oneLine(command)
        this.bash(command)
        break
      }
      case 'Write':
      case 'Edit':
      case 'MultiEdit':
      case 'NotebookEdit': {
        const file = str(input.file_path) || str(input.notebook_path)
        this.summary = `${tool} ${file}`
        if (file) this.fileChange(this.resolve(file), tool)
        if (tool === 'Write' && file && (/(^|\/)(crontab|cron\.d\/)/.test(file) || file.endsWith('.timer') || (file.includes('.github/workflows/') && /\.ya?ml$/.test(file))) && /\bcron\b|OnCalendar|schedule:/.test(str(input.content)))
          this.add('timezone_dependent_action', `${tool} ${file} (schedule)`)
        break
      }
      case 'Read':
      case 'NotebookRead': {
        const file = str(input.file_path) || str(input.notebook_path)
        this.summary = `${tool} ${file}`
        if (file) this.reads.add(this.resolve(file))
        break
      }
      case 'WebFetch':
      case 'WebSearch': {
        const target = str(input.url) || str(input.query)
        this.summary = `${tool} ${target}`
        if (input.url) this.urls.add(str(input.url))
        if (this.ctx.session.prompts.length && !this.ctx.session.prompts.some(impliesWeb)) this.add('unrequested_web', `${tool} ${target}`)
        break
      }
      case 'CronCreate':
        this.summary = `${tool} ${oneLine(JSON.stringify(input))}`
        this.add('timezone_dependent_action', this.summary)
        break
      default:
        this.summary = `${tool} ${oneLine(JSON.stringify(input ?? {}))}`
        if (tool.startsWith('mcp__')) this.mcp(tool)
    }
    const published = this.findings.some((f) => f.class === 'public_surface' && f.pattern !== 'commit_to_public_repo')
    if (published && this.ctx.session.prompts.length && !this.ctx.session.prompts.some(impliesPublish))
      this.add('unrequested_publish', this.summary)
  }

  mcp(tool: string): void {
    const action = tool.split('__').slice(2).join('__').toLowerCase()
    if (/(^|_)(delete|drop|remove|destroy|purge|truncate|wipe|erase)(_|$)/.test(action)) this.add('irreversible_mcp', tool)
    else if (/(^|_)(send|post|publish|tweet|reply|comment|create_(issue|pull_request|pr|release|comment)|merge|push|deploy|email|message|upload|share)(_|$)/.test(action))
      this.add('external_post', tool)
  }

  protectedPath(abs: string): boolean {
    const { stateDir, projectDir, homeDir } = this.ctx
    const inside = (dir: string) => abs === dir || abs.startsWith(dir.endsWith('/') ? dir : dir + '/')
    if (inside(stateDir) || inside(path.posix.join(projectDir, '.ratchet'))) return true
    const base = path.posix.basename(abs)
    const dir = path.posix.dirname(abs)
    if (/^settings(\.local)?\.json$/.test(base) && path.posix.basename(dir) === '.claude') return true
    if (dir === path.posix.join(homeDir, '.claude') && base === 'settings.json') return true
    return false
  }

  /** A file is about to change: self-protection, stale data, scope. */
  fileChange(abs: string, how: string): void {
    this.paths.add(abs)
    if (this.protectedPath(abs)) {
      this.add('ratchet_state_edit', `${how} ${abs}`)
      return
    }
    if (this.outsideProject(abs)) this.add('outside_project', `${how} ${abs}`)
    if (how === 'Write' && !this.ctx.fileExists(abs)) {
      this.reads.add(abs) // created in this context: later edits are not stale
      return
    }
    if (!(abs in this.ctx.session.reads) && this.ctx.fileExists(abs)) this.add('stale_write', `${how} ${abs} (not read since the session started or was compacted)`)
  }

  outsideProject(abs: string): boolean {
    const { projectDir } = this.ctx
    if (abs === projectDir || abs.startsWith(projectDir + '/')) return false
    if (abs.startsWith('/dev/') || abs === '/dev/null') return false
    const tmps = this.ctx.tmpDirs ?? ['/tmp', '/var/tmp']
    return !tmps.some((t) => abs === t || abs.startsWith(t + '/'))
  }

  bash(command: string): void {
    const line = readCommandLine(command)
    if (line.incomplete) this.incomplete = true
    for (const inv of line.invocations) this.invocation(inv)
    for (const s of line.snippets) this.snippet(s)
  }

  baseDir(inv: Invocation): string {
    let dir = this.cwd
    for (const d of inv.cwdChanges) dir = this.resolve(d, dir)
    return dir
  }

  invocation(inv: Invocation): void {
    const { name, args } = inv
    const cmd = [name, ...args].join(' ')
    this.commands.push(cmd)
    const base = this.baseDir(inv)
    const at = (p: string) => this.resolve(p, base)
    const operands = args.filter((a) => !a.startsWith('-'))

    for (const r of inv.redirects) {
      if (/^(>|>>|>\||&>|&>>)$/.test(r.op) && r.target && !/^&?\d$/.test(r.target)) {
        const abs = at(r.target)
        if (this.protectedPath(abs)) this.add('ratchet_state_edit', `${cmd} ${r.op} ${r.target}`)
        else {
          this.paths.add(abs)
          if (this.outsideProject(abs)) this.add('outside_project', `${cmd} ${r.op} ${r.target}`)
        }
      }
    }
    for (const a of args) if (/^https?:\/\//.test(a)) this.urls.add(a)

    const detector = PROGRAMS[name]
    if (detector) detector(this, inv, { cmd, at, operands, base })
    if (/^mkfs(\.|$)|^mkswap$/.test(name)) this.add('disk_format', cmd, true)
    if (/^python\d*(\.\d+)?$/.test(name) && args[0] === 'manage.py' && /^(flush|reset_db|sqlflush)$/.test(args[1] ?? '')) this.add('db_destroy', cmd)
  }

  snippet(s: CodeSnippet): void {
    const code = s.code
    const detail = `${s.via[s.via.length - 1]} ${oneLine(code)}`
    this.commands.push(detail)
    const { stateDir, projectDir } = this.ctx
    if (code.includes('.ratchet') || code.includes(stateDir) || /\.claude\/settings(\.local)?\.json/.test(code) || (projectDir && code.includes(path.posix.join(projectDir, '.claude'))))
      this.add('ratchet_state_edit', detail)
    const deletes: Record<CodeSnippet['lang'], RegExp> = {
      python: /\b(os\.(remove|unlink|rmdir|removedirs)|shutil\.rmtree|\.unlink\(|\.rmdir\(|send2trash)/,
      node: /\b(rmSync|unlinkSync|rmdirSync|fs\.(promises\.)?(rm|unlink|rmdir)\b|rimraf)/,
      perl: /\b(unlink|rmdir|remove_tree|rmtree)\b/,
      ruby: /\b(File\.(delete|unlink)|FileUtils\.(rm|rm_r|rm_rf|remove|remove_dir|remove_entry))\b/,
      php: /\b(unlink|rmdir)\s*\(/,
      sql: /$^/,
    }
    if (deletes[s.lang].test(code)) this.add('file_delete', detail)
    if (/\bsmtplib\b|nodemailer|Net::SMTP|sendmail/.test(code)) this.add('email_send', detail)
    if (/\b(requests|httpx|session)\.(post|put|patch|delete)\(|method\s*[:=]\s*['"](POST|PUT|PATCH|DELETE)['"]|urlopen\([^)]{0,512}data\s*=|HTTP::Request->new\(\s*['"]?(POST|PUT)/i.test(code))
      this.add('http_upload', detail)
    this.sql(code, detail)
    // Shell commands run from the code: os.system("…"), subprocess.run([...]), execSync("…"), system("…").
    // (A linear scanner in commands.ts: the regex that was here backtracked catastrophically.)
    for (const text of shellCallsIn(code, s.lang)) this.bash(text)
  }

  sql(text: string, detail: string): void {
    if (/\bdrop\s+(database|schema)\b/i.test(text)) this.add('db_destroy', detail, true)
    else if (/\b(drop\s+(table|view|index|collection|keyspace)|truncate\s+(table\s+)?\w+|delete\s+from)\b/i.test(text)) this.add('db_destroy', detail)
    if (/\bflushall\b|\bflushdb\b|dropDatabase\s*\(/i.test(text)) this.add('db_destroy', detail, true)
  }
}

export interface InvocationFacts {
  cmd: string
  at: (p: string) => string
  operands: string[]
  base: string
}

type Detector = (c: Collector, inv: Invocation, f: InvocationFacts) => void

const SYSTEM_DIRS = new Set(['/', '/bin', '/boot', '/dev', '/etc', '/home', '/lib', '/lib64', '/opt', '/proc', '/root', '/sbin', '/srv', '/sys', '/usr', '/var', '/Users', '/System', '/Applications'])

/** Deleting `/`, a system folder, or the home folder itself: the seed's P1 class. */
function catastrophicTarget(c: Collector, raw: string, abs: string): boolean {
  if (/^\/\*?$/.test(raw) || raw === '/*') return true
  const home = c.ctx.homeDir
  const stripped = abs.replace(/\/\*$/, '')
  return SYSTEM_DIRS.has(stripped) || stripped === home || /^(~|\$\{?HOME\}?)\/?\*?$/.test(raw)
}

const shortFlags = (args: string[]) => args.filter((a) => /^-[a-zA-Z]+$/.test(a)).join('')
const hasFlag = (args: string[], short: string, ...long: string[]) => shortFlags(args).includes(short) || args.some((a) => long.includes(a))

function deletion(c: Collector, inv: Invocation, f: InvocationFacts, targets: string[], recursive: boolean): void {
  let catastrophic = inv.args.includes('--no-preserve-root')
  for (const t of targets) {
    const abs = f.at(t)
    if (c.protectedPath(abs)) c.add('ratchet_state_edit', f.cmd)
    c.paths.add(abs)
    if (recursive && catastrophicTarget(c, t, abs)) catastrophic = true
    if (c.outsideProject(abs)) c.add('outside_project', f.cmd)
  }
  c.add('file_delete', f.cmd, catastrophic)
}

function writesTo(c: Collector, f: InvocationFacts, targets: string[], stale: boolean): void {
  for (const t of targets) {
    const abs = f.at(t)
    if (c.protectedPath(abs)) {
      c.add('ratchet_state_edit', f.cmd)
      continue
    }
    c.paths.add(abs)
    if (c.outsideProject(abs)) c.add('outside_project', f.cmd)
    if (stale && c.ctx.fileExists(abs) && !(abs in c.ctx.session.reads)) c.add('stale_write', `${f.cmd} (${t} not read since the session started or was compacted)`)
  }
}

const READERS = new Set(['cat', 'head', 'tail', 'less', 'more', 'bat', 'nl', 'view'])

const PROGRAMS: Record<string, Detector> = {
  rm: (c, inv, f) => deletion(c, inv, f, f.operands, hasFlag(inv.args, 'r', '--recursive') || hasFlag(inv.args, 'R')),
  unlink: (c, inv, f) => deletion(c, inv, f, f.operands, false),
  rmdir: (c, inv, f) => deletion(c, inv, f, f.operands, false),
  shred: (c, inv, f) => {
    if (f.operands.some((o) => o.startsWith('/dev/'))) c.add('disk_format', f.cmd, true)
    else deletion(c, inv, f, f.operands, false)
  },
  srm: (c, inv, f) => deletion(c, inv, f, f.operands, true),
  trash: (c, _inv, f) => writesTo(c, f, f.operands, false),
  find: (c, inv, f) => {
    const deletes = inv.args.includes('-delete') || inv.args.some((a, i) => (a === '-exec' || a === '-execdir' || a === '-ok') && /^(\\?rm|unlink|shred)$/.test(programName(inv.args[i + 1] ?? '')))
    if (!deletes) return
    const roots = []
    for (const a of inv.args) {
      if (a.startsWith('-') || a === '(' || a === '!') break
      roots.push(a)
    }
    deletion(c, inv, f, roots.length ? roots : ['.'], true)
  },
  dd: (c, inv, f) => {
    const of = inv.args.find((a) => a.startsWith('of='))?.slice(3)
    if (!of) return
    if (/^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|loop|mapper)/.test(of)) c.add('disk_format', f.cmd, true)
    else writesTo(c, f, [of], false)
  },
  wipefs: (c, _inv, f) => c.add('disk_format', f.cmd, true),
  fdisk: (c, inv, f) => {
    if (!inv.args.includes('-l')) c.add('disk_format', f.cmd, true)
  },
  sfdisk: (c, _inv, f) => c.add('disk_format', f.cmd, true),
  parted: (c, inv, f) => {
    if (!inv.args.includes('-l') && !inv.args.includes('print')) c.add('disk_format', f.cmd, true)
  },
  sgdisk: (c, _inv, f) => c.add('disk_format', f.cmd, true),
  diskutil: (c, inv, f) => {
    if (/^(erase|reformat|partition|zero|secureErase)/i.test(inv.args[0] ?? '')) c.add('disk_format', f.cmd, true)
  },
  truncate: (c, _inv, f) => writesTo(c, f, f.operands.filter((_o, i, all) => i > 0 || all.length === 1), false),
  sed: (c, inv, f) => {
    if (!inv.args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'))) return
    // The first operand is the script unless -e/-f gave it.
    const files: string[] = []
    let scriptGiven = false
    for (let i = 0; i < inv.args.length; i++) {
      const a = inv.args[i]
      if (a === '-e' || a === '-f' || a === '--expression' || a === '--file') {
        scriptGiven = true
        i++
      } else if (!a.startsWith('-')) files.push(a)
    }
    writesTo(c, f, scriptGiven ? files : files.slice(1), true)
  },
  perl: (c, inv, f) => {
    if (inv.args.some((a) => /^-[a-zA-Z]*i/.test(a))) writesTo(c, f, f.operands.slice(1), true)
  },
  tee: (c, _inv, f) => writesTo(c, f, f.operands, false),
  sponge: (c, _inv, f) => writesTo(c, f, f.operands, false),
  touch: (c, _inv, f) => writesTo(c, f, f.operands, false),
  chmod: (c, _inv, f) => writesTo(c, f, f.operands.slice(1), false),
  chown: (c, _inv, f) => writesTo(c, f, f.operands.slice(1), false),
  ln: (c, _inv, f) => writesTo(c, f, f.operands.slice(-1), false),
  install: (c, _inv, f) => writesTo(c, f, f.operands.slice(-1), false),
  cp: (c, _inv, f) => writesTo(c, f, f.operands.slice(-1), false),
  mv: (c, _inv, f) => writesTo(c, f, f.operands, false),
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
  gsutil: (c, _inv, f) => {
    const sub = f.operands[0]
    if ((sub === 'cp' || sub === 'rsync' || sub === 'mv') && /^gs:\/\//.test(f.operands[f.operands.length - 1] ?? '')) c.add('remote_copy', f.cmd)
    if (sub === 'rm' || sub === 'rb') c.add('infra_destroy', f.cmd)
  },
  git: gitDetector,
  gh: (c, inv, f) => {
    const [noun, verb] = f.operands
    if ((/^(pr|issue|release|gist|repo)$/.test(noun ?? '') && /^(create|new|merge|comment|edit|upload|close|reopen|review)$/.test(verb ?? '')) || noun === 'api' && inv.args.some((a, i) => /^(-X|--method)$/.test(inv.args[i - 1] ?? '') && /^(POST|PUT|PATCH|DELETE)$/i.test(a)))
      c.add('pr_or_issue_create', f.cmd)
    if (/^(repo|release)$/.test(noun ?? '') && verb === 'delete') c.add('infra_destroy', f.cmd)
  },
  glab: (c, _inv, f) => {
    if (/^(mr|issue|release)$/.test(f.operands[0] ?? '') && /^(create|merge|note)$/.test(f.operands[1] ?? '')) c.add('pr_or_issue_create', f.cmd)
  },
  hub: (c, _inv, f) => {
    if (/^(pull-request|release|issue|create)$/.test(f.operands[0] ?? '')) c.add('pr_or_issue_create', f.cmd)
  },
  npm: publishOn(['publish']),
  pnpm: publishOn(['publish']),
  yarn: (c, _inv, f) => {
    if (f.operands[0] === 'publish' || (f.operands[0] === 'npm' && f.operands[1] === 'publish')) c.add('package_publish', f.cmd)
  },
  cargo: publishOn(['publish']),
  twine: publishOn(['upload']),
  gem: publishOn(['push']),
  poetry: publishOn(['publish']),
  flit: publishOn(['publish']),
  hatch: publishOn(['publish']),
  uv: publishOn(['publish']),
  vsce: publishOn(['publish']),
  docker: containerDetector,
  podman: containerDetector,
  buildah: (c, _inv, f) => {
    if (f.operands[0] === 'push') c.add('container_push', f.cmd)
  },
  mail: (c, _inv, f) => c.add('email_send', f.cmd),
  mailx: (c, _inv, f) => c.add('email_send', f.cmd),
  sendmail: (c, _inv, f) => c.add('email_send', f.cmd),
  mutt: (c, _inv, f) => c.add('email_send', f.cmd),
  swaks: (c, _inv, f) => c.add('email_send', f.cmd),
  msmtp: (c, _inv, f) => c.add('email_send', f.cmd),
  curl: (c, inv, f) => {
    const a = inv.args
    const url = a.find((x) => /^https?:\/\//.test(x) || /^[\w.-]+\.[a-z]{2,}(\/|:|$)/i.test(x)) ?? ''
    const upload =
      a.some((x, i) => /^(-X|--request)$/.test(a[i - 1] ?? '') && /^(POST|PUT|PATCH|DELETE)$/i.test(x)) ||
      a.some((x) => /^-X(POST|PUT|PATCH|DELETE)$/i.test(x) || /^--request=(POST|PUT|PATCH|DELETE)$/i.test(x)) ||
      a.some((x) => /^(-d|--data|--data-raw|--data-binary|--data-urlencode|-F|--form|--form-string|-T|--upload-file|--json)(=|$)/.test(x) || /^-[a-zA-Z]*[dFT]$/.test(x) && x.length <= 3)
    if (upload && !isLocalUrl(url)) c.add('http_upload', f.cmd)
    if (a.some((x) => /^smtps?:\/\//.test(x)) || a.includes('--mail-rcpt')) c.add('email_send', f.cmd)
  },
  wget: (c, inv, f) => {
    const url = inv.args.find((x) => /^https?:\/\//.test(x)) ?? ''
    if (inv.args.some((x) => /^--(post-data|post-file|method=(POST|PUT|PATCH|DELETE)|body-data|body-file)/i.test(x)) && !isLocalUrl(url)) c.add('http_upload', f.cmd)
  },
  http: httpieDetector,
  https: httpieDetector,
  xh: httpieDetector,
  vercel: (c, inv, f) => {
    const sub = f.operands[0]
    if (!sub || sub === 'deploy' || inv.args.includes('--prod')) c.add('deploy', f.cmd)
    if (sub === 'remove' || sub === 'rm') c.add('infra_destroy', f.cmd)
  },
  netlify: deployOn(['deploy']),
  fly: deployOn(['deploy', 'launch']),
  flyctl: deployOn(['deploy', 'launch']),
  firebase: deployOn(['deploy']),
  wrangler: deployOn(['deploy', 'publish']),
  serverless: deployOn(['deploy']),
  sls: deployOn(['deploy']),
  cdk: (c, _inv, f) => {
    if (f.operands[0] === 'deploy') c.add('deploy', f.cmd)
    if (f.operands[0] === 'destroy') c.add('infra_destroy', f.cmd)
  },
  heroku: (c, _inv, f) => {
    if (/^(deploy|releases:rollback|container:release)/.test(f.operands[0] ?? '')) c.add('deploy', f.cmd)
    if (/^(apps:destroy|pg:reset|destroy)/.test(f.operands[0] ?? '')) c.add('infra_destroy', f.cmd)
  },
  'ansible-playbook': (c, _inv, f) => c.add('deploy', f.cmd),
  kubectl: (c, _inv, f) => {
    const sub = f.operands[0]
    if (/^(apply|create|replace|rollout|set|scale|patch)$/.test(sub ?? '')) c.add('deploy', f.cmd)
    if (sub === 'delete' || sub === 'drain') c.add('infra_destroy', f.cmd)
  },
  helm: (c, _inv, f) => {
    const sub = f.operands[0]
    if (/^(install|upgrade|rollback)$/.test(sub ?? '')) c.add('deploy', f.cmd)
    if (sub === 'uninstall' || sub === 'delete') c.add('infra_destroy', f.cmd)
  },
  terraform: terraformDetector,
  tofu: terraformDetector,
  terragrunt: terraformDetector,
  pulumi: (c, _inv, f) => {
    if (f.operands[0] === 'up' || f.operands[0] === 'update') c.add('deploy', f.cmd)
    if (f.operands[0] === 'destroy') c.add('infra_destroy', f.cmd)
  },
  aws: (c, _inv, f) => {
    const [svc, op] = f.operands
    if (svc === 's3' && (op === 'cp' || op === 'sync' || op === 'mv') && f.operands.slice(2).some((o, i, all) => i === all.length - 1 && o.startsWith('s3://'))) c.add('remote_copy', f.cmd)
    if ((svc === 's3' && (op === 'rm' || op === 'rb')) || /^(delete-|terminate-|remove-|deregister-)/.test(op ?? '')) c.add('infra_destroy', f.cmd)
    if (svc === 'ses' || svc === 'sesv2' || (svc === 'sns' && op === 'publish')) c.add('email_send', f.cmd)
    if (/deploy|update-function-code|create-deployment/.test(op ?? '')) c.add('deploy', f.cmd)
  },
  gcloud: (c, inv, f) => {
    if (inv.args.includes('delete')) c.add('infra_destroy', f.cmd)
    if (inv.args.includes('deploy')) c.add('deploy', f.cmd)
  },
  az: (c, inv, f) => {
    if (inv.args.includes('delete')) c.add('infra_destroy', f.cmd)
    if (inv.args.some((a) => /^deploy/.test(a))) c.add('deploy', f.cmd)
  },
  doctl: (c, inv, f) => {
    if (inv.args.includes('delete')) c.add('infra_destroy', f.cmd)
  },
  psql: sqlClient(['-c', '--command']),
  mysql: sqlClient(['-e', '--execute']),
  mariadb: sqlClient(['-e', '--execute']),
  sqlite3: (c, inv, f) => {
    const sql = f.operands.slice(1).join(' ') + ' ' + (inv.stdin ?? '')
    c.sql(sql, f.cmd)
  },
  'clickhouse-client': sqlClient(['-q', '--query']),
  sqlcmd: sqlClient(['-Q', '-q']),
  mongo: sqlClient(['--eval']),
  mongosh: sqlClient(['--eval']),
  dropdb: (c, _inv, f) => c.add('db_destroy', f.cmd, true),
  'redis-cli': (c, inv, f) => {
    const words = inv.args.map((a) => a.toLowerCase())
    if (words.includes('flushall') || words.includes('flushdb')) c.add('db_destroy', f.cmd, true)
    else if (words.some((w) => w === 'del' || w === 'unlink')) c.add('db_destroy', f.cmd)
  },
  rails: dbTask,
  rake: dbTask,
  bundle: (c, inv, f) => {
    if (inv.args[0] === 'exec') dbTask(c, { ...inv, args: inv.args.slice(2) }, f)
  },
  prisma: (c, _inv, f) => {
    if (f.operands.join(' ').match(/migrate reset|db push --force-reset/)) c.add('db_destroy', f.cmd)
  },
  crontab: (c, inv, f) => {
    if (inv.args.includes('-r')) c.add('file_delete', f.cmd)
    if (!inv.args.includes('-l')) c.add('timezone_dependent_action', f.cmd)
  },
  at: (c, _inv, f) => c.add('timezone_dependent_action', f.cmd),
  systemctl: (c, inv, f) => {
    if (inv.args.some((a) => a.endsWith('.timer')) && inv.args.some((a) => /^(enable|start)$/.test(a))) c.add('timezone_dependent_action', f.cmd)
  },
  ratchet: (c, _inv, f) => {
    // The agent may read Ratchet's state and queue a pause, never decide or rewrite it.
    const [noun, verb] = f.operands
    const mutating =
      /^(init|uninstall|config)$/.test(noun ?? '') ||
      (noun === 'guardrails' && /^(add|remove|rm|edit|set|enable|disable)$/.test(verb ?? '')) ||
      ((noun === 'pending' || noun === 'proposals') && /^(approve|deny|reject|clear)$/.test(verb ?? ''))
    if (mutating) c.add('ratchet_state_edit', f.cmd)
  },
}

for (const r of READERS) {
  PROGRAMS[r] = (c, _inv, f) => {
    for (const o of f.operands) c.reads.add(f.at(o))
  }
}

function programName(word: string): string {
  return word.replace(/^\\/, '').replace(/^.*\//, '')
}

function publishOn(verbs: string[]): Detector {
  return (c, _inv, f) => {
    if (verbs.includes(f.operands[0] ?? '')) c.add('package_publish', f.cmd)
  }
}

function deployOn(verbs: string[]): Detector {
  return (c, _inv, f) => {
    if (verbs.includes(f.operands[0] ?? '')) c.add('deploy', f.cmd)
  }
}

function containerDetector(c: Collector, inv: Invocation, f: InvocationFacts): void {
  const [sub, sub2] = f.operands
  if (sub === 'push' || (sub === 'image' && sub2 === 'push') || (sub === 'buildx' && inv.args.includes('--push'))) c.add('container_push', f.cmd)
  if (/^(rm|rmi)$/.test(sub ?? '') || (sub === 'system' && sub2 === 'prune') || (sub === 'volume' && /^(rm|prune)$/.test(sub2 ?? '')) || (sub === 'compose' && sub2 === 'down' && inv.args.some((a) => a === '-v' || a === '--volumes')))
    c.add('infra_destroy', f.cmd)
}

function httpieDetector(c: Collector, inv: Invocation, f: InvocationFacts): void {
  const method = f.operands[0] ?? ''
  const url = f.operands.find((o) => /^https?:\/\/|^[\w.-]+\.[a-z]{2,}/i.test(o)) ?? ''
  const hasBody = f.operands.some((o) => /^[\w.-]+(:=|=|@)/.test(o))
  if ((/^(POST|PUT|PATCH|DELETE)$/i.test(method) || hasBody) && !isLocalUrl(url)) c.add('http_upload', f.cmd)
  void inv
}

function terraformDetector(c: Collector, inv: Invocation, f: InvocationFacts): void {
  const sub = f.operands[0]
  if (sub === 'destroy' || (sub === 'apply' && inv.args.includes('-destroy'))) c.add('infra_destroy', f.cmd)
  else if (sub === 'apply') c.add('deploy', f.cmd)
}

function sqlClient(flags: string[]): Detector {
  return (c, inv, f) => {
    const parts: string[] = []
    inv.args.forEach((a, i) => {
      if (flags.includes(inv.args[i - 1] ?? '')) parts.push(a)
      for (const fl of flags) if (fl.startsWith('--') && a.startsWith(fl + '=')) parts.push(a.slice(fl.length + 1))
    })
    if (inv.stdin) parts.push(inv.stdin)
    if (parts.length) c.sql(parts.join('\n'), f.cmd)
  }
}

function dbTask(c: Collector, inv: Invocation, f: InvocationFacts): void {
  if (inv.args.some((a) => /^db:(drop|reset|purge|schema:load|truncate_all)/.test(a))) c.add('db_destroy', f.cmd)
}

function isLocalUrl(url: string): boolean {
  return /^(https?:\/\/)?(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)(:|\/|$)/.test(url)
}

const DEFAULT_BRANCHES = /^(main|master|trunk|production|prod|release)$/

function gitDetector(c: Collector, inv: Invocation, f: InvocationFacts): void {
  // Global options come before the subcommand: git -C dir -c k=v --no-pager push …
  const a = inv.args
  let i = 0
  let dir = f.base
  while (i < a.length && a[i].startsWith('-')) {
    if (a[i] === '-C') dir = f.at(a[i + 1] ?? '.')
    if (a[i] === '-C' || a[i] === '-c' || a[i] === '--git-dir' || a[i] === '--work-tree' || a[i] === '--namespace') i += 2
    else i += 1
  }
  const sub = a[i] ?? ''
  const rest = a.slice(i + 1)
  const ops = rest.filter((x) => !x.startsWith('-'))
  const flags = shortFlags(rest)
  const at = (p: string) => path.posix.resolve(dir, p)
  const touchesProtected = ops.some((o) => c.protectedPath(at(o)))

  switch (sub) {
    case 'push': {
      c.add('git_push', f.cmd)
      c.add('commit_to_public_repo', f.cmd)
      const force = rest.some((x) => x === '--force' || x === '--force-with-lease' || x.startsWith('--force-with-lease=') || x === '--force-if-includes' || x === '--mirror') || flags.includes('f') || ops.slice(1).some((r) => r.startsWith('+'))
      const del = rest.includes('--delete') || flags.includes('d') || ops.slice(1).some((r) => r.startsWith(':'))
      const refs = ops.slice(1).map((r) => r.replace(/^\+/, '').split(':').pop() ?? '')
      const branch = refs.length ? undefined : c.ctx.currentBranch(dir)
      const hitsDefault = refs.length ? refs.some((r) => DEFAULT_BRANCHES.test(r.replace(/^refs\/heads\//, ''))) || rest.includes('--all') || rest.includes('--mirror') : branch === undefined || DEFAULT_BRANCHES.test(branch)
      if (force) c.add('git_history_rewrite', f.cmd, hitsDefault)
      if (del) c.add('git_ref_delete', f.cmd, refs.some((r) => DEFAULT_BRANCHES.test(r)))
      return
    }
    case 'add':
    case 'commit':
      c.add('commit_to_public_repo', f.cmd)
      return
    case 'reset':
      if (rest.includes('--hard') || rest.includes('--merge') || rest.includes('--keep')) c.add('git_discard', f.cmd)
      return
    case 'clean':
      if ((flags.includes('f') || rest.includes('--force')) && !flags.includes('n') && !rest.includes('--dry-run')) c.add('git_discard', f.cmd)
      return
    case 'checkout': {
      if (touchesProtected) c.add('ratchet_state_edit', f.cmd)
      // `git checkout -- path`, `git checkout .`, `git checkout -f`, `git checkout HEAD -- src` discard changes;
      // `git checkout branch` and `-b new` do not.
      const dd = rest.indexOf('--')
      if (flags.includes('f') || rest.includes('--force') || dd >= 0 && rest.length > dd + 1 || ops.includes('.') || ops.some((o) => o.startsWith('./') || o.includes('/') && !rest.some((x) => x === '-b' || x === '-B')))
        if (!flags.includes('b') && !flags.includes('B')) c.add('git_discard', f.cmd)
      return
    }
    case 'restore':
      if (touchesProtected) c.add('ratchet_state_edit', f.cmd)
      // `--staged` alone only unstages.
      if (!(rest.includes('--staged') || flags.includes('S')) || rest.includes('--worktree') || flags.includes('W')) c.add('git_discard', f.cmd)
      return
    case 'switch':
      if (rest.includes('--discard-changes') || rest.includes('--force') || flags.includes('f')) c.add('git_discard', f.cmd)
      return
    case 'stash':
      if (ops[0] === 'drop' || ops[0] === 'clear') c.add('git_discard', f.cmd)
      return
    case 'branch':
      if (flags.includes('D') || flags.includes('d') || rest.includes('--delete')) c.add('git_ref_delete', f.cmd)
      return
    case 'tag':
      if (flags.includes('d') || rest.includes('--delete')) c.add('git_ref_delete', f.cmd)
      return
    case 'filter-branch':
    case 'filter-repo':
      c.add('git_history_rewrite', f.cmd)
      return
    case 'reflog':
      if (ops[0] === 'expire' || ops[0] === 'delete') c.add('git_history_rewrite', f.cmd)
      return
    case 'update-ref':
      if (flags.includes('d')) c.add('git_ref_delete', f.cmd)
      return
    case 'rm':
    case 'mv':
    case 'apply':
    case 'am':
      if (touchesProtected) c.add('ratchet_state_edit', f.cmd)
      return
    case 'send-email':
      c.add('email_send', f.cmd)
      return
  }
}

function impliesWeb(prompt: string): boolean {
  return /https?:\/\/|\b(web|internet|online|search|google|look\s?up|browse|fetch|download|url|website|docs?|documentation|latest|news)\b/i.test(prompt)
}

function impliesPublish(prompt: string): boolean {
  return /\b(push|publish|deploy|release|ship|send|e-?mail|post|pr|pull request|upload|merge|tweet|announce|submit|share|sync)\b/i.test(prompt)
}

function oneLine(s: string, max = 160): string {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > max ? t.slice(0, max - 1) + '…' : t
}
