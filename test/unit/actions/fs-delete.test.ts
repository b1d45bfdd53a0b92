import * as family from '../../../lib/core/actions/fs-delete'
import { describe, expect, it } from 'vitest'
import type { ClassifyContext } from '../../../lib/core/classify'
import { PROJECT, ctx, familyTable, run, withGit } from './table'

familyTable(family, {
  valid: [
    ['rm build.log', 'file_delete'],
    ['rm -rf node_modules', 'file_delete'],
    ['\\rm -f x', 'file_delete'],
    ['/bin/rm x', 'file_delete'],
    ['sudo rm -rf /var/log/app', 'file_delete'],
    ['find . -name "*.tmp" -delete', 'file_delete'],
    ['find . -name "*.o" -exec rm {} \\;', 'file_delete'],
    // The wrapper hid the rm from the find detector, and `./{}` read as a file that does not exist (lead's run).
    {
      input: 'find . -name notes.txt -exec env rm {} +',
      pattern: 'file_delete',
      ctx: withGit({ '{}': 'missing', '.': 'tracked-modified' }),
    },
    ['parallel rm {} ::: notes.txt', 'file_delete'],
    ['ls *.log | xargs rm', 'file_delete'],
    ['git ls-files -z | xargs -0 rm -f', 'file_delete'],
    ['python -c "import os; os.remove(\'a.txt\')"', 'file_delete'],
    ['python3 -c "import shutil; shutil.rmtree(\'build\')"', 'file_delete'],
    ["node -e \"require('fs').rmSync('dist', {recursive: true})\"", 'file_delete'],
    ['perl -e "unlink glob q(*.bak)"', 'file_delete'],
    ['ruby -e "FileUtils.rm_rf(\'tmp\')"', 'file_delete'],
    ['php -r "unlink(\'a.txt\');"', 'file_delete'],
    ['unlink old.txt', 'file_delete'],
    ['rmdir empty-dir', 'file_delete'],
    ['shred -u secret.txt', 'file_delete'],
    ['srm -r old', 'file_delete'],
    // catastrophic: `/`, a system folder, the home folder itself
    ['rm -rf /', 'file_delete', true],
    // --help only counts right after the program or its command words
    ['rm -rf / --help', 'file_delete', true],
    ['rm -rf /*', 'file_delete', true],
    ['sudo rm -rf --no-preserve-root /', 'file_delete', true],
    ['rm -rf ~', 'file_delete', true],
    ['rm -rf ~/', 'file_delete', true],
    ['rm -rf $HOME', 'file_delete', true],
    ['rm -fr "$HOME"', 'file_delete', true],
    ['rm -rf /home/dev', 'file_delete', true],
    ['rm -r /etc', 'file_delete', true],
    ['find / -delete', 'file_delete', true],
    ['find ~ -name x -delete', 'file_delete', true],
    ['bash -c "rm -rf /"', 'file_delete', true],
    ['python -c "import os; os.system(\'rm -rf /\')"', 'file_delete', true],
    // irreversible but not catastrophic
    ['rm -rf build', 'file_delete', false],
    ['rm -rf ./node_modules', 'file_delete', false],
    ['rm -rf /tmp/scratch', 'file_delete', false],
    // outside the project is also out of scope
    ['rm ~/notes.txt', 'outside_project'],
    // irreversible means unrecoverable: what git cannot bring back
    { input: 'rm notes.txt', pattern: 'file_delete', ctx: withGit({ 'notes.txt': 'untracked' }) },
    { input: 'rm src/app.ts', pattern: 'file_delete', ctx: withGit({ 'src/app.ts': 'tracked-modified' }) },
    { input: 'rm .env', pattern: 'file_delete', ctx: withGit({ '.env': 'ignored' }) },
    { input: 'rm -rf data/', pattern: 'file_delete', ctx: withGit({ data: 'untracked' }) },
    { input: 'rm -rf ~/data', pattern: 'file_delete', ctx: withGit({}) },
    { input: 'rm -f $OUT', pattern: 'file_delete', ctx: withGit({}) },
    {
      input: 'rm dist/app.js notes.txt',
      pattern: 'file_delete',
      ctx: withGit({ 'dist/app.js': 'ignored', 'notes.txt': 'untracked' }),
    },
    { input: 'ls | xargs rm', pattern: 'file_delete', ctx: withGit({}) },
    { input: 'rm -rf /', pattern: 'file_delete', catastrophic: true, ctx: withGit({}) },
    // a rename earlier on the line can put the user's file where "nothing" was
    { input: 'mv notes.txt gone.txt && rm gone.txt', pattern: 'file_delete', ctx: withGit({ 'gone.txt': 'missing' }) },
    {
      input: 'git mv notes.txt gone.txt; rm gone.txt',
      pattern: 'file_delete',
      ctx: withGit({ 'gone.txt': 'missing' }),
    },
    // the agent's own folder holding a link to somewhere else: the provider cannot vouch for it
    {
      input: 'rm -rf scratch/home/',
      pattern: 'file_delete',
      ctx: { fileState: () => undefined, session: { reads: {}, prompts: [], created: { [`${PROJECT}/scratch`]: 1 } } },
    },
    // no provider, or it timed out: the worst reading
    { input: 'rm -rf build', pattern: 'file_delete', ctx: { fileState: () => undefined } },
    // the npm packages that delete, however they are fetched (issue 9 red team: `npx --yes rimraf .claude`)
    { input: 'npx --yes rimraf data', pattern: 'file_delete', ctx: withGit({ data: 'untracked' }) },
    { input: 'npx del-cli notes', pattern: 'file_delete', ctx: withGit({ notes: 'untracked' }) },
    ['npx rimraf ~', 'file_delete', true],
  ],
  invalid: [
    "echo 'rm -rf /'",
    'grep "rm -rf" scripts/*.sh',
    "cat <<'EOF'\nrm -rf /\ngit push -f origin main\nEOF",
    'echo rm -rf / > notes.txt',
    'command -v rm',
    'man rm',
    'rm --help',
    'unlink --version',
    'rmdir --help',
    'shred --help',
    'srm --version',
    'find . -name "*.ts"',
    'find . -name "*.o" -exec ls {} \\;',
    'for f in rm push publish; do echo $f; done',
    'python -c "print(\'rm -rf /\')"',
    { input: 'rm -rf node_modules', ctx: withGit({ node_modules: 'ignored' }) },
    { input: 'rm -rf dist build/', ctx: withGit({ dist: 'ignored', build: 'ignored' }) },
    { input: 'rm src/old.ts', ctx: withGit({ 'src/old.ts': 'tracked-clean' }) },
    { input: 'rm missing.txt', ctx: withGit({ 'missing.txt': 'missing' }) },
    { input: 'cd src && rm -f missing.txt', ctx: withGit({ 'src/missing.txt': 'missing' }) },
    {
      input: 'rm scratch.txt',
      ctx: withGit({}, { session: { reads: {}, prompts: [], created: { [`${PROJECT}/scratch.txt`]: 1 } } }),
    },
    {
      input: 'rm -rf tmp-work/out',
      ctx: withGit({}, { session: { reads: {}, prompts: [], created: { [`${PROJECT}/tmp-work`]: 1 } } }),
    },
    { input: 'mkdir scratch && rm -rf scratch', ctx: withGit({}) },
    { input: 'find dist -name "*.map" -delete', ctx: withGit({ dist: 'ignored' }) },
    { input: 'find dist -name "*.map" -exec env rm {} +', ctx: withGit({ dist: 'ignored' }) },
    { input: 'rm -rf __pycache__ .pytest_cache', ctx: withGit({ __pycache__: 'ignored', '.pytest_cache': 'ignored' }) },
    { input: 'npx rimraf dist', ctx: withGit({ dist: 'ignored' }) },
    { input: 'npx del-cli coverage', ctx: withGit({ coverage: 'ignored' }) },
  ],
})

