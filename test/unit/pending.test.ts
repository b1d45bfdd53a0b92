import { describe, expect, it } from 'vitest'
import {
  CLAIM_TTL_MS,
  applyTimeouts,
  claimSend,
  consumeApproval,
  decideEntry,
  releaseSend,
  newEntry,
  openFor,
  outcomeNote,
  replyApproves,
  replyDenies,
  takeUndelivered,
  validatePendingList,
  type PendingEntry,
} from '../../lib/core/pending'
import { approvalCovers } from '../../lib/core/approval-binding'
import { maskSecrets } from '../../lib/core/secrets'
import { interpret } from '../../lib/io/telegram'

const T0 = new Date('2026-11-21T10:00:00Z')
const at = (min: number) => new Date(T0.getTime() + min * 60_000)
const entry = (over: Partial<PendingEntry> = {}, severity: PendingEntry['severity'] = 'destructive') => ({
  ...newEntry(
    {
      action: 'a',
      trigger: 't',
      context: 'c',
      severity,
      fingerprint: 'fp',
      session_id: 's1',
      tool: 'Bash',
      input: { command: 'x' },
    },
    'pa-1',
    'abcd',
    T0,
  ),
  ...over,
})

describe('queue transitions', () => {
  it('keeps the seed’s fields and names', () => {
    expect(Object.keys(entry())).toEqual(
      expect.arrayContaining([
        'id',
        'action',
        'trigger',
        'context',
        'severity',
        'requested_at',
        'status',
        'timeout',
        'fingerprint',
        'decided_at',
        'decided_by',
        'reply',
        'notified',
      ]),
    )
    expect([
      entry({}, 'destructive').timeout,
      entry({}, 'time-sensitive').timeout,
      entry({}, 'informational').timeout,
    ]).toEqual([null, 14400, 1800])
  })
  it('a decision applies once', () => {
    const first = decideEntry([entry()], 'pa-1', 'approved', 'me', at(1))
    expect(first.result).toMatchObject({ ok: true, value: { status: 'approved', decided_by: 'me' } })
    const second = decideEntry(first.next, 'pa-1', 'denied', 'other', at(2))
    expect(second.result.ok || [second.result.error.code, second.result.error.message]).toEqual([
      'conflict',
      'pa-1 is already approved',
    ])
    expect(second.next).toBe(first.next)
    const missing = decideEntry([], 'pa-9', 'approved', 'me', at(1)).result
    expect(missing.ok || [missing.error.code, missing.error.message]).toEqual(['not_found', 'no pending action pa-9'])
  })
  it.each([
    ['destructive', 10 * 365 * 24 * 60, 'pending', undefined],
    ['time-sensitive', 239, 'pending', undefined],
    ['time-sensitive', 240, 'timeout', 'not_done'],
    ['informational', 29, 'pending', undefined],
    ['informational', 30, 'timeout', 'proceed_safer'],
  ] as const)('%s after %i min → %s %s', (severity, min, status, outcome) => {
    const { next } = applyTimeouts([entry({}, severity)], at(min))
    expect(next[0].status).toBe(status)
    expect(next[0].timeout_outcome).toBe(outcome)
  })
  it('timeouts never touch decided entries', () => {
    const decided = entry({ status: 'approved' }, 'informational')
    expect(applyTimeouts([decided], at(999)).result).toEqual([])
  })
  it('an approval is consumed by exactly the same call, once', () => {
    const list = [entry({ status: 'approved' })]
    expect(consumeApproval(list, 'other-fp', { command: 'x' }, at(1)).result).toBeNull()
    expect(consumeApproval(list, 'fp', { command: 'y' }, at(1)).result).toBeNull() // same hash, different input: refused
    const used = consumeApproval(list, 'fp', { command: 'x' }, at(1))
    expect(used.result).toMatchObject({ status: 'consumed' })
    expect(consumeApproval(used.next, 'fp', { command: 'x' }, at(2)).result).toBeNull()
  })
  it('a project approval is an explicit choice: scoped, expiring, reused until it expires, never for a non-call', () => {
    const p = decideEntry([entry()], 'pa-1', 'approved', 'me', at(0), null, { project: true, hours: 2 })
    expect(p.result).toMatchObject({ ok: true, value: { scope: 'project', expires_at: at(120).toISOString() } })
    const once = consumeApproval(p.next, 'fp', { command: 'x' }, at(1), 'pa-1')
    expect(once.result).toMatchObject({ status: 'approved', uses: 1 })
    expect(consumeApproval(once.next, 'fp', { command: 'x' }, at(2), 'pa-1').result).toMatchObject({
      status: 'approved',
      uses: 2,
    })
    expect(consumeApproval(once.next, 'fp', { command: 'x' }, at(121), 'pa-1').result).toBeNull()
    for (const hours of [0, -1, 169, Number.NaN]) {
      const bad = decideEntry([entry()], 'pa-1', 'approved', 'me', at(0), null, { project: true, hours }).result
      expect(bad.ok || bad.error.code).toBe('usage')
    }
    const noCall = decideEntry([entry({ fingerprint: null })], 'pa-1', 'approved', 'me', at(0), null, {
      project: true,
    }).result
    expect(noCall.ok || noCall.error.message).toBe('pa-1 is not a tool call: it can only be approved once')
    // The default is the asking session, once.
    expect(decideEntry([entry()], 'pa-1', 'approved', 'me', at(0)).result).toMatchObject({
      ok: true,
      value: { status: 'approved' },
    })
    expect(decideEntry([entry()], 'pa-1', 'approved', 'me', at(0)).next[0].scope).toBeUndefined()
  })
  it('an approval chosen by id is the one used up (not another approval of the same call)', () => {
    const list = [entry({ status: 'approved' }), entry({ id: 'pa-2', status: 'approved', session_id: 's2' })]
    const used = consumeApproval(list, 'fp', { command: 'x' }, at(1), 'pa-2')
    expect(used.result?.id).toBe('pa-2')
    expect(used.next.map((e) => e.status)).toEqual(['approved', 'consumed'])
  })
  it('a pending entry for the same call is found instead of queueing a duplicate', () => {
    expect(openFor([entry()], 'fp')?.id).toBe('pa-1')
    expect(openFor([entry({ status: 'denied' })], 'fp')).toBeUndefined()
  })
  it('outcomes are delivered to their session once', () => {
    const list = [
      entry({ status: 'denied', reply: 'use the staging bucket', delivered: false }),
      entry({ id: 'pa-2', session_id: 's2', status: 'approved', delivered: false }),
    ]
    const a = takeUndelivered(list, 's1')
    expect(a.result.map(outcomeNote)).toEqual([
      '[RATCHET] Not approved: a (pa-1). The human said: "use the staging bucket". Do not retry it or route around it.',
    ])
    expect(takeUndelivered(a.next, 's1').result).toEqual([])
  })
  it.each([
    ['✅', true],
    ['yes', true],
    ['OK!', true],
    ['go ahead', true],
    ['yes but first fix the title', false],
    ['no', false],
    ['use v2 instead', false],
  ])('reply %j approves: %s', (text, approves) => {
    expect(replyApproves(text)).toBe(approves)
  })
  it.each([
    ['❌', true],
    ['no', true],
    ["don't", true],
    ['not now, tomorrow', false],
  ])('reply %j is a plain no: %s', (text, no) => {
    expect(replyDenies(text)).toBe(no)
  })
  it('a corrupt queue is named precisely', () => {
    expect(validatePendingList({})).toBe('expected an array of pending actions')
    expect(validatePendingList([{ id: 'x', status: 'maybe', severity: 'destructive', action: 'a' }])).toBe(
      '[0].status: expected one of pending, approved, denied, timeout, consumed',
    )
  })
})

