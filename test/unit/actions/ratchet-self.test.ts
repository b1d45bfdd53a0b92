// Self-protection with the floor (issue 18): the kernel keeps sandboxed commands off Ratchet's files, so the reader
// judges only what no sandbox sees (the file tools, MCP tools, Ratchet's own CLI and hooks by name) and, where no
// sandbox runs (best-effort mode, or a command the settings exclude), screens commands coarsely by the names they
// carry. The spellings that get past the coarse screen are listed here as its stated limits (docs/residual-risk.md).
import { describe, expect, it } from 'vitest'
import * as family from '../../../lib/core/actions/ratchet-self'
import { EXECUTABLES } from '../../../lib/core/manifest'
import { PROJECT, ctx, familyTable, patterns } from './table'

const w = (tool: string, input: Record<string, unknown>) => ({ tool_name: tool, tool_input: input })
const PKG = `${PROJECT}/node_modules/ratchet`
const SANDBOXED = ctx({ sandboxed: true, packageDir: PKG })
const BEST_EFFORT = ctx({
  packageDir: PKG,
  configHome: '/home/dev/.config/ratchet',
  warmDirs: ['/dev/shm/ratchet-warm-1000'],
})

// The table the catalogue checks: best-effort mode (no `sandboxed` in the context).
familyTable(family, {
  valid: [
    [w('Write', { file_path: `${PROJECT}/.ratchet/guardrails.json`, content: '[]' }), 'ratchet_state_edit'],
    [
      w('Edit', {
        file_path: `${PROJECT}/.ratchet/pending-actions.json`,
        old_string: 'pending',
        new_string: 'approved',
      }),
      'ratchet_state_edit',
    ],
    [w('Write', { file_path: `${PROJECT}/.claude/settings.json`, content: '{}' }), 'ratchet_state_edit'],
    [
      w('Edit', { file_path: `${PROJECT}/.claude/settings.local.json`, old_string: 'a', new_string: 'b' }),
      'ratchet_state_edit',
    ],
    [w('Write', { file_path: '/home/dev/.claude/settings.json', content: '{}' }), 'ratchet_state_edit'],
    [w('MultiEdit', { file_path: `${PROJECT}/.ratchet/config.json`, edits: [] }), 'ratchet_state_edit'],
    ['echo "[]" > .ratchet/guardrails.json', 'ratchet_state_edit'],
    ["sed -i 's/hard/soft/' .ratchet/guardrails.json", 'ratchet_state_edit'],
    ['rm .ratchet/pending-actions.json', 'ratchet_state_edit'],
    ['cd .ratchet && rm guardrails.json', 'ratchet_state_edit'],
    ["python3 -c \"open('.ratchet/guardrails.json','w').write('[]')\"", 'ratchet_state_edit'],
    ['ratchet pending approve pa-123', 'ratchet_state_edit'],
    ['ratchet uninstall', 'ratchet_state_edit'],
    ['ratchet floor confirm --yes', 'ratchet_state_edit'],
    ['bash -c "echo [] > .ratchet/guardrails.json"', 'ratchet_state_edit'],
    [w('Read', { file_path: '/home/dev/.config/ratchet/telegram.json' }), 'ratchet_key_read'],
  ],
  invalid: [
    'cat .ratchet/guardrails.json',
    'ratchet guardrails list',
    'ratchet guardrails explain --command "ls"',
    'jq . .ratchet/activity.jsonl',
    'ratchet log',
    'grep fire_count .ratchet/guardrails.json',
    'ls ~/.config/ratchet',
  ],
})

