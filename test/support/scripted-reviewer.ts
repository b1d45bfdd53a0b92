// Custodiet's default reviewer is `claude` on PATH, and `npm test` puts the real CLI there
// (node_modules/.bin). A hook a test drives without configuring a reviewer would then start a real
// `claude -p` in the background: it outlives the test, reaches for a network CI does not have, and writes
// its own session files under the test's HOME, which is often the project itself (a CI run failed on
// `git add -A` racing one of them, 2026-11-22). Put the scripted stand-in first on PATH instead; tests
// that drive the real CLI name it by its full path.
import path from 'node:path'

process.env.PATH = `${path.resolve(__dirname, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`
