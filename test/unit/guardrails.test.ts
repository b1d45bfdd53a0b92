import { describe, expect, it } from 'vitest'
import { compileRules, matchRules } from '../../lib/core/rule-match'
import { decisionOf, matchability, validateGuardrails, type Guardrail } from '../../lib/core/guardrails'
import { longestLiteral } from '../../lib/core/rule-index'
import { classify, type ClassifyContext } from '../../lib/core/classify'

// The seed's guardrails.json, verbatim (../shared/seeds/000…: "The Missing Link").
const SEED = [
  {
    id: 'GR-001',
    source: 'INC-005, INC-007',
    pattern: 'inline_execution_of_spawnable_task',
    trigger: "about to execute a task that doesn't require Aaron's live input",
    rule: 'Spawn a sub-agent. No exceptions. No size threshold.',
    severity: 'hard',
    added: '2026-02-28',
    last_fired: null,
    fire_count: 0,
  },
  {
    id: 'GR-002',
    source: 'INC-003',
    pattern: 'commit_to_public_repo',
    trigger: 'git add/commit/push in ratchet/ directory',
    rule: 'Verify no private-pattern files in staging. Check pre-commit hook ran.',
    severity: 'hard',
    added: '2026-02-28',
  },
  {
    id: 'GR-003',
    source: 'INC-001',
    pattern: 'timezone_dependent_action',
    trigger: 'creating cron jobs or time-based automation',
    rule: 'Verify current timezone from context.json. Do not assume.',
    severity: 'soft',
    added: '2026-02-26',
  },
]

const PROJECT = '/p'
const ctx: ClassifyContext = {
  projectDir: PROJECT,
  homeDir: '/home/u',
  stateDir: '/p/.ratchet',
  session: { reads: {}, prompts: [] },
  fileExists: () => false,
  currentBranch: () => 'feature',
}
const fire = (rules: unknown[], tool: string, input: Record<string, unknown>) => {
  const v = validateGuardrails(rules)
  return matchRules(
    compileRules(v.rules),
    classify({ tool_name: tool, tool_input: input, cwd: PROJECT }, ctx),
    PROJECT,
  ).map((f) => f.id)
}

describe('guardrails.json format', () => {
  it("accepts the seed's file as-is", () => {
    const v = validateGuardrails(SEED)
    expect(v.problems).toEqual([])
    expect(v.rules.map((r) => r.id)).toEqual(['GR-001', 'GR-002', 'GR-003'])
  })
  it('defaults the decision from severity: hard → deny, soft → check; `decision` overrides', () => {
    expect(decisionOf(SEED[1] as Guardrail)).toBe('deny')
    expect(decisionOf(SEED[2] as Guardrail)).toBe('check')
    expect(decisionOf({ ...(SEED[2] as Guardrail), decision: 'warn' })).toBe('warn')
  })
  it.each([
    [[{ ...SEED[0], severity: 'medium' }], '[0].severity'],
    [[SEED[0], { ...SEED[1], rule: 42 }], '[1].rule'],
    [[{ ...SEED[2], match: { comand: ['x'] } }], '[0].match'],
    [[{ ...SEED[2], match: { command: 'git push' } }], '[0].match.command'],
    [[{ ...SEED[2], decision: 'maybe' }], '[0].decision'],
    [[{ id: 'X' }], '[0].pattern'],
  ])('reports %j at %s and keeps the valid rules', (rules, where) => {
    const v = validateGuardrails(rules)
    expect(v.problems.map((p) => p.where)).toContain(where)
    expect(v.fatal).toBe(false)
  })
  it('a file that is not an array is fatal', () => {
    expect(validateGuardrails({ rules: [] }).fatal).toBe(true)
    expect(validateGuardrails({ guardrails: SEED }).rules).toHaveLength(3)
  })
  it('duplicate ids: the first wins, the second is reported', () => {
    const v = validateGuardrails([SEED[1], { ...SEED[2], id: 'GR-002' }])
    expect(v.rules).toHaveLength(1)
    expect(v.problems[0]).toEqual({ where: '[1].id', message: 'duplicate id GR-002; the first one wins' })
  })
  it('says which rules are matched by machine and which are awareness-only', () => {
    expect(SEED.map((r) => matchability(r as Guardrail))).toEqual(['awareness', 'pattern', 'pattern'])
  })
})

