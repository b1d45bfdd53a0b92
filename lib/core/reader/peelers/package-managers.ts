// Package managers and environment runners: `npx tool`, `npm exec`, `pnpm dlx`, `npm test` (package.json scripts),
// `npm pkg set scripts.x=…`, `poetry run`, `uv run`, `conda run`, `direnv exec`, `nix develop -c`, `nix-shell --run`.

import { PACKAGE_NAME } from '../../manifest'
import { localBin, packageRun } from '../scripts'
import { MAX_VARIANTS, rest, type Cmd, type Peeled, type Peeler, type ReaderFamily } from '../types'
import { optionValue, skipOptions } from '../words'

/** `npx tool`, `npx -c 'code'`: the project's own bin (package.json "bin") is a script on disk. */
function npx(c: Cmd): Peeled {
  const { name, args } = c
  c.via.push(name)
  const words = skipOptions(args, new Set(['-p', '--package', '-c', '--call']))
  const call = args.includes('-c') || args.includes('--call')
  if (
    words[0] &&
    !words[0].includes('/') &&
    !call &&
    localBin(words[0], words.slice(1), c.st, c.via, c.depth, c.cwdChanges)
  ) {
    c.push(words)
    return 'read'
  }
  const code = call ? optionValue(args, ['-c', '--call']) : undefined
  if (code !== undefined) {
    c.code(code, `${name} -c`)
    return 'read'
  }
  return rest(c, words)
}

/** `pnpm dlx tool`, `yarn exec tool`, `yarn ratchet …`, or package.json scripts (`pnpm test`). */
function pnpm(c: Cmd): Peeled {
  const { name, args } = c
  if (args[0] === 'dlx' || args[0] === 'exec') {
    c.via.push(`${name} ${args[0]}`)
    return rest(c, skipOptions(args.slice(1), new Set(['-p', '--package'])))
  }
  // `yarn ratchet …` (or `yarn ratchet-guard …`) runs the project's bin of that name.
  if (args[0] === 'ratchet' || args[0] === PACKAGE_NAME) {
    c.via.push(name)
    return rest(c, args)
  }
  packageRun(name, args, c.st, c.via, c.depth, c.cwdChanges)
  return 'none'
}

/** `bun run build`, `bun install`: package.json scripts; `bun x.ts` is read by the interpreters. */
function bun(c: Cmd): Peeled {
  if (!packageRun(c.name, c.args, c.st, c.via, c.depth, c.cwdChanges)) return 'none'
  c.push()
  return 'read'
}

function npm(c: Cmd): Peeled {
  const { name, args } = c
  // `npm pkg set scripts.postinstall='rm -rf .claude'`, `npm set-script x '…'`: shell code that npm runs later
  // (install, test, …), read as if it ran now.
  if ((args[0] === 'pkg' && args[1] === 'set') || args[0] === 'set-script') {
    const scripts =
      args[0] === 'set-script'
        ? args[2] !== undefined
          ? [args[2]]
          : []
        : args
            .slice(2)
            .flatMap((a) => (/^scripts(\.|\[)/.test(a) && a.includes('=') ? [a.slice(a.indexOf('=') + 1)] : []))
    c.push()
    for (const text of scripts.slice(0, MAX_VARIANTS)) c.code(text, 'npm script')
    return 'read'
  }
  if (args[0] === 'exec' || args[0] === 'x') {
    c.via.push('npm exec')
    const code = optionValue(args, ['-c', '--call'])
    if (code !== undefined) {
      c.code(code, 'npm exec -c')
      return 'read'
    }
    const words = skipOptions(args.slice(1), new Set(['-p', '--package', '-w', '--workspace']))
    if (words[0] && !words[0].includes('/') && localBin(words[0], words.slice(1), c.st, c.via, c.depth, c.cwdChanges)) {
      c.push(words)
      return 'read'
    }
    return rest(c, words)
  }
  packageRun(name, args, c.st, c.via, c.depth, c.cwdChanges)
  return 'none'
}

/** `poetry run cmd`, `conda run -n env cmd`: the command runs in the tool's environment. */
function runner(values: string[]): Peeler {
  const withValue = new Set(values)
  return (c) => {
    if (c.args[0] !== 'run') return 'none'
    c.via.push(`${c.name} run`)
    return rest(c, skipOptions(c.args.slice(1), withValue))
  }
}

const PY_RUN = runner([
  '--with',
  '--python',
  '-p',
  '--env',
  '-e',
  '--directory',
  '--project',
  '--package',
  '--extra',
  '--group',
])
const CONDA_RUN = runner(['-n', '--name', '-p', '--prefix', '--cwd'])

function direnv(c: Cmd): Peeled {
  if (c.args[0] !== 'exec') return 'none'
  c.via.push('direnv exec')
  return rest(c, c.args.slice(2))
}

function nixShell(c: Cmd): Peeled {
  const code = optionValue(c.args, ['--run', '--command'])
  if (code === undefined) return 'none'
  c.code(code, 'nix-shell --run')
  return 'read'
}

/** `nix develop -c cmd`, `nix shell pkg --command cmd`. */
function nix(c: Cmd): Peeled {
  const { args } = c
  if (args[0] !== 'develop' && args[0] !== 'shell') return 'none'
  const k = args.findIndex((a) => a === '-c' || a === '--command')
  if (k < 0 || !args[k + 1]) return 'none'
  c.via.push(`nix ${args[0]}`)
  return rest(c, args.slice(k + 1))
}

export const family: ReaderFamily = {
  family: 'package-managers',
  programs: {
    npx,
    bunx: npx,
    pnpx: npx,
    pnpm,
    yarn: pnpm,
    bun,
    npm,
    poetry: PY_RUN,
    pipenv: PY_RUN,
    uv: PY_RUN,
    pdm: PY_RUN,
    hatch: PY_RUN,
    rye: PY_RUN,
    conda: CONDA_RUN,
    micromamba: CONDA_RUN,
    mamba: CONDA_RUN,
    direnv,
    'nix-shell': nixShell,
    nix,
  },
}