describe('secret masking before anything leaves the machine', () => {
  it.each([
    ['curl -H "Authorization: Bearer abcdef1234567890xyz" https://x', 'abcdef1234567890xyz'],
    ['export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123', 'ghp_abcdefghijklmnopqrstuvwxyz0123'],
    ['mysql --password=hunter2hunter2 -u root', 'hunter2hunter2'],
    ['psql postgres://admin:s3cretPass@db.internal/app', 's3cretPass'],
    ['aws configure set aws_access_key_id AKIAABCDEFGHIJKLMNOP', 'AKIAABCDEFGHIJKLMNOP'],
    ['ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz claude', 'abcdefghijklmnopqrstuvwxyz'],
    ['bot 123456789:AAEabcdefghijklmnopqrstuvwxyz012345', 'AAEabcdefghijklmnopqrstuvwxyz012345'],
  ])('%s', (text, secret) => {
    const masked = maskSecrets(text)
    expect(masked).not.toContain(secret)
    expect(masked).toContain('****')
  })
  it('leaves ordinary text alone', () => {
    expect(maskSecrets('git push origin main && npm publish --tag next')).toBe(
      'git push origin main && npm publish --tag next',
    )
  })
})

describe('reading Telegram updates', () => {
  const e = entry({ message_id: 7, secret: 'ab12' })
  const approves = replyApproves
  const denies = replyDenies
  // Buttons carry a seal of the stored secret (an HMAC with a key outside the project); here a stand-in seal.
  const d = { chatId: '42', approvers: ['1'], seal: (s: string) => `5ea1${s}` }
  const cb = (data: string, chat = '42', from = 1) => ({
    update_id: 1,
    callback_query: {
      id: 'q',
      from: { id: from, username: from === 1 ? 'ann' : 'eve' },
      data,
      message: { message_id: 7, chat: { id: chat } },
    },
  })
  it.each([
    [cb('pa:pa-1:5ea1ab12:a'), { kind: 'decide', id: 'pa-1', verdict: 'approved', by: '@ann', callbackId: 'q' }],
    [cb('pa:pa-1:5ea1ab12:d'), { kind: 'decide', id: 'pa-1', verdict: 'denied', by: '@ann', callbackId: 'q' }],
    // The secret read from the queue, unsealed, is not a valid button.
    [cb('pa:pa-1:ab12:a'), { kind: 'ignore', why: 'button for pa-1 does not match any action', callbackId: 'q' }],
    [cb('pa:pa-1:ffff:a'), { kind: 'ignore', why: 'button for pa-1 does not match any action', callbackId: 'q' }],
    [cb('pa:pa-1:5ea1ab12:a', '99'), { kind: 'unauthorized', from: '@ann', chat: '99', callbackId: 'q' }],
    // A member of the chat who is not an approver: nothing is decided.
    [
      cb('pa:pa-1:5ea1ab12:a', '42', 666),
      { kind: 'unauthorized', from: '@eve', chat: '42', callbackId: 'q', notApprover: true },
    ],
    [
      {
        update_id: 4,
        message: {
          message_id: 9,
          chat: { id: '42' },
          from: { id: 666, first_name: 'Eve' },
          text: 'yes',
          reply_to_message: { message_id: 7 },
        },
      },
      { kind: 'unauthorized', from: 'Eve', chat: '42', notApprover: true },
    ],
    [cb('garbage'), { kind: 'ignore', why: 'unknown button "garbage"', callbackId: 'q' }],
    [
      { update_id: 2, message: { message_id: 9, chat: { id: '42' }, text: 'hello' } },
      { kind: 'ignore', why: 'not a reply to a pause message' },
    ],
    [
      {
        update_id: 3,
        message: {
          message_id: 9,
          chat: { id: '42' },
          from: { id: 1, first_name: 'Ann' },
          text: 'use the other bucket',
          reply_to_message: { message_id: 7 },
        },
      },
      { kind: 'decide', id: 'pa-1', verdict: 'denied', by: 'Ann', reply: 'use the other bucket' },
    ],
  ])('%j', (u, expected) => {
    expect(interpret(u as never, d, [e], approves, denies)).toEqual(expected)
  })
})

