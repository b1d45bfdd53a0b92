// Deploying and tearing down: hosting CLIs, Kubernetes, Helm, infrastructure as code.

import type { Detector, FamilyMeta } from './types'

export const meta: FamilyMeta = {
  id: 'deploy',
  classes: ['public_surface', 'irreversible'],
  patterns: ['deploy', 'infra_destroy'],
  description: 'Deploying (vercel, netlify, fly, kubectl apply, terraform apply, helm, …) or destroying infrastructure',
  examples: ['vercel --prod', 'kubectl apply -f deploy.yaml', 'terraform destroy', 'helm uninstall app'],
}

function deployOn(verbs: string[]): Detector {
  return (c, _inv, f) => {
    if (verbs.includes(f.operands[0] ?? '')) c.add('deploy', f.cmd)
  }
}

const terraform: Detector = (c, inv, f) => {
  const sub = f.operands[0]
  if (sub === 'destroy' || (sub === 'apply' && inv.args.includes('-destroy'))) c.add('infra_destroy', f.cmd)
  else if (sub === 'apply') c.add('deploy', f.cmd)
}

export const programs: Record<string, Detector> = {
  vercel: (c, inv, f) => {
    const sub = f.operands[0]
    if (!sub || sub === 'deploy' || inv.args.includes('--prod')) c.add('deploy', f.cmd)
    if (sub === 'remove' || sub === 'rm') c.add('infra_destroy', f.cmd)
  },
  netlify: deployOn(['deploy']),
  fly: deployOn(['deploy', 'launch']),
  flyctl: deployOn(['deploy', 'launch']),
  firebase: deployOn(['deploy']),
  wrangler: deployOn(['deploy', 'publish']),
  serverless: deployOn(['deploy']),
  sls: deployOn(['deploy']),
  cdk: (c, _inv, f) => {
    if (f.operands[0] === 'deploy') c.add('deploy', f.cmd)
    if (f.operands[0] === 'destroy') c.add('infra_destroy', f.cmd)
  },
  heroku: (c, _inv, f) => {
    if (/^(deploy|releases:rollback|container:release)/.test(f.operands[0] ?? '')) c.add('deploy', f.cmd)
    if (/^(apps:destroy|pg:reset|destroy)/.test(f.operands[0] ?? '')) c.add('infra_destroy', f.cmd)
  },
  'ansible-playbook': (c, _inv, f) => c.add('deploy', f.cmd),
  kubectl: (c, _inv, f) => {
    const sub = f.operands[0]
    if (/^(apply|create|replace|rollout|set|scale|patch)$/.test(sub ?? '')) c.add('deploy', f.cmd)
    if (sub === 'delete' || sub === 'drain') c.add('infra_destroy', f.cmd)
  },
  helm: (c, _inv, f) => {
    const sub = f.operands[0]
    if (/^(install|upgrade|rollback)$/.test(sub ?? '')) c.add('deploy', f.cmd)
    if (sub === 'uninstall' || sub === 'delete') c.add('infra_destroy', f.cmd)
  },
  terraform,
  tofu: terraform,
  terragrunt: terraform,
  pulumi: (c, _inv, f) => {
    if (f.operands[0] === 'up' || f.operands[0] === 'update') c.add('deploy', f.cmd)
    if (f.operands[0] === 'destroy') c.add('infra_destroy', f.cmd)
  },
}
