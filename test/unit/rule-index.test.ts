// The bucketed rule index (lib/core/guardrails.ts bucketedRuleIndex): the hook reads only the buckets of
// .guardrails-index.json a call names, instead of parsing and compiling every rule. It must fire exactly
// what compiling every rule fires — the same rules, in the same order, for the same reasons — for every
// call of the classifier corpus and a table of awkward rules (tunings of built-ins, several tools, tool
// globs, no tool list, words with quotes, newlines or prototype names, disabled and awareness-only rules).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { manyGuardrails } from '../../bench/run'
import { readCorpus } from '../../bench/classifier-corpus'
import { withBuiltins } from '../../lib/core/builtins'
import { classify, type ClassifyContext } from '../../lib/core/classify'
import {
  bucketedIndexHead,
  bucketedIndexText,
  bucketedRuleIndex,
  bucketedRules,
  indexSource,
  indexSourceOfText,
  restampedIndexText,
} from '../../lib/core/bucketed-index'
import { compileRules, matchRules } from '../../lib/core/rule-match'
import type { Guardrail } from '../../lib/core/guardrails'
import { loadGuardrails, ruleIndexOf } from '../../lib/io/guardrails'
import { resolvePaths } from '../../lib/io/paths'

const PROJECT = '/home/dev/project'
const CTX: ClassifyContext = {
  projectDir: PROJECT,
  homeDir: '/home/dev',
  stateDir: `${PROJECT}/.ratchet`,
  session: { reads: {}, prompts: [] },
  fileExists: () => false,
  currentBranch: () => 'main',
}

const rule = (id: string, extra: Partial<Guardrail>): Guardrail =>
  ({ id, pattern: `custom_${id}`, rule: `Rule ${id}.`, severity: 'soft', ...extra }) as Guardrail

/** Rules that stress the placement: every shape compileRules files differently. */
const AWKWARD: Guardrail[] = [
  { id: 'RG-IRREVERSIBLE', decision: 'warn' } as Guardrail,
  // Extra members a human may write, spelled like the header's own directory (which is searched, not parsed).
  {
    id: 'RG-SCOPE',
    enabled: false,
    dir: { 'k\u0000git_push': [0, 1] },
    note: ',"dir":{"a":[0,1]}',
  } as unknown as Guardrail,
  { id: 'RG-CATASTROPHIC', decision: 'warn' } as Guardrail, // a tuning that cannot apply: a problem, the built-in stands
  rule('A1', { pattern: 'git_push', severity: 'hard' }),
  rule('A2', { pattern: 'file_delete', match: { paths: ['build/**'] } }),
  rule('A3', { match: { tools: ['Bash', 'Bash'], command: ['rm *', 'npm publish*'] } }),
  rule('A4', { match: { tools: ['Bash'], command: ['git push*', '*deploy*'] } }),
  rule('A5', { match: { tools: ['Ba*'], command: ['curl *'] } }),
  rule('A6', { match: { command: ['ls *'] } }),
  rule('A7', { match: { tools: ['Write', 'Edit', 'Bash'], paths: ['**/*.md'] } }),
  rule('A8', { match: { tools: ['Bash'], command: ['__proto__ *', 'constructor', 'say"hi" *', 'two\nlines *'] } }),
  rule('A9', { match: { tools: ['Bash'] } }),
  rule('A10', { match: { tools: ['mcp__x"y'], command: ['*'] } }),
  rule('A11', { enabled: false, match: { tools: ['Bash'], command: ['ls *'] } }),
  rule('A12', {}), // awareness only: never matched by machine
  rule('A13', { pattern: 'irreversible', decision: 'pause' }),
  rule('A14', { match: { tools: ['WebFetch'], urls: ['*example.com*'] } }),
  rule('A15', { match: { tools: ['Bash'], command: ['ls -la', 'cat *'] } }),
  rule('A16', {
    rule: 'Ne déployez pas 🚀 sans revue.',
    match: { tools: ['Bash'], command: ['déploie *', 'ünïcode-*'] },
  }),
  rule('A17', { match: { tools: ['Bash'], command: [',"dir":{ *', 'ai *', 'i *', '"i":[ *'] } }),
  // Path rules, filed by a folder or file name each glob needs (or by tool alone when one needs none).
  rule('A18', { match: { tools: ['Write', 'Edit'], paths: ['config/service-*/**', 'secret.env'] } }),
  rule('A19', { match: { tools: ['Edit'], paths: ['/etc/**'] } }),
  rule('A20', { match: { tools: ['Write'], paths: ['!docs/api'] } }),
  rule('A21', { match: { tools: ['Bash'], paths: ['build/**'] } }),
  rule('A22', { match: { tools: ['Write'], paths: ['src/**/x.ts', 'lib/y.ts'] } }),
  rule('A23', { match: { tools: ['Write'], paths: ['config/../notes.md', 'a\\.b'] } }),
  rule('A24', { match: { tools: ['Write', 'Edit'], paths: ['**/__proto__/**', 'constructor'] } }),
]

