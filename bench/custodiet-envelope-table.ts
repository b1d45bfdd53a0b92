// The envelope table: varied prompts (several languages) and what the user meant. Shared by the unit
// test (which requires ≥ 90% correct and prints the misses) and `npm run bench:custodiet`.
import { extractEnvelope, type Envelope } from '../lib/core/envelope'

export interface EnvelopeCase {
  prompt: string
  /** Earlier prompts in the session, oldest first. */
  before?: string[]
  question?: boolean
  /** Substrings the explicit scope must contain / must not contain. */
  scope?: string[]
  notScope?: string[]
  constraints?: string[]
  methods?: string[]
  forbidden?: string[]
  unsure?: boolean
}

export const ENVELOPE_TABLE: EnvelopeCase[] = [
  { prompt: 'fix the login bug', question: false, scope: ['fix the login bug'], constraints: [] },
  {
    prompt: "Fix the login bug using the existing auth library. Don't touch the database schema.",
    question: false,
    scope: ['Fix the login bug'],
    notScope: ['schema'],
    methods: ['existing auth library'],
    constraints: ["Don't touch the database schema"],
    forbidden: ['database', 'schema'],
  },
  {
    prompt: "Don't touch the tests, just fix the parser",
    question: false,
    scope: ['fix the parser'],
    notScope: ['tests'],
    constraints: ["Don't touch the tests"],
    forbidden: ['tests'],
  },
  { prompt: 'why does the build fail on node 18?', question: true, scope: ['why does the build fail'] },
  { prompt: 'what does parseConfig return when the file is empty?', question: true },
  { prompt: 'can you fix the flaky test in auth.test.ts?', question: false, scope: ['fix the flaky test'] },
  { prompt: 'try again with outlook?', question: false, scope: ['try again'] },
  { prompt: 'explain how the cache invalidation works', question: true },
  { prompt: 'is there a way to make the CLI faster?', question: true },
  {
    prompt: 'add a --json flag to the status command without changing the default output',
    question: false,
    scope: ['add a --json flag'],
    notScope: ['without'],
    constraints: ['without changing the default output'],
  },
  {
    prompt: 'update the README but leave the changelog alone',
    question: false,
    scope: ['update the README'],
    constraints: ['leave the changelog alone'],
    forbidden: ['changelog'],
  },
  {
    prompt: 'Use pnpm; don’t use npm; use vitest for the new test',
    question: false,
    methods: ['Use pnpm', 'use vitest'],
    constraints: ['don’t use npm'],
  },
  {
    prompt: 'refactor the payment module, keep the public API unchanged',
    question: false,
    scope: ['refactor the payment module'],
    constraints: ['keep the public API unchanged'],
  },
  {
    prompt: 'rename getUser to fetchUser everywhere. Never edit generated files in src/gen/',
    question: false,
    scope: ['rename getUser'],
    constraints: ['Never edit generated files in src/gen/'],
    forbidden: ['src/gen/'],
  },
  {
    prompt: 'also update the changelog',
    before: ['fix the login bug'],
    question: false,
    scope: ['fix the login bug', 'update the changelog'],
  },
  {
    prompt: 'no, I meant the signup page, not the login page',
    before: ['fix the redirect on the login page'],
    question: false,
    scope: ['fix the redirect', 'signup page'],
  },
  {
    prompt: 'actually, use yarn instead',
    before: ['install the dependencies and run the tests'],
    question: false,
    scope: ['install the dependencies'],
    methods: ['yarn'],
  },
  { prompt: 'yes, go ahead', before: ['should I rename the module? if so rename it to core'], scope: ['rename'] },
  {
    prompt: 'now write a migration guide for v2',
    before: ['fix the login bug'],
    question: false,
    scope: ['write a migration guide'],
    notScope: ['login'],
  },
  {
    prompt: 'Behebe den Fehler im Login, aber ändere nicht das Datenbankschema',
    question: false,
    scope: ['Behebe den Fehler'],
    constraints: ['ändere nicht das Datenbankschema'],
    forbidden: ['datenbankschema'],
  },
  { prompt: 'Warum schlägt der Build fehl?', question: true },
  {
    prompt: 'Corrige le bug de connexion sans toucher aux tests',
    question: false,
    scope: ['Corrige le bug'],
    constraints: ['sans toucher aux tests'],
    forbidden: ['tests'],
  },
  { prompt: 'Pourquoi le serveur ne démarre pas ?', question: true },
  {
    prompt: 'Arregla el error del login pero no toques la base de datos',
    question: false,
    scope: ['Arregla el error'],
    constraints: ['no toques la base de datos'],
  },
  { prompt: '¿Por qué falla la prueba de integración?', question: true },
  { prompt: 'Spiega come funziona il modulo di autenticazione', question: true },
  {
    prompt: 'debug why the MCP server fails to start; check its config',
    question: false,
    scope: ['debug why the MCP server fails to start'],
  },
  {
    prompt: 'run the test suite and tell me what fails. Do not fix anything.',
    question: false,
    scope: ['run the test suite'],
    constraints: ['Do not fix anything'],
  },
  { prompt: 'how should I structure the retry logic?', question: true },
  { prompt: 'could you add tests for the date parser', question: false, scope: ['add tests'] },
  {
    prompt: 'The deploy script is broken. Fix it, and don’t push anything.',
    question: false,
    scope: ['Fix it'],
    constraints: ['don’t push anything'],
  },
  {
    prompt: 'bump lodash to 4.17.21, nothing else',
    question: false,
    scope: ['bump lodash'],
    constraints: ['nothing else'],
  },
  { prompt: 'which files import the old logger?', question: true },
  {
    prompt: 'make the error message clearer by using the existing i18n helper',
    question: false,
    scope: ['make the error message clearer'],
    methods: ['using the existing i18n helper'],
  },
  { prompt: '登录页面的错误', unsure: true },
  {
    prompt: 'only change src/api/client.ts to add the timeout',
    question: false,
    constraints: ['only change src/api/client.ts'],
  },
  { prompt: 'Why doesn’t the watcher pick up new files?', question: true, constraints: [] },
  {
    prompt: 'delete the unused feature flags, instead of commenting them out',
    question: false,
    scope: ['delete the unused feature flags'],
    constraints: ['instead of commenting them out'],
  },
]

