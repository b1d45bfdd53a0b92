// The warm decision process (lib/runtime/warm.ts) is off for the suite: a test that drives the hooks in a
// scratch project would otherwise leave a background process per project behind it. test/e2e/warm.test.ts
// turns it on, against a copy of the install, and checks that it answers exactly as the hook's own process does.
process.env.RATCHET_WARM ??= '0'
