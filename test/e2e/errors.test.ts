// One error model for every CLI: a stable code, its exit status, and exactly one line on stderr —
// never a stack trace (the stack of an unexpected error goes to the state folder's errors.log).
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { beforeEach, describe, expect, it } from 'vitest'
import { EXIT_CODES, type ErrorCode } from '../../lib/core/errors'
import { BIN, tempProject } from '../support/fixtures'

let dir: string
const run = (bin: string, args: string[]) => {
  const r = spawnSync(BIN(bin), args, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      HOME: dir,
      CLAUDE_PROJECT_DIR: dir,
      RATCHET_DIR: '',
      RATCHET_TELEGRAM_TOKEN: '',
      RATCHET_TELEGRAM_CHAT_ID: '',
    },
    timeout: 20_000,
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}
const state = (f: string) => path.join(dir, '.ratchet', f)

beforeEach(() => {
  dir = tempProject()
  fs.mkdirSync(path.join(dir, '.ratchet'))
})

const CASES: [string, string, string[], ErrorCode, RegExp, (() => void)?][] = [
  ['an unknown option', 'ratchet', ['--bogus'], 'usage', /unknown option '--bogus'/],
  ['an unknown command', 'ratchet', ['frobnicate'], 'usage', /unknown command 'frobnicate'/],
  ['explain with nothing to explain', 'ratchet', ['guardrails', 'explain'], 'usage', /^ratchet: give a payload file/],
  [
    'an unknown pending action',
    'ratchet',
    ['pending', 'show', 'pa-nope'],
    'not_found',
    /^ratchet: no pending action pa-nope/,
  ],
  [
    'approving an unknown action',
    'ratchet',
    ['pending', 'approve', 'pa-nope'],
    'not_found',
    /^ratchet: no pending action pa-nope/,
  ],
  ['an unknown incident', 'ratchet', ['incident', 'close', 'INC-999'], 'not_found', /^ratchet: no incident INC-999/],
  ['an unknown proposal', 'ratchet', ['proposals', 'approve', 'PR-9'], 'not_found', /^ratchet: no proposal PR-9/],
  [
    'an unknown session',
    'ratchet',
    ['custodiet', 'status', '--session', 'nope'],
    'not_found',
    /^ratchet: custodiet has no record of session nope/,
  ],
  [
    'a corrupt incident log',
    'ratchet',
    ['incident', 'list'],
    'state_corrupt',
    /^ratchet: .*incidents\.json: not valid JSON/,
    () => fs.writeFileSync(state('incidents.json'), '{oops'),
  ],
  [
    'a corrupt queue',
    'ratchet',
    ['pending', 'list'],
    'state_corrupt',
    /^ratchet: .*pending-actions\.json/,
    () => fs.writeFileSync(state('pending-actions.json'), '[{"id": 3}]'),
  ],
  ['pause-and-ask without --action', 'pause-and-ask', [], 'usage', /^pause-and-ask: give --action/],
  [
    'pause-and-ask with a bad severity',
    'pause-and-ask',
    ['--action', 'x', '--severity', 'huge'],
    'usage',
    /argument 'huge' is invalid/,
  ],
  [
    'pause-and-ask status of an unknown id',
    'pause-and-ask',
    ['status', 'pa-nope'],
    'not_found',
    /^pause-and-ask: no pending action pa-nope/,
  ],
  [
    'pattern-detect with an unknown report',
    'pattern-detect',
    ['--report', 'monthly'],
    'usage',
    /^pattern-detect: --report takes: weekly/,
  ],
  [
    'pattern-detect with a bad --since',
    'pattern-detect',
    ['--since', 'soon'],
    'usage',
    /^pattern-detect: --since takes/,
  ],
]

describe('every CLI answers an error with its code and one line', () => {
  it.each(CASES)('%s', (_what, bin, args, code, message, setup) => {
    setup?.()
    const r = run(bin, args)
    expect(r.status, r.stderr).toBe(EXIT_CODES[code])
    expect(r.stderr).toMatch(message)
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  it('help and version are not errors', () => {
    expect(run('ratchet', ['--help']).status).toBe(0)
    expect(run('ratchet', ['--version']).status).toBe(0)
    expect(run('pause-and-ask', ['--help']).status).toBe(0)
  })

  it('an unexpected error is one line ("internal error"), exit 1, and its stack goes to errors.log', () => {
    // An error no code path expects (writing a report into a folder that does not exist). `ratchet log` over a folder
    // was the example here; it now says what is wrong in one line (human-unreadable-state.test.ts).
    const r = run('ratchet', ['report', '--html', path.join(dir, 'no-such-folder', 'r.html')])
    expect(r.status).toBe(EXIT_CODES.internal)
    expect(r.stderr).toMatch(/^ratchet: internal error: ENOENT/)
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(fs.readFileSync(state('errors.log'), 'utf8')).toMatch(/ratchet: Error: ENOENT[^\n]*\n\s+at /)
  })

  it('a lock held by a live process too long is state_lock, and the file is left alone', () => {
    fs.writeFileSync(state('pending-actions.json'), '[]\n')
    fs.writeFileSync(state('pending-actions.json.lock'), String(process.pid)) // this test process: alive
    const r = run('ratchet', ['pending', 'approve', 'pa-1'])
    expect(r.status).toBe(EXIT_CODES.state_lock)
    expect(r.stderr).toMatch(/^ratchet: timed out waiting for the lock .*pending-actions\.json\.lock\n$/)
    expect(fs.readFileSync(state('pending-actions.json'), 'utf8')).toBe('[]\n')
  })
})
