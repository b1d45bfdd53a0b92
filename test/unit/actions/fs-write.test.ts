import { describe, expect, it } from 'vitest'
import * as family from '../../../lib/core/actions/fs-write'
import { PROJECT, ctx, familyTable, patterns, run, withGit } from './table'

const existing = (over: Record<string, 'tracked-clean' | 'tracked-modified' | 'untracked' | 'ignored'>) => ({
  ...withGit(over),
  fileExists: (p: string) => Object.keys(over).some((k) => p === `${PROJECT}/${k}`),
})

familyTable(family, {
  valid: [
    ["sed -i 's/a/b/' existing.txt", 'stale_write'],
    ["sed -i.bak -e 's/a/b/' config.yml", 'stale_write'],
    ["perl -pi -e 's/a/b/' existing.txt", 'stale_write'],
    [{ tool_name: 'Write', tool_input: { file_path: `${PROJECT}/existing.txt`, content: 'x' } }, 'stale_write'],
    [
      { tool_name: 'Edit', tool_input: { file_path: `${PROJECT}/app.ts`, old_string: 'a', new_string: 'b' } },
      'stale_write',
    ],
    [{ tool_name: 'Write', tool_input: { file_path: '/etc/hosts', content: 'x' } }, 'outside_project'],
    ['echo x > ~/.bashrc', 'outside_project'],
    ['truncate -s 0 /var/log/app.log', 'outside_project'],
    ['cat x | tee ~/.profile', 'outside_project'],
    ['sort x | sponge ~/list.txt', 'outside_project'],
    ['touch /etc/motd', 'outside_project'],
    ['chmod 600 ~/.ssh/config', 'outside_project'],
    ['chown dev /srv/app', 'outside_project'],
    ['ln -sf /tmp/x ~/.local/bin/tool', 'outside_project'],
    ['install -m 755 tool /usr/local/bin/tool', 'outside_project'],
    ['cp build/app /usr/local/bin/app', 'outside_project'],
    ['mv notes.txt ~/Desktop/', 'outside_project'],
    ['trash ~/Documents/report.pdf', 'outside_project'],
    // shell overwrites of a file never read are stale, like a Write of it
    ['cat > existing.txt <<EOF\nnew\nEOF', 'stale_write'],
    ['echo hi > existing.txt', 'stale_write'],
    [': > existing.txt', 'stale_write'],
    ['cp /dev/null existing.txt', 'stale_write'],
    ['truncate -s0 existing.txt', 'stale_write'],
    ['truncate -s 0 existing.txt', 'stale_write'],
    ['echo x | tee existing.txt', 'stale_write'],
    ['sort -o x config.yml | sponge config.yml', 'stale_write'],
    ["python -c \"open('existing.txt','w').write('x')\"", 'stale_write'],
    ["python3 -c \"from pathlib import Path; Path('config.yml').write_text('a: 1')\"", 'stale_write'],
    ["node -e \"require('fs').writeFileSync('existing.txt', 'x')\"", 'stale_write'],
    ["ruby -e \"File.write('existing.txt', 'x')\"", 'stale_write'],
    ['bash -c "echo > existing.txt"', 'stale_write'],
    // a log the user keeps in git, or with no answer from git, is still content
    {
      input: 'echo "" > app.log',
      pattern: 'stale_write',
      ctx: { fileExists: () => true, fileState: () => 'untracked' },
    },
    { input: 'echo "" > app.log', pattern: 'stale_write', ctx: { fileExists: () => true } },
    // a move or copy onto an existing file replaces it: what git cannot bring back is lost (issue 9 red team)
    { input: 'mv notes.txt.new notes.txt', pattern: 'file_delete', ctx: existing({ 'notes.txt': 'untracked' }) },
    { input: 'mv -f draft.md README.md', pattern: 'file_delete', ctx: existing({ 'README.md': 'tracked-modified' }) },
    { input: 'cp .env.example .env', pattern: 'file_delete', ctx: existing({ '.env': 'ignored' }) },
    // chmod -R that takes read access away from a tree: as good as deleting it; home or / is catastrophic
    { input: 'chmod -R 000 .', pattern: 'file_delete', catastrophic: false },
    { input: 'chmod -R 000 $HOME', pattern: 'file_delete', catastrophic: true },
    { input: 'chmod -R a-r /', pattern: 'file_delete', catastrophic: true },
    { input: 'chmod -R 000 .', pattern: 'file_delete', catastrophic: false },
    { input: 'chmod -R 000 home', pattern: 'file_delete', ctx: withGit({ home: 'untracked' }) },
    { input: 'chmod --recursive u= data', pattern: 'file_delete', ctx: withGit({ data: 'untracked' }) },
    { input: 'chmod -R -r notes', pattern: 'file_delete', ctx: withGit({ notes: 'untracked' }) },
  ],
  invalid: [
    "sed 's/a/b/' existing.txt",
    "sed -i 's/a/b/' brand-new.txt",
    'sed -n "s/rm -rf//p" notes.txt',
    "perl -ne 'print if /x/' existing.txt",
    'truncate -s 0 out.log',
    'cat x | tee out.log',
    'sort x | sponge list.txt',
    'touch new.txt',
    'chmod +x scripts/run.sh',
    'chown dev build/',
    'ln -s ../shared lib/shared',
    'install -m 644 a.txt build/a.txt',
    'cp a.txt b.txt',
    'mv old.txt new.txt',
    'trash build/tmp.txt',
    { tool_name: 'Write', tool_input: { file_path: `${PROJECT}/new.txt`, content: 'x' } },
    { tool_name: 'Write', tool_input: { file_path: '/tmp/scratch.txt', content: 'x' } },
    {
      input: { tool_name: 'Edit', tool_input: { file_path: `${PROJECT}/app.ts`, old_string: 'a', new_string: 'b' } },
      ctx: { session: { reads: { [`${PROJECT}/app.ts`]: 1 }, prompts: [] } },
    },
    'echo hi >> existing.txt',
    'echo x | tee -a existing.txt',
    'echo hi > new.txt',
    'npm test > /dev/null 2>&1',
    { input: 'truncate -s 0 logs/app.log', ctx: { fileExists: () => true, fileState: () => 'ignored' } },
    { input: 'echo "" > app.log', ctx: { fileExists: () => true, fileState: () => 'ignored' } },
    'echo x > /tmp/out.log',
    {
      input: 'cat > existing.txt <<EOF\nnew\nEOF',
      ctx: { session: { reads: { [`${PROJECT}/existing.txt`]: 1 }, prompts: [] } },
    },
    'cp existing.txt backup.txt',
    'mkdir -p build/out',
    'python -c "print(open(\'existing.txt\').read())"',
    "node -e \"require('fs').writeFileSync('out.json', '{}')\"",
    // replacing a file git restores, the agent's own, with -n/-b, or into a folder: nothing is lost
    { input: 'mv README.md.new README.md', ctx: existing({ 'README.md': 'tracked-clean' }) },
    { input: 'mv -n a.txt notes.txt', ctx: existing({ 'notes.txt': 'untracked' }) },
    { input: 'cp --backup=numbered a.txt notes.txt', ctx: existing({ 'notes.txt': 'untracked' }) },
    { input: 'mv a.txt b.txt', ctx: existing({}) },
    {
      input: 'mv out.tmp out.json',
      ctx: {
        ...existing({ 'out.json': 'untracked' }),
        session: { reads: {}, prompts: [], created: { [`${PROJECT}/out.json`]: 1 } },
      },
    },
    // permissions that leave the owner able to read, or not recursive, or on build output
    { input: 'chmod -R 755 scripts', ctx: withGit({ scripts: 'untracked' }) },
    { input: 'chmod -R u+w dist', ctx: withGit({ dist: 'ignored' }) },
    { input: 'chmod -R go-rwx secrets', ctx: withGit({ secrets: 'untracked' }) },
    { input: 'chmod 000 notes.txt', ctx: withGit({ 'notes.txt': 'untracked' }) },
    { input: 'chmod -R 000 dist', ctx: withGit({ dist: 'ignored' }) },
  ],
  recordOnly: ['mkdir'],
})