describe('claiming a message before sending it', () => {
  const NOW = 1_000_000_000
  const pending = (over: Partial<PendingEntry> = {}) => [entry(over)]
  const alive = (by: string) => by !== 'dead'
  it.each([
    ['nobody holds it', pending(), 'notify', 'me', true],
    [
      'a live heartbeat holds it',
      pending({ claims: { notify: { by: 'other', at: NOW - 1000 } } }),
      'notify',
      'me',
      false,
    ],
    ['the holder died', pending({ claims: { notify: { by: 'dead', at: NOW - 1000 } } }), 'notify', 'me', true],
    [
      'the live holder’s claim lapsed',
      pending({ claims: { notify: { by: 'other', at: NOW - CLAIM_TTL_MS - 1 } } }),
      'notify',
      'me',
      true,
    ],
    ['already notified', pending({ notified: true }), 'notify', 'me', false],
    ['no outcome to show while pending', pending({ message_id: 7 }), 'outcome', 'me', false],
    ['an outcome to show', pending({ status: 'denied', message_id: 7 }), 'outcome', 'me', true],
    [
      'a notice due',
      pending({ status: 'timeout', timeout_outcome: 'proceed_safer', notice_sent: false }),
      'notice',
      'me',
      true,
    ],
  ] as const)('%s → claimed: %s', (_what, list, kind, by, claimed) => {
    const r = claimSend(list as PendingEntry[], 'pa-1', kind, by, NOW, alive)
    expect(!!r.result).toBe(claimed)
    if (!claimed) expect(r.next).toBe(list)
  })
  it('release records what was sent and drops only that claim', () => {
    const list = claimSend(
      pending({ claims: { outcome: { by: 'x', at: NOW } } }),
      'pa-1',
      'notify',
      'me',
      NOW,
      alive,
    ).next
    const after = releaseSend(list, 'pa-1', 'notify', { notified: true, message_id: 9 }).next[0]
    expect(after).toMatchObject({ notified: true, message_id: 9, claims: { outcome: { by: 'x', at: NOW } } })
    expect(releaseSend([after], 'pa-1', 'outcome', {}).next[0].claims).toBeUndefined()
  })
})

