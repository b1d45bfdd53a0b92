// What cannot be undone, at the decision (issue 19 item 2), family by family: unasked, it waits for a human on the
// first try and on the retry; asked for by name, it is a check that names what goes (its retry runs); a local
// development database the user asked to reset runs quietly; and every must-stop has a quiet twin. Pure: the
// whole PreToolUse composition over facts, with the built-in rules. The same forms through the built hook and
// the real client: test/e2e/irrevocable.test.ts.
import { describe, expect, it } from 'vitest'
import { decidePreToolUse } from '../../../hooks/preflight-check/compose'
import type { PreflightFacts } from '../../../hooks/preflight-check/facts'
import { withBuiltins } from '../../../lib/core/builtins'
import { compileRules } from '../../../lib/core/rule-match'
import type { PendingEntry } from '../../../lib/core/pending'
import type { ToolCall } from '../../../lib/core/classify'

const NOW = 1_800_000_000_000
const ORDINARY = 'fix the failing date test in src/dates.ts'

function facts(prompt: string, over: Partial<PreflightFacts> = {}): PreflightFacts {
  return {
    now: NOW,
    fingerprint: 'fp',
    projectDir: '/p',
    homeDir: '/home/u',
    stateDir: '/p/.ratchet',
    rules: compileRules(withBuiltins([]).rules),
    problems: [],
    fallback: false,
    session: { reads: {}, prompts: [prompt], checks: {} },
    queue: { undelivered: [] },
    hold: null,
    config: { checkWindowMs: 600_000, defer: false, telegram: false },
    fileExists: () => true,
    currentBranch: () => 'feature',
    env: () => undefined,
    ...over,
  }
}
const call = (input: string | ToolCall) => ({
  session_id: 's',
  cwd: '/p',
  ...(typeof input === 'string' ? { tool_name: 'Bash', tool_input: { command: input } } : input),
})
const decide = (input: string | ToolCall, prompt: string, over: Partial<PreflightFacts> = {}) =>
  decidePreToolUse(call(input), facts(prompt, over))
const reason = (o: ReturnType<typeof decide>) => ('reason' in o.decision ? o.decision.reason : '')
const open = (id: string): PendingEntry => ({
  id,
  action: 'x',
  trigger: 't',
  context: 'c',
  severity: 'destructive',
  requested_at: new Date(NOW - 1000).toISOString(),
  status: 'pending',
  timeout: null,
  fingerprint: 'fp',
  decided_at: null,
  decided_by: null,
  reply: null,
  notified: false,
  session_id: 's',
  delivered: false,
})
const mcp = (tool_name: string, tool_input: Record<string, unknown>): ToolCall => ({ tool_name, tool_input })

interface Case {
  family: string
  /** The call that cannot be undone. */
  input: string | ToolCall
  /** What the note must name. */
  what: RegExp
  /** A prompt asking for exactly this. */
  asked: string
  /** The same tool doing something that can be undone or nothing at all: quiet after the same request. */
  twin: string | ToolCall
  over?: Partial<PreflightFacts>
}

