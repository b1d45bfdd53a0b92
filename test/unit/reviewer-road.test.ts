// custodiet's default reviewer is Claude with claude's own login. Where the session's environment holds the key
// `claude -p` would use, the review goes to the Messages API with it directly instead of starting the client
// (~0.9 s of CPU each on the cores the session runs on); everywhere else, and when pinned to "cli", it is `claude
// -p` as before. These tests take both roads against the local mock of the API and the scripted stand-in for
// `claude -p` (test/support/bin/claude), which logs each start.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claudeRoad, runReviewer, type ReviewerConfig } from '../../lib/io/reviewer'
import { startMockModel, type MockModel } from '../support/mock-anthropic'

const FAKE_CLAUDE = path.resolve(__dirname, '..', 'support', 'bin', 'claude')
const claude = (more: Partial<ReviewerConfig> = {}): ReviewerConfig => ({ kind: 'claude', model: 'haiku', ...more })

describe('claudeRoad: which road a claude review takes', () => {
  const KEY = { ANTHROPIC_API_KEY: 'sk-ant-x' }
  it.each([
    ['the API key claude would use', claude(), KEY, { via: 'api', model: 'claude-haiku-5-5' }],
    ['a bearer token instead', claude(), { ANTHROPIC_AUTH_TOKEN: 't' }, { via: 'api', model: 'claude-haiku-5-5' }],
    [
      'claude’s own haiku override',
      claude(),
      { ...KEY, ANTHROPIC_DEFAULT_HAIKU_MODEL: 'my-haiku' },
      { via: 'api', model: 'my-haiku' },
    ],
    ['a full model id', claude({ model: 'claude-sonnet-4-5' }), KEY, { via: 'api', model: 'claude-sonnet-4-5' }],
    ['no key: claude’s own login (keychain, credentials file)', claude(), {}, { via: 'cli' }],
    ['an OAuth token only claude can use', claude(), { CLAUDE_CODE_OAUTH_TOKEN: 'o' }, { via: 'cli' }],
    ['pinned to the client', claude({ via: 'cli' }), KEY, { via: 'cli' }],
    ['Bedrock', claude(), { ...KEY, CLAUDE_CODE_USE_BEDROCK: '1' }, { via: 'cli' }],
    ['Vertex', claude(), { ...KEY, CLAUDE_CODE_USE_VERTEX: '1' }, { via: 'cli' }],
    ['a model name only claude resolves', claude({ model: 'opusplan' }), KEY, { via: 'cli' }],
    ['Bedrock written off', claude(), { ...KEY, CLAUDE_CODE_USE_BEDROCK: 'false' }, { via: 'api' }],
    // Node's http client takes no proxy from the environment; the client does.
    ['a proxy for the API', claude(), { ...KEY, HTTPS_PROXY: 'http://proxy.corp:3128' }, { via: 'cli' }],
    ['a lower-case proxy', claude(), { ...KEY, https_proxy: 'http://proxy.corp:3128' }, { via: 'cli' }],
    ['an http proxy, which reaches https too', claude(), { ...KEY, HTTP_PROXY: 'http://p:3128' }, { via: 'cli' }],
    [
      'a proxy NO_PROXY excepts the API from',
      claude(),
      { ...KEY, HTTPS_PROXY: 'http://p:3128', NO_PROXY: 'localhost,.anthropic.com' },
      { via: 'api' },
    ],
    ['NO_PROXY=*', claude(), { ...KEY, HTTPS_PROXY: 'http://p:3128', NO_PROXY: '*' }, { via: 'api' }],
    [
      'a proxy for another scheme than the API’s',
      claude(),
      { ...KEY, ANTHROPIC_BASE_URL: 'http://gw.internal', HTTPS_PROXY: 'http://p:3128' },
      { via: 'api' },
    ],
  ])('%s', (_what, cfg, env, want) => {
    expect(claudeRoad(cfg, env)).toMatchObject(want)
  })

  it('sends both credentials when both are set, as the client does, and no custom header stands in for the key', () => {
    expect(
      claudeRoad(claude(), {
        ...KEY,
        ANTHROPIC_AUTH_TOKEN: 'tok',
        ANTHROPIC_CUSTOM_HEADERS: 'x-api-key: planted\nAuthorization: Bearer planted',
      }),
    ).toMatchObject({ via: 'api', headers: { 'x-api-key': 'sk-ant-x', authorization: 'Bearer tok' } })
  })

  it('sends the address, the key and claude’s custom headers as claude does', () => {
    const r = claudeRoad(claude(), {
      ...KEY,
      ANTHROPIC_BASE_URL: 'https://proxy.example/',
      ANTHROPIC_CUSTOM_HEADERS: 'X-Team: blue\nbroken line\nX-Cost-Centre:  42 ',
    })
    expect(r).toEqual({
      via: 'api',
      base: 'https://proxy.example',
      model: 'claude-haiku-5-5',
      headers: { 'x-api-key': 'sk-ant-x', 'x-team': 'blue', 'x-cost-centre': '42' },
    })
  })
})

