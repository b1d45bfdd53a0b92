// Deletions that lose the user's data pause, with evidence of what would be lost (issue 9 item 2). The pure
// decision (compose.ts; the loss stage, applyLoss in verdict-stages.ts) over a small fake world: what git says of each path and how big it is. Every
// "must stop" is a pause on the first call AND on the identical retry (a check's retry would pass); every one has a
// "must stay quiet" twin. The gathering itself (lib/io/loss-facts.ts) is tested against a real repository below.

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decidePreToolUse } from '../../hooks/preflight-check/compose'
import type { PreflightFacts } from '../../hooks/preflight-check/facts'
import { withBuiltins } from '../../lib/core/builtins'
import { compileRules } from '../../lib/core/rule-match'
import type { Deletion, FileState } from '../../lib/core/actions/types'
import { lossSummary, type LossFacts, type LossItem } from '../../lib/core/loss'
import { lossFacts } from '../../lib/io/loss-facts'
import { globMatch } from '../../lib/core/actions/util'

const NOW = 1_800_000_000_000
const P = '/p'
type World = Record<string, { state: FileState; bytes?: number }>

const WORLD: World = {
  '/p': { state: 'untracked' }, // the project holds untracked files
  '/p/notes.txt': { state: 'untracked', bytes: 120 },
  '/p/tracked.txt': { state: 'tracked-clean', bytes: 10 },
  '/p/src/app.ts': { state: 'tracked-modified', bytes: 300 },
  '/p/src/ok.ts': { state: 'tracked-clean', bytes: 300 },
  '/p/dist': { state: 'ignored', bytes: 5000 },
  '/p/data': { state: 'ignored', bytes: 7000 },
  '/p/a.txt': { state: 'tracked-clean', bytes: 1 },
  '/p/mine.txt': { state: 'untracked', bytes: 4 },
}

/** The loss the fake world implies (what lib/io/loss-facts.ts reads from git and the disk). */
function fakeLoss(world: World) {
  return (deleted: Deletion[], created: Record<string, number>): LossFacts | undefined => {
    const items: LossItem[] = []
    for (const d of deleted) {
      for (const [file, w] of Object.entries(world)) {
        if (file === P || (file !== d.path && !file.startsWith(d.path + '/')) || file in created) continue
        if (d.names && !d.names.some((g) => globMatch(g, file.slice(file.lastIndexOf('/') + 1)))) continue
        const rel = file.slice(P.length + 1)
        if (w.state === 'untracked' && d.lose !== 'changes')
          items.push({ path: rel, why: 'untracked', bytes: w.bytes ?? 0, files: 1 })
        if (w.state === 'tracked-modified' && (d.lose === 'all' || d.lose === 'changes'))
          items.push({ path: rel, why: 'changes', bytes: w.bytes ?? 0, files: 1 })
        if (w.state === 'ignored' && rel === 'data' && d.lose === 'all')
          items.push({ path: rel, why: 'ignored', bytes: w.bytes ?? 0, files: 3 })
      }
    }
    return items.length
      ? {
          items,
          files: items.reduce((n, i) => n + i.files, 0),
          bytes: items.reduce((n, i) => n + i.bytes, 0),
          more: false,
        }
      : undefined
  }
}

function facts(
  o: { prompt?: string; created?: string[]; checked?: boolean; reads?: string[] } = {},
  fp = 'fp',
): PreflightFacts {
  return {
    now: NOW,
    fingerprint: fp,
    projectDir: P,
    homeDir: '/home/u',
    stateDir: '/p/.ratchet',
    rules: compileRules(withBuiltins([]).rules),
    problems: [],
    fallback: false,
    session: {
      reads: Object.fromEntries((o.reads ?? []).map((r) => [r, NOW - 5000])),
      prompts: o.prompt ? [o.prompt] : [],
      checks: o.checked ? { [fp]: NOW - 1000 } : {},
      created: Object.fromEntries((o.created ?? []).map((c) => [c, NOW - 5000])),
    },
    queue: { undelivered: [] },
    hold: null,
    config: { checkWindowMs: 600_000, defer: false, telegram: false },
    fileExists: (p) => p in WORLD && WORLD[p].state !== 'missing',
    currentBranch: () => 'feature',
    fileState: (p) => WORLD[p]?.state ?? 'missing',
    loss: fakeLoss(WORLD),
  }
}