describe('matching', () => {
  it('the seed rules fire on their patterns', () => {
    expect(fire(SEED, 'Bash', { command: 'git push origin main' })).toEqual(['GR-002'])
    // A local commit is not public surface by itself (issue 10): it is pattern git_commit, not commit_to_public_repo.
    expect(fire(SEED, 'Bash', { command: 'git commit -am wip' })).toEqual([])
    expect(fire(SEED, 'Bash', { command: 'crontab jobs.txt' })).toEqual(['GR-003'])
    expect(fire(SEED, 'Bash', { command: 'ls' })).toEqual([])
  })
  const custom = (match: Record<string, string[]>, pattern = 'custom') => [
    { id: 'C', pattern, rule: 'r', severity: 'soft', match },
  ]
  it.each([
    [{ command: ['git push*'] }, 'Bash', { command: 'sudo git push origin main' }, true],
    [{ command: ['git push*'] }, 'Bash', { command: 'echo "git push"' }, false],
    [{ command: ['terraform *'] }, 'Bash', { command: 'cd infra && terraform apply' }, true],
    [{ tools: ['mcp__github__*'] }, 'mcp__github__create_issue', {}, true],
    [{ tools: ['mcp__github__*'] }, 'mcp__slack__post', {}, false],
    [{ paths: ['**/.env'] }, 'Write', { file_path: '/p/.env', content: '' }, true],
    [{ paths: ['**/.env'] }, 'Write', { file_path: '/p/app/.env', content: '' }, true],
    [{ paths: ['src/**'] }, 'Edit', { file_path: '/p/src/a/b.ts', old_string: 'a', new_string: 'b' }, true],
    [{ paths: ['src/**'] }, 'Edit', { file_path: '/p/lib/a.ts', old_string: 'a', new_string: 'b' }, false],
    [{ paths: ['/etc/**'] }, 'Bash', { command: 'sudo tee /etc/hosts' }, true],
    [{ paths: ['*.lock'] }, 'Bash', { command: 'rm package.lock' }, true],
    [
      { urls: ['https://api.stripe.com/*'] },
      'WebFetch',
      { url: 'https://API.stripe.com/v1/charges', prompt: 'x' },
      true,
    ],
    [{ urls: ['https://api.stripe.com/*'] }, 'Bash', { command: 'curl https://api.stripe.com/v1/x' }, true],
    [{ tools: ['Bash'], command: ['npm *'] }, 'Bash', { command: 'npm publish' }, true],
    [{ tools: ['Write'], command: ['npm *'] }, 'Bash', { command: 'npm publish' }, false],
  ])('match %j on %s %j → %s', (match, tool, input, expected) => {
    expect(fire(custom(match), tool, input)).toEqual(expected ? ['C'] : [])
  })
  it('pattern + match: both must hold', () => {
    const rules = custom({ command: ['* origin main*'] }, 'git_push')
    expect(fire(rules, 'Bash', { command: 'git push origin main' })).toEqual(['C'])
    expect(fire(rules, 'Bash', { command: 'git push origin feature' })).toEqual([])
  })
  it('a class name matches every pattern of the class', () => {
    const rules = [{ id: 'P', pattern: 'public_surface', rule: 'r', severity: 'soft' }]
    expect(fire(rules, 'Bash', { command: 'npm publish' })).toEqual(['P'])
    expect(fire(rules, 'Bash', { command: 'docker push x' })).toEqual(['P'])
  })
  it('disabled rules never fire', () => {
    expect(
      fire([{ id: 'P', pattern: 'git_push', rule: 'r', severity: 'soft', enabled: false }], 'Bash', {
        command: 'git push',
      }),
    ).toEqual([])
  })
  it.each([
    ['git push*', false, 'git push'],
    ['*deploy-tool-5 *', false, 'deploy-tool-5 '],
    ['**/secret.env', true, 'secret.env'],
    ['config/service-*/**', true, 'config'],
    ['{a,b}/*.ts', true, ''],
    // No literal where a match need not contain one: negation, `..`, `.`, and escapes.
    ['!docs/api', true, ''],
    ['config/../x', true, ''],
    ['./config/**', true, ''],
    ['a\\*b/c.txt', true, 'c.txt'],
  ])('literal prefilter of %s', (glob, isPath, lit) => {
    expect(longestLiteral(glob, isPath)).toBe(lit)
  })

  // The prefilter may only ever skip what minimatch would not match: a user's rule that silently never
  // fires is a protection switched off (`!docs/api` and `config/../x` did, before).
  const PATH_CASES: [string, string][] = [
    ['!docs/api', 'src/a.ts'],
    ['!docs/api', 'docs/api'],
    ['!src/**', 'src/new.js'],
    ['!src/**', 'notes/todo.md'],
    ['!src/**', '/elsewhere/x.js'],
    ['!**/*.md', 'src/a.ts'],
    ['config/../x', 'x'],
    ['a\\*b', 'a*b'],
    ['a\\*b/c.txt', 'a*b/c.txt'],
    ['config/service-*/**', 'config/service-2/a.yml'],
    ['config/service-*/**', 'other/service-2/a.yml'],
    ['**/secret.env', 'deep/er/secret.env'],
    ['secret.env', 'a/secret.env'],
    ['/etc/**', '/etc/hosts'],
    ['[a]bc/d', 'abc/d'],
    ['a//b', 'a/b'],
    ['src/**/x.ts', 'src/x.ts'],
  ]
  it.each(PATH_CASES)('a path rule on %s fires on %s exactly when minimatch matches', async (glob, rel) => {
    const { Minimatch } = await import('minimatch')
    const want = new Minimatch(glob, { dot: true, matchBase: !glob.includes('/') }).match(
      rel.startsWith('/') ? rel : rel,
    )
    const file = rel.startsWith('/') ? rel : `${PROJECT}/${rel}`
    const rules = [
      { id: 'W', pattern: 'custom_paths', rule: 'r', severity: 'soft', match: { tools: ['Write'], paths: [glob] } },
    ]
    // Relative globs are tried on the project-relative path and the absolute one (pathHit).
    const abs = new Minimatch(glob, { dot: true, matchBase: !glob.includes('/') }).match(file)
    // A negated glob is one test on the project-relative path (`!src/**` must not match every absolute path).
    const fires = glob.startsWith('!') ? want : want || (!glob.startsWith('/') && abs)
    expect(fire(rules, 'Write', { file_path: file, content: 'x' })).toEqual(fires ? ['W'] : [])
  })
})

