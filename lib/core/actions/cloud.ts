// Cloud CLIs: copying to buckets, deleting or terminating resources, deploying, sending mail.

import { lastPart, withRows, type RowArgs, type RowTable } from './rows'
import type { Detector, FamilyMeta } from './types'
import { dryRun, operandsAfter } from './util'

const AWS_VALUES = [
  '--profile',
  '--region',
  '--output',
  '--endpoint-url',
  '--ca-bundle',
  '--cli-read-timeout',
  '--cli-connect-timeout',
  '--color',
]

export const meta: FamilyMeta = {
  id: 'cloud',
  classes: ['public_surface', 'irreversible'],
  patterns: ['remote_copy', 'infra_destroy', 'email_send', 'deploy', 'secret_access'],
  description: 'Cloud CLIs (aws, gcloud, az, doctl, gsutil): bucket copies, deletions and terminations, deployments',
  examples: [
    'aws s3 cp site/ s3://bucket/ --recursive',
    'aws ec2 terminate-instances --instance-ids i-1',
    'gcloud run deploy',
  ],
}

// ---- what cannot be undone: one row per command form (rows.ts) ----------------------------------------

/** `s3://bucket/prefix` → the bucket and the prefix's last part: the names a request uses. */
const bucketNames = (uri: string | undefined) => {
  const m = /^(?:s3|gs):\/\/([^/]+)\/?(.*)$/.exec(uri ?? '')
  return m ? [m[1], ...(m[2] ? [lastPart(m[2])] : [])] : [uri]
}
const objects = (uri: string | undefined, recursive: boolean) =>
  recursive ? `every object under ${uri ?? '(no location)'}` : `object ${uri ?? '(no location)'}`

/** The ids and names an aws call acts on (`--instance-ids i-1`, `--db-instance-identifier x`, `--bucket b`). */
function awsIds(a: RowArgs): string[] {
  const out: string[] = []
  a.args.forEach((x, i) => {
    const m = /^--([\w-]+?)(?:=(.*))?$/.exec(x)
    if (!m || !/(-ids?|-names?|-identifiers?|-arns?|^bucket|^key|^cluster|^service|-urls?|^function-name)$/.test(m[1]))
      return
    const v = m[2] ?? a.args[i + 1]
    if (v !== undefined && !v.startsWith('-')) out.push(v)
  })
  return out
}

/** The words after a CLI's verb, up to its first option: `gcloud compute instances delete vm1 vm2 --zone z` → vm1, vm2. */
function afterVerb(a: RowArgs, verb: RegExp): { noun: string[]; names: string[] } {
  const k = a.args.findIndex((x) => verb.test(x))
  const noun = a.args.slice(0, k).filter((x) => !x.startsWith('-'))
  const names: string[] = []
  for (const x of a.args.slice(k + 1)) {
    if (x.startsWith('-')) break
    names.push(x)
  }
  return { noun, names }
}
const hasVerb = (verb: RegExp) => (a: RowArgs) =>
  a.args.some((x) => verb.test(x)) && !a.args.some((x) => x === '--help' || x === '-h')

const GCLOUD_WHAT: Record<string, string> = {
  projects: 'Google Cloud project',
  'compute instances': 'Compute Engine instance',
  'sql instances': 'Cloud SQL instance',
  'sql databases': 'Cloud SQL database',
  'container clusters': 'GKE cluster',
  'storage buckets': 'Cloud Storage bucket',
  'run services': 'Cloud Run service',
  functions: 'Cloud Function',
}

