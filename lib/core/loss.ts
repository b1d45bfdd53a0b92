// Evidence of loss, pure: what a deletion or overwrite would take away that nothing can bring back, gathered at
// the edge (lib/io/loss-facts.ts) for the paths the classifier could not call recoverable (Classification.deleted),
// and the lines a PRE-FLIGHT note and a pending entry show for it.
//
// Lost for good: an untracked file git does not ignore, uncommitted changes to a tracked file, an ignored file that
// is not build output (`.env`, `data/`), a file outside any repository (not in a temporary folder), and anything that
// could not be checked in time. Not lost: tracked and clean, ignored build output, files the agent created in this
// session, nothing there.

export type LossWhy = 'untracked' | 'changes' | 'ignored' | 'unversioned' | 'unknown'

export interface LossItem {
  /** Shown relative to the project when inside it. */
  path: string
  why: LossWhy
  /** Bytes that would go (a folder: what was counted under it). */
  bytes: number
  /** Files that would go (a folder: at least this many). */
  files: number
  /** The count stopped at the walk's bound: at least `files`/`bytes`. */
  more?: boolean
  /** For `unknown`: why it could not be checked. */
  note?: string
}

export interface LossFacts {
  items: LossItem[]
  files: number
  bytes: number
  /** More items than are listed, or a count that stopped at a bound. */
  more: boolean
}

export const MAX_LOSS_SHOWN = 8

const WHY: Record<LossWhy, string> = {
  untracked: 'untracked: git cannot restore it',
  changes: 'uncommitted changes would be lost',
  ignored: 'ignored by git and not build output: git cannot restore it',
  unversioned: 'not under version control: nothing can restore it',
  unknown: 'could not be checked',
}

export function lossIrrecoverable(l: LossFacts | undefined): l is LossFacts {
  return !!l && l.items.length > 0
}

export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`
  return `${(n / 1024 / 1024 / 1024).toFixed(1)} GB`
}

function itemLine(i: LossItem): string {
  const size =
    i.why === 'unknown'
      ? ''
      : ` (${i.files > 1 || i.more ? `${i.more ? 'at least ' : ''}${i.files} files, ` : ''}${humanBytes(i.bytes)})`
  return `${i.path}${size} — ${WHY[i.why]}${i.note ? ` (${i.note})` : ''}`
}

/** One line for the pending entry's context: which files, their sizes, why nothing restores them. */
export function lossSummary(l: LossFacts): string {
  const changed = l.items.filter((i) => i.why === 'changes').reduce((n, i) => n + i.files, 0)
  const head = [
    `Would lose for good ${l.more ? 'at least ' : ''}${l.files} file${l.files === 1 ? '' : 's'} (${humanBytes(l.bytes)})`,
    changed ? `${changed} uncommitted change${changed === 1 ? '' : 's'} would be lost` : '',
  ].filter(Boolean)
  const shown = l.items.slice(0, MAX_LOSS_SHOWN).map(itemLine)
  const rest = l.items.length > MAX_LOSS_SHOWN ? [`…and ${l.items.length - MAX_LOSS_SHOWN} more`] : []
  return `${head.join('; ')}: ${[...shown, ...rest].join('; ')}`
}

/** Lines for a PRE-FLIGHT note, beginning "Evidence:". */
export function lossLines(l: LossFacts): string[] {
  const lines = l.items.slice(0, MAX_LOSS_SHOWN).map((i) => `Evidence: ${itemLine(i)}`)
  if (l.items.length > MAX_LOSS_SHOWN)
    lines.push(
      `Evidence: …and ${l.items.length - MAX_LOSS_SHOWN} more (${l.more ? 'at least ' : ''}${l.files} files, ${humanBytes(l.bytes)} in all)`,
    )
  return lines
}