describe('a glob in the last part of a path is weighed as the entries it matches (issue 19)', () => {
  const listing = (dirs: Record<string, string[]>): Partial<ClassifyContext> => ({
    fs: {
      realpath: (p) => p,
      isDir: () => true,
      list: (d) => dirs[d.replace(`${PROJECT}/`, '')],
      readText: () => undefined,
    },
    ...withGit({}),
  })
  const uploads = listing({
    'data/uploads': ['a.png', 'b.png', '.keep', 'notes.txt'],
    '/home/dev': ['.bashrc', 'docs'],
  })
  it.each<[string, string[]]>([
    ['rm -rf data/uploads/*', ['data/uploads/a.png', 'data/uploads/b.png', 'data/uploads/notes.txt']],
    ['rm data/uploads/*.png', ['data/uploads/a.png', 'data/uploads/b.png']],
    ['rm -f data/uploads/.k*', ['data/uploads/.keep']],
    ['rm -rf data/uploads', ['data/uploads']],
  ])('%s → %j', (command, paths) => {
    expect(run(command, ctx(uploads)).deleted.map((d) => d.path.replace(`${PROJECT}/`, ''))).toEqual(paths)
  })
  it('a glob that matches nothing, an unlisted folder, or one changed earlier on the line stays as written', () => {
    expect(run('rm -rf data/uploads/*.gif', ctx(uploads)).deleted.map((d) => d.path)).toEqual([
      `${PROJECT}/data/uploads/*.gif`,
    ])
    expect(run('rm -rf other/*', ctx(uploads)).deleted.map((d) => d.path)).toEqual([`${PROJECT}/other/*`])
    expect(run('mv x data/uploads/ && rm -rf data/uploads/*', ctx(uploads)).deleted.map((d) => d.path)).toEqual([
      `${PROJECT}/data/uploads/*`,
    ])
  })
  it('a glob on the home folder stays catastrophic', () => {
    expect(run('rm -rf ~/*', ctx(uploads)).findings.some((f) => f.catastrophic)).toBe(true)
  })
})
