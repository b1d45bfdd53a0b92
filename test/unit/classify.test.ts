import { describe, expect, it } from 'vitest'
import { classify, type ClassifyContext } from '../../lib/core/classify'

const PROJECT = '/home/dev/project'
const ctx = (over: Partial<ClassifyContext> = {}): ClassifyContext => ({
  projectDir: PROJECT,
  homeDir: '/home/dev',
  stateDir: `${PROJECT}/.ratchet`,
  session: { reads: {}, prompts: [] },
  fileExists: (p) => p.endsWith('/existing.txt') || p.endsWith('/config.yml') || p.endsWith('/app.ts'),
  currentBranch: () => 'feature/x',
  ...over,
})

const bash = (command: string, c = ctx()) => classify({ tool_name: 'Bash', tool_input: { command }, cwd: PROJECT }, c)
const patterns = (command: string, c = ctx()) => [...new Set(bash(command, c).findings.map((f) => f.pattern))].sort()
const catastrophic = (command: string, c = ctx()) => bash(command, c).findings.some((f) => f.catastrophic)

describe('public surface', () => {
  it.each([
    ['git push origin main', 'git_push'],
    ['git -C ../other push', 'git_push'],
    ['git -c user.name=x --no-pager push --tags', 'git_push'],
    ['cd repo && git push', 'git_push'],
    ['gh pr create --fill', 'pr_or_issue_create'],
    ['gh issue create -t bug -b body', 'pr_or_issue_create'],
    ['gh release create v1.0.0', 'pr_or_issue_create'],
    ['gh api -X POST repos/o/r/issues', 'pr_or_issue_create'],
    ['npm publish --access public', 'package_publish'],
    ['pnpm publish', 'package_publish'],
    ['yarn npm publish', 'package_publish'],
    ['cargo publish', 'package_publish'],
    ['python -m twine upload dist/*', 'package_publish'],
    ['twine upload dist/*', 'package_publish'],
    ['docker push ghcr.io/me/app:1', 'container_push'],
    ['docker buildx build --push -t me/app .', 'container_push'],
    ['echo hi | mail -s subject boss@example.com', 'email_send'],
    ['sendmail -t < msg.eml', 'email_send'],
    ['curl -X POST https://api.example.com/v1/items -d @data.json', 'http_upload'],
    ['curl -F file=@report.pdf https://upload.example.com', 'http_upload'],
    ['curl --data-binary @x https://example.com/hook', 'http_upload'],
    ['wget --post-data="a=1" https://example.com/form', 'http_upload'],
    ['http POST api.example.com/items name=x', 'http_upload'],
    ['vercel --prod', 'deploy'],
    ['netlify deploy --prod', 'deploy'],
    ['fly deploy', 'deploy'],
    ['kubectl apply -f deploy.yaml', 'deploy'],
    ['terraform apply -auto-approve', 'deploy'],
    ['helm upgrade --install app ./chart', 'deploy'],
    ['scp build.tar.gz deploy@host:/srv/', 'remote_copy'],
    ['rsync -av dist/ user@host:/var/www/', 'remote_copy'],
    ['aws s3 cp site/ s3://bucket/ --recursive', 'remote_copy'],
    ['npx vercel deploy', 'deploy'],
    ['sudo -u deploy git push production', 'git_push'],
    ['env GIT_SSH_COMMAND=ssh git push', 'git_push'],
    ['FOO=1 BAR=2 git push', 'git_push'],
    ['timeout 30 git push origin feature', 'git_push'],
    ['nohup git push &', 'git_push'],
    ['command git push', 'git_push'],
    ['bash -c "git push origin main"', 'git_push'],
    ["sh -c 'cd repo && npm publish'", 'package_publish'],
    ['echo $(git push)', 'git_push'],
    ['python3 -c "import subprocess; subprocess.run([\'git\', \'push\'])"', 'git_push'],
    ['node -e "require(\'child_process\').execSync(\'npm publish\')"', 'package_publish'],
    ['python -c "import smtplib; smtplib.SMTP(\'x\').sendmail(a,b,c)"', 'email_send'],
    ['python -c "import requests; requests.post(\'https://x.io\', data=d)"', 'http_upload'],
  ])('%s → %s', (command, pattern) => {
    expect(patterns(command)).toContain(pattern)
  })
})

