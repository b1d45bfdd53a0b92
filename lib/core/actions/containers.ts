// Containers: pushing images (public surface) and removing containers, images and volumes.

import { withRows, type RowTable } from './rows'
import type { Detector, FamilyMeta } from './types'
import { operandsAfter } from './util'

export const meta: FamilyMeta = {
  id: 'containers',
  classes: ['public_surface', 'irreversible'],
  patterns: ['container_push', 'infra_destroy'],
  description:
    'Pushing container images; removing containers, images or volumes (docker, podman, buildah, docker-compose)',
  examples: [
    'docker push ghcr.io/me/app:1',
    'docker buildx build --push .',
    'docker system prune -af --volumes',
    'docker compose down -v',
  ],
}

const DOCKER_VALUES = [
  '-H',
  '--host',
  '-c',
  '--context',
  '--config',
  '-l',
  '--log-level',
  '--tlscacert',
  '--tlscert',
  '--tlskey',
]

const container: Detector = (c, inv, f) => {
  const [sub, sub2] = operandsAfter(inv.args, DOCKER_VALUES)
  if (sub === 'push' || (sub === 'image' && sub2 === 'push') || (sub === 'buildx' && inv.args.includes('--push')))
    c.add('container_push', f.cmd)
  if (
    /^(rm|rmi)$/.test(sub ?? '') ||
    (sub === 'system' && sub2 === 'prune') ||
    (sub === 'volume' && /^(rm|prune)$/.test(sub2 ?? '')) ||
    (sub === 'compose' && sub2 === 'down' && inv.args.some((a) => a === '-v' || a === '--volumes'))
  )
    c.add('infra_destroy', f.cmd)
}

// ---- what cannot be undone: volumes hold data no image rebuild brings back (rows.ts) ----------------------
// Removing containers and images stays a check: an image is pulled or built again.

const VOLUME_NAMES = () => [['volume', 'volumes']]
const composeDown = {
  cmd: ['down'],
  when: (a: { has(...f: string[]): boolean }) => a.has('-v', '--volumes'),
  pattern: 'infra_destroy',
  kind: 'destroys',
  what: () => 'the named volumes of this compose project and the data in them',
  names: VOLUME_NAMES,
} as const
const CONTAINER_ROWS: RowTable = {
  values: DOCKER_VALUES,
  rows: [
    {
      cmd: ['system', 'prune'],
      when: (a) => a.has('--volumes'),
      pattern: 'infra_destroy',
      kind: 'destroys',
      what: (a) =>
        `every unused volume and the data in it, ${a.has('-a', '--all') ? 'every image no container uses' : 'dangling images'}, stopped containers and unused networks`,
      names: VOLUME_NAMES,
    },
    {
      cmd: ['volume', /^(rm|remove)$/],
      pattern: 'infra_destroy',
      kind: 'destroys',
      what: (a) =>
        `volume${a.rest.length === 1 ? '' : 's'} ${a.rest.join(', ') || '(unnamed)'} and the data in ${a.rest.length === 1 ? 'it' : 'them'}`,
      names: (a) => a.rest,
    },
    {
      cmd: ['volume', 'prune'],
      pattern: 'infra_destroy',
      kind: 'destroys',
      what: (a) =>
        `${a.has('-a', '--all') ? 'every volume no container uses' : 'every anonymous volume no container uses'} and the data in them`,
      names: VOLUME_NAMES,
    },
    { ...composeDown, cmd: ['compose', 'down'] },
  ],
}

export const rows: Record<string, RowTable> = {
  docker: CONTAINER_ROWS,
  podman: CONTAINER_ROWS,
  'docker-compose': {
    values: ['-f', '--file', '-p', '--project-name', '--project-directory', '--profile', '--env-file'],
    rows: [composeDown],
  },
  'podman-compose': { values: ['-f', '--file', '-p', '--project-name'], rows: [composeDown] },
}

const compose: Detector = (c, inv, f) => {
  if (f.operands[0] === 'down' && inv.args.some((a) => a === '-v' || a === '--volumes')) c.add('infra_destroy', f.cmd)
}

const own: Record<string, Detector> = {
  docker: container,
  podman: container,
  buildah: (c, _inv, f) => {
    if (f.operands[0] === 'push') c.add('container_push', f.cmd)
  },
  'docker-compose': compose,
  'podman-compose': compose,
}

export const programs: Record<string, Detector> = withRows(own, rows)

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [own, rows]) Object.setPrototypeOf(table, null)