const CALLS: { tool_name: string; tool_input: Record<string, unknown> }[] = [
  ...readCorpus().map((l) =>
    l.cmd !== undefined
      ? { tool_name: 'Bash', tool_input: { command: l.cmd } }
      : { tool_name: l.tool!, tool_input: l.input ?? {} },
  ),
  ...[
    'ls -la',
    'cat README.md',
    'rm -rf build',
    'npm publish',
    'git push origin main',
    'curl https://x',
    'constructor',
    'toString',
    'say"hi" there',
    'two\nlines x',
    'deploy-tool-4 now',
    'release-7x',
    'release-70 x',
    'release-7',
    'ls docs/a.md',
    'déploie prod',
    'ünïcode-x y',
    ',"dir":{ x',
    'i x',
    'ai x',
    '"i":[ x',
  ].map((command) => ({ tool_name: 'Bash', tool_input: { command } })),
  { tool_name: 'Write', tool_input: { file_path: `${PROJECT}/config/service-2/a.yml`, content: 'x' } },
  { tool_name: 'Edit', tool_input: { file_path: `${PROJECT}/docs/secret-5.env`, old_string: 'a', new_string: 'b' } },
  { tool_name: 'WebFetch', tool_input: { url: 'https://www.example.com/a', prompt: 'read' } },
  ...[
    'config/service-1/a.yml',
    'config/x.yml',
    'secret.env',
    'a/secret.env',
    'docs/api',
    'docs/other',
    'src/deep/x.ts',
    'src/x.ts',
    'lib/y.ts',
    'notes.md',
    'a.b',
    'a/__proto__/b',
    'constructor',
    'x/constructor',
  ].flatMap((rel) => [
    { tool_name: 'Write', tool_input: { file_path: `${PROJECT}/${rel}`, content: 'x' } },
    { tool_name: 'Edit', tool_input: { file_path: `${PROJECT}/${rel}`, old_string: 'a', new_string: 'b' } },
  ]),
  { tool_name: 'Edit', tool_input: { file_path: '/etc/hosts', old_string: 'a', new_string: 'b' } },
  { tool_name: 'Write', tool_input: { file_path: '/tmp/elsewhere/secret.env', content: 'x' } },
  ...['rm -rf build/x', 'cp a build/b', 'ls build'].map((command) => ({ tool_name: 'Bash', tool_input: { command } })),
  { tool_name: 'mcp__x"y', tool_input: { command: 'anything' } },
]

/** What compiling every rule fires, and what the bucketed index over the same rules fires. */
function both(list: Guardrail[]) {
  const tunings = list.filter((r) => r.id.startsWith('RG-'))
  const own = list.filter((r) => !r.id.startsWith('RG-'))
  const eager = compileRules(withBuiltins(list).rules)
  const text = bucketedIndexText({ key: 'k', hash: 'h' }, tunings, own)
  const lazy = bucketedRuleIndex(indexSourceOfText(text)!, withBuiltins(tunings).rules, { origin: 'project' })
  return { eager, lazy, text }
}

const fired = (index: ReturnType<typeof compileRules>, call: (typeof CALLS)[number]) =>
  matchRules(index, classify({ ...call, cwd: PROJECT }, CTX), PROJECT).map((f) => ({
    id: f.id,
    decision: f.decision,
    because: f.because,
    rule: f.rule,
  }))