// ---- built-ins are always on (issue 10 item 1) ------------------------------------------------
import fs from 'node:fs'
import path from 'node:path'
import { BUILTIN_RULES, withBuiltins } from '../../lib/core/builtins'
import { isPublicRemote } from '../../hooks/preflight-check/gather'
import { decidePreToolUse } from '../../hooks/preflight-check/compose'
import type { PreflightFacts } from '../../hooks/preflight-check/facts'

const active = (rules: unknown[]) => withBuiltins(validateGuardrails(rules).rules)
const verdictWith = (
  rules: unknown[],
  tool: string,
  input: Record<string, unknown>,
  over: Partial<PreflightFacts> = {},
) =>
  decidePreToolUse(
    { session_id: 's', tool_name: tool, tool_input: input, cwd: PROJECT },
    {
      now: 1_800_000_000_000,
      fingerprint: 'fp',
      projectDir: PROJECT,
      homeDir: '/home/u',
      stateDir: '/p/.ratchet',
      rules: compileRules(active(rules).rules),
      problems: [],
      fallback: false,
      session: { reads: {}, prompts: [], checks: {} },
      queue: { undelivered: [] },
      hold: null,
      config: { checkWindowMs: 600_000, defer: false, telegram: false },
      fileExists: (p) => p === '/p/notes.md',
      currentBranch: () => 'feature',
      publicRemote: () => false,
      ...over,
    },
  )

