// The reader's table: every wrapper family, and one table from program name to peeler, built once from the
// families' own tables (as the action catalogue in lib/core/actions is). A name belongs to one family.

import type { Peeler, ReaderFamily } from '../types'
import { family as builtins } from './builtins'
import { family as containers } from './containers'
import { family as detach } from './detach'
import { family as findXargs } from './find-xargs'
import { family as git } from './git'
import { family as interpreters } from './interpreters'
import { family as make } from './make'
import { family as packageManagers } from './package-managers'
import { family as prefix } from './prefix'
import { family as privilege } from './privilege'
import { family as shells } from './shells'
import { family as ssh } from './ssh'

export const READER_FAMILIES: readonly ReaderFamily[] = [
  builtins,
  privilege,
  prefix,
  detach,
  findXargs,
  packageManagers,
  make,
  containers,
  git,
  shells,
  ssh,
  interpreters,
]

/** Program name → its peeler. Keyed by words the agent types: `valueOf` or `__proto__` must find nothing here. */
export const PEELERS: Record<string, Peeler> = Object.assign(
  Object.create(null) as Record<string, Peeler>,
  ...READER_FAMILIES.map((f) => f.programs),
)

/** Peelers for names that vary (`python3.12`), tried in order when the table has none or its peeler said `none`. */
export const BY_PATTERN: readonly Peeler[] = READER_FAMILIES.flatMap((f) => (f.byPattern ? [f.byPattern] : []))
