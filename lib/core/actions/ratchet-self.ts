// Self-protection: the agent may read Ratchet's state and queue a pause, never decide or rewrite it.
// Owned by the `shell` helper after the catalogue split (to be rewritten to decide by effect).

import path from 'node:path'
import type { CodeScanner, ClassifyContext, Detector, FamilyMeta } from './types'

export const meta: FamilyMeta = {
  id: 'ratchet-self',
  classes: ['self_protection'],
  patterns: ['ratchet_state_edit'],
  description: "Editing Ratchet's state, rules or hook registrations, or deciding its pauses",
  examples: ['echo [] > .ratchet/guardrails.json', 'ratchet pending approve pa-1', 'Write .claude/settings.json'],
}

export function protectedPath(ctx: ClassifyContext, abs: string): boolean {
  const { stateDir, projectDir, homeDir } = ctx
  const inside = (dir: string) => abs === dir || abs.startsWith(dir.endsWith('/') ? dir : dir + '/')
  if (inside(stateDir) || inside(path.posix.join(projectDir, '.ratchet'))) return true
  const base = path.posix.basename(abs)
  const dir = path.posix.dirname(abs)
  if (/^settings(\.local)?\.json$/.test(base) && path.posix.basename(dir) === '.claude') return true
  if (dir === path.posix.join(homeDir, '.claude') && base === 'settings.json') return true
  return false
}

export const programs: Record<string, Detector> = {
  ratchet: (c, _inv, f) => {
    const [noun, verb] = f.operands
    const mutating =
      /^(init|uninstall|config)$/.test(noun ?? '') ||
      (noun === 'guardrails' && /^(add|remove|rm|edit|set|enable|disable)$/.test(verb ?? '')) ||
      ((noun === 'pending' || noun === 'proposals') && /^(approve|deny|reject|clear)$/.test(verb ?? ''))
    if (mutating) c.add('ratchet_state_edit', f.cmd)
  },
}

/** Interpreter code that names Ratchet's state or the hook registrations. */
export const scanCode: CodeScanner = (c, s, detail) => {
  const code = s.code
  const { stateDir, projectDir } = c.ctx
  if (code.includes('.ratchet') || code.includes(stateDir) || /\.claude\/settings(\.local)?\.json/.test(code) || (projectDir && code.includes(path.posix.join(projectDir, '.claude'))))
    c.add('ratchet_state_edit', detail)
}
