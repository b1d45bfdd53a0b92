// Wrappers are peeled (issue 10 item 6): whatever a wrapper runs is judged as itself. Each form
// that must stop has a look-alike that must stay quiet.

import { describe, expect, it } from 'vitest'
import { classify, type ClassifyContext } from '../../lib/core/classify'
import { readCommandLine } from '../../lib/core/commands'

const PROJECT = '/home/dev/project'
const ctx: ClassifyContext = {
  projectDir: PROJECT,
  homeDir: '/home/dev',
  stateDir: `${PROJECT}/.ratchet`,
  session: { reads: {}, prompts: [] },
  fileExists: () => false,
  currentBranch: () => 'feature/x',
}
const patterns = (command: string) =>
  [
    ...new Set(
      classify({ tool_name: 'Bash', tool_input: { command }, cwd: PROJECT }, ctx).findings.map((f) => f.pattern),
    ),
  ].sort()

describe('wrappers: the command inside is judged (must stop / must stay quiet)', () => {
  it.each([
    ['busybox rm -rf build', 'busybox ls -la', 'file_delete'],
    ['toybox rm x', 'toybox cat x', 'file_delete'],
    ["su -c 'rm -rf build'", "su -c 'ls -la'", 'file_delete'],
    ["su deploy -c 'git push origin main'", "su deploy -c 'git status'", 'git_push'],
    ["su - deploy --command='npm publish'", "su - deploy --command='npm pack'", 'package_publish'],
    ["runuser -l deploy -c 'git push'", "runuser -l deploy -c 'git log'", 'git_push'],
    ['runuser -u deploy -- git push', 'runuser -u deploy -- git fetch', 'git_push'],
    ["sg docker -c 'docker push me/app'", "sg docker -c 'docker ps'", 'container_push'],
    ['docker exec -it -u root app rm -rf /data', 'docker exec -it app ls /data', 'file_delete'],
    ['docker exec app psql -c "DROP TABLE users"', 'docker exec app psql -c "SELECT 1"', 'db_destroy'],
    ['docker run --rm -v $PWD:/w -w /w alpine rm -rf /w/src', 'docker run --rm alpine echo hi', 'file_delete'],
    ['docker compose exec web rm -rf /app/uploads', 'docker compose exec web ls /app', 'file_delete'],
    ['podman exec ctr git push --force origin main', 'podman exec ctr git status', 'git_history_rewrite'],
    ['kubectl exec -it pod-1 -c app -- rm -rf /data', 'kubectl exec -it pod-1 -- ls /data', 'file_delete'],
    ['kubectl exec pod -- psql -c "drop database prod"', 'kubectl exec pod -- psql -c "select 1"', 'db_destroy'],
    ['parallel rm ::: a.txt b.txt', 'parallel echo ::: a.txt b.txt', 'file_delete'],
    ["parallel -j4 'rm -rf {}' ::: build dist", "parallel -j4 'gzip {}' ::: a b", 'file_delete'],
    ['find . -exec env rm -rf {} +', 'find . -name x -print', 'file_delete'],
    ['find . -name "*.log" -execdir rm {} \\;', 'find . -name "*.log" -execdir ls {} \\;', 'file_delete'],
    ['find /srv -ok shred {} \\;', 'find /srv -ok cat {} \\;', 'file_delete'],
    ['find . -name "*.tmp" -delete', 'find . -name "*.tmp"', 'file_delete'],
    ["find . -exec sh -c 'git push' \\;", "find . -exec sh -c 'git status' \\;", 'git_push'],
    ['ls | xargs rm', 'ls | xargs echo', 'file_delete'],
    ['ls | xargs -0 -n1 -P4 rm -f', 'ls | xargs -0 -n1 -P4 wc -l', 'file_delete'],
    ['ls | xargs -I{} sh -c "rm {}"', 'ls | xargs -I{} sh -c "cat {}"', 'file_delete'],
    ['env -i PATH=/bin rm -rf build', 'env -i PATH=/bin ls', 'file_delete'],
    ['env -u HOME -S "git push origin main"', 'env -S "git status"', 'git_push'],
    ['env -- rm x', 'env -- ls', 'file_delete'],
    ['stdbuf -oL rm -rf build', 'stdbuf -oL tail -f log', 'file_delete'],
    ['stdbuf -o L -e 0 git push', 'stdbuf -o L -e 0 git fetch', 'git_push'],
    ['ionice -c 2 -n 7 rm -rf build', 'ionice -c 2 -n 7 make', 'file_delete'],
    ['ionice -c3 git push', 'ionice -p 1234', 'git_push'],
    ['chroot /mnt rm -rf /srv/data', 'chroot /mnt ls /srv', 'file_delete'],
    ['chroot --userspec=1000:1000 /mnt git push', 'chroot --userspec=1000:1000 /mnt git log', 'git_push'],
    ['flock /tmp/deploy.lock rm -rf build', 'flock /tmp/deploy.lock make', 'file_delete'],
    ["flock -w 10 /tmp/l -c 'git push'", "flock -w 10 /tmp/l -c 'git fetch'", 'git_push'],
    ["script -q -c 'git push' /dev/null", "script -q -c 'git status' /dev/null", 'git_push'],
    ['sudo -u root env FOO=1 rm -rf build', 'sudo -u root env FOO=1 ls', 'file_delete'],
    ['sudo -s rm -rf build', 'sudo -s ls', 'file_delete'],
    ['nice -n 10 git push', 'nice -n 10 git fetch', 'git_push'],
    ['time -p rm -rf build', 'time -p make', 'file_delete'],
    ['timeout -k 5 60 git push', 'timeout -k 5 60 git fetch', 'git_push'],
    ['exec -a x rm build', 'exec -a x ls', 'file_delete'],
    ['fakeroot rm -rf build', 'fakeroot dpkg-deb -b pkg', 'file_delete'],
    ['unshare -r rm -rf build', 'unshare -r id', 'file_delete'],
    ['systemd-run --user -p X=1 rm -rf build', 'systemd-run --user -p X=1 make', 'file_delete'],
    ['npx -p x rm -rf build', 'npx -p x tsc', 'file_delete'],
    ['npm exec -- git push', 'npm exec -- tsc', 'git_push'],
    ['uv run git push', 'uv run pytest', 'git_push'],
    ['poetry run twine upload dist/*', 'poetry run pytest', 'package_publish'],
    ["nix-shell --run 'git push'", "nix-shell --run 'make'", 'git_push'],
    ['direnv exec . git push', 'direnv exec . make', 'git_push'],
    ['trap "rm -rf build" EXIT', 'trap "echo done" EXIT', 'file_delete'],
    ["git -c alias.x='push --force' x origin main", "git -c alias.x='log --oneline' x", 'git_history_rewrite'],
    ["git -c alias.y='!rm -rf build' y", "git -c alias.y='!ls' y", 'file_delete'],
    // An alias set by `git config` earlier in the same line (red team: this pushed a key to the remote).
    [
      'git config alias.ship "!git add -A && git commit -m ship && git push"; git ship',
      'git config alias.st status; git st',
      'git_push',
    ],
    [
      'git config --local alias.up "push --force"; git up origin main',
      'git config --local alias.lg "log --oneline"; git lg',
      'git_history_rewrite',
    ],
    ['watch -n 5 rm -rf build', 'watch -n 5 ls', 'file_delete'],
  ])('%s', (stop, quiet, pattern) => {
    expect(patterns(stop)).toContain(pattern)
    expect(patterns(quiet)).not.toContain(pattern)
  })

  it('records the wrappers it peeled, outermost first', () => {
    const inv = readCommandLine('sudo env X=1 nice -n 5 docker exec app rm x').invocations.find((i) => i.name === 'rm')
    expect(inv?.via).toEqual(['sudo', 'env', 'nice', 'docker exec'])
  })
})