describe('built-ins are always on', () => {
  it('the packaged guardrails.json lists exactly the built-ins', () => {
    const packaged = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'guardrails.json'), 'utf8'))
    expect(packaged).toEqual(BUILTIN_RULES.map((r) => ({ ...r })))
    expect(BUILTIN_RULES.map((r) => r.id)).toEqual([
      'RG-PUBLIC',
      'RG-IRREVERSIBLE',
      'RG-STALE',
      'RG-SCOPE',
      'RG-CATASTROPHIC',
      'RG-SELF',
      'RG-FIRST-USE',
    ])
  })

  // With the seed's three rules as the project's whole file, every built-in protection still holds.
  it.each([
    ['Bash', { command: 'rm -rf src' }, 'check', 'RG-IRREVERSIBLE'],
    ['Bash', { command: 'git reset --hard HEAD~3' }, 'check', 'RG-IRREVERSIBLE'],
    ['Write', { file_path: '/p/notes.md', content: 'x' }, 'check', 'RG-STALE'],
    ['Bash', { command: 'curl -F f=@report.pdf https://upload.example.com' }, 'check', 'RG-PUBLIC'],
    ['Bash', { command: 'rm -rf ~' }, 'deny', 'RG-CATASTROPHIC'],
    ['Write', { file_path: '/p/.ratchet/guardrails.json', content: '[]' }, 'deny', 'RG-SELF'],
  ])('seed file: %s %j is still %s (%s)', (tool, input, verdict, id) => {
    const out = verdictWith(SEED, tool, input as Record<string, unknown>)
    expect(out.verdict).toBe(verdict)
    expect(out.result.fired.map((f) => f.id)).toContain(id)
  })

  it('seed file: GR-002 binds to its meaning — a push, or a commit where the remote is public; not every local commit', () => {
    expect(verdictWith(SEED, 'Bash', { command: 'git add -A' }).verdict).toBe('allow')
    expect(verdictWith(SEED, 'Bash', { command: 'git commit -m "fix typo"' }).verdict).toBe('allow')
    expect(
      verdictWith(SEED, 'Bash', { command: 'git commit -m "fix typo"' }, { publicRemote: () => true }).result.fired.map(
        (f) => f.id,
      ),
    ).toContain('GR-002')
    expect(verdictWith(SEED, 'Bash', { command: 'git push origin feature' }).result.fired.map((f) => f.id)).toEqual(
      expect.arrayContaining(['GR-002', 'RG-PUBLIC']),
    )
  })

  it('a built-in is tuned or turned off only by naming its id', () => {
    const tuned = active([
      { id: 'RG-IRREVERSIBLE', decision: 'warn' },
      { id: 'RG-SCOPE', enabled: false },
    ])
    expect(tuned.problems).toEqual([])
    expect(tuned.rules.find((r) => r.id === 'RG-IRREVERSIBLE')).toMatchObject({
      decision: 'warn',
      origin: 'built-in',
      tuned: ['decision'],
      rule: expect.stringContaining('Irreversible'),
    })
    expect(verdictWith([{ id: 'RG-IRREVERSIBLE', decision: 'warn' }], 'Bash', { command: 'rm -rf src' }).verdict).toBe(
      'warn',
    )
    expect(
      verdictWith([{ id: 'RG-SCOPE', enabled: false }], 'Write', { file_path: '/etc/hosts', content: '' }).result.fired,
    ).toEqual([])
    // A copy of the packaged file (what `ratchet init` writes) changes nothing.
    expect(active(BUILTIN_RULES as unknown[]).rules.every((r) => !r.tuned)).toBe(true)
  })

  it.each([
    [{ id: 'RG-SELF', enabled: false }, 'RG-SELF: RG-SELF cannot be turned off'],
    [{ id: 'RG-SELF', decision: 'warn' }, 'RG-SELF: RG-SELF can only be deny'],
    [{ id: 'RG-CATASTROPHIC', enabled: false }, 'RG-CATASTROPHIC: RG-CATASTROPHIC cannot be turned off'],
    [{ id: 'RG-CATASTROPHIC', decision: 'check' }, 'RG-CATASTROPHIC: RG-CATASTROPHIC can only be ask or pause or deny'],
    [
      { id: 'RG-PUBLIC', pattern: 'git_push', rule: 'x', severity: 'soft' },
      'RG-PUBLIC: RG-PUBLIC is built in and always protects "public_surface"; give your rule another id',
    ],
    [{ id: 'RG-NOPE', enabled: false }, expect.stringMatching(/^RG-NOPE: no built-in has this id/)],
  ])('a tuning that cannot apply is reported and the built-in stays: %j', (entry, problem) => {
    const r = active([entry])
    expect(r.problems).toEqual([problem])
    const id = (entry as { id: string }).id
    const b = BUILTIN_RULES.find((x) => x.id === id)
    if (b) expect(r.rules.find((x) => x.id === id)).toMatchObject({ ...b, origin: 'built-in' })
  })

  it('RG-CATASTROPHIC may go to a human instead of a hard deny', () => {
    expect(
      verdictWith([{ id: 'RG-CATASTROPHIC', decision: 'ask' }], 'Bash', { command: 'dropdb prod' }).decision.kind,
    ).toBe('ask')
  })

  it.each([
    [['git@github.com:me/repo.git'], undefined, false],
    [['git@github.com:me/repo.git'], 'forges', true],
    [['https://gitlab.com/me/repo'], 'forges', true],
    [['ssh://git@code.internal:2222/repo.git'], 'forges', false],
    [['/srv/git/remote.git'], undefined, false],
    [[], true, false],
    [['/srv/git/remote.git'], true, true],
    [['git@github.com:me/repo.git'], false, false],
    [['https://git.corp.example/r.git'], ['corp.example'], true],
  ])('public remote: %j with publicRemotes=%j → %s', (urls, setting, expected) => {
    expect(isPublicRemote(urls, setting)).toBe(expected)
  })
})

