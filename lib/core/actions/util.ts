// Small readers shared by several families.

import type { ClassifyContext } from './types'

/** The single-letter flags of an argument list run together: `-fd -x` → `fdx`. */
export const shortFlags = (args: string[]): string => args.filter((a) => /^-[a-zA-Z]+$/.test(a)).join('')

export const hasFlag = (args: string[], short: string, ...long: string[]): boolean => shortFlags(args).includes(short) || args.some((a) => long.includes(a))

export function isLocalUrl(url: string): boolean {
  return /^(https?:\/\/)?(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)(:|\/|$)/.test(url)
}

/** Outside the project and the temporary folders (devices count as inside: `> /dev/null`). */
export function outsideProject(ctx: ClassifyContext, abs: string): boolean {
  const { projectDir } = ctx
  if (abs === projectDir || abs.startsWith(projectDir + '/')) return false
  if (abs.startsWith('/dev/') || abs === '/dev/null') return false
  const tmps = ctx.tmpDirs ?? ['/tmp', '/var/tmp']
  return !tmps.some((t) => abs === t || abs.startsWith(t + '/'))
}

export function oneLine(s: string, max = 160): string {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > max ? t.slice(0, max - 1) + '…' : t
}