describe('the bucketed rule index fires exactly what compiling every rule fires', () => {
  it.each([
    ['1,000 synthetic rules', manyGuardrails()],
    ['awkward rules', AWKWARD],
    ['both', [...AWKWARD, ...manyGuardrails()]],
  ])('%s, over the corpus and the table', (_label, list) => {
    const { eager, lazy } = both(list as Guardrail[])
    let firing = 0
    for (const call of CALLS) {
      const e = fired(eager, call)
      if (e.length) firing++
      expect(fired(lazy, call), JSON.stringify(call)).toEqual(e)
    }
    // The table is not vacuous: many calls fire something.
    expect(firing).toBeGreaterThan(50)
  })

  it('reads only the buckets a call names', () => {
    const { lazy } = both(manyGuardrails())
    matchRules(lazy, classify({ tool_name: 'Bash', tool_input: { command: 'npm test' }, cwd: PROJECT }, CTX), PROJECT)
    expect(lazy.seen.size).toBe(0)
    matchRules(
      lazy,
      classify({ tool_name: 'Bash', tool_input: { command: 'deploy-tool-4 now' }, cwd: PROJECT }, CTX),
      PROJECT,
    )
    expect([...lazy.seen.keys()]).toEqual(['GR-0005'])
    // A word start (`release-7*`) is found under its start: only the rules whose starts the word has.
    matchRules(
      lazy,
      classify({ tool_name: 'Bash', tool_input: { command: 'release-70 x' }, cwd: PROJECT }, CTX),
      PROJECT,
    )
    expect([...lazy.seen.keys()].sort()).toEqual(['GR-0005', 'GR-0008', 'GR-0071'])
  })

  it('tries only the word starts that have a bucket; an index written without that list tries every start', () => {
    const { text } = both([...AWKWARD, ...manyGuardrails()])
    const nl = text.indexOf('\n')
    const head = bucketedIndexHead(text.slice(0, nl))!
    // `ünïcode-*` (8), `release-1*` … `release-997*` (9 to 11): the only starts Bash rules are filed under.
    expect(head.starts).toEqual({ Bash: [8, 9, 10, 11] })
    const body = new TextEncoder().encode(text.slice(nl + 1))
    const counted = (h: typeof head) => {
      let reads = 0
      const src = indexSource(
        h,
        (offset, length) => (reads++, new TextDecoder().decode(body.subarray(offset, offset + length))),
      )
      return { index: bucketedRuleIndex(src, withBuiltins([]).rules, { origin: 'project' }), reads: () => reads }
    }
    // Each call in a fresh process, as a hook makes it: the index (and the shards it has read) is new.
    let readsWith = 0
    let readsWithout = 0
    for (const command of ['deploy-tool-1 prod', 'release-70 x', 'ünïcode-x y', 'a-very-long-program-name --flag']) {
      const call = classify({ tool_name: 'Bash', tool_input: { command }, cwd: PROJECT }, CTX)
      const withList = counted(head)
      const without = counted({ ...head, starts: undefined })
      expect(matchRules(withList.index, call, PROJECT), command).toEqual(matchRules(without.index, call, PROJECT))
      readsWith += withList.reads()
      readsWithout += without.reads()
    }
    expect(readsWith).toBeLessThan(readsWithout * 0.6) // 37 against 70 when written
    // A list that is not one is a damaged header: the index is not used (matching goes on from all the rules).
    expect(bucketedIndexHead(JSON.stringify({ ...head, starts: { Bash: [0] } }).slice(0, -1))).toBeNull()
    expect(bucketedIndexHead(JSON.stringify({ ...head, starts: ['8'] }).slice(0, -1))).toBeNull()
  })

  it('is one JSON document whose rules, header and re-stamp round-trip', () => {
    const { text } = both(AWKWARD)
    const doc = JSON.parse(text)
    expect(doc).toMatchObject({ v: 6, key: 'k', hash: 'h' })
    const src = indexSourceOfText(text)!
    expect(src.head.tunings.map((t) => t.id)).toEqual(['RG-IRREVERSIBLE', 'RG-SCOPE', 'RG-CATASTROPHIC'])
    // The directory's byte offsets find each bucket (a rule text with non-ASCII characters included).
    for (const name of src.names()) expect(JSON.parse(src.bucket(name)!)).toEqual(doc[name])
    // Every placed rule once, in order (disabled and awareness-only rules are in no bucket).
    expect(bucketedRules(src).map((r) => r.id)).toEqual(
      AWKWARD.filter((r) => !r.id.startsWith('RG-') && r.id !== 'A11' && r.id !== 'A12').map((r) => r.id),
    )
    const again = restampedIndexText(text, 'k2')
    expect(indexSourceOfText(again)?.head.key).toBe('k2')
    expect(bucketedRules(indexSourceOfText(again)!)).toEqual(bucketedRules(src))
  })
})