describe('approvalCovers: what a destructive call destroys', () => {
  const then = { digest: 'd1', seen: ['ref feature on origin at aaaaaaaaaaaa'] }
  const moved = { digest: 'd2', seen: ['ref feature on origin at bbbbbbbbbbbb'] }
  const entry = (over: Partial<PendingEntry>): PendingEntry => ({
    ...newEntry(
      {
        action: 'run git push origin --delete feature',
        trigger: 't',
        context: 'c',
        severity: 'destructive',
        fingerprint: 'fp',
        session_id: 'S',
        destroys: then,
      },
      'pa-1',
      's',
      new Date(0),
    ),
    status: 'approved',
    ...over,
  })
  const now = Date.parse('2030-01-01T00:00:00Z')
  it.each([
    ['session', {}],
    ['project', { scope: 'project' as const, expires_at: '2030-01-02T00:00:00Z' }],
  ])('a %s approval covers the same state, and not a moved tip or an unreadable one', (_s, over) => {
    const e = entry(over)
    expect(approvalCovers(e, { session: 'S', destroys: then }, now)).toEqual({ ok: true })
    expect(approvalCovers(e, { session: 'S', destroys: moved }, now)).toEqual({
      ok: false,
      why: 'what would be destroyed is not what the human approved in pa-1: was ref feature on origin at aaaaaaaaaaaa; now ref feature on origin at bbbbbbbbbbbb',
    })
    expect(approvalCovers(e, { session: 'S' }, now)).toMatchObject({
      ok: false,
      why: expect.stringContaining('it can no longer be read'),
    })
  })
  it('a remote that did not answer twice: the once-only approval covers the same unknown, a project approval does not', () => {
    const unknown = {
      digest: 'd3',
      seen: ['ref feature on origin: unknown (git ls-remote did not answer in time)'],
      unreadable: true,
    }
    expect(approvalCovers(entry({ destroys: unknown }), { session: 'S', destroys: unknown }, now)).toEqual({ ok: true })
    const project = entry({ destroys: unknown, scope: 'project', expires_at: '2030-01-02T00:00:00Z' })
    expect(approvalCovers(project, { session: 'S', destroys: unknown }, now)).toMatchObject({
      ok: false,
      why: expect.stringContaining('could not be read now'),
    })
  })
  it('an approval with nothing destroyed bound (an upload) is not affected', () => {
    expect(approvalCovers(entry({ destroys: undefined }), { session: 'S', destroys: moved }, now)).toEqual({ ok: true })
  })
})
