// Deploying and tearing down: hosting CLIs, Kubernetes, Helm, infrastructure as code.

import type { Detector, FamilyMeta } from './types'
import { dryRun, operandsAfter } from './util'

const KUBECTL_VALUES = ['-n', '--namespace', '--context', '--kubeconfig', '--cluster', '--user', '-s', '--server', '--token', '--as', '-l', '--selector', '-f', '--filename', '-o', '--output']
const HELM_VALUES = ['-n', '--namespace', '--kube-context', '--kubeconfig', '--repository-config', '--registry-config']

export const meta: FamilyMeta = {
  id: 'deploy',
  classes: ['public_surface', 'irreversible'],
  patterns: ['deploy', 'infra_destroy', 'secret_access'],
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
  'netlify-cli': deployOn(['deploy']),
  'firebase-tools': deployOn(['deploy']),
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
  // `--check` (and `--syntax-check`, `--list-tasks`) change nothing.
  'ansible-playbook': (c, inv, f) => {
    if (!inv.args.some((a) => /^(-C|--check|--syntax-check|--list-tasks|--list-hosts|--list-tags)$/.test(a))) c.add('deploy', f.cmd)
  },
  kubectl: (c, inv, f) => {
    const [sub, what] = operandsAfter(inv.args, KUBECTL_VALUES)
    if (dryRun(inv.args)) return
    // `rollout status|history` only read; `rollout undo|restart|pause|resume` change the cluster.
    if (/^(apply|create|replace|set|scale|patch|autoscale|expose|label|annotate|cordon|taint)$/.test(sub ?? '') || (sub === 'rollout' && !/^(status|history)$/.test(what ?? ''))) c.add('deploy', f.cmd)
    if (sub === 'delete' || sub === 'drain') c.add('infra_destroy', f.cmd)
    if (sub === 'get' && /^(secrets?|secret\/.+)$/.test(what ?? '')) {
      c.secrets.add('Kubernetes secrets')
      c.add('secret_access', f.cmd)
    }
  },
  helm: (c, inv, f) => {
    const sub = operandsAfter(inv.args, HELM_VALUES)[0]
    if (dryRun(inv.args)) return
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

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