describe('irreversible', () => {
  it.each([
    ['rm build.log', 'file_delete'],
    ['rm -rf node_modules', 'file_delete'],
    ['\\rm -f x', 'file_delete'],
    ['/bin/rm x', 'file_delete'],
    ['sudo rm -rf /var/log/app', 'file_delete'],
    ['find . -name "*.tmp" -delete', 'file_delete'],
    ['find . -name "*.o" -exec rm {} \\;', 'file_delete'],
    ['ls *.log | xargs rm', 'file_delete'],
    ['git ls-files -z | xargs -0 rm -f', 'file_delete'],
    ['python -c "import os; os.remove(\'a.txt\')"', 'file_delete'],
    ['python3 -c "import shutil; shutil.rmtree(\'build\')"', 'file_delete'],
    ['node -e "require(\'fs\').rmSync(\'dist\', {recursive: true})"', 'file_delete'],
    ['perl -e "unlink glob q(*.bak)"', 'file_delete'],
    ['ruby -e "FileUtils.rm_rf(\'tmp\')"', 'file_delete'],
    ['unlink old.txt', 'file_delete'],
    ['git reset --hard HEAD~1', 'git_discard'],
    ['git clean -fdx', 'git_discard'],
    ['git checkout .', 'git_discard'],
    ['git checkout -- src/app.ts', 'git_discard'],
    ['git restore src/', 'git_discard'],
    ['git stash drop', 'git_discard'],
    ['git stash clear', 'git_discard'],
    ['git switch --discard-changes main', 'git_discard'],
    ['git push --force origin feature', 'git_history_rewrite'],
    ['git push -f', 'git_history_rewrite'],
    ['git push origin +feature', 'git_history_rewrite'],
    ['git push --force-with-lease', 'git_history_rewrite'],
    ['git filter-branch --tree-filter x HEAD', 'git_history_rewrite'],
    ['git branch -D old', 'git_ref_delete'],
    ['git tag -d v1', 'git_ref_delete'],
    ['git push origin --delete old', 'git_ref_delete'],
    ['git push origin :old', 'git_ref_delete'],
    ['psql -c "DROP TABLE users"', 'db_destroy'],
    ['psql -d app -c "delete from sessions"', 'db_destroy'],
    ['mysql -e "TRUNCATE TABLE logs" app', 'db_destroy'],
    ['sqlite3 app.db "DELETE FROM users"', 'db_destroy'],
    ['dropdb app_production', 'db_destroy'],
    ['redis-cli FLUSHALL', 'db_destroy'],
    ['rails db:drop', 'db_destroy'],
    ['bundle exec rake db:reset', 'db_destroy'],
    ['psql app <<EOF\nDROP TABLE x;\nEOF', 'db_destroy'],
    ['terraform destroy', 'infra_destroy'],
    ['kubectl delete namespace prod', 'infra_destroy'],
    ['aws ec2 terminate-instances --instance-ids i-1', 'infra_destroy'],
    ['docker system prune -af', 'infra_destroy'],
    ['docker compose down -v', 'infra_destroy'],
    ['mkfs.ext4 /dev/sdb1', 'disk_format'],
    ['dd if=/dev/zero of=/dev/sda bs=1M', 'disk_format'],
    ['wipefs -a /dev/nvme0n1', 'disk_format'],
    ['crontab -r', 'file_delete'],
  ])('%s → %s', (command, pattern) => {
    expect(patterns(command)).toContain(pattern)
  })
})

describe('catastrophic (hard by default)', () => {
  it.each([
    'rm -rf /',
    'rm -rf /*',
    'sudo rm -rf --no-preserve-root /',
    'rm -rf ~',
    'rm -rf ~/',
    'rm -rf $HOME',
    'rm -fr "$HOME"',
    'rm -rf /home/dev',
    'rm -r /etc',
    'find / -delete',
    'find ~ -name x -delete',
    'mkfs.ext4 /dev/sda1',
    'dd if=/dev/urandom of=/dev/sdb',
    'psql -c "DROP DATABASE prod"',
    'dropdb prod',
    'redis-cli -h cache flushall',
    'git push --force origin main',
    'git push -f origin HEAD:master',
    'git push origin +main',
    'bash -c "rm -rf /"',
    'python -c "import os; os.system(\'rm -rf /\')"',
  ])('%s', (command) => {
    expect(catastrophic(command)).toBe(true)
  })

  it('a force push without a refspec is catastrophic on the default branch only', () => {
    expect(catastrophic('git push --force', ctx({ currentBranch: () => 'main' }))).toBe(true)
    expect(catastrophic('git push --force', ctx({ currentBranch: () => 'feature/x' }))).toBe(false)
    // Unknown branch (detached, no repo): assume the worst.
    expect(catastrophic('git push -f', ctx({ currentBranch: () => undefined }))).toBe(true)
  })

  it.each(['rm -rf build', 'rm -rf ./node_modules', 'git push --force origin feature', 'psql -c "DROP TABLE tmp"', 'rm -rf /tmp/scratch'])('%s is irreversible but not catastrophic', (command) => {
    expect(catastrophic(command)).toBe(false)
    expect(bash(command).findings.length).toBeGreaterThan(0)
  })
})

