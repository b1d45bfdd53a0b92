// Deploying and tearing down: hosting CLIs, Kubernetes, Helm, infrastructure as code.

import { folderOf, lastPart, withRows, type RowArgs, type RowTable } from './rows'
import type { Detector, FamilyMeta } from './types'
import { dryRun, operandsAfter } from './util'

const KUBECTL_VALUES = [
  '-n',
  '--namespace',
  '--context',
  '--kubeconfig',
  '--cluster',
  '--user',
  '-s',
  '--server',
  '--token',
  '--as',
  '-l',
  '--selector',
  '-f',
  '--filename',
  '-o',
  '--output',
]
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
  if (sub === 'apply' && !inv.args.includes('-destroy')) c.add('deploy', f.cmd)
}

// ---- what cannot be undone: one row per command form (rows.ts) ----------------------------------------

const KUBE_KINDS: Record<string, string> = {
  ns: 'namespace',
  namespace: 'namespace',
  namespaces: 'namespace',
  deploy: 'deployment',
  deployment: 'deployment',
  deployments: 'deployment',
  sts: 'statefulset',
  statefulset: 'statefulset',
  statefulsets: 'statefulset',
  pvc: 'persistent volume claim',
  persistentvolumeclaim: 'persistent volume claim',
  persistentvolumeclaims: 'persistent volume claim',
  pv: 'persistent volume',
  persistentvolume: 'persistent volume',
  persistentvolumes: 'persistent volume',
  svc: 'service',
  service: 'service',
  services: 'service',
  secret: 'secret',
  secrets: 'secret',
  cm: 'config map',
  configmap: 'config map',
  configmaps: 'config map',
  crd: 'custom resource definition',
  crds: 'custom resource definition',
  customresourcedefinition: 'custom resource definition',
}
/** Pods are re-created by their controller: deleting one is how a pod is restarted (a check, not a human's call). */
const POD = /^(po|pod|pods)(\/.*)?$/

/** `namespace prod and everything in it`, `deployment api in namespace prod`, `the resources in k8s/app.yaml`. */
function kubeWhat(a: RowArgs): string {
  const ns = a.opt('-n', '--namespace')
  const where = `${ns ? ` in namespace ${ns}` : a.has('-A', '--all-namespaces') ? ' in every namespace' : ''}${a.opt('--context') ? ` (context ${a.opt('--context')})` : ''}`
  const files = a.opts('-f', '--filename')
  if (files.length) return `the resources defined in ${files.join(', ')}${where}`
  const [kindWord, ...names] = a.rest
  const slashed = a.rest.filter((r) => r.includes('/'))
  const kindOf = (k: string) => KUBE_KINDS[k.toLowerCase()] ?? k
  if (slashed.length)
    return slashed.map((r) => `${kindOf(r.split('/')[0])} ${r.split('/').slice(1).join('/')}`).join(', ') + where
  const kind = kindOf((kindWord ?? 'resource').split(',')[0])
  const selector = a.opt('-l', '--selector')
  const which = a.has('--all')
    ? `every ${kind}`
    : selector
      ? `every ${kind} labelled ${selector}`
      : `${kind} ${names.join(', ') || '(unnamed)'}`
  return kind === 'namespace' ? `${which} and everything in it${where}` : `${which}${where}`
}

function onlyPods(a: RowArgs): boolean {
  if (a.opts('-f', '--filename').length) return false
  const slashed = a.rest.filter((r) => r.includes('/'))
  if (slashed.length) return slashed.every((r) => POD.test(r))
  return POD.test(a.rest[0] ?? '')
}

const kubeNames = (a: RowArgs) => [
  ...a.rest.slice(1).filter((r) => !r.includes('/')),
  ...a.rest.filter((r) => r.includes('/')).map((r) => r.split('/').slice(1).join('/')),
  ...a.opts('-f', '--filename').map(lastPart),
  a.opt('-l', '--selector'),
]

const appOf = (a: RowArgs) => a.opt('-a', '--app') ?? a.rest[0]

