// Containers: pushing images (public surface) and removing containers, images and volumes.

import type { Detector, FamilyMeta } from './types'
import { operandsAfter } from './util'

export const meta: FamilyMeta = {
  id: 'containers',
  classes: ['public_surface', 'irreversible'],
  patterns: ['container_push', 'infra_destroy'],
  description: 'Pushing container images; removing containers, images or volumes (docker, podman, buildah)',
  examples: ['docker push ghcr.io/me/app:1', 'docker buildx build --push .', 'docker system prune -af', 'docker compose down -v'],
}

const DOCKER_VALUES = ['-H', '--host', '-c', '--context', '--config', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey']

const container: Detector = (c, inv, f) => {
  const [sub, sub2] = operandsAfter(inv.args, DOCKER_VALUES)
  if (sub === 'push' || (sub === 'image' && sub2 === 'push') || (sub === 'buildx' && inv.args.includes('--push'))) c.add('container_push', f.cmd)
  if (/^(rm|rmi)$/.test(sub ?? '') || (sub === 'system' && sub2 === 'prune') || (sub === 'volume' && /^(rm|prune)$/.test(sub2 ?? '')) || (sub === 'compose' && sub2 === 'down' && inv.args.some((a) => a === '-v' || a === '--volumes')))
    c.add('infra_destroy', f.cmd)
}

export const programs: Record<string, Detector> = {
  docker: container,
  podman: container,
  buildah: (c, _inv, f) => {
    if (f.operands[0] === 'push') c.add('container_push', f.cmd)
  },
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [programs]) Object.setPrototypeOf(table, null)
