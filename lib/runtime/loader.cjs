'use strict'
// Loads one bundled executable from dist/ through V8's code cache, so a hook skips parsing and
// compiling its bundle on every tool call (~10 ms of a ~40 ms budget). The cache is written at build
// time after a representative run, so it also holds the functions that run compiled. V8 rejects a
// cache made by another Node version or for other source; then we compile normally and refresh it.
// Plain JavaScript on purpose: it runs before anything is bundled.

const fs = require('fs')
const path = require('path')
const vm = require('vm')
const Module = require('module')

/** Compiles and evaluates dist/<name>.cjs (through its code cache); returns its exports and a cache refresher. */
function load(name) {
  const file = path.join(__dirname, name + '.cjs')
  const cacheFile = path.join(__dirname, name + '.v8cache')
  let source
  try {
    source = fs.readFileSync(file, 'utf8')
  } catch (e) {
    e.incompleteInstall = file
    throw e
  }
  let cachedData
  try {
    cachedData = fs.readFileSync(cacheFile)
  } catch {}
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData })
  const mod = { exports: {}, filename: file, id: file, loaded: true }
  script.runInThisContext().call(mod.exports, mod.exports, require, mod, file, __dirname)
  const refresh = () => {
    if (cachedData !== undefined && !script.cachedDataRejected && process.env.RATCHET_WRITE_CODE_CACHE !== '1') return
    try {
      const tmp = `${cacheFile}.${process.pid}.tmp`
      fs.writeFileSync(tmp, script.createCachedData())
      fs.renameSync(tmp, cacheFile)
    } catch {
      // A read-only install only loses the speed-up.
    }
  }
  return { exports: mod.exports, refresh }
}

exports.run = function run(name, ...args) {
  let loaded
  try {
    loaded = load(name)
  } catch (e) {
    if (!e || !e.incompleteInstall) throw e
    // A damaged install: exit 2, which blocks a PreToolUse call in every client (exit 1 would let it run).
    process.stderr.write(`ratchet ${name}: the install is incomplete (${e.code} ${e.incompleteInstall}); blocked to be safe. Reinstall ratchet, or run \`ratchet doctor\`.\n`)
    process.exitCode = 2
    return Promise.resolve()
  }
  const done = Promise.resolve(loaded.exports.main(...args))
  done.finally(loaded.refresh)
  return done
}

/**
 * A hook with a fast path (see the manifest's `fast`): the small bundle `fast` settles the commonest calls
 * on its own; anything it does not settle — including any error of its own — goes to the full engine
 * `name`, with the stdin it may already have read. It never decides anything but a plain allow.
 */
exports.runFast = function runFast(fast, name, argv) {
  let outcome
  try {
    const loaded = load(fast)
    outcome = loaded.exports.main(argv)
    loaded.refresh()
  } catch {
    outcome = undefined // a missing or broken fast bundle costs only the speed-up
  }
  if (outcome && outcome.settled === true) return Promise.resolve()
  return exports.run(name, argv, outcome && typeof outcome.stdin === 'string' ? { stdin: outcome.stdin } : undefined)
}
