// Counters off the hot path, locks that cannot wedge, and a pause that reaches Telegram once.
// Real processes against one state folder; bounded in count (200) and time.
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { BIN, exec, preToolUse, runBinAsync, tempProject } from '../support/fixtures'
import { startFakeTelegram, type FakeTelegram } from '../support/fake-telegram'

const ratchet = (dir: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  exec(BIN('ratchet'), args, { cwd: dir, env: { ...process.env, CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '', ...env } })
/** The fire counts, machine state beside the rules (never written into the user's guardrails.json). */
const countsOf = (dir: string) =>
  JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'fire-counts.json'), 'utf8')) as Record<
    string,
    { n: number; last: string }
  >

/** A pid that certainly belongs to no process: one that just exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!

describe('fire counts', () => {
  it('200 concurrent firings lose none; nothing writes guardrails.json; the CLI folds into fire-counts.json before showing', async () => {
    const dir = tempProject()
    const env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' }
    for (let i = 0; i < 200; i++) fs.mkdirSync(path.join(dir, `build-${i}`)) // something to lose: deleting nothing is not irreversible
    const runs = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        runBinAsync('preflight-check', preToolUse(dir, 'Bash', { command: `rm -rf build-${i}` }, `session-${i}`), {
          cwd: dir,
          env,
        }),
      ),
    )
    expect(runs.map((r) => r.status)).toEqual(Array(200).fill(0))
    expect(runs.filter((r) => !r.stdout.includes('"deny"'))).toEqual([])
    expect(
      fs.existsSync(path.join(dir, '.ratchet', 'errors.log'))
        ? fs.readFileSync(path.join(dir, '.ratchet', 'errors.log'), 'utf8')
        : '',
    ).toBe('')
    // The hot path appended 200 lines and left the rules alone.
    expect(
      fs
        .readFileSync(path.join(dir, '.ratchet', 'fires.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(200)
    expect(fs.existsSync(path.join(dir, '.ratchet', 'guardrails.json'))).toBe(false)
    const list = await ratchet(dir, ['guardrails', 'list', '--json'])
    expect(list.status, list.stderr).toBe(0)
    expect(JSON.parse(list.stdout).guardrails.find((r: { id: string }) => r.id === 'RG-IRREVERSIBLE')).toMatchObject({
      fire_count: 200,
      last_fired: expect.any(String),
    })
    expect(countsOf(dir)['RG-IRREVERSIBLE'].n).toBe(200)
    expect(fs.existsSync(path.join(dir, '.ratchet', 'guardrails.json'))).toBe(false)
    // Folding again counts nothing twice.
    await ratchet(dir, ['guardrails', 'list'])
    expect(countsOf(dir)['RG-IRREVERSIBLE'].n).toBe(200)
    expect(fs.readdirSync(path.join(dir, '.ratchet')).filter((f) => /\.(lock|tmp)$|stale/.test(f))).toEqual([])
  }, 240_000)

  it("a firing hook, a session start and the CLI folding the counts leave the user's tracked guardrails.json byte for byte as it was", async () => {
    const dir = tempProject()
    const env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' }
    expect((await ratchet(dir, ['init', '--project-dir', dir])).status).toBe(0)
    const file = path.join(dir, '.ratchet', 'guardrails.json')
    const before = fs.readFileSync(file, 'utf8')
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine\n')
    const fired = await runBinAsync('preflight-check', preToolUse(dir, 'Bash', { command: 'rm notes.txt' }), {
      cwd: dir,
      env,
    })
    expect(fired.stdout).toContain('RG-IRREVERSIBLE')
    expect(
      (
        await runBinAsync(
          'session-start',
          { session_id: 's2', hook_event_name: 'SessionStart', source: 'startup', cwd: dir },
          { cwd: dir, env },
        )
      ).status,
    ).toBe(0)
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
    // When the human looks, the count is there, and the file is still as the user committed it.
    const list = await ratchet(dir, ['guardrails', 'list', '--json'])
    expect(JSON.parse(list.stdout).guardrails.find((r: { id: string }) => r.id === 'RG-IRREVERSIBLE')).toMatchObject({
      fire_count: 1,
    })
    expect(countsOf(dir)['RG-IRREVERSIBLE'].n).toBe(1)
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
  }, 120_000)

  it('counts kept in an older guardrails.json move to machine state once, and the file is never rewritten', async () => {
    const dir = tempProject()
    fs.mkdirSync(path.join(dir, '.ratchet'))
    const file = path.join(dir, '.ratchet', 'guardrails.json')
    const old =
      JSON.stringify(
        [
          {
            id: 'GR-001',
            pattern: 'git_push',
            rule: 'List staged files before a push.',
            severity: 'soft',
            added: '2026-01-01',
            last_fired: '2026-03-01T10:00:00.000Z',
            fire_count: 7,
          },
        ],
        null,
        2,
      ) + '\n'
    fs.writeFileSync(file, old)
    // Before any fold, the old counts are shown as they are.
    expect(
      JSON.parse((await ratchet(dir, ['guardrails', 'list', '--json'])).stdout).guardrails.find(
        (r: { id: string }) => r.id === 'GR-001',
      ),
    ).toMatchObject({ fire_count: 7, last_fired: '2026-03-01T10:00:00.000Z' })
    fs.writeFileSync(
      path.join(dir, '.ratchet', 'fires.jsonl'),
      JSON.stringify({ t: '2026-11-22T10:00:00.000Z', ids: ['GR-001'] }) + '\n',
    )
    const shown = JSON.parse((await ratchet(dir, ['guardrails', 'list', '--json'])).stdout).guardrails.find(
      (r: { id: string }) => r.id === 'GR-001',
    )
    expect(shown).toMatchObject({ fire_count: 8, last_fired: '2026-11-22T10:00:00.000Z' })
    expect(countsOf(dir)['GR-001']).toEqual({ n: 8, last: '2026-11-22T10:00:00.000Z' })
    expect(fs.readFileSync(file, 'utf8')).toBe(old)
  })

  it('the git stash the user asked for runs after rules fired and a human looked (issue 19)', async () => {
    const dir = tempProject()
    const env = { CLAUDE_PROJECT_DIR: dir, RATCHET_DIR: '' }
    const git = (...a: string[]) =>
      spawnSync('git', a, {
        cwd: dir,
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'a',
          GIT_AUTHOR_EMAIL: 'a@b',
          GIT_COMMITTER_NAME: 'a',
          GIT_COMMITTER_EMAIL: 'a@b',
        },
      })
    expect((await ratchet(dir, ['init', '--project-dir', dir])).status).toBe(0)
    git('init', '-q')
    git('add', '-A')
    git('commit', '-qm', 'init with the rules')
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine\n')
    expect(
      (await runBinAsync('preflight-check', preToolUse(dir, 'Bash', { command: 'rm notes.txt' }), { cwd: dir, env }))
        .stdout,
    ).toContain('RG-IRREVERSIBLE')
    expect((await ratchet(dir, ['guardrails', 'list'])).status).toBe(0)
    expect((await ratchet(dir, ['heartbeat'])).status).toBe(0)
    // Nothing tracked changed: the user's stash, restore and reset have nothing of Ratchet's to refuse.
    expect(
      git('status', '--porcelain')
        .stdout.split('\n')
        .filter((l) => l && !l.endsWith('notes.txt')),
    ).toEqual([])
    fs.appendFileSync(path.join(dir, 'README.md'), 'work in progress\n')
    for (const command of ['git stash', 'git restore .', 'git reset --hard']) {
      const r = await runBinAsync('preflight-check', preToolUse(dir, 'Bash', { command }, 's-stash'), { cwd: dir, env })
      expect(r.stdout, command).not.toContain("Ratchet's own rules")
    }
  }, 120_000)

  it('a guardrails.json that does not validate is never rewritten; its fires are still counted', async () => {
    const dir = tempProject()
    fs.mkdirSync(path.join(dir, '.ratchet'))
    const broken = '[{"id":"A","pattern":"irreversible","rule":"r","severity":"sometimes"}]'
    fs.writeFileSync(path.join(dir, '.ratchet', 'guardrails.json'), broken)
    fs.writeFileSync(
      path.join(dir, '.ratchet', 'fires.jsonl'),
      JSON.stringify({ t: '2026-11-22T10:00:00.000Z', ids: ['A'] }) + '\n',
    )
    await ratchet(dir, ['guardrails', 'list'])
    expect(fs.readFileSync(path.join(dir, '.ratchet', 'guardrails.json'), 'utf8')).toBe(broken)
    expect(countsOf(dir).A.n).toBe(1)
  })
})

describe('locks are broken by owner liveness, not age alone', () => {
  const cases: [string, () => string, number][] = [
    ['a dead owner, just now', () => `${deadPid()}`, 0],
    ['a dead owner, mtime an hour in the future', () => `${deadPid()}`, 3600],
    ['a live pid from an earlier boot', () => `${process.pid} 00000000-0000-0000-0000-000000000000`, 0],
    ['a live owner whose lock is far in the future (a reused pid)', () => `${process.pid}`, 3600],
  ]
  it.each(cases)('%s: the next writer goes ahead', async (_what, owner, futureSeconds) => {
    const dir = tempProject()
    fs.mkdirSync(path.join(dir, '.ratchet'))
    const lock = path.join(dir, '.ratchet', 'pending-actions.json.lock')
    fs.writeFileSync(lock, owner())
    if (futureSeconds)
      fs.utimesSync(lock, new Date(Date.now() + futureSeconds * 1000), new Date(Date.now() + futureSeconds * 1000))
    const r = await exec(BIN('pause-and-ask'), ['--action', 'tag the release'], {
      cwd: dir,
      env: {
        ...process.env,
        CLAUDE_PROJECT_DIR: dir,
        RATCHET_DIR: '',
        RATCHET_TELEGRAM_TOKEN: '',
        RATCHET_TELEGRAM_CHAT_ID: '',
      },
    })
    expect(r.status, r.stderr).toBe(0)
    expect(JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'pending-actions.json'), 'utf8'))).toHaveLength(1)
    expect(fs.existsSync(lock)).toBe(false)
  })
})

describe('a pause reaches Telegram once', () => {
  let tg: FakeTelegram
  afterEach(async () => tg?.close())

  it('4 concurrent heartbeats against a slow API: exactly one sendMessage per pause, and each outcome shown once', async () => {
    tg = await startFakeTelegram()
    const dir = tempProject()
    const env = {
      CLAUDE_PROJECT_DIR: dir,
      RATCHET_DIR: '',
      RATCHET_TELEGRAM_TOKEN: tg.token,
      RATCHET_TELEGRAM_CHAT_ID: tg.chatId,
      XDG_CONFIG_HOME: tg.xdg(),
    }
    // Queue three pauses with Telegram unreachable, so nothing is sent yet.
    for (const a of ['drop the staging db', 'email the list', 'publish 1.0'])
      expect(
        (
          await exec(BIN('pause-and-ask'), ['--action', a], {
            cwd: dir,
            env: { ...process.env, ...env, XDG_CONFIG_HOME: tg.xdg({ apiUrl: 'http://127.0.0.1:9' }) },
          })
        ).status,
      ).toBe(0)
    expect(tg.messages).toHaveLength(0)
    tg.slow('sendMessage', 700)
    const beats = await Promise.all(Array.from({ length: 4 }, () => ratchet(dir, ['heartbeat'], env)))
    expect(beats.map((b) => b.status)).toEqual([0, 0, 0, 0])
    // (The heartbeat may also send its weekly digest once; only the pauses are counted here.)
    const pauses = tg.calls.filter((c) => c.method === 'sendMessage' && String(c.params.text).startsWith('🔩 [PAUSE]'))
    expect(pauses.map((c) => String(c.params.text).split('\n')[0]).sort()).toEqual([
      "🔩 [PAUSE] I'm about to drop the staging db.",
      "🔩 [PAUSE] I'm about to email the list.",
      "🔩 [PAUSE] I'm about to publish 1.0.",
    ])
    const queue = JSON.parse(fs.readFileSync(path.join(dir, '.ratchet', 'pending-actions.json'), 'utf8'))
    expect(queue.every((e: { notified: boolean; claims?: unknown }) => e.notified && e.claims === undefined)).toBe(true)
    // Decided at the terminal, shown on Telegram once however many heartbeats run.
    await ratchet(dir, ['pending', 'deny', queue[0].id], env)
    tg.slow('editMessageText', 500)
    await Promise.all(Array.from({ length: 4 }, () => ratchet(dir, ['heartbeat'], env)))
    expect(tg.calls.filter((c) => c.method === 'editMessageText')).toHaveLength(1)
  }, 120_000)
})