describe('through the state folder', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
  })

  it('a slim load matches like a full one, and a rule that fires carries its words and source', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-rule-index-'))
    dirs.push(dir)
    fs.mkdirSync(path.join(dir, '.ratchet'))
    const list = [...AWKWARD.filter((r) => r.id !== 'RG-CATASTROPHIC'), ...manyGuardrails(60)]
    fs.writeFileSync(path.join(dir, '.ratchet', 'guardrails.json'), JSON.stringify(list, null, 2))
    const paths = resolvePaths({ CLAUDE_PROJECT_DIR: dir }, dir)
    const first = loadGuardrails(paths) // validates, writes the index
    expect(first.slim).toBeFalsy()
    const slim = loadGuardrails(paths)
    expect(slim.slim).toBe(true)
    // Only the built-ins are parsed; the project's rules stay in the index text.
    expect(slim.rules.map((r) => r.id)).toEqual(withBuiltins([]).rules.map((r) => r.id))
    const full = compileRules(loadGuardrails(paths, { full: true, fold: false }).rules)
    const index = ruleIndexOf(slim)
    const ctx = { ...CTX, projectDir: dir, stateDir: paths.stateDir }
    for (const command of ['rm -rf build', 'git push origin main', 'ls -la', 'deploy-tool-4 x', 'cat a.md']) {
      const action = classify({ tool_name: 'Bash', tool_input: { command }, cwd: dir }, ctx)
      const want = matchRules(full, action, dir)
      const got = matchRules(index, action, dir)
      expect(got.map((f) => [f.id, f.decision, f.because])).toEqual(want.map((f) => [f.id, f.decision, f.because]))
      // What a note shows: the same words and sources as the full load (non-ASCII words included).
      expect(got.map((f) => [f.id, f.rule.rule, f.rule.source, f.rule.check])).toEqual(
        want.map((f) => [f.id, f.rule.rule, f.rule.source, f.rule.check]),
      )
    }
    expect(
      matchRules(
        index,
        classify({ tool_name: 'Bash', tool_input: { command: 'déploie prod' }, cwd: dir }, ctx),
        dir,
      ).map((f) => f.rule.rule),
    ).toContain('Ne déployez pas 🚀 sans revue.')
  })

  it('a damaged bucket (header intact) costs speed, never a rule: matching goes on from all the rules', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-rule-index-'))
    dirs.push(dir)
    fs.mkdirSync(path.join(dir, '.ratchet'))
    fs.writeFileSync(path.join(dir, '.ratchet', 'guardrails.json'), JSON.stringify(manyGuardrails(60), null, 2))
    const paths = resolvePaths({ CLAUDE_PROJECT_DIR: dir }, dir)
    loadGuardrails(paths) // writes the index
    const file = path.join(dir, '.ratchet', '.guardrails-index.json')
    const text = fs.readFileSync(file, 'utf8')
    const nl = text.indexOf('\n')
    // Every bucket's bytes overwritten, lengths kept: the header still points at them.
    fs.writeFileSync(file, text.slice(0, nl + 1) + text.slice(nl + 1).replace(/[{}[\]]/g, '#'))
    const slim = loadGuardrails(paths)
    expect(slim.slim).toBe(true)
    const action = classify(
      { tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, cwd: dir },
      { ...CTX, projectDir: dir, stateDir: paths.stateDir },
    )
    expect(() => matchRules(ruleIndexOf(slim), action, dir)).toThrow()
    const want = matchRules(compileRules(loadGuardrails(paths, { full: true, fold: false }).rules), action, dir).map(
      (f) => f.id,
    )
    expect(want.length).toBeGreaterThan(3)
    expect(
      matchRules(
        ruleIndexOf(slim, () => loadGuardrails(paths, { full: true, fold: false }).rules),
        action,
        dir,
      ).map((f) => f.id),
    ).toEqual(want)
    // Only the directory damaged, its names intact (a name is found by searching a shard's text): a location
    // that is not one is damage too, never "no such bucket".
    const lines = text.split('\n')
    fs.writeFileSync(file, lines.map((l) => (l.startsWith(',"d\\u0000') ? l.replace(/:\[\d/g, ':[x') : l)).join('\n'))
    expect(lines.some((l) => l.startsWith(',"d\\u0000'))).toBe(true)
    const damagedDir = loadGuardrails(paths)
    expect(() => matchRules(ruleIndexOf(damagedDir), action, dir)).toThrow(/not a location/)
    expect(
      matchRules(
        ruleIndexOf(damagedDir, () => loadGuardrails(paths, { full: true, fold: false }).rules),
        action,
        dir,
      ).map((f) => f.id),
    ).toEqual(want)
  })
})