describe('runReviewer, claude: the API road and the client road', () => {
  let model: MockModel
  let dir: string
  let log: string
  const VERDICT = '## Compliance Check: OK\nNo issues detected. Continue current work.'
  const started = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [])

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-reviewer-road-'))
    log = path.join(dir, 'fake-claude.log')
    model = await startMockModel([], { respond: () => ({ text: VERDICT }) })
  })
  afterAll(async () => {
    await model.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  const env = (more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: dir,
    FAKE_REVIEWER_LOG: log,
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-dummy',
    ...more,
  })

  it('with claude’s key at hand: one Messages API call, no client started, tokens for the cost', async () => {
    fs.rmSync(log, { force: true })
    const before = model.requests.length
    const out = await runReviewer(claude({ claudePath: FAKE_CLAUDE }), 'You are custodiet.', 'the window', env())
    expect(out).toEqual({ text: VERDICT, input_tokens: 321, output_tokens: 45 })
    expect(model.requests.slice(before)).toMatchObject([
      { model: 'claude-haiku-5-5', system: 'You are custodiet.', messages: [{ role: 'user', content: 'the window' }] },
    ])
    expect(model.requests[before].stream).toBeUndefined()
    expect(started()).toEqual([])
  })

  it('pinned to "cli", or without a key: `claude -p`, and the API is not called', async () => {
    for (const [cfg, e] of [
      [claude({ claudePath: FAKE_CLAUDE, via: 'cli' }), env()],
      [claude({ claudePath: FAKE_CLAUDE }), env({ ANTHROPIC_API_KEY: undefined })],
    ] as const) {
      fs.rmSync(log, { force: true })
      const before = model.requests.length
      const out = await runReviewer(cfg, 'You are custodiet.', 'the window', e)
      expect(out.text).toContain('## Compliance Check: OK')
      expect(started()).toHaveLength(1)
      expect(JSON.parse(started()[0]).args.slice(0, 3)).toEqual(['-p', '--model', 'haiku'])
      expect(model.requests.length).toBe(before)
    }
  })

  it('a model the API does not know goes to the client, which resolves its own names', async () => {
    // The API's answer for an unknown model: 404, not_found_error, naming the model.
    const server = (await import('node:http')).createServer((req, res) => {
      req.resume()
      req.on('end', () =>
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(
            JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'model: claude-nonesuch' } }),
          ),
      )
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      fs.rmSync(log, { force: true })
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
      const out = await runReviewer(
        claude({ claudePath: FAKE_CLAUDE, model: 'claude-nonesuch' }),
        'You are custodiet.',
        'the window',
        env({ ANTHROPIC_BASE_URL: url }),
      )
      expect(out.text).toContain('## Compliance Check: OK')
      expect(started()).toHaveLength(1)
    } finally {
      server.close()
    }
  })

  it('any other refusal is the review’s failure, in one line, and starts no client', async () => {
    fs.rmSync(log, { force: true })
    // Nothing listens there: refused at once, where `claude -p` would retry for up to its timeout.
    await expect(
      runReviewer(
        claude({ claudePath: FAKE_CLAUDE }),
        'You are custodiet.',
        'w',
        env({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' }),
      ),
    ).rejects.toThrow(/^reviewer API at http:\/\/127\.0\.0\.1:9: ECONNREFUSED$/)
    expect(started()).toEqual([])
  })

  it('an API that does not answer is given up at the timeout, with what happened', async () => {
    const silent = (await import('node:http')).createServer(() => {})
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
    try {
      const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`
      await expect(
        runReviewer(
          claude({ claudePath: FAKE_CLAUDE, timeoutSeconds: 0.3 }),
          's',
          'w',
          env({ ANTHROPIC_BASE_URL: url }),
        ),
      ).rejects.toMatchObject({ code: 'reviewer_timeout', message: 'reviewer timed out after 0.3s' })
    } finally {
      silent.closeAllConnections()
      silent.close()
    }
  })
})