export const rows: Record<string, RowTable> = {
  aws: {
    values: AWS_VALUES,
    rows: [
      {
        cmd: ['s3', 'rm'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => objects(a.rest[0], a.has('--recursive')),
        names: (a) => bucketNames(a.rest[0]),
      },
      {
        cmd: ['s3', 'rb'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) =>
          `bucket ${a.rest[0] ?? ''}${a.has('--force') ? ' and every object in it' : ''} (its name can then be taken by anyone)`,
        names: (a) => bucketNames(a.rest[0]),
      },
      {
        cmd: ['s3', 'sync'],
        when: (a) => a.has('--delete') && (a.rest[1] ?? '').startsWith('s3://'),
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `every object under ${a.rest[1]} that ${a.rest[0]} does not have`,
        names: (a) => bucketNames(a.rest[1]),
      },
      {
        cmd: [/^[a-z0-9-]+$/, /^(delete|terminate|purge)-/],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) =>
          `${a.ops[1]} ${awsIds(a).join(', ') || a.rest.join(' ') || ''} (aws ${a.ops[0]})`.replace(/ +\(/, ' ('),
        names: (a) => (awsIds(a).length ? awsIds(a).map(lastPart) : [a.ops[0]]),
      },
    ],
  },
  gcloud: {
    rows: [
      {
        cmd: [],
        when: hasVerb(/^delete$/),
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => {
          const { noun, names } = afterVerb(a, /^delete$/)
          const key = noun.filter((n) => n !== 'beta' && n !== 'alpha').join(' ')
          return `${GCLOUD_WHAT[key] ?? key} ${names.join(', ') || '(unnamed)'}${key === 'projects' ? ' and every resource in it' : ''}${a.opt('--project') ? ` (project ${a.opt('--project')})` : ''}`
        },
        names: (a) => afterVerb(a, /^delete$/).names.map(lastPart),
      },
      {
        cmd: ['storage', 'rm'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => a.rest.map((u) => objects(u, a.has('-r', '--recursive') || /\*\*?$/.test(u))).join(', '),
        names: (a) => a.rest.flatMap(bucketNames),
      },
    ],
  },
  az: {
    rows: [
      {
        cmd: [],
        when: hasVerb(/^delete$/),
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => {
          const { noun } = afterVerb(a, /^delete$/)
          const name = a.opt('-n', '--name') ?? (noun[0] === 'group' ? a.opt('-g', '--resource-group') : undefined)
          return noun[0] === 'group'
            ? `Azure resource group ${name ?? '(unnamed)'} and every resource in it`
            : `Azure ${noun.join(' ')} ${name ?? a.opt('--ids') ?? '(unnamed)'}${a.opt('-g', '--resource-group') ? ` in resource group ${a.opt('-g', '--resource-group')}` : ''}`
        },
        names: (a) => [a.opt('-n', '--name') ?? a.opt('-g', '--resource-group') ?? a.opt('--ids')],
      },
    ],
  },
  doctl: {
    rows: [
      {
        cmd: [],
        when: hasVerb(/^(delete|rm|d)$/),
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => {
          const { noun, names } = afterVerb(a, /^(delete|rm|d)$/)
          return `DigitalOcean ${noun.join(' ')} ${names.join(', ') || '(unnamed)'}`
        },
        names: (a) => afterVerb(a, /^(delete|rm|d)$/).names,
      },
    ],
  },
  gsutil: {
    values: ['-o', '-h', '-p', '-u'],
    rows: [
      {
        cmd: ['rm'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => a.rest.map((u) => objects(u, a.has('-r', '-R', '-a') || /\*\*?$/.test(u))).join(', '),
        names: (a) => a.rest.flatMap(bucketNames),
      },
      {
        cmd: ['rb'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `bucket ${a.rest.join(', ')} (its name can then be taken by anyone)`,
        names: (a) => a.rest.flatMap(bucketNames),
      },
      {
        cmd: ['rsync'],
        when: (a) => a.has('-d') && /^gs:\/\//.test(a.rest[a.rest.length - 1] ?? ''),
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `every object under ${a.rest[a.rest.length - 1]} that ${a.rest[0]} does not have`,
        names: (a) => bucketNames(a.rest[a.rest.length - 1]),
      },
    ],
  },
}

const own: Record<string, Detector> = {
  aws: (c, inv, f) => {
    const ops = operandsAfter(inv.args, AWS_VALUES)
    const [svc, op] = ops
    // `--dryrun` (s3) and `--dry-run` (ec2) change nothing.
    if (dryRun(inv.args)) return
    if (svc === 'configure' && op === 'get' && /secret|key|token/i.test(ops[2] ?? '')) {
      c.secrets.add('AWS credentials')
      c.add('secret_access', f.cmd)
    }
    // An upload has a local source and an s3:// destination; an option's stray value (`--acl public-read`) never hides it.
    if (
      svc === 's3' &&
      (op === 'cp' || op === 'sync' || op === 'mv') &&
      ops.slice(3).some((o) => o.startsWith('s3://')) &&
      !(ops[2] ?? '').startsWith('s3://')
    )
      c.add('remote_copy', f.cmd)
    if ((svc === 's3' && (op === 'rm' || op === 'rb')) || /^(delete-|terminate-|remove-|deregister-)/.test(op ?? ''))
      c.add('infra_destroy', f.cmd)
    if (svc === 'ses' || svc === 'sesv2' || (svc === 'sns' && op === 'publish')) c.add('email_send', f.cmd)
    if (/deploy|update-function-code|create-deployment/.test(op ?? '')) c.add('deploy', f.cmd)
  },
  gcloud: (c, inv, f) => {
    if (inv.args.includes('print-access-token') || inv.args.includes('print-identity-token')) {
      c.secrets.add('a gcloud token')
      c.add('secret_access', f.cmd)
    }
    if (inv.args.includes('delete')) c.add('infra_destroy', f.cmd)
    if (inv.args.includes('deploy')) c.add('deploy', f.cmd)
  },
  az: (c, inv, f) => {
    if (inv.args.includes('delete')) c.add('infra_destroy', f.cmd)
    if (inv.args.some((a) => /^deploy/.test(a))) c.add('deploy', f.cmd)
  },
  doctl: (c, inv, f) => {
    if (inv.args.includes('delete')) c.add('infra_destroy', f.cmd)
  },
  gsutil: (c, _inv, f) => {
    const sub = f.operands[0]
    if ((sub === 'cp' || sub === 'rsync' || sub === 'mv') && /^gs:\/\//.test(f.operands[f.operands.length - 1] ?? ''))
      c.add('remote_copy', f.cmd)
    if (sub === 'rm' || sub === 'rb') c.add('infra_destroy', f.cmd)
  },
}

export const programs: Record<string, Detector> = withRows(own, rows)

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [own, rows, GCLOUD_WHAT]) Object.setPrototypeOf(table, null)
