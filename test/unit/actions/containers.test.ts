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
    // volumes hold data no rebuild brings back (issue 19); images and containers stay a check
    [
      'docker system prune -af --volumes',
      'infra_destroy',
      /every unused volume and the data in it, every image no container uses/,
    ],
    ['docker volume rm pgdata', 'infra_destroy', /^volume pgdata and the data in it$/],
    ['docker volume prune -af', 'infra_destroy', /every volume no container uses/],
    ['podman volume rm a b', 'infra_destroy', /volumes a, b/],
    ['docker compose down -v', 'infra_destroy', /named volumes of this compose project/],
    ['docker-compose down --volumes', 'infra_destroy', /named volumes/],
    ['podman-compose down -v', 'infra_destroy', /named volumes/],
    ['docker system prune -af', 'infra_destroy', false],
    ['docker rm -f api', 'infra_destroy', false],
  ],
  invalid: [
    'which docker',
    'docker-compose down',
    'docker-compose up -d',
    'podman-compose ps',
    'docker volume ls',
    'docker volume inspect pgdata',
    'docker system df',
    'docker build -t app .',
    'docker ps',
    'docker compose down',
    'podman images',
    'buildah bud -t app .',
    'docker push --help',
  ],
})