describe("sandbox mode: commands are the floor's", () => {
  it.each([
    'cp settings.local.json .claude/',
    "python3 -c \"open('.claude/settings.json','w').write('{}')\"",
    'npm install -D ./evil',
    'cat ~/.config/ratchet/telegram.json',
  ])('the reader leaves it to the kernel: %s', (command) => {
    expect(patterns(command, SANDBOXED).filter((p) => p === 'ratchet_state_edit' || p === 'ratchet_key_read')).toEqual(
      [],
    )
  })

  it.each([
    [w('Write', { file_path: `${PROJECT}/.ratchet/guardrails.json`, content: '[]' }), 'ratchet_state_edit'],
    [
      w('mcp__fs__write_file', { path: `${PROJECT}/.claude/settings.local.json`, content: '{"disableAllHooks":true}' }),
      'ratchet_state_edit',
    ],
    [w('mcp__fs__read_file', { path: '/home/dev/.config/ratchet/telegram.json' }), 'ratchet_key_read'],
    [w('Grep', { pattern: 'token', path: '/home/dev/.config' }), 'ratchet_key_read'],
    ['ratchet pending approve pa-1', 'ratchet_state_edit'],
    ['npx ratchet uninstall', 'ratchet_state_edit'],
    ['npx ratchet-guard uninstall', 'ratchet_state_edit'],
    ['npx ratchet-guard install --user', 'ratchet_state_edit'],
    ['npx --yes ratchet-guard@latest update', 'ratchet_state_edit'],
    ['pnpm dlx ratchet-guard uninstall --keep-package', 'ratchet_state_edit'],
    ['node node_modules/ratchet-guard/bin/ratchet install', 'ratchet_state_edit'],
    [
      w('Edit', {
        file_path: `${PROJECT}/package.json`,
        old_string: '"ratchet-guard": "file:.ratchet/vendor/ratchet-guard-0.1.0.tgz"',
        new_string: '"ratchet-guard": "file:./evil"',
      }),
      'ratchet_state_edit',
    ],
    ['node node_modules/ratchet/bin/ratchet courtroom hear --offense x --summary y', 'ratchet_state_edit'],
    [
      `echo '{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"delete notes.txt"}' | node_modules/.bin/preflight-check`,
      'ratchet_state_edit',
    ],
    ['node node_modules/ratchet/dist/preflight-check.cjs < p.json', 'ratchet_state_edit'],
    ['node node_modules/ratchet/dist/loader.cjs --warm preflight-check', 'ratchet_state_edit'],
  ] as const)('what runs outside the sandbox, and Ratchet by name, still stop: %s', (input, pattern) => {
    expect(patterns(input as never, SANDBOXED)).toContain(pattern)
  })

  // A write or delete that names a guarded path outright is still told so (fs-write, fs-delete: an exact path, no
  // spelling to race): the agent hears why instead of meeting a read-only file system.
  it.each([
    'npx ratchet-guard doctor',
    'npx ratchet-guard guardrails list',
    'npx ratchet-guard floor status --json',
    'npm install -D zod',
  ])('its reading commands and ordinary installs stay quiet: %s', (command) => {
    expect(patterns(command, SANDBOXED).filter((p) => p === 'ratchet_state_edit' || p === 'ratchet_key_read')).toEqual(
      [],
    )
  })

  it.each([
    'echo "[]" > .ratchet/guardrails.json',
    "sed -i 's/hard/soft/' .ratchet/guardrails.json",
    'rm -rf .ratchet',
    'chmod -x node_modules/ratchet/bin/preflight-check',
  ])('an exact guarded path is named, as a courtesy: %s', (command) => {
    expect(patterns(command, SANDBOXED)).toContain('ratchet_state_edit')
  })

  it.each([
    'ratchet guardrails list',
    'ratchet doctor',
    'node_modules/.bin/preflight-check --help',
    'ratchet heartbeat --cron-line',
    'node tools/custodiet.js --dry-run',
    'node scripts/session-start-banner.js',
  ])("and Ratchet's read-only commands stay quiet: %s", (command) => {
    expect(patterns(command, SANDBOXED)).not.toContain('ratchet_state_edit')
  })
})