describe('a mention is not a use', () => {
  it.each([
    'echo "git push"',
    "echo 'rm -rf /'",
    'grep "rm -rf" scripts/*.sh',
    'grep -r "DROP DATABASE" migrations/',
    'git log --grep="npm publish"',
    'printf "%s\\n" "curl -X POST https://x.io"',
    'cat <<\'EOF\'\nrm -rf /\ngit push -f origin main\nEOF',
    'echo rm -rf / > notes.txt',
    '# git push origin main',
    'ls -la',
    'git status && git diff',
    'git checkout -b feature/new',
    'git checkout main',
    'git restore --staged src/app.ts',
    'git clean -n',
    'command -v rm',
    'which docker',
    'man rm',
    'npm run build',
    'npm test',
    'curl https://example.com/data.json -o data.json',
    'curl -X POST http://localhost:3000/api/test -d x',
    'docker build -t app .',
    'kubectl get pods',
    'terraform plan',
    'for f in rm push publish; do echo $f; done',
    'python -c "print(\'rm -rf /\')"',
    'node -e "console.log(\'git push\')"',
    'sed -n "s/rm -rf//p" notes.txt',
    'echo "$(echo git push)"',
  ])('%s stays silent', (command) => {
    expect(patterns(command)).toEqual([])
  })

  it('a commit message naming commands is only a commit (the seed’s commit_to_public_repo), never a push or delete', () => {
    expect(patterns('git commit -m "do not git push --force to main; rm -rf is bad"')).toEqual(['commit_to_public_repo'])
  })
})

describe('stale data', () => {
  it('Write over an existing file that was not read is stale', () => {
    const r = classify({ tool_name: 'Write', tool_input: { file_path: `${PROJECT}/existing.txt`, content: 'x' } }, ctx())
    expect(r.findings.map((f) => f.pattern)).toEqual(['stale_write'])
  })
  it('Write of a new file is not stale, and counts as seen afterwards', () => {
    const r = classify({ tool_name: 'Write', tool_input: { file_path: `${PROJECT}/new.txt`, content: 'x' } }, ctx())
    expect(r.findings).toEqual([])
    expect(r.reads).toEqual([`${PROJECT}/new.txt`])
  })
  it('Edit after a Read in this context is fine', () => {
    const c = ctx({ session: { reads: { [`${PROJECT}/app.ts`]: 1 }, prompts: [] } })
    expect(classify({ tool_name: 'Edit', tool_input: { file_path: `${PROJECT}/app.ts`, old_string: 'a', new_string: 'b' } }, c).findings).toEqual([])
    expect(classify({ tool_name: 'Edit', tool_input: { file_path: `${PROJECT}/app.ts`, old_string: 'a', new_string: 'b' } }, ctx()).findings.map((f) => f.pattern)).toEqual(['stale_write'])
  })
  it.each([
    ["sed -i 's/a/b/' existing.txt", true],
    ["sed -i.bak -e 's/a/b/' config.yml", true],
    ["perl -pi -e 's/a/b/' existing.txt", true],
    ["sed 's/a/b/' existing.txt", false],
    ["sed -i 's/a/b/' brand-new.txt", false],
  ])('%s → stale %s', (command, stale) => {
    expect(patterns(command).includes('stale_write')).toBe(stale)
  })
  it('Read and cat record what was read', () => {
    expect(classify({ tool_name: 'Read', tool_input: { file_path: `${PROJECT}/app.ts` } }, ctx()).reads).toEqual([`${PROJECT}/app.ts`])
    expect(bash('cat existing.txt | head -5').reads).toEqual([`${PROJECT}/existing.txt`])
  })
})