export function envelopeFor(c: EnvelopeCase): Envelope {
  let prev: Envelope | undefined
  for (const p of c.before ?? []) prev = extractEnvelope(p, prev)
  return extractEnvelope(c.prompt, prev)
}

/** The ways a case is read wrong (empty: read as meant). */
export function envelopeMisses(c: EnvelopeCase, e = envelopeFor(c)): string[] {
  const miss: string[] = []
  const low = (s: string) => s.toLowerCase()
  if (c.question !== undefined && e.question !== c.question) miss.push(`question=${e.question}`)
  for (const s of c.scope ?? []) if (!low(e.explicit).includes(low(s))) miss.push(`scope lacks "${s}" (${e.explicit})`)
  for (const s of c.notScope ?? []) if (low(e.explicit).includes(low(s))) miss.push(`scope has "${s}" (${e.explicit})`)
  if (c.constraints) {
    if (c.constraints.length === 0 && e.constraints.length)
      miss.push(`unexpected constraints ${JSON.stringify(e.constraints)}`)
    for (const s of c.constraints)
      if (!e.constraints.some((x) => low(x).includes(low(s))))
        miss.push(`constraints lack "${s}" (${JSON.stringify(e.constraints)})`)
  }
  for (const s of c.methods ?? [])
    if (!e.methods.some((x) => low(x).includes(low(s)))) miss.push(`methods lack "${s}" (${JSON.stringify(e.methods)})`)
  for (const s of c.forbidden ?? [])
    if (!e.forbidden.some((x) => low(x) === low(s)))
      miss.push(`forbidden lacks "${s}" (${JSON.stringify(e.forbidden)})`)
  if (c.unsure !== undefined && !!e.unsure !== c.unsure) miss.push(`unsure=${e.unsure ?? false}`)
  return miss
}

export function envelopeScore(): { total: number; correct: number; misses: { prompt: string; miss: string[] }[] } {
  const misses = ENVELOPE_TABLE.map((c) => ({ prompt: c.prompt, miss: envelopeMisses(c) })).filter((m) => m.miss.length)
  return { total: ENVELOPE_TABLE.length, correct: ENVELOPE_TABLE.length - misses.length, misses }
}
