// Let the worker's event loop turn between tests. Many e2e tests drive the built hooks with spawnSync, and a
// file of synchronous tests never reaches the poll phase: vitest's progress RPC ("onTaskUpdate") then waits
// unanswered, and on a loaded 2-core CI machine its 60 s timer fires before the answer is read — an
// "Unhandled Error" that fails a run whose tests all passed (seen on a fresh-clone run, 2026-11-22).
import { afterEach } from 'vitest'

afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)))