const CASES: Case[] = [
  {
    family: 'deploy',
    input: 'terraform destroy -auto-approve',
    what: /Destroys: every resource in the Terraform state of the project folder/,
    asked: 'run terraform destroy, the sandbox is done',
    twin: 'terraform plan',
  },
  {
    family: 'deploy',
    input: 'kubectl delete ns prod',
    what: /Destroys: namespace prod and everything in it/,
    asked: 'delete the prod namespace',
    twin: 'kubectl get ns prod',
  },
  {
    family: 'deploy',
    input: 'helm uninstall api -n prod',
    what: /Destroys: Helm release api in namespace prod/,
    asked: 'uninstall the api release from prod',
    twin: 'helm status api -n prod',
  },
  {
    family: 'deploy',
    input: 'heroku apps:destroy -a myapp --confirm myapp',
    what: /Destroys: Heroku app myapp/,
    asked: 'destroy the heroku app myapp',
    twin: 'heroku apps:info -a myapp',
  },
  {
    family: 'deploy',
    input: 'fly apps destroy myapp -y',
    what: /Destroys: Fly\.io app myapp/,
    asked: 'destroy the fly app myapp',
    twin: 'fly status -a myapp',
  },
  {
    family: 'cloud',
    input: 'aws s3 rm s3://prod-assets/ --recursive',
    what: /Destroys: every object under s3:\/\/prod-assets\//,
    asked: 'empty the prod-assets bucket (delete everything in it)',
    twin: 'aws s3 ls s3://prod-assets/',
  },
  {
    family: 'cloud',
    input: 'gcloud projects delete my-proj --quiet',
    what: /Destroys: Google Cloud project my-proj and every resource in it/,
    asked: 'delete the gcloud project my-proj',
    twin: 'gcloud projects describe my-proj',
  },
  {
    family: 'cloud',
    input: 'az group delete -n rg-prod --yes',
    what: /Destroys: Azure resource group rg-prod/,
    asked: 'delete resource group rg-prod',
    twin: 'az group show -n rg-prod',
  },
  {
    family: 'forge',
    input: 'gh repo delete me/app --yes',
    what: /Destroys: GitHub repository me\/app/,
    asked: 'delete the me/app repo on GitHub',
    twin: 'gh repo view me/app',
  },
  {
    family: 'forge',
    input: 'gh release delete v1.2.0 --yes',
    what: /Destroys: release v1\.2\.0/,
    asked: 'delete release v1.2.0',
    twin: 'gh release view v1.2.0',
  },
  {
    family: 'forge',
    input: 'gh api repos/o/r/issues/1/comments -f body=fixed',
    what: /Sends: a comment posted to repos\/o\/r\/issues\/1\/comments/,
    asked: 'comment on issue 1 that it is fixed',
    twin: 'gh api repos/o/r/issues/1/comments',
  },
  {
    family: 'publish',
    input: 'npm unpublish mypkg@1.0.0 --force',
    what: /Destroys: version 1\.0\.0 of mypkg from the npm registry/,
    asked: 'unpublish mypkg 1.0.0, it was broken',
    twin: 'npm view mypkg@1.0.0',
  },
  {
    family: 'containers',
    input: 'docker system prune -af --volumes',
    what: /Destroys: every unused volume and the data in it/,
    asked: 'prune docker, volumes included',
    twin: 'docker system df',
  },
  {
    family: 'database',
    input: 'psql -h db.internal -d app -c "TRUNCATE users"',
    what: /Destroys: every row of users \(app on db\.internal\)/,
    asked: 'truncate the users table on db.internal',
    twin: 'psql -h db.internal -d app -c "SELECT count(*) FROM users"',
  },
  {
    family: 'database',
    input: 'psql -c "DELETE FROM orders"',
    what: /Destroys: every row of orders/,
    asked: 'delete all the orders rows',
    twin: 'psql -c "SELECT * FROM orders LIMIT 5"',
    over: { env: undefined },
  },
  {
    family: 'database',
    input: 'npx prisma db push --accept-data-loss',
    what: /Destroys: the tables and columns the schema no longer has/,
    asked: 'push the schema with prisma and accept the data loss, drop the old columns',
    twin: 'npx prisma db push',
  },
  {
    family: 'database',
    input: 'alembic downgrade base',
    what: /Destroys: the tables and columns added by every migration after base/,
    asked: 'downgrade the alembic migrations to base',
    twin: 'alembic upgrade head',
  },
  {
    family: 'database',
    input: 'flyway clean',
    what: /Destroys: every table, view and row in the configured schemas/,
    asked: 'run flyway clean on the database',
    twin: 'flyway info',
  },
  {
    family: 'database',
    input: 'npx knex migrate:rollback --all',
    what: /Destroys: the tables and columns of every migration batch/,
    asked: 'roll back every knex migration',
    twin: 'npx knex migrate:latest',
  },
  {
    family: 'database',
    input: "mongosh mongodb://db.prod/app --eval 'db.users.drop()'",
    what: /Destroys: collection users and every document in it \(app on db\.prod\)/,
    asked: 'drop the users collection on db.prod',
    twin: "mongosh mongodb://db.prod/app --eval 'db.users.countDocuments()'",
  },
  {
    family: 'database',
    input: mcp('mcp__postgres__query', { sql: 'TRUNCATE sessions' }),
    what: /Destroys: every row of sessions \(the database behind MCP server postgres\)/,
    asked: 'truncate sessions through the postgres tool',
    twin: mcp('mcp__postgres__query', { sql: 'SELECT 1' }),
  },
  {
    family: 'payments',
    input: 'stripe refunds create --charge ch_123',
    what: /Pays: a refund for ch_123 on Stripe/,
    asked: 'refund charge ch_123',
    twin: 'stripe refunds list',
  },
  {
    family: 'network',
    input: 'curl -X DELETE https://api.example.com/v1/users/42',
    what: /Destroys: what https:\/\/api\.example\.com\/v1\/users\/42 names/,
    asked: 'delete user 42 through the admin API',
    twin: 'curl https://api.example.com/v1/users/42',
  },
  {
    family: 'git',
    input: 'git push origin --delete feature/old',
    what: /Destroys: ref feature\/old on remote origin/,
    asked: 'delete the feature/old branch on origin',
    twin: 'git branch -r',
  },
  {
    family: 'git',
    input: 'git push --force origin feature/old',
    what: /Destroys: the commits on feature\/old at remote origin that the push does not keep/,
    asked: 'rebase feature/old on main and force-push feature/old',
    twin: 'git push origin feature/old',
  },
  {
    family: 'mail',
    input: 'echo hi | mail -s report boss@example.com',
    what: /Sends: mail to boss@example\.com/,
    asked: 'email the report to boss@example.com',
    twin: 'cat report.txt',
  },
  {
    family: 'mcp',
    input: mcp('mcp__slack__post_message', { channel: '#general', text: 'deployed' }),
    what: /Sends: post message through slack \(channel #general\)/,
    asked: 'post "deployed" to #general on slack',
    twin: mcp('mcp__slack__list_channels', {}),
  },
  {
    family: 'mcp',
    input: mcp('mcp__github__delete_repository', { owner: 'me', repo: 'app' }),
    what: /Destroys: delete repository through github \(owner me, repo app\)/,
    asked: 'delete the me/app repository',
    twin: mcp('mcp__github__get_repository', { owner: 'me', repo: 'app' }),
  },
  {
    family: 'schedule',
    input: 'crontab -r',
    what: /Destroys: every job in the user’s crontab/,
    asked: 'remove my crontab',
    twin: 'crontab -l',
  },
]

describe('what cannot be undone, unasked: a human decides, on the first try and on the retry', () => {
  it.each(CASES.map((c) => [c.family, typeof c.input === 'string' ? c.input : c.input.tool_name, c] as const))(
    '%s: %s',
    (_f, _l, c) => {
      // The email and public-post families also pause for their first use: here every capability is already used.
      const first = decide(c.input, ORDINARY, { isNewCapability: () => false, ...c.over })
      expect(first.verdict, reason(first)).toBe('pause')
      expect(reason(first)).toMatch(c.what)
      expect(reason(first)).toMatch(/cannot be undone, and the user's latest message did not ask for it/)
      const entry = first.effects.find((e) => e.kind === 'enqueue')
      // The human sees the same words in the pending entry.
      expect(entry && 'entry' in entry ? entry.entry.context : '').toMatch(
        new RegExp(c.what.source.replace(/^(Destroys|Sends|Pays): /, '')),
      )
      // The identical retry (the check's window, and the queue's open entry): still the human's.
      const retry = decide(c.input, ORDINARY, {
        isNewCapability: () => false,
        session: { reads: {}, prompts: [ORDINARY], checks: { fp: NOW - 1000 } },
        queue: { open: open('pa-1'), undelivered: [] },
        ...c.over,
      })
      expect(retry.verdict).toBe('pause')
      expect(retry.decision.kind).toBe('deny')
    },
  )
})

describe('asked for by name: a check that names what goes; its retry runs', () => {
  it.each(CASES.map((c) => [c.family, c.asked, c] as const))('%s: %j', (_f, _p, c) => {
    const first = decide(c.input, c.asked, { isNewCapability: () => false, ...c.over })
    expect(first.verdict, reason(first)).toBe('check')
    expect(reason(first)).toMatch(c.what)
    const retry = decide(c.input, c.asked, {
      isNewCapability: () => false,
      session: { reads: {}, prompts: [c.asked], checks: { fp: NOW - 1000 } },
      ...c.over,
    })
    expect(retry.verdict).toBe('proceeded_after_check')
  })
})

describe('the quiet twins: the same tools doing what can be undone, after the same request', () => {
  it.each(CASES.map((c) => [c.family, typeof c.twin === 'string' ? c.twin : c.twin.tool_name, c] as const))(
    '%s: %s',
    (_f, _l, c) => {
      const out = decide(c.twin, c.asked, { isNewCapability: () => false, ...c.over })
      expect(out.decision.kind, reason(out)).toBe('allow')
    },
  )
})

describe('a request covers exactly what it names', () => {
  it.each([
    ['kubectl delete ns prod', 'delete the staging namespace', 'pause'],
    ['psql -h db.internal -c "TRUNCATE users, orders"', 'truncate the users table', 'pause'],
    ['psql -h db.internal -c "TRUNCATE users, orders"', 'truncate users and orders', 'check'],
    ['kubectl delete ns prod', "don't delete the prod namespace", 'pause'],
    ['kubectl delete ns prod', 'what would deleting the prod namespace do?', 'pause'],
    ['kubectl delete ns prod', 'should we delete the prod namespace?', 'pause'],
    ['terraform destroy -auto-approve', 'tear down the infra', 'pause'],
    ['stripe refunds create --charge ch_999', 'refund charge ch_123', 'pause'],
    ['aws s3 rm s3://prod-assets/ --recursive', 'delete the old logs from prod-assets', 'check'],
  ])('%s after %j → %s', (command, prompt, verdict) => {
    expect(decide(command, prompt).verdict).toBe(verdict)
  })
})

describe('a local development database the user asked to reset runs quietly; elsewhere it is a check', () => {
  const env = (vars: Record<string, string>) => ({ env: (n: string) => vars[n] })
  const dotenv = (text: string): Partial<PreflightFacts> => ({
    fs: {
      realpath: (p) => p,
      isDir: () => false,
      list: () => undefined,
      readText: (p) => (p === '/p/.env' ? text : undefined),
    },
  })
  it.each<[string, string, Partial<PreflightFacts>, string]>([
    ['psql -h localhost -d app_dev -c "TRUNCATE users"', 'truncate the users table in app_dev', {}, 'allow'],
    ['psql -c "TRUNCATE users"', 'truncate the users table', env({}), 'allow'],
    ['psql -c "TRUNCATE users"', 'truncate the users table', env({ PGHOST: 'db.prod.internal' }), 'check'],
    [
      'npx prisma migrate reset --force',
      'reset the local database',
      dotenv('DATABASE_URL=postgresql://dev@localhost:5432/app_dev\n'),
      'allow',
    ],
    [
      'npx prisma migrate reset --force',
      'reset the database',
      dotenv('DATABASE_URL=postgresql://u@db.prod.example.com/app\n'),
      'check',
    ],
    [
      'npx prisma migrate reset --force',
      'fix the failing test',
      dotenv('DATABASE_URL=postgresql://dev@localhost:5432/app_dev\n'),
      'pause',
    ],
    ['supabase db reset', 'reset the supabase db', {}, 'allow'],
    ['rails db:reset', 'reset the dev database', env({}), 'allow'],
    ['RAILS_ENV=production rails db:reset', 'reset the database', env({}), 'check'],
    ['sqlite3 data/app.db "DELETE FROM sessions"', 'delete every row of sessions', {}, 'allow'],
  ])('%s after %j → %s', (command, prompt, over, verdict) => {
    expect(decide(command, prompt, over).verdict).toBe(verdict)
  })
})
