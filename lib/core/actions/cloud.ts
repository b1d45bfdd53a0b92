// Cloud CLIs: copying to buckets, deleting or terminating resources, deploying, sending mail.

import type { Detector, FamilyMeta } from './types'
import { dryRun, operandsAfter } from './util'

export const meta: FamilyMeta = {
  id: 'cloud',
  classes: ['public_surface', 'irreversible'],
  patterns: ['remote_copy', 'infra_destroy', 'email_send', 'deploy', 'secret_access'],
  description: 'Cloud CLIs (aws, gcloud, az, doctl, gsutil): bucket copies, deletions and terminations, deployments',
  examples: ['aws s3 cp site/ s3://bucket/ --recursive', 'aws ec2 terminate-instances --instance-ids i-1', 'gcloud run deploy'],
}

export const programs: Record<string, Detector> = {
  aws: (c, inv, f) => {
    const ops = operandsAfter(inv.args, ['--profile', '--region', '--output', '--endpoint-url', '--ca-bundle', '--cli-read-timeout', '--cli-connect-timeout', '--color'])
    const [svc, op] = ops
    // `--dryrun` (s3) and `--dry-run` (ec2) change nothing.
    if (dryRun(inv.args)) return
    if (svc === 'configure' && op === 'get' && /secret|key|token/i.test(ops[2] ?? '')) {
      c.secrets.add('AWS credentials')
      c.add('secret_access', f.cmd)
    }
    // An upload has a local source and an s3:// destination; an option's stray value (`--acl public-read`) never hides it.
    if (svc === 's3' && (op === 'cp' || op === 'sync' || op === 'mv') && ops.slice(3).some((o) => o.startsWith('s3://')) && !(ops[2] ?? '').startsWith('s3://')) c.add('remote_copy', f.cmd)
    if ((svc === 's3' && (op === 'rm' || op === 'rb')) || /^(delete-|terminate-|remove-|deregister-)/.test(op ?? '')) c.add('infra_destroy', f.cmd)
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
    if ((sub === 'cp' || sub === 'rsync' || sub === 'mv') && /^gs:\/\//.test(f.operands[f.operands.length - 1] ?? '')) c.add('remote_copy', f.cmd)
    if (sub === 'rm' || sub === 'rb') c.add('infra_destroy', f.cmd)
  },
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