describe("self-protection of Ratchet's own state", () => {
  it.each([
    ['Write', { file_path: `${PROJECT}/.ratchet/guardrails.json`, content: '[]' }],
    ['Edit', { file_path: `${PROJECT}/.ratchet/pending-actions.json`, old_string: 'pending', new_string: 'approved' }],
    ['Write', { file_path: `${PROJECT}/.claude/settings.json`, content: '{}' }],
    ['Edit', { file_path: `${PROJECT}/.claude/settings.local.json`, old_string: 'a', new_string: 'b' }],
    ['Write', { file_path: '/home/dev/.claude/settings.json', content: '{}' }],
    ['MultiEdit', { file_path: `${PROJECT}/.ratchet/config.json`, edits: [] }],
  ])('%s %j', (tool, input) => {
    expect(classify({ tool_name: tool, tool_input: input }, ctx()).findings.map((f) => f.pattern)).toContain('ratchet_state_edit')
  })
  it.each([
    'echo "[]" > .ratchet/guardrails.json',
    'echo x >> .ratchet/activity.jsonl',
    "sed -i 's/hard/soft/' .ratchet/guardrails.json",
    'rm .ratchet/pending-actions.json',
    'mv .ratchet/guardrails.json /tmp/',
    'cp /tmp/evil.json .ratchet/guardrails.json',
    'cd .ratchet && rm guardrails.json',
    'cat x | tee .claude/settings.json',
    'truncate -s 0 .ratchet/activity.jsonl',
    'python3 -c "open(\'.ratchet/guardrails.json\',\'w\').write(\'[]\')"',
    'node -e "require(\'fs\').writeFileSync(\'.claude/settings.json\', \'{}\')"',
    'git checkout HEAD~3 -- .ratchet/guardrails.json',
    'ratchet pending approve pa-123',
    'ratchet guardrails add --pattern x --rule y',
    'ratchet uninstall',
    'bash -c "echo [] > .ratchet/guardrails.json"',
    'ln -sf /tmp/x .ratchet/guardrails.json',
  ])('%s', (command) => {
    expect(patterns(command)).toContain('ratchet_state_edit')
  })
  it.each(['cat .ratchet/guardrails.json', 'ratchet guardrails list', 'ratchet guardrails explain --command "ls"', 'jq . .ratchet/activity.jsonl', 'ratchet log', 'grep fire_count .ratchet/guardrails.json'])('%s (reading) is allowed', (command) => {
    expect(patterns(command)).not.toContain('ratchet_state_edit')
  })
  it('a custom $RATCHET_DIR is protected too', () => {
    const c = ctx({ stateDir: '/srv/ratchet-state' })
    expect(patterns('echo [] > /srv/ratchet-state/guardrails.json', c)).toContain('ratchet_state_edit')
  })
})

describe('scope beyond the request (cheap version)', () => {
  it('changing files outside the project', () => {
    expect(classify({ tool_name: 'Write', tool_input: { file_path: '/etc/hosts', content: 'x' } }, ctx()).findings.map((f) => f.pattern)).toContain('outside_project')
    expect(classify({ tool_name: 'Write', tool_input: { file_path: '/tmp/scratch.txt', content: 'x' } }, ctx()).findings).toEqual([])
    expect(patterns('echo x > ~/.bashrc')).toContain('outside_project')
  })
  it('web access when the prompt never implied it', () => {
    const asked = ctx({ session: { reads: {}, prompts: ['fix the failing test in utils.ts'] } })
    expect(classify({ tool_name: 'WebSearch', tool_input: { query: 'vitest config' } }, asked).findings.map((f) => f.pattern)).toEqual(['unrequested_web'])
    const web = ctx({ session: { reads: {}, prompts: ['look up the latest vitest docs and fix the config'] } })
    expect(classify({ tool_name: 'WebSearch', tool_input: { query: 'vitest config' } }, web).findings).toEqual([])
    // No prompt recorded (hook not registered on UserPromptSubmit): no guess.
    expect(classify({ tool_name: 'WebFetch', tool_input: { url: 'https://x.io', prompt: 'p' } }, ctx()).findings).toEqual([])
  })
  it('publishing when the prompt never mentioned it', () => {
    const c = ctx({ session: { reads: {}, prompts: ['add docs for the parser'] } })
    expect(patterns('git push origin feature', c)).toContain('unrequested_publish')
    const c2 = ctx({ session: { reads: {}, prompts: ['add docs for the parser and push it'] } })
    expect(patterns('git push origin feature', c2)).not.toContain('unrequested_publish')
  })
})

describe('MCP tools and others', () => {
  it.each([
    ['mcp__slack__post_message', 'external_post'],
    ['mcp__gmail__send_email', 'external_post'],
    ['mcp__github__create_pull_request', 'external_post'],
    ['mcp__db__drop_table', 'irreversible_mcp'],
    ['mcp__drive__delete_file', 'irreversible_mcp'],
  ])('%s → %s', (tool, pattern) => {
    expect(classify({ tool_name: tool, tool_input: {} }, ctx()).findings.map((f) => f.pattern)).toEqual([pattern])
  })
  it.each(['mcp__github__get_issue', 'mcp__slack__list_channels', 'Read', 'Glob', 'Grep', 'TodoWrite'])('%s is silent', (tool) => {
    expect(classify({ tool_name: tool, tool_input: { file_path: `${PROJECT}/a` } }, ctx()).findings).toEqual([])
  })
  it('cron jobs are timezone-dependent (the seed’s GR-003)', () => {
    expect(patterns('crontab mycron')).toContain('timezone_dependent_action')
    expect(classify({ tool_name: 'CronCreate', tool_input: { schedule: '0 9 * * *' } }, ctx()).findings.map((f) => f.pattern)).toContain('timezone_dependent_action')
  })
})
