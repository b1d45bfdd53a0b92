import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/yield-between-tests.ts', 'test/support/scripted-reviewer.ts', 'test/support/no-warm.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The end-to-end suites spawn many processes; two cores are all CI has.
    maxWorkers: 2,
    minWorkers: 1,
  },
})