const call = (command: string) => ({ session_id: 's', tool_name: 'Bash', tool_input: { command }, cwd: P })
const reasonOf = (d: { kind: string; reason?: string }) => d.reason ?? ''

interface Twin {
  name: string
  stop: { command: string; prompt?: string; created?: string[]; evidence: RegExp }
  quiet: { command: string; prompt?: string; created?: string[]; reads?: string[] }
}

const TWINS: Twin[] = [
  {
    name: 'an untracked file, and a tracked clean one',
    stop: { command: 'rm -f notes.txt', evidence: /notes\.txt \(120 B\) — untracked: git cannot restore it/ },
    quiet: { command: 'rm -f tracked.txt' },
  },
  {
    name: 'ignored data, and ignored build output',
    stop: { command: 'rm -rf data', evidence: /data \(3 files, 6\.8 KB\) — ignored by git and not build output/ },
    quiet: { command: 'rm -rf dist' },
  },
  {
    name: 'node_modules and build are build output',
    stop: { command: 'rm -rf notes.txt dist', evidence: /notes\.txt/ },
    quiet: { command: 'rm -rf node_modules build dist' },
  },
  {
    name: "a user's file, and one the agent wrote this session",
    stop: { command: 'rm mine.txt', evidence: /mine\.txt \(4 B\)/ },
    quiet: { command: 'rm mine.txt', created: ['/p/mine.txt'] },
  },
  {
    name: 'git clean -f, and its dry run',
    stop: { command: 'git clean -f notes.txt', evidence: /notes\.txt .*untracked/ },
    quiet: { command: 'git clean -n' },
  },
  {
    name: 'the user did not name the file, and the user asked for it',
    stop: { command: 'rm -f notes.txt', prompt: 'tidy up the repo please', evidence: /notes\.txt/ },
    quiet: { command: 'rm -f notes.txt', prompt: 'delete notes.txt, I do not need it any more' },
  },
  {
    name: 'a negated request is no request',
    stop: { command: 'rm -f notes.txt', prompt: "don't delete notes.txt", evidence: /notes\.txt/ },
    quiet: { command: 'rm -f notes.txt', prompt: 'remove notes.txt' },
  },
  {
    name: 'mv over a user file, and mv to a new name',
    stop: { command: 'mv a.txt notes.txt', evidence: /notes\.txt .*untracked/ },
    quiet: { command: 'mv a.txt b.txt' },
  },
  {
    name: 'truncating an unread user file, and writing to /tmp',
    stop: { command: ': > notes.txt', evidence: /notes\.txt/ },
    quiet: { command: 'echo hi > /tmp/x' },
  },
  {
    name: 'truncate -s0 of a user file, and of a file the agent read',
    stop: { command: 'truncate -s0 notes.txt', evidence: /notes\.txt/ },
    quiet: { command: 'echo fresh > notes.txt', reads: ['/p/notes.txt'] },
  },
  {
    name: 'a function deleting a user file, and build output',
    stop: { command: 'f(){ rm -rf "$1"; }; f notes.txt', evidence: /notes\.txt \(120 B\)/ },
    quiet: { command: 'f(){ rm -rf "$1"; }; f dist' },
  },
  {
    name: 'a script written and run, and one deleting build output',
    stop: { command: "printf 'rm -f notes.txt' > /tmp/s.sh && sh /tmp/s.sh", evidence: /notes\.txt/ },
    quiet: { command: "printf 'rm -rf dist' > /tmp/s.sh && sh /tmp/s.sh" },
  },
  {
    name: 'a computed program (worst reading rm), and one over nothing there',
    stop: { command: '$(echo rm) -f notes.txt', evidence: /notes\.txt/ },
    quiet: { command: 'echo "$(date)" > /tmp/now' },
  },
  {
    name: 'unreadable + asked still pauses, readable + asked passes',
    stop: { command: '$(echo rm) -f notes.txt', prompt: 'delete notes.txt', evidence: /notes\.txt/ },
    quiet: { command: 'rm -f notes.txt', prompt: 'delete notes.txt' },
  },
  {
    name: 'discarding uncommitted changes, and a clean file',
    stop: {
      command: 'git checkout -- src/app.ts',
      evidence: /src\/app\.ts \(300 B\) — uncommitted changes would be lost/,
    },
    quiet: { command: 'git checkout -- src/ok.ts' },
  },
  {
    name: 'git restore of changes, and restore --staged',
    stop: { command: 'git restore src/app.ts', evidence: /uncommitted changes/ },
    quiet: { command: 'git restore --staged src/app.ts' },
  },
  {
    name: 'rm of a modified tracked file, and of a clean one',
    stop: { command: 'rm src/app.ts', evidence: /src\/app\.ts .*uncommitted changes/ },
    quiet: { command: 'rm src/ok.ts' },
  },
  {
    name: 'find -delete over user data, and over build output',
    stop: { command: 'find data -delete', evidence: /data/ },
    quiet: { command: 'find dist -name "*.map" -delete' },
  },
  {
    name: 'find -name over user files passes the names on',
    stop: { command: 'find . -name "notes*" -delete', evidence: /notes\.txt/ },
    quiet: { command: 'find dist -name "*.js" -delete' },
  },
]