describe('best-effort mode: the coarse screen', () => {
  it.each([
    ['cp settings.local.json .claude/', 'ratchet_state_edit'],
    ['d=.claude; cp settings.local.json $d/', 'ratchet_state_edit'],
    ['cp settings.local.json .cl?ude/', 'ratchet_state_edit'], // a glob that can name it
    ['find . -maxdepth 1 -name ".cl*" -exec cp settings.local.json {}/ \\;', 'ratchet_state_edit'],
    ['mv .ratchet/guardrails.json /tmp/', 'ratchet_state_edit'],
    ['tar xzf /tmp/x.tgz -C .claude', 'ratchet_state_edit'],
    ['git checkout HEAD~3 -- .ratchet/guardrails.json', 'ratchet_state_edit'],
    ['ln -sf /tmp/x .ratchet/guardrails.json', 'ratchet_state_edit'],
    ['truncate -s 0 .ratchet/activity.jsonl', 'ratchet_state_edit'],
    ['rm -rf node_modules/ratchet', 'ratchet_state_edit'],
    ['chmod -x node_modules/ratchet/bin/preflight-check', 'ratchet_state_edit'],
    ['npm uninstall ratchet', 'ratchet_state_edit'],
    ['npm install ratchet@0.0.1', 'ratchet_state_edit'],
    ['npm i -D /tmp/ratchet-9.9.9.tgz', 'ratchet_state_edit'],
    ['printf \'{"disableAllHooks": true}\' > x.json && cp x.json .claude/settings.local.json', 'ratchet_state_edit'],
    ["node -e \"require('fs').writeFileSync('.claude/settings.json', '{}')\"", 'ratchet_state_edit'],
    ["python3 -c \"import shutil; shutil.copy('x', '.cla'+'ude/settings.local.json')\"", 'ratchet_state_edit'], // literals are joined
    ['cat ~/.config/ratchet/telegram.json', 'ratchet_key_read'],
    ['tar czf /tmp/k.tgz ~/.config/ratchet', 'ratchet_key_read'],
    [`cat /dev/shm/ratchet-warm-1000/abc.req`, 'ratchet_key_read'],
    [`python3 -c "print(open('/home/dev/.con'+'fig/ratchet/warm/x.json').read())"`, 'ratchet_key_read'],
  ])('must stop: %s', (command, pattern) => {
    expect(patterns(command, BEST_EFFORT)).toContain(pattern)
  })

  it.each([
    'cat .claude/settings.json',
    'git add .ratchet/guardrails.json && git commit -m "tighten rules"',
    'git diff .claude/settings.json',
    'grep -rn preflight-check .claude',
    'find .ratchet -name "*.json"',
    "sed -n '1,5p' .ratchet/guardrails.json",
    'npm install left-pad',
    'npm ci',
    'pnpm add -D typescript',
    'npx rimraf dist',
    'cp README.md docs/',
    'echo hi > notes.txt',
    'ls ~/.config/ratchet',
    'ls /dev/shm',
  ])('must stay quiet: %s', (command) => {
    expect(
      patterns(command, BEST_EFFORT).filter((p) => p === 'ratchet_state_edit' || p === 'ratchet_key_read'),
    ).toEqual([])
  })

  // Its stated limits: a name the text never spells gets past the screen. Each is held by the kernel in sandbox
  // mode (test/e2e/claude-floor.test.ts, the probe) and listed in docs/residual-risk.md.
  it.each([
    'd=$(printf ".cl%sude" a | tr -d a); cp settings.local.json $d/',
    `python3 -c "import os,base64; os.rename('x', base64.b64decode('LmNsYXVkZS9zZXR0aW5ncy5sb2NhbC5qc29u').decode())"`,
    `python3 -c "import zipfile;zipfile.ZipFile('/tmp/x.zip').extractall('.')"`,
  ])('a documented limit (held by the sandbox, not by the screen): %s', (command) => {
    expect(patterns(command, BEST_EFFORT)).not.toContain('ratchet_state_edit')
  })
})

describe('ratchet-self: details', () => {
  it('a custom $RATCHET_DIR is protected too', () => {
    expect(patterns('echo [] > /srv/ratchet-state/guardrails.json', ctx({ stateDir: '/srv/ratchet-state' }))).toContain(
      'ratchet_state_edit',
    )
    expect(
      patterns(
        w('Write', { file_path: '/srv/ratchet-state/guardrails.json', content: '[]' }) as never,
        ctx({ stateDir: '/srv/ratchet-state', sandboxed: true }),
      ),
    ).toContain('ratchet_state_edit')
  })
  it('a write through a link to the state folder is the state folder', () => {
    const linked = ctx({
      fs: {
        realpath: (p) => (p === `${PROJECT}/notes.txt` ? `${PROJECT}/.ratchet/guardrails.json` : p),
        isDir: () => false,
        list: () => undefined,
        readText: () => undefined,
      },
    })
    expect(patterns(w('Write', { file_path: `${PROJECT}/notes.txt`, content: '[]' }) as never, linked)).toContain(
      'ratchet_state_edit',
    )
  })
})

describe("Ratchet's executables come from the manifest", () => {
  const bins = EXECUTABLES.filter((e) => e.bin).map((e) => e.name)
  it.each(bins)('a write to the launcher node_modules/.bin/%s is stopped', (name) => {
    expect(
      patterns(
        w('Write', { file_path: `${PROJECT}/node_modules/.bin/${name}`, content: '#!/bin/sh\nexit 0' }),
        SANDBOXED,
      ),
    ).toContain('ratchet_state_edit')
  })
  it.each(bins)('and a write beside it is quiet: node_modules/.bin/%s-helper', (name) => {
    expect(
      patterns(
        w('Write', { file_path: `${PROJECT}/node_modules/.bin/${name}-helper`, content: '#!/bin/sh\nexit 0' }),
        SANDBOXED,
      ),
    ).not.toContain('ratchet_state_edit')
  })
  it.each(EXECUTABLES.filter((e) => e.kind === 'hook').map((e) => e.name))(
    'the hook %s run by hand is stopped',
    (name) => {
      expect(patterns(`echo '{}' | ${name}`, SANDBOXED)).toContain('ratchet_state_edit')
    },
  )
})
