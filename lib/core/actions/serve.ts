// Serving beyond this machine: a file server bound to every interface (`python3 -m http.server` does so unless
// told `--bind 127.0.0.1`), `git daemon`, a listener fed a file, a tunnel that puts a local port on the internet.
// Anyone who can reach the machine can then fetch what is served, `.env` included: it is a public surface, and
// what the folder holds is its evidence (lib/core/evidence/plan.ts plans the served folder as files that leave). A
// server on loopback (127.0.0.1, localhost, ::1) is a dev server like any other and stays quiet.
//
// Not here: an application's own dev server (`npm run dev`, `next dev`) without an explicit public host: it
// serves the app, not the folder; with `--host 0.0.0.0` or a bare `--host` it is heard (no evidence: the app
// decides what it serves).

import type { Invocation } from '../commands'
import type { FamilyMeta, InvocationFacts, Sink } from './types'

export const meta: FamilyMeta = {
  id: 'serve',
  classes: ['public_surface'],
  patterns: ['public_server'],
  description:
    'Serving the project beyond this machine: a file server on every interface (python -m http.server, git daemon, php -S 0.0.0.0, http-server, serve), a listener fed a file, a tunnel (ngrok, cloudflared, ssh -R), a dev server with --host 0.0.0.0',
  examples: [
    'python3 -m http.server 8000',
    'git daemon --export-all --base-path=.',
    'ngrok http 3000',
    'vite --host 0.0.0.0',
  ],
}

/** What a server invocation exposes: the folder it serves (when it serves files as they are), to whom, by what. */
export interface Served {
  /** The folder served (absolute); undefined when the program decides what it serves (an app, a tunnel). */
  dir?: string
  /** Where it listens, as written or the program's default (`0.0.0.0 (python's default)`). */
  host: string
  by: string
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\]|ip6-localhost)$/i

/** `--bind x`, `-b x`, `--bind=x`, `-bx`: the value of the first of these options, if any. */
function optionValue(args: string[], names: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    for (const n of names) {
      if (a === n) return args[i + 1] ?? ''
      if (n.startsWith('--') && a.startsWith(n + '=')) return a.slice(n.length + 1)
      if (!n.startsWith('--') && a.startsWith(n) && a.length > n.length) return a.slice(n.length)
    }
  }
  return undefined
}

/** A host without its port (`127.0.0.1:80`, `[::1]:80`); a bare IPv6 address (`::1`) has none. */
const hostOnly = (h: string) =>
  h.startsWith('[') ? h.slice(1, h.indexOf(']') >>> 0) : (h.match(/:/g) ?? []).length > 1 ? h : h.replace(/:\d*$/, '')
/** A host that reaches beyond this machine (anything but loopback). */
const publicHost = (h: string | undefined) => h !== undefined && !LOOPBACK.test(hostOnly(h))

/** Options that take a value, per server, so the folder operand is found (`http-server -p 8080 dist`). */
const WITH_VALUE: Record<string, string[]> = {
  'http-server': [
    '-p',
    '--port',
    '-a',
    '--address',
    '-c',
    '-e',
    '--ext',
    '-P',
    '--proxy',
    '-K',
    '--key',
    '-C',
    '--cert',
    '-t',
    '--timeout',
    '-u',
    '--username',
    '--password',
  ],
  serve: ['-l', '--listen', '-p', '--port', '-c', '--config'],
  'live-server': [],
}

/**
 * Whether this invocation serves beyond this machine, and what. `base` resolves folders (the invocation's own
 * folder after its `cd`s).
 */
export function publicServer(inv: Invocation, at: (p: string) => string): Served | undefined {
  // The three groups name different programs, so at most one of them speaks for a command.
  return fileServer(inv, at) ?? listenerOrTunnel(inv) ?? devServerOnEveryInterface(inv)
}

/** What it is, said only when it serves (most commands do not: this runs on every one). */
const commandLine = ({ name, args }: Invocation): string => [name, ...args].join(' ')

