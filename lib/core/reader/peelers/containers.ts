// Containers: `docker exec ctr cmd`, `docker run image cmd`, `docker compose run svc cmd`, `kubectl exec pod -- cmd`.
// The container tool's own call is recorded (its detectors judge `docker run …`), then the command inside is read.

import { rest, type Cmd, type Peeled, type ReaderFamily } from '../types'
import { skipOptions } from '../words'

const DOCKER_VALUES = new Set([
  '-e',
  '--env',
  '--env-file',
  '-u',
  '--user',
  '-w',
  '--workdir',
  '--detach-keys',
  '-v',
  '--volume',
  '-p',
  '--publish',
  '--name',
  '--entrypoint',
  '--network',
  '--net',
  '--mount',
  '-l',
  '--label',
  '--label-file',
  '--platform',
  '--cpus',
  '-m',
  '--memory',
  '--restart',
  '-h',
  '--hostname',
  '--add-host',
  '--device',
  '--cap-add',
  '--cap-drop',
  '--security-opt',
  '--ulimit',
  '--log-driver',
  '--log-opt',
  '--pid',
  '--ipc',
  '--shm-size',
  '--tmpfs',
  '--gpus',
  '--runtime',
  '--dns',
  '--expose',
  '--group-add',
  '--health-cmd',
  '--link',
  '--pull',
  '--stop-signal',
  '--stop-timeout',
  '--userns',
  '--uts',
  '--volumes-from',
  '--cidfile',
  '--cgroupns',
  '--memory-swap',
  '--cpu-shares',
  '-c',
  '--cpuset-cpus',
  '--storage-opt',
  '--sysctl',
  '--index',
  '--attach',
  '-a',
  '--annotation',
  '--hooks-dir',
  '--pod',
  '--secret',
  '--arch',
  '--os',
  '--variant',
])

/** `docker exec [opts] ctr cmd…`, `docker run [opts] image [cmd…]`, `docker compose exec|run svc cmd…`. */
function containerCommand(args: string[]): { how: string; words: string[] } | null {
  let a = skipOptions(
    args,
    new Set(['-H', '--host', '-c', '--context', '--config', '-l', '--log-level', '--url', '--connection']),
  )
  if (a[0] === 'container' && (a[1] === 'exec' || a[1] === 'run')) a = a.slice(1)
  if (a[0] === 'compose' || a[0] === 'docker-compose') {
    a = skipOptions(
      a.slice(1),
      new Set(['-f', '--file', '-p', '--project-name', '--project-directory', '--profile', '--env-file']),
    )
    if (a[0] !== 'exec' && a[0] !== 'run') return null
    const words = skipOptions(a.slice(1), DOCKER_VALUES)
    return { how: `compose ${a[0]}`, words: words.slice(1) }
  }
  if (a[0] !== 'exec' && a[0] !== 'run') return null
  const words = skipOptions(a.slice(1), DOCKER_VALUES)
  return { how: a[0], words: words.slice(1) }
}

function docker(c: Cmd): Peeled {
  const inside = containerCommand(c.args)
  if (!inside) return 'none'
  c.push()
  if (!inside.words.length) return 'read'
  c.via.push(`${c.name} ${inside.how}`)
  return rest(c, inside.words)
}

/** `kubectl exec pod -- cmd`, `kubectl run x --image=i -- cmd`, `kubectl debug … -- cmd`. */
function kubectl(c: Cmd): Peeled {
  const { args } = c
  const sub = args.find((a) => !a.startsWith('-'))
  const dd = args.indexOf('--')
  if (!((sub === 'exec' || sub === 'run' || sub === 'debug') && dd >= 0 && dd < args.length - 1)) return 'none'
  c.push()
  c.via.push(`${c.name} ${sub}`)
  return rest(c, args.slice(dd + 1))
}

export const family: ReaderFamily = {
  family: 'containers',
  programs: { docker, podman: docker, nerdctl: docker, kubectl, oc: kubectl },
}
