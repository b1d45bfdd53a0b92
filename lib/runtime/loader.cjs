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

exports.run = function run(name, ...args) {
  const file = path.join(__dirname, name + '.cjs')
  const cacheFile = path.join(__dirname, name + '.v8cache')
  let source
  try {
    source = fs.readFileSync(file, 'utf8')
  } catch (e) {
    // A damaged install: exit 2, which blocks a PreToolUse call in every client (exit 1 would let it run).
    process.stderr.write(`ratchet ${name}: the install is incomplete (${e.code} ${file}); blocked to be safe. Reinstall ratchet, or run \`ratchet doctor\`.\n`)
    process.exitCode = 2
    return Promise.resolve()
  }
  let cachedData
  try {
    cachedData = fs.readFileSync(cacheFile)
  } catch {}
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData })
  const mod = { exports: {}, filename: file, id: file, loaded: true }
  script.runInThisContext().call(mod.exports, mod.exports, require, mod, file, __dirname)
  const done = Promise.resolve(mod.exports.main(...args))
  if (cachedData === undefined || script.cachedDataRejected || process.env.RATCHET_WRITE_CODE_CACHE === '1') {
    done.finally(() => {
      try {
        const tmp = `${cacheFile}.${process.pid}.tmp`
        fs.writeFileSync(tmp, script.createCachedData())
        fs.renameSync(tmp, cacheFile)
      } catch {
        // A read-only install only loses the speed-up.
      }
    })
  }
  return done
}