/** A program that serves a folder (python, git daemon, php, ruby, busybox, the Node file servers), unless bound to this machine. */
function fileServer(inv: Invocation, at: (p: string) => string): Served | undefined {
  const { name, args } = inv
  const cmd = () => commandLine(inv)
  const operands = (skip: string[]) =>
    args.filter((a, i) => !a.startsWith('-') && !(i > 0 && skip.includes(args[i - 1])))
  // python -m http.server [port] [--bind ADDR] [--directory DIR]; python2's SimpleHTTPServer binds every interface.
  // (commands.ts reads `python3 -m mod args` as the module run as a program: `mod args`.)
  const pyModule =
    /^python[\d.]*$/.test(name) && args[0] === '-m'
      ? 2
      : /^(http\.server|SimpleHTTPServer|uploadserver)$/.test(name)
        ? 0
        : -1
  if (pyModule >= 0 && (pyModule === 0 || /^(http\.server|SimpleHTTPServer|uploadserver)$/.test(args[1] ?? ''))) {
    const rest = args.slice(pyModule)
    const bind = optionValue(rest, ['--bind', '-b'])
    if (bind !== undefined ? !publicHost(bind) : false) return undefined
    const dir = optionValue(rest, ['--directory', '-d'])
    return { dir: at(dir ?? '.'), host: bind ?? "every interface (python's default)", by: cmd() }
  }
  // git daemon listens on every interface unless --listen says otherwise; it serves the repositories under its paths.
  if (name === 'git' && args.includes('daemon')) {
    const listen = optionValue(args, ['--listen'])
    if (listen !== undefined && !publicHost(listen)) return undefined
    const base = optionValue(args, ['--base-path'])
    const dirs = args.slice(args.indexOf('daemon') + 1).filter((a) => !a.startsWith('-'))
    return { dir: at(base ?? dirs[0] ?? '.'), host: listen ?? "every interface (git daemon's default)", by: cmd() }
  }
  // php -S host:port [-t docroot]: the host is always written.
  if (name === 'php' && args.includes('-S')) {
    const host = hostOnly(args[args.indexOf('-S') + 1] ?? '')
    if (!publicHost(host)) return undefined
    return { dir: at(optionValue(args, ['-t']) ?? '.'), host, by: cmd() }
  }
  // ruby -run -e httpd [dir] [-b addr] [-p port]: WEBrick binds every interface by default.
  if (name === 'ruby' && args.includes('httpd')) {
    const bind = optionValue(args, ['-b', '--bind-address'])
    if (bind !== undefined && !publicHost(bind)) return undefined
    const after = args
      .slice(args.indexOf('httpd') + 1)
      .filter((a, i, all) => !a.startsWith('-') && !['-b', '-p', '--port', '--bind-address'].includes(all[i - 1]))
    return { dir: at(after[0] ?? '.'), host: bind ?? "every interface (WEBrick's default)", by: cmd() }
  }
  // busybox httpd [-p [ip:]port] [-h home]: every interface unless the port names one.
  // (commands.ts reads `busybox httpd …` as `httpd …`.)
  if ((name === 'busybox' && args[0] === 'httpd') || (name === 'httpd' && args.includes('-p'))) {
    const port = optionValue(args, ['-p']) ?? ''
    const host = port.includes(':') ? port.slice(0, port.lastIndexOf(':')) : undefined
    if (host !== undefined && !publicHost(host)) return undefined
    return { dir: at(optionValue(args, ['-h']) ?? '.'), host: host ?? "every interface (busybox's default)", by: cmd() }
  }
  // Node file servers, run directly or through npx/pnpm dlx/yarn dlx/bunx (commands.ts unwraps those runners).
  if (name === 'http-server' || name === 'serve' || name === 'live-server') {
    const addr =
      name === 'serve'
        ? optionValue(args, ['-l', '--listen'])
        : name === 'live-server'
          ? optionValue(args, ['--host'])
          : optionValue(args, ['-a', '--address'])
    const host = addr?.replace(/^tcp:\/\//, '').replace(/:\d+$/, '')
    if (addr !== undefined && !publicHost(host) && !/^\d+$/.test(addr)) return undefined
    const dir = operands(WITH_VALUE[name] ?? [])[0]
    return {
      dir: at(dir ?? '.'),
      host: host && !/^\d+$/.test(host) ? host : `every interface (${name}'s default)`,
      by: cmd(),
    }
  }
  return undefined
}

/** A listener fed a file or a command (nc, socat), or a tunnel that puts a local port on the internet. */
function listenerOrTunnel(inv: Invocation): Served | undefined {
  const { name, args } = inv
  const cmd = () => commandLine(inv)
  // A listener fed a file or a folder: `nc -l -p 8000 < .env`, `socat TCP-LISTEN:8000 FILE:x`.
  if (/^(nc|ncat|netcat)$/.test(name) && args.some((a) => /^-[a-zA-Z]*l/.test(a) || a === '--listen')) {
    const local = args.some((a) => LOOPBACK.test(a))
    const fed =
      inv.redirects.some((r) => r.op === '<') ||
      inv.stdin !== undefined ||
      args.some((a) => /^-[ec]$|^--(exec|sh-exec)$/.test(a))
    if (local || !fed) return undefined
    return { host: 'every interface', by: cmd() }
  }
  if (name === 'socat' && args.some((a) => /^(tcp|udp|openssl|ssl)[46]?-listen:/i.test(a))) {
    const listen = args.find((a) => /-listen:/i.test(a)) ?? ''
    const bind = /[,:]bind=([^,]+)/i.exec(listen)?.[1]
    if (bind !== undefined && !publicHost(bind)) return undefined
    return { host: bind ?? 'every interface', by: cmd() }
  }
  // Tunnels: a local port on the internet, whatever listens there.
  if (
    name === 'ngrok' ||
    name === 'lt' ||
    name === 'localtunnel' ||
    (name === 'cloudflared' && args.includes('tunnel')) ||
    (name === 'tailscale' && args[0] === 'funnel')
  )
    return { host: 'the internet (a tunnel)', by: cmd() }
  if (name === 'ssh' && args.some((a) => /^-[a-zA-Z]*R/.test(a))) return { host: 'the remote host (ssh -R)', by: cmd() }
  return undefined
}

/** An app's dev server (vite, next, flask, rails, Django's runserver…) told to listen beyond this machine. */
function devServerOnEveryInterface(inv: Invocation): Served | undefined {
  const { name, args } = inv
  const cmd = () => commandLine(inv)
  const devServer =
    /^(vite|next|nuxt|astro|webpack|webpack-dev-server|ng|react-scripts|remix|svelte-kit|parcel|flask|uvicorn|gunicorn|hugo|jekyll|mkdocs|eleventy)$/.test(
      name,
    ) ||
    (name === 'rails' && /^(s|server)$/.test(args[0] ?? '')) ||
    (/^python[\d.]*$/.test(name) && args[0] === 'manage.py' && args[1] === 'runserver')
  if (devServer) {
    const host = optionValue(args, ['--host', '-H', '--hostname'])
    const bare = args.includes('--host') && (host === undefined || host.startsWith('-') || host === '')
    const django = name.startsWith('python')
      ? args.slice(2).find((a) => /^(0\.0\.0\.0|\[?::\]?)(:\d+)?$/.test(a))
      : undefined
    const bindAll = optionValue(args, ['--bind', '-b'])
    if (bare || publicHost(host) || django || (name === 'gunicorn' && publicHost(bindAll?.replace(/:\d+$/, ''))))
      return { host: bare ? 'every interface (--host)' : (host ?? django ?? bindAll ?? ''), by: cmd() }
  }
  return undefined
}

/** Records the finding for a server that reaches beyond this machine (the evidence names what it serves). */
export function servers(c: Sink, inv: Invocation, f: InvocationFacts): void {
  const s = publicServer(inv, f.at)
  if (s) c.add('public_server', `${f.cmd} (serves ${s.dir ? s.dir : 'a port'} to ${s.host})`)
}
