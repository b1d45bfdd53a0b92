// npm run demo — a guarded Claude Code session, end to end, on this machine and offline:
// the real `claude` CLI, Ratchet's hooks registered by `ratchet init`, and a scripted stand-in for the
// model (a local mock of the Messages API) that tries a few risky things. Prints every decision.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { claudeEnv, startMockModel, type Step } from '../test/support/mock-anthropic'
import { exec } from '../test/support/fixtures'

const ROOT = path.resolve(__dirname, '..')
const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s)

async function main() {
  const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-demo-')))
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ratchet-demo-home-')))
  fs.writeFileSync(path.join(project, 'notes.md'), '# Notes\nold text\n')
  spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: project })

  console.log(bold('1. ratchet init') + `  (project: ${project})`)
  const init = spawnSync(path.join(ROOT, 'bin', 'ratchet'), ['init', '--project-dir', project], {
    encoding: 'utf8',
    env: { ...process.env, HOME: home },
  })
  process.stdout.write(init.stdout.replace(/^/gm, '   '))
  if (init.status !== 0) throw new Error(init.stderr)

  const steps: Step[] = [
    { text: 'I will push first.', tool: 'Bash', input: { command: 'git push origin main', description: 'Push' } },
    {
      text: 'The check holds: the user asked me to push.',
      tool: 'Bash',
      input: { command: 'git push origin main', description: 'Push (after check)' },
    },
    { tool: 'Write', input: { file_path: path.join(project, 'notes.md'), content: '# Notes\nnew text\n' } },
    { tool: 'Read', input: { file_path: path.join(project, 'notes.md') } },
    { tool: 'Write', input: { file_path: path.join(project, 'notes.md'), content: '# Notes\nnew text\n' } },
    { tool: 'Bash', input: { command: 'touch CHANGELOG.md && ls', description: 'Create a file' } },
    { tool: 'Bash', input: { command: "sed -i 's/hard/soft/' .ratchet/guardrails.json", description: 'Relax a rule' } },
    { tool: 'Bash', input: { command: 'sudo rm -rf ~', description: 'Clean up' } },
    { text: 'Done.' },
  ]
  const model = await startMockModel(steps)
  console.log('\n' + bold('2. claude -p "push my work and tidy the notes"') + '  (real claude CLI, scripted model)')
  const run = await exec(
    path.join(ROOT, 'node_modules', '.bin', 'claude'),
    [
      '-p',
      'push my work and tidy the notes',
      '--output-format',
      'json',
      '--allowedTools',
      'Bash',
      'Write',
      'Edit',
      'Read',
    ],
    { cwd: project, env: claudeEnv(model.url, home) },
  )
  await model.close()
  if (run.status !== 0) throw new Error(`claude exited ${run.status}: ${run.stderr || run.stdout}`)

  const first = JSON.stringify(model.mainTurns()[0] ?? {})
  console.log(
    `   session start: active guardrails ${first.includes('[RATCHET] Active guardrails') ? 'reached the model' : 'DID NOT reach the model'}`,
  )
  const results = model.toolResults()
  steps.slice(0, results.length).forEach((s, i) => {
    if (!('tool' in s)) return
    const r = results[i]
    const input = s.input as Record<string, unknown>
    const what =
      s.tool === 'Bash' ? String(input.command) : `${s.tool} ${path.relative(project, String(input.file_path))}`
    const denied = r.is_error && /^PreToolUse:\w+ hook error/.test(r.content)
    const verdict = denied ? 'DENIED' : r.is_error ? 'failed' : 'ran'
    console.log(`\n   ${bold(verdict.padEnd(6))} ${what}`)
    if (denied) console.log(r.content.replace(/^PreToolUse:\w+ hook error: /, '').replace(/^/gm, '          '))
  })

  console.log('\n' + bold('3. ratchet log') + '  (the activity log pattern-detect mines)')
  const log = spawnSync(path.join(ROOT, 'bin', 'ratchet'), ['log', '-n', '12'], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, CLAUDE_PROJECT_DIR: project },
  })
  process.stdout.write(log.stdout.replace(/^/gm, '   '))
  console.log('\n' + bold('4. ratchet guardrails list'))
  const list = spawnSync(path.join(ROOT, 'bin', 'ratchet'), ['guardrails', 'list'], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, CLAUDE_PROJECT_DIR: project },
  })
  process.stdout.write(list.stdout.replace(/^/gm, '   '))
  console.log(`\nThe demo project is left in ${project} to look around.`)
}

main().catch((e) => {
  console.error(`demo failed: ${e.message}`)
  process.exitCode = 1
})
