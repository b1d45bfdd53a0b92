// Code forges: creating or merging PRs, issues, releases, gists and repos; deleting repos and releases.

import { lastPart, withRows, type RowArgs, type RowTable } from './rows'
import type { Detector, FamilyMeta } from './types'
import { operandsAfter } from './util'

export const meta: FamilyMeta = {
  id: 'forge',
  classes: ['public_surface', 'irreversible'],
  patterns: ['pr_or_issue_create', 'infra_destroy', 'remote_delete', 'deploy', 'secret_access'],
  description:
    'Forge CLIs (gh, glab, hub): creating, commenting on or merging PRs, issues, releases; deleting repos and releases; production workflow runs',
  examples: [
    'gh pr create --fill',
    'gh api -X POST repos/o/r/issues',
    'glab mr merge 3',
    'gh repo delete o/r',
    'gh workflow run deploy.yml -f environment=production',
  ],
}

const GH_VALUES = ['-R', '--repo', '--hostname']
/** gh api options that send a body: with one, the request is a POST unless -X says otherwise. */
const BODY = /^(-f|-F|--field|--raw-field|--input)(=|$)/

function apiMethod(args: string[]): string {
  const i = args.findIndex((a) => /^(-X|--method)$/.test(a))
  const explicit =
    i >= 0 ? args[i + 1] : args.find((a) => /^(-X.+|--method=.+)$/.test(a))?.replace(/^(-X|--method=)/, '')
  return (explicit ?? (args.some((a) => BODY.test(a)) ? 'POST' : 'GET')).toUpperCase()
}
/** The endpoint of `gh api`: its first operand that is not an option's value. */
const apiPath = (a: RowArgs) =>
  a.args.filter(
    (x, i) =>
      !x.startsWith('-') &&
      !/^(-X|--method|-f|-F|--field|--raw-field|--input|-H|--header|-q|--jq|-t|--template|--hostname|-p|--preview|--cache)$/.test(
        a.args[i - 1] ?? '',
      ),
  )[1] ?? ''
const repoOf = (a: RowArgs) => a.opt('-R', '--repo') ?? 'this folder’s repository'
const COMMENTS = /\/comments$|\/(issues|pulls)\/\d+\/reviews$|\/discussions\/\d+\/comments$/

export const rows: Record<string, RowTable> = {
  gh: {
    values: GH_VALUES,
    rows: [
      {
        cmd: ['repo', 'delete'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) =>
          `GitHub repository ${a.rest[0] ?? a.opt('-R', '--repo') ?? '(this folder’s)'} with its issues, pull requests, wiki and releases`,
        names: (a) => [a.rest[0] ? [a.rest[0], lastPart(a.rest[0])] : (a.opt('-R', '--repo') ?? 'repo')],
      },
      {
        cmd: ['release', 'delete'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) =>
          `release ${a.rest[0] ?? '(unnamed)'} of ${repoOf(a)} with its assets and notes${a.has('--cleanup-tag') ? ', and its tag' : ''}`,
        names: (a) => [a.rest[0]],
      },
      {
        cmd: ['release', 'delete-asset'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `asset ${a.rest[1] ?? ''} of release ${a.rest[0] ?? ''} (${repoOf(a)})`,
        names: (a) => [a.rest[1]],
      },
      {
        cmd: [/^(issue|pr)$/, 'comment'],
        when: (a) => !a.has('--delete-last'),
        pattern: 'pr_or_issue_create',
        kind: 'sends',
        what: (a) =>
          `a comment on ${a.ops[0] === 'pr' ? 'pull request' : 'issue'} ${a.rest[0] ?? '(the current one)'} of ${repoOf(a)} (everyone watching it is notified)`,
        names: (a) => [[a.rest[0] ?? '', `#${a.rest[0] ?? ''}`, a.ops[0] === 'pr' ? 'pr' : 'issue', 'pull request']],
      },
      {
        cmd: ['api'],
        when: (a) => apiMethod(a.args) === 'DELETE',
        pattern: 'remote_delete',
        kind: 'destroys',
        what: (a) => `DELETE ${apiPath(a)} on GitHub${a.opt('--hostname') ? ` (${a.opt('--hostname')})` : ''}`,
        names: (a) => [lastPart(apiPath(a))],
      },
      {
        cmd: ['api'],
        when: (a) => apiMethod(a.args) === 'POST' && COMMENTS.test(apiPath(a).replace(/^\//, '')),
        pattern: 'pr_or_issue_create',
        kind: 'sends',
        what: (a) => `a comment posted to ${apiPath(a)} (everyone watching it is notified)`,
        names: (a) => [[(/(\d+)\/(comments|reviews)$/.exec(apiPath(a)) ?? [])[1] ?? '', 'comment']],
      },
    ],
  },
  glab: {
    values: ['-R', '--repo'],
    rows: [
      {
        cmd: ['repo', 'delete'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `GitLab project ${a.rest[0] ?? '(this folder’s)'} with its issues, merge requests and releases`,
        names: (a) => [a.rest[0] ? [a.rest[0], lastPart(a.rest[0])] : 'repo'],
      },
      {
        cmd: ['release', 'delete'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `GitLab release ${a.rest[0] ?? '(unnamed)'} with its assets`,
        names: (a) => [a.rest[0]],
      },
      {
        cmd: [/^(mr|issue)$/, 'note'],
        pattern: 'pr_or_issue_create',
        kind: 'sends',
        what: (a) =>
          `a comment on ${a.ops[0] === 'mr' ? 'merge request' : 'issue'} ${a.rest[0] ?? ''} (everyone watching it is notified)`,
        names: (a) => [[a.rest[0] ?? '', a.ops[0] === 'mr' ? 'mr' : 'issue', 'merge request']],
      },
    ],
  },
}

const own: Record<string, Detector> = {
  gh: (c, inv, f) => {
    const [noun, verb] = operandsAfter(inv.args, GH_VALUES)
    if (
      (/^(pr|issue|release|gist|repo)$/.test(noun ?? '') &&
        /^(create|new|merge|comment|edit|upload|close|reopen|review)$/.test(verb ?? '')) ||
      (noun === 'api' && apiMethod(inv.args) !== 'GET')
    )
      c.add('pr_or_issue_create', f.cmd)
    // A workflow run against production is a deploy (the workflow file or its inputs say so).
    if (
      noun === 'workflow' &&
      verb === 'run' &&
      inv.args.some((a) => /(^|=)(prod|production|live)$/i.test(a) || /deploy|release|publish/i.test(a))
    )
      c.add('deploy', f.cmd)
    if (noun === 'auth' && verb === 'token') {
      c.secrets.add('the GitHub token')
      c.add('secret_access', f.cmd)
    }
  },
  glab: (c, inv, f) => {
    const [noun, verb] = operandsAfter(inv.args, ['-R', '--repo'])
    if (/^(mr|issue|release)$/.test(noun ?? '') && /^(create|merge|note)$/.test(verb ?? ''))
      c.add('pr_or_issue_create', f.cmd)
  },
  hub: (c, _inv, f) => {
    if (/^(pull-request|release|issue|create)$/.test(f.operands[0] ?? '')) c.add('pr_or_issue_create', f.cmd)
  },
}

export const programs: Record<string, Detector> = withRows(own, rows)

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [own, rows]) Object.setPrototypeOf(table, null)
