import * as family from '../../../lib/core/actions/containers'
import { familyTable } from './table'

familyTable(family, {
  valid: [
    ['docker push ghcr.io/me/app:1', 'container_push'],
    ['docker image push me/app', 'container_push'],
    ['docker buildx build --push -t me/app .', 'container_push'],
    ['podman push me/app', 'container_push'],
    ['buildah push me/app', 'container_push'],
    ['docker system prune -af', 'infra_destroy'],
    ['docker compose down -v', 'infra_destroy'],
    ['docker -H ssh://prod system prune -af', 'infra_destroy'],
    ['docker --context prod push me/app', 'container_push'],
    ['docker volume rm data', 'infra_destroy'],
    ['podman rmi me/app', 'infra_destroy'],
  ],
  invalid: ['which docker', 'docker build -t app .', 'docker ps', 'docker compose down', 'podman images', 'buildah bud -t app .', 'docker push --help'],
})
