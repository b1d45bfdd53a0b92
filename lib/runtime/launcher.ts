// The bin/ launchers, written by scripts/build.mjs from the manifest (lib/core/manifest.ts) and
// checked against it by test/unit/manifest.test.ts.

import { CLI, EXECUTABLES, type Executable } from '../core/manifest'

/**
 * The bin/ launcher of an executable: tiny, so a hook starts close to bare node. When dist/ is missing
 * (an unbuilt checkout, a damaged install) it says so in one line and exits 2, which blocks a PreToolUse
 * call in every client instead of the exit 1 Claude Code would let pass.
 */
export function launcherSource(e: Executable): string {
  const workers = (EXECUTABLES as readonly Executable[]).filter((w) => w.kind === 'worker' && w.via?.bin === e.name)
  const target = workers.reduce(
    (acc, w) => `process.argv[2] === ${JSON.stringify(w.via!.arg)} ? ${JSON.stringify(w.name)} : ${acc}`,
    JSON.stringify(e.name),
  )
  const exitCode = e.kind === 'hook' ? 2 : 1
  const run = e.fast
    ? `loader.runFast(${JSON.stringify(e.name + '.fast')}, ${target}, process.argv)`
    : `loader.run(${target}, process.argv)`
  return [
    '#!/usr/bin/env node',
    '// Generated from lib/core/manifest.ts by scripts/build.mjs; edit the manifest, not this file.',
    'let loader',
    'try {',
    '  loader = require("../dist/loader.cjs")',
    '} catch (err) {',
    `  process.stderr.write("ratchet ${e.name}: the install is incomplete (" + err.code + " " + require("path").join(__dirname, "..", "dist") + "); blocked to be safe. Reinstall it (npm install in the project), or run \`${CLI} doctor\`.\\n")`,
    `  process.exit(${exitCode})`,
    '}',
    run,
    '',
  ].join('\n')
}