describe('loss: a deletion of user data nothing can restore pauses, first call and retry; its twin stays quiet', () => {
  it.each(TWINS)('$name', (t) => {
    const first = decidePreToolUse(call(t.stop.command), facts({ prompt: t.stop.prompt, created: t.stop.created }))
    expect(first.verdict, reasonOf(first.decision)).toBe('pause')
    expect(reasonOf(first.decision)).toMatch(/would lose \d+ files? of the user's that nothing can bring back/)
    expect(reasonOf(first.decision)).toMatch(t.stop.evidence)
    const enqueue = first.effects.find((e) => e.kind === 'enqueue') as
      | { entry: { context: string; severity: string } }
      | undefined
    expect(enqueue?.entry.context).toMatch(t.stop.evidence)
    expect(enqueue?.entry.severity).toBe('destructive')
    // The identical retry (a check issued for exactly this call moments ago) is still a pause.
    const retry = decidePreToolUse(
      call(t.stop.command),
      facts({ prompt: t.stop.prompt, created: t.stop.created, checked: true }),
    )
    expect(retry.verdict).toBe('pause')

    const quiet = decidePreToolUse(
      call(t.quiet.command),
      facts({ prompt: t.quiet.prompt, created: t.quiet.created, reads: t.quiet.reads }),
    )
    expect(quiet.decision, reasonOf(quiet.decision as { kind: string; reason?: string })).toEqual({ kind: 'allow' })
  })

  it('the activity record counts what would be lost (paths masked)', () => {
    const out = decidePreToolUse(call('rm -f notes.txt'), facts())
    expect(out.record).toMatchObject({ decision: 'pause', loss: { files: 1, bytes: 120, paths: ['notes.txt'] } })
  })

  it('a human approval of exactly this call lets it run once', () => {
    const f = facts()
    const approved = {
      id: 'pa-1',
      action: 'run rm -f notes.txt',
      trigger: 't',
      context: 'c',
      severity: 'destructive' as const,
      requested_at: '',
      status: 'approved' as const,
      timeout: null,
      fingerprint: 'fp',
      decided_at: '',
      decided_by: 'cli',
      reply: null,
      notified: false,
      session_id: 's',
    }
    const out = decidePreToolUse(call('rm -f notes.txt'), { ...f, queue: { approved, undelivered: [] } })
    expect(out.verdict).toBe('approved_by_human')
  })

  it('find . -name "*.pyc" over a project holding untracked files loses nothing: no pause (still the generic check git alone gave)', () => {
    const out = decidePreToolUse(call('find . -name "*.pyc" -delete'), facts())
    expect(out.verdict).toBe('check')
    expect(reasonOf(out.decision)).not.toMatch(/would lose/)
  })

  it('a deletion whose targets are unknown stays what it was (a check), not a pause', () => {
    const out = decidePreToolUse(call('rm -rf "$TARGET"'), facts())
    expect(out.verdict).toBe('check')
  })

  it('the pending summary names files, sizes and uncommitted changes', () => {
    const s = lossSummary({
      items: [
        { path: 'notes.txt', why: 'untracked', bytes: 2048, files: 1 },
        { path: 'src', why: 'changes', bytes: 10, files: 3 },
      ],
      files: 4,
      bytes: 2058,
      more: false,
    })
    expect(s).toBe(
      'Would lose for good 4 files (2.0 KB); 3 uncommitted changes would be lost: notes.txt (2.0 KB) — untracked: git cannot restore it; src (3 files, 10 B) — uncommitted changes would be lost',
    )
  })
})

// The gathering, on a real repository: real git, real files, a FIFO that must not be opened.
describe('loss-facts: what git and the disk say would be lost', () => {
  let dir: string
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      stdio: 'pipe',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@x',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@x',
      },
    })
  const at = (p: string) => path.join(dir, p)
  const del = (p: string, lose: Deletion['lose'] = 'all'): Deletion => ({ path: at(p), lose })

  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-loss-')))
    git('init', '-q')
    fs.writeFileSync(at('.gitignore'), 'dist/\n.env\nlogs/\n')
    fs.mkdirSync(at('src'))
    fs.writeFileSync(at('src/a.ts'), 'a\n')
    fs.writeFileSync(at('src/b.ts'), 'b\n')
    fs.writeFileSync(at('tracked.txt'), 'x\n')
    git('add', '.')
    git('commit', '-qm', 'init')
    fs.writeFileSync(at('src/a.ts'), 'a changed\n') // modified
    fs.writeFileSync(at('notes.txt'), 'n'.repeat(1500)) // untracked
    fs.mkdirSync(at('drafts'))
    for (let i = 0; i < 30; i++) fs.writeFileSync(at(`drafts/d${i}.md`), 'd'.repeat(100))
    fs.mkdirSync(at('dist'))
    fs.writeFileSync(at('dist/x.js'), 'x')
    fs.writeFileSync(at('.env'), 'SECRET=1\n')
    execFileSync('mkfifo', [at('src/pipe')])
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('an untracked file: its size; "untracked"', () => {
    expect(lossFacts({ projectDir: dir })([del('notes.txt')])).toEqual({
      items: [{ path: 'notes.txt', why: 'untracked', bytes: 1500, files: 1 }],
      files: 1,
      bytes: 1500,
      more: false,
    })
  })
  it('a folder with a modified file and a FIFO: the change; the FIFO (no data, unseen by git) is never opened', () => {
    const l = lossFacts({ projectDir: dir })([del('src')])!
    expect(l.items.map((i) => `${i.path}:${i.why}`).sort()).toEqual(['src/a.ts:changes'])
  })
  it('many files under one folder fold into one line with the count', () => {
    const l = lossFacts({ projectDir: dir })([del('drafts')])!
    expect(l.items).toEqual([{ path: 'drafts/', why: 'untracked', bytes: 3000, files: 30 }])
  })
  it('tracked clean files, build output, missing paths and the agent’s own files lose nothing', () => {
    expect(
      lossFacts({ projectDir: dir })([del('tracked.txt'), del('dist'), del('nope.txt'), del('src/b.ts')]),
    ).toBeUndefined()
    expect(lossFacts({ projectDir: dir, created: { [at('notes.txt')]: 1 } })([del('notes.txt')])).toBeUndefined()
  })
  it('ignored data that is not build output is lost', () => {
    expect(lossFacts({ projectDir: dir })([del('.env')])?.items).toEqual([
      { path: '.env', why: 'ignored', bytes: 9, files: 1 },
    ])
  })
  it('what goes depends on how: checkout loses changes only, clean loses untracked only', () => {
    expect(lossFacts({ projectDir: dir })([del('.', 'changes')])?.items.map((i) => i.path)).toEqual(['src/a.ts'])
    const clean = lossFacts({ projectDir: dir })([del('.', 'untracked')])!.items.map((i) => i.path)
    expect(clean).toContain('notes.txt')
    expect(clean).not.toContain('src/a.ts')
    expect(clean).not.toContain('.env')
  })
  it('outside any repository and outside the temporary folders: not under version control', () => {
    const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-loss-home-')))
    fs.writeFileSync(path.join(home, 'thesis.txt'), 'words')
    try {
      expect(
        lossFacts({ projectDir: dir, tmpDirs: [] })([{ path: path.join(home, 'thesis.txt'), lose: 'all' }])?.items,
      ).toEqual([{ path: path.join(home, 'thesis.txt'), why: 'unversioned', bytes: 5, files: 1 }])
      expect(lossFacts({ projectDir: dir })([{ path: path.join(home, 'thesis.txt'), lose: 'all' }])).toBeUndefined()
      // A home folder that sits under a temporary folder (a sandbox, a CI runner) is still the user's:
      // seen when the red team's HOME was under /tmp and `rm -rf ~/work` lost a folder on an identical retry.
      expect(
        lossFacts({ projectDir: dir, homeDir: home })([{ path: path.join(home, 'thesis.txt'), lose: 'all' }])?.items,
      ).toEqual([{ path: path.join(home, 'thesis.txt'), why: 'unversioned', bytes: 5, files: 1 }])
      expect(
        lossFacts({ projectDir: dir, homeDir: home + '-other' })([
          { path: path.join(home, 'thesis.txt'), lose: 'all' },
        ]),
      ).toBeUndefined()
    } finally {
      fs.rmSync(home, { recursive: true, force: true })
    }
  })
  it('find -name deletes only what matches: the globs filter what would be lost (ignored folders walked for them)', () => {
    fs.writeFileSync(at('x.pyc'), 'c')
    fs.mkdirSync(at('logs'), { recursive: true })
    fs.writeFileSync(at('logs/run.txt'), 'log')
    try {
      expect(lossFacts({ projectDir: dir })([{ path: dir, lose: 'all', names: ['*.pyc'] }])).toBeUndefined()
      expect(lossFacts({ projectDir: dir })([{ path: dir, lose: 'all', names: ['notes.*'] }])?.items).toEqual([
        { path: 'notes.txt', why: 'untracked', bytes: 1500, files: 1 },
      ])
      expect(lossFacts({ projectDir: dir })([{ path: dir, lose: 'all', names: ['RUN.TXT'] }])?.items).toEqual([
        { path: 'logs/run.txt', why: 'ignored', bytes: 3, files: 1 },
      ])
    } finally {
      fs.rmSync(at('x.pyc'))
      fs.rmSync(at('logs'), { recursive: true })
    }
  })
  it.each([
    ['*.pyc', 'a.pyc', true],
    ['*.pyc', 'a.py', false],
    ['notes-*.txt', 'notes-user.txt', true],
    ['n?tes', 'notes', true],
    ['[abc]x', 'bx', true],
    ['*', '', true],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'aXbY', false],
    [`${'*'.repeat(50)}z`, 'a'.repeat(255), false],
    ['*.TXT', 'x.txt', true],
  ])('glob %j matches %j: %s', (g, name, ok) => {
    expect(globMatch(g, name)).toBe(ok)
  })
  it('a budget spent says what was not checked (the caller treats it as lost)', () => {
    const l = lossFacts({ projectDir: dir, budgetMs: 0 })([del('notes.txt')])
    expect(l?.items[0]).toMatchObject({ why: 'unknown', note: 'not checked in time' })
  })
})