// ---- a path rule on Read fires on the file read --------------------------------------------------
describe('path rules on reads', () => {
  const rules = [
    {
      id: 'R1',
      pattern: 'custom_r1',
      rule: 'Do not read the secrets folder.',
      severity: 'hard',
      match: { tools: ['Read', 'NotebookRead'], paths: ['secrets/**'] },
    },
    {
      id: 'R2',
      pattern: 'custom_r2',
      rule: 'Private notes stay private.',
      severity: 'soft',
      match: { paths: ['private/*.txt'] },
    },
    {
      id: 'R3',
      pattern: 'custom_r3',
      rule: 'Build output is not deleted by hand.',
      severity: 'soft',
      match: { tools: ['Bash'], paths: ['build/**'] },
    },
  ]
  const fired = (tool: string, input: Record<string, unknown>) =>
    verdictWith(rules, tool, input).result.fired.map((f) => f.id)
  it.each([
    ['Read', { file_path: `${PROJECT}/secrets/a.txt` }, ['R1']],
    ['Read', { file_path: 'secrets/deep/b.json' }, ['R1']],
    ['NotebookRead', { notebook_path: `${PROJECT}/secrets/n.ipynb` }, ['R1']],
    // No tool list: a read names the path as much as a write does.
    ['Read', { file_path: `${PROJECT}/private/x.txt` }, ['R2']],
    ['Write', { file_path: `${PROJECT}/private/x.txt`, content: 'x' }, ['R2']],
    // …and so does a command that reads it.
    ['Bash', { command: 'cat private/x.txt' }, ['R2']],
    ['Bash', { command: 'head -3 private/x.txt && ls' }, ['R2']],
  ])('must stop: %s %j', (tool, input, want) => {
    expect(fired(tool, input)).toEqual(want)
  })
  it.each([
    ['Read', { file_path: `${PROJECT}/README.md` }],
    ['Read', { file_path: `${PROJECT}/src/secrets.ts` }],
    // A Read rule is about reading: writing the folder is another rule's business.
    ['Write', { file_path: `${PROJECT}/secrets/a.txt`, content: 'x' }],
    // Other calls match by what they change: a Bash rule on build/** is about deleting it, not reading a log.
    ['Bash', { command: 'cat build/log.txt' }],
    ['Bash', { command: 'cat secrets/a.txt' }],
    ['Read', { file_path: `${PROJECT}/private/deep/x.txt` }],
    ['Bash', { command: 'cat private/deep/x.txt' }],
    ['Bash', { command: 'ls private' }],
  ])('must stay quiet: %s %j', (tool, input) => {
    expect(fired(tool, input)).toEqual([])
  })
  it('and the Bash rule still fires on what it is about', () => {
    expect(fired('Bash', { command: 'rm -rf build/out' })).toContain('R3')
  })
})