const TF_NAMES = (a: RowArgs) => {
  const targets = a.opts('-target')
  const dir = a.opt('-chdir')
  return targets.length ? targets : [[a.program, 'terraform', ...(dir ? [lastPart(dir)] : [])]]
}
const tfWhat = (a: RowArgs) => {
  const targets = a.opts('-target')
  const where = folderOf(a, a.opt('-chdir'))
  return targets.length
    ? `${targets.join(', ')} (from the Terraform state of ${where})`
    : `every resource in the Terraform state of ${where}${a.opt('-var-file') ? ` (variables ${a.opt('-var-file')})` : ''}`
}
const TERRAFORM: RowTable = {
  rows: [
    { cmd: ['destroy'], pattern: 'infra_destroy', kind: 'destroys', what: tfWhat, names: TF_NAMES },
    {
      cmd: ['apply'],
      when: (a) => a.has('-destroy'),
      pattern: 'infra_destroy',
      kind: 'destroys',
      what: tfWhat,
      names: TF_NAMES,
    },
  ],
}
const FLY: RowTable = {
  values: ['-a', '--app', '-c', '--config', '-r', '--region'],
  rows: [
    {
      cmd: [/^(apps?)$/, /^(destroy|delete|remove)$/],
      pattern: 'infra_destroy',
      kind: 'destroys',
      what: (a) =>
        `Fly.io app ${a.rest[0] ?? a.opt('-a', '--app') ?? '(this folder’s fly.toml)'} with its machines, volumes and IP addresses`,
      names: (a) => [a.rest[0] ?? a.opt('-a', '--app')],
    },
    {
      cmd: ['destroy'],
      pattern: 'infra_destroy',
      kind: 'destroys',
      what: (a) =>
        `Fly.io app ${a.rest[0] ?? a.opt('-a', '--app') ?? '(this folder’s fly.toml)'} with its machines, volumes and IP addresses`,
      names: (a) => [a.rest[0] ?? a.opt('-a', '--app')],
    },
    {
      cmd: [/^(volumes?|vol)$/, /^(destroy|delete|rm)$/],
      pattern: 'infra_destroy',
      kind: 'destroys',
      what: (a) => `Fly.io volume ${a.rest.join(', ')} and its data`,
      names: (a) => a.rest,
    },
    {
      cmd: [/^(postgres|pg|mpg)$/, /^(destroy|delete)$/],
      pattern: 'infra_destroy',
      kind: 'destroys',
      what: (a) => `Fly.io Postgres cluster ${a.rest[0] ?? a.opt('-a', '--app') ?? ''} and every database in it`,
      names: (a) => [a.rest[0] ?? a.opt('-a', '--app')],
    },
  ],
}

