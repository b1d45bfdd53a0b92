// Every `ratchet …` and `npx ratchet-guard …` command the README (and docs/rules.md, docs/guide.md) shows must exist in the built CLI, with every
// long option it uses, so the README cannot drift from the CLI. The guardrails.json examples in it must load.
// (docs/rules.md's examples have their own test, test/unit/rules-doc.test.ts.)

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { withBuiltins } from '../../lib/core/builtins'
import { validateGuardrails } from '../../lib/core/guardrails'

const ROOT = path.resolve(__dirname, '../..')
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
const BIN = path.join(ROOT, 'bin', 'ratchet')

/** The command lines the README shows: in shell code blocks (up to a comment) and in inline code. */
function commandLines(text: string): string[] {
  const spans: string[] = []
  let fence: string | undefined
  for (const line of text.split('\n')) {
    const open = /^```(\w*)/.exec(line)
    if (open) fence = fence === undefined ? open[1] || 'sh' : undefined
    else if (fence === 'sh' || fence === 'bash') spans.push(line.replace(/\s+#.*$/, ''))
    else if (fence === undefined) for (const m of line.matchAll(/`([^`]+)`/g)) spans.push(m[1])
  }
  const lines: string[] = []
  // A quoted argument is one word (`--rule "Never touch …"`), whatever it holds.
  for (const s of spans.flatMap((t) => t.replace(/"[^"]*"/g, 'ARG').split(';')))
    for (const m of s.matchAll(
      /(?:^|[\s"(])(?:npx (?:-y )?(?:ratchet-guard|\.\/ratchet-guard-[\w.]+\.tgz|git\+\S+)|ratchet)(?=\s|$)([^"#]*)/g,
    ))
      lines.push(m[1].trim())
  return [...new Set(lines)]
}

const help = new Map<string, string>()
function helpOf(words: string[]): string {
  const key = words.join(' ')
  if (!help.has(key)) {
    const r = spawnSync(BIN, [...words, '--help'], { encoding: 'utf8', env: { ...process.env, CLAUDECODE: '' } })
    expect(r.status, `ratchet ${key} --help: ${r.stderr}`).toBe(0)
    help.set(key, r.stdout)
  }
  return help.get(key)!
}

/** Subcommand names a help text lists (aliases after `|`). */
const subcommands = (text: string) =>
  new Set([...(text.split(/^Commands:$/m)[1] ?? '').matchAll(/^ {2}([\w|-]+)/gm)].flatMap((m) => m[1].split('|')))

// The other pages users read commands from are held to the same standard.
const lines = [
  ...new Set([
    ...commandLines(README),
    ...['docs/rules.md', 'docs/guide.md'].flatMap((f) => commandLines(fs.readFileSync(path.join(ROOT, f), 'utf8'))),
  ]),
]

describe('README commands', () => {
  it('finds the commands (the extraction itself works)', () => {
    expect(commandLines(README)).toContain('pending approve pa-dd54f66a')
    expect(commandLines(README)).toContain('uninstall')
    expect(lines.length).toBeGreaterThan(20)
  })

  it.each(lines.map((l) => [l]))('ratchet %s', (line) => {
    // Synopses write optional parts in brackets and alternatives with a bar: `incident add|list [--json]`.
    const tokens = line
      .split(/\s+/)
      .map((t) => t.replace(/^\[+|\]+$/g, ''))
      .filter(Boolean)
    const words: string[] = []
    let branches: string[][] = [[]]
    for (const t of tokens) {
      if (t.startsWith('-')) break
      const subs = subcommands(helpOf(words))
      if (t.includes('|') && subs.size > 0) {
        const alts = t.split('|').filter((a) => /^[a-z][\w-]*$/.test(a))
        for (const a of alts) expect(subs.has(a), `ratchet ${[...words, a].join(' ')}: no such command`).toBe(true)
        branches = alts.map((a) => [a])
        break
      }
      if (subs.has(t)) {
        words.push(t)
        continue
      }
      // A command that has subcommands is followed by one of them (or an option); an argument ends the walk.
      expect(subs.size === 0 || t === '…', `ratchet ${[...words, t].join(' ')}: no such command`).toBe(true)
      break
    }
    const texts = branches.map((b) => helpOf([...words, ...b]))
    for (const t of tokens) {
      const opt = /^(--[a-z][\w-]*)/.exec(t)?.[1]
      if (opt)
        expect(
          texts.some((text) => new RegExp(`(^|[\\s,])${opt}([\\s=,]|$)`, 'm').test(text)),
          `ratchet ${words.join(' ')} has no ${opt}`,
        ).toBe(true)
    }
  })

  it('a word that is not a command is not taken for one', () => {
    expect(subcommands(helpOf(['pending']))).toContain('approve')
    expect(subcommands(helpOf(['pending']))).not.toContain('approvee')
    expect(subcommands(helpOf([]))).not.toContain('install-everything')
  })
})

describe('README guardrails.json examples', () => {
  const arrays = [...README.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1])).filter(Array.isArray)
  it('there is one, and it loads with no problem', () => {
    expect(arrays.length).toBeGreaterThan(0)
    for (const a of arrays) {
      const loaded = validateGuardrails(a)
      expect(loaded.problems).toEqual([])
      expect(withBuiltins(loaded.rules).problems).toEqual([])
    }
  })
})