// ---- a command glob typed with the program's path --------------------------------------------------
describe('command globs name the program as typed', () => {
  const rules = [
    {
      id: 'D1',
      pattern: 'custom_d1',
      rule: 'Deploys go through CI.',
      severity: 'hard',
      match: { tools: ['Bash'], command: ['./deploy.sh*'] },
    },
    {
      id: 'D2',
      pattern: 'custom_d2',
      rule: 'Releases are tagged by CI.',
      severity: 'soft',
      match: { tools: ['Bash'], command: ['scripts/release.sh *'] },
    },
    {
      id: 'D3',
      pattern: 'custom_d3',
      rule: 'No pushes of feature branches.',
      severity: 'soft',
      match: { tools: ['Bash'], command: ['git push origin feature/*'] },
    },
  ]
  const fired = (command: string) =>
    verdictWith(rules, 'Bash', { command })
      .result.fired.map((f) => f.id)
      .filter((id) => id.startsWith('D'))
  it.each([
    ['./deploy.sh prod', ['D1']],
    ['deploy.sh prod', ['D1']],
    ['/home/u/project/deploy.sh', ['D1']],
    ['scripts/release.sh 1.2.0', ['D2']],
    ['cd scripts && ./release.sh 1.2.0', ['D2']],
    ['git push origin feature/login', ['D3']],
  ])('must stop: %s', (command, want) => {
    expect(fired(command)).toEqual(want)
  })
  it.each(['./build.sh prod', 'cat deploy.sh', 'git push origin main', 'release 1.2.0', 'echo ./deploy.sh'])(
    'must stay quiet: %s',
    (command) => {
      expect(fired(command)).toEqual([])
    },
  )
})

// ---- a rule on a pattern hears of every such call, undoable ones too --------------------------------
describe('a rule naming file_delete fires on deletes git can undo', () => {
  const clean = { fileState: () => 'tracked-clean' as const, fileExists: () => true }
  const data = {
    id: 'U-DATA',
    pattern: 'file_delete',
    rule: 'Data files are never deleted by the agent.',
    severity: 'hard',
    match: { paths: ['data/**'] },
  }
  const everyDelete = {
    id: 'U-ALL',
    pattern: 'file_delete',
    rule: 'Say when you delete.',
    severity: 'soft',
    decision: 'warn',
  }
  const byClass = {
    id: 'U-IRR',
    pattern: 'irreversible',
    rule: 'Unrecoverable things wait.',
    severity: 'soft',
    decision: 'pause',
  }
  const run = (rules: unknown[], command: string) => verdictWith(rules, 'Bash', { command }, clean)
  it.each([
    [[data], 'rm data/a.csv', ['U-DATA'], 'deny'],
    [[data], 'rm -rf data', ['U-DATA'], 'deny'],
    [[everyDelete], 'rm src/old.js', ['U-ALL'], 'warn'],
  ])('must stop: %j %s', (rules, command, ids, verdict) => {
    const out = run(rules, command)
    expect(out.result.fired.map((f) => f.id)).toEqual(ids)
    expect(out.verdict).toBe(verdict)
  })
  it.each([
    [[data], 'rm build/out.js'],
    // The built-ins and a rule on the class stay quiet: git brings the file back.
    [[], 'rm data/a.csv'],
    [[byClass], 'rm data/a.csv'],
    [[data], 'cat data/a.csv'],
  ])('must stay quiet: %j %s', (rules, command) => {
    const out = run(rules, command)
    expect(out.result.fired).toEqual([])
    expect(out.verdict).toBe('allow')
  })
})

describe('git rm is a delete', () => {
  const data = {
    id: 'U-DATA',
    pattern: 'file_delete',
    rule: 'Data files are never deleted by the agent.',
    severity: 'hard',
    match: { paths: ['data/**'] },
  }
  const fired = (
    command: string,
    state: 'tracked-clean' | 'tracked-modified' = 'tracked-clean',
    rules: unknown[] = [data],
  ) =>
    verdictWith(rules, 'Bash', { command }, { fileState: () => state, fileExists: () => true }).result.fired.map(
      (f) => f.id,
    )
  it.each(['git rm data/a.csv', 'git rm -r -q data', 'git -C . rm data/a.csv', 'git rm -rf data'])(
    'must stop: %s',
    (command) => {
      expect(fired(command)).toContain('U-DATA')
    },
  )
  it.each(['git rm --cached data/a.csv', 'git rm -n data/a.csv', 'git rm src/old.js', 'git mv data/a.csv data/b.csv'])(
    'must stay quiet: %s',
    (command) => {
      expect(fired(command)).toEqual([])
    },
  )
  it('the built-ins stay quiet on what git holds, and weigh a forced delete of changes', () => {
    expect(fired('git rm data/a.csv', 'tracked-clean', [])).toEqual([])
    expect(
      verdictWith(
        [],
        'Bash',
        { command: 'git rm -f data/a.csv' },
        { fileState: () => 'tracked-modified' as const, fileExists: () => true },
      ).result.action.findings.map((f) => f.pattern),
    ).toContain('file_delete')
  })
})