export const rows: Record<string, RowTable> = {
  terraform: TERRAFORM,
  tofu: TERRAFORM,
  terragrunt: TERRAFORM,
  kubectl: {
    values: KUBECTL_VALUES,
    rows: [
      {
        cmd: ['delete'],
        when: (a) => !onlyPods(a),
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: kubeWhat,
        names: kubeNames,
      },
    ],
  },
  helm: {
    values: HELM_VALUES,
    rows: [
      {
        cmd: [/^(uninstall|delete|del|un)$/],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) =>
          `Helm release ${a.rest.join(', ') || '(unnamed)'} in namespace ${a.opt('-n', '--namespace') ?? '(the current one)'} and every resource it installed`,
        names: (a) => a.rest,
      },
    ],
  },
  heroku: {
    values: ['-a', '--app', '-r', '--remote'],
    rows: [
      {
        cmd: [/^(apps:destroy|destroy)$/],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `Heroku app ${appOf(a) ?? '(this folder’s git remote)'} with its dynos, add-ons and databases`,
        names: (a) => [appOf(a)],
      },
      {
        cmd: ['pg:reset'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) =>
          `every table and row of Heroku Postgres ${a.rest[0] ?? 'DATABASE_URL'}${a.opt('-a', '--app') ? ` of app ${a.opt('-a', '--app')}` : ''}`,
        names: (a) => [a.opt('-a', '--app') ?? a.rest[0]],
      },
      {
        cmd: ['addons:destroy'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `Heroku add-on ${a.rest.join(', ')} and its data`,
        names: (a) => a.rest,
      },
    ],
  },
  fly: FLY,
  flyctl: FLY,
  vercel: {
    rows: [
      {
        cmd: [/^(remove|rm)$/],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) =>
          `Vercel ${a.rest.length > 1 ? 'projects or deployments' : 'project or deployment'} ${a.rest.join(', ') || '(unnamed)'}${a.has('--safe') ? '' : ' with every deployment of it'}`,
        names: (a) => a.rest,
      },
    ],
  },
  cdk: {
    rows: [
      {
        cmd: ['destroy'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) =>
          a.rest.length
            ? `CloudFormation stack ${a.rest.join(', ')} and every resource it owns`
            : a.has('--all')
              ? 'every CloudFormation stack of this CDK app and every resource they own'
              : 'the CloudFormation stack of this CDK app and every resource it owns',
        names: (a) => (a.rest.length ? a.rest : [['cdk']]),
      },
    ],
  },
  pulumi: {
    values: ['-s', '--stack', '-C', '--cwd'],
    rows: [
      {
        cmd: [/^(destroy|down)$/],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `every resource in the Pulumi stack ${a.opt('-s', '--stack') ?? '(the selected one)'}`,
        names: (a) => [[a.opt('-s', '--stack') ?? 'pulumi', 'pulumi']],
      },
    ],
  },
  netlify: {
    rows: [
      {
        cmd: ['sites:delete'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `Netlify site ${a.rest[0] ?? '(linked)'} with its deploys and forms`,
        names: (a) => [a.rest[0]],
      },
    ],
  },
  firebase: {
    values: ['--project', '-P'],
    rows: [
      {
        cmd: ['firestore:delete'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) =>
          a.has('--all-collections')
            ? `every Firestore document of project ${a.opt('--project', '-P') ?? '(the active one)'}`
            : `Firestore documents at ${a.rest.join(', ')}${a.has('-r', '--recursive') ? ' and everything under them' : ''}`,
        names: (a) => (a.rest.length ? a.rest.map(lastPart) : [['firestore']]),
      },
      {
        cmd: ['database:remove'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `Realtime Database data at ${a.rest[0] ?? '/'} and everything under it`,
        names: (a) => [a.rest[0] && a.rest[0] !== '/' ? lastPart(a.rest[0]) : 'database'],
      },
      {
        cmd: ['projects:delete'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `Firebase project ${a.rest[0] ?? ''} and every resource in it`,
        names: (a) => [a.rest[0]],
      },
    ],
  },
}

const own: Record<string, Detector> = {
  vercel: (c, inv, f) => {
    const sub = f.operands[0]
    if (!sub || sub === 'deploy' || inv.args.includes('--prod')) c.add('deploy', f.cmd)
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
  },
  heroku: (c, _inv, f) => {
    if (/^(deploy|releases:rollback|container:release)/.test(f.operands[0] ?? '')) c.add('deploy', f.cmd)
  },
  // `--check` (and `--syntax-check`, `--list-tasks`) change nothing.
  'ansible-playbook': (c, inv, f) => {
    if (!inv.args.some((a) => /^(-C|--check|--syntax-check|--list-tasks|--list-hosts|--list-tags)$/.test(a)))
      c.add('deploy', f.cmd)
  },
  kubectl: (c, inv, f) => {
    const [sub, what] = operandsAfter(inv.args, KUBECTL_VALUES)
    if (dryRun(inv.args)) return
    // `rollout status|history` only read; `rollout undo|restart|pause|resume` change the cluster.
    if (
      /^(apply|create|replace|set|scale|patch|autoscale|expose|label|annotate|cordon|taint)$/.test(sub ?? '') ||
      (sub === 'rollout' && !/^(status|history)$/.test(what ?? ''))
    )
      c.add('deploy', f.cmd)
    // Deleting pods (re-created by their controller) and draining a node stay a check; the rest is a row below.
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
  },
  terraform,
  tofu: terraform,
  terragrunt: terraform,
  pulumi: (c, _inv, f) => {
    if (f.operands[0] === 'up' || f.operands[0] === 'update') c.add('deploy', f.cmd)
  },
}

export const programs: Record<string, Detector> = withRows(own, rows)

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [own, rows, KUBE_KINDS]) Object.setPrototypeOf(table, null)