describe('fs-write: what counts as seen', () => {
  it('files and folders made by this call are remembered as the agent’s own', () => {
    expect(run('mkdir -p scratch && echo hi > scratch/a.txt && touch b.txt').created.sort()).toEqual([
      `${PROJECT}/b.txt`,
      `${PROJECT}/scratch`,
      `${PROJECT}/scratch/a.txt`,
    ])
    expect(run({ tool_name: 'Write', tool_input: { file_path: `${PROJECT}/new.txt`, content: 'x' } }).created).toEqual([
      `${PROJECT}/new.txt`,
    ])
    expect(run('echo hi > existing.txt').created).toEqual([])
  })
  it('a Write of a new file counts as seen afterwards', () => {
    expect(run({ tool_name: 'Write', tool_input: { file_path: `${PROJECT}/new.txt`, content: 'x' } }).reads).toEqual([
      `${PROJECT}/new.txt`,
    ])
  })
  it('the same Edit is stale before a Read and fine after it', () => {
    const edit = { tool_name: 'Edit', tool_input: { file_path: `${PROJECT}/app.ts`, old_string: 'a', new_string: 'b' } }
    expect(patterns(edit)).toEqual(['stale_write'])
    expect(patterns(edit, ctx({ session: { reads: { [`${PROJECT}/app.ts`]: 1 }, prompts: [] } }))).toEqual([])
  })
})
