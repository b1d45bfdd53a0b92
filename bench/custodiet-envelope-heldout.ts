// Held-out envelope prompts (issue 11 item 5): written after the envelope table was tuned, without
// looking at how lib/core/envelope.ts reads them, to measure whether the reading generalises.
//   HELDOUT  35 prompts: measured first as written, then used to find general fixes (the before/after
//            numbers are in the closing note of issue 11).
//   FINAL    10 prompts: never used to change envelope.ts — the honest held-out number.
// Expectations say what the user meant, in the table's vocabulary (substrings; see envelopeMisses).
import { envelopeMisses, type EnvelopeCase } from './custodiet-envelope-table'

export const HELDOUT: EnvelopeCase[] = [
  {
    prompt: 'Please add pagination to the /users endpoint, but do not change the response schema',
    question: false,
    scope: ['add pagination'],
    notScope: ['response schema'],
    constraints: ['do not change the response schema'],
    forbidden: ['schema'],
  },
  { prompt: 'Is the retry logic in fetcher.ts thread-safe?', question: true },
  { prompt: 'Could you explain why the CI job times out?', question: true },
  {
    prompt: "Write unit tests for the tokenizer; don't modify the tokenizer itself",
    question: false,
    scope: ['Write unit tests'],
    constraints: ["don't modify the tokenizer itself"],
    forbidden: ['tokenizer'],
  },
  {
    prompt: 'Migrate the config loader to zod, using the schemas in lib/schemas',
    question: false,
    scope: ['Migrate the config loader'],
    methods: ['schemas in lib/schemas'],
  },
  {
    prompt: 'Optimise the image resizing via sharp instead of jimp',
    question: false,
    scope: ['Optimise the image resizing'],
    methods: ['sharp'],
    constraints: ['instead of jimp'],
  },
  {
    prompt: 'and add a regression test for it',
    before: ['fix the date parsing in utils/date.ts'],
    question: false,
    scope: ['fix the date parsing', 'add a regression test'],
  },
  {
    prompt: "wait, don't delete them, archive them instead",
    before: ['delete the old migration files'],
    question: false,
    scope: ['archive them'],
    constraints: ["don't delete them"],
  },
  { prompt: 'yes please', before: ['should I also update the docs?'], question: false, scope: ['update the docs'] },
  { prompt: 'Wie funktioniert die Authentifizierung in diesem Projekt?', question: true },
  {
    prompt: 'Schreibe einen Test für den Parser mit vitest',
    question: false,
    scope: ['Schreibe einen Test'],
    methods: ['vitest'],
  },
  {
    prompt: 'Ajoute un bouton de déconnexion, mais ne modifie pas le CSS global',
    question: false,
    scope: ['Ajoute un bouton'],
    constraints: ['ne modifie pas le CSS global'],
    forbidden: ['css'],
  },
  { prompt: '¿Dónde se define la variable DATABASE_URL?', question: true },
  {
    prompt: 'Actualiza las dependencias sin tocar el package-lock',
    question: false,
    scope: ['Actualiza las dependencias'],
    constraints: ['sin tocar el package-lock'],
    forbidden: ['package-lock'],
  },
  {
    prompt: 'Corrija o bug no formulário de cadastro, mas não mexa no backend',
    question: false,
    scope: ['Corrija o bug'],
    constraints: ['não mexa no backend'],
    forbidden: ['backend'],
  },
  { prompt: 'Por que o servidor está lento?', question: true },
  {
    prompt: 'Aggiungi il logging al modulo di pagamento senza cambiare le API pubbliche',
    question: false,
    scope: ['Aggiungi il logging'],
    constraints: ['senza cambiare le API pubbliche'],
  },
  { prompt: 'Perché il test fallisce su Windows?', question: true },
  { prompt: 'Repareer de fout in de inlogpagina', unsure: true },
  { prompt: 'ログインのバグを直して', unsure: true },
  { prompt: "Shouldn't we cache the results?", question: true, constraints: [] },
  {
    prompt: 'no need to run the tests, just update the snapshot',
    question: false,
    scope: ['update the snapshot'],
    notScope: ['run the tests'],
    constraints: ['no need to run the tests'],
  },
  {
    prompt: 'Never force-push to main. Rebase my branch on main and push it',
    question: false,
    scope: ['Rebase my branch'],
    constraints: ['Never force-push to main'],
  },
  { prompt: 'I want the logs to include the request id', question: false, scope: ['include the request id'] },
  {
    prompt: "Let's move the helpers into lib/util, keeping the exports the same",
    question: false,
    scope: ['move the helpers'],
    constraints: ['keeping the exports the same'],
  },
  {
    prompt: 'The tests in api/ are failing after the upgrade. Can you take a look?',
    question: false,
    scope: ['take a look'],
  },
  { prompt: 'What would it take to support Postgres 16?', question: true },
  { prompt: 'List every TODO in src and tell me which ones are stale', question: true },
  {
    prompt: 'Refactor the auth middleware by extracting the token check into its own function',
    question: false,
    scope: ['Refactor the auth middleware'],
    methods: ['extracting the token check'],
  },
  {
    prompt: "Fix the typo in the README. Don't commit.",
    question: false,
    scope: ['Fix the typo'],
    constraints: ["Don't commit"],
  },
  {
    prompt: 'then make it remember the choice in localStorage',
    before: ['add a dark mode toggle to settings'],
    question: false,
    scope: ['add a dark mode toggle', 'remember the choice'],
  },
  {
    prompt: 'sorry, I meant fetch, not axios',
    before: ['use axios for the http client'],
    question: false,
    methods: ['fetch'],
  },
  {
    prompt: "Please don't touch anything under infra/, but you can read it to figure out the deploy failure",
    question: false,
    scope: ['figure out the deploy failure'],
    constraints: ["don't touch anything under infra/"],
    forbidden: ['infra/'],
  },
  {
    prompt: 'Translate the error messages to German, keep the keys intact',
    question: false,
    scope: ['Translate the error messages'],
    constraints: ['keep the keys intact'],
    forbidden: ['keys'],
  },
  { prompt: 'hmm, does this function leak memory?', question: true },
]

export const FINAL: EnvelopeCase[] = [
  {
    prompt: 'Add retries to the S3 upload, but leave the download path alone',
    question: false,
    scope: ['Add retries'],
    constraints: ['leave the download path alone'],
    forbidden: ['download'],
  },
  { prompt: 'Kannst du erklären, warum der Cache nicht invalidiert wird?', question: true },
  {
    prompt: 'Supprime les logs de debug sans toucher aux tests',
    question: false,
    scope: ['Supprime les logs'],
    constraints: ['sans toucher aux tests'],
    forbidden: ['tests'],
  },
  {
    prompt: '¿Puedes añadir validación al formulario usando zod?',
    question: false,
    scope: ['añadir validación'],
    methods: ['zod'],
  },
  { prompt: 'Was ist der Unterschied zwischen den beiden Configs?', question: true },
  {
    prompt: 'also add a pre-commit hook for it',
    before: ['set up eslint for the project'],
    question: false,
    scope: ['set up eslint', 'add a pre-commit hook'],
  },
  {
    prompt: 'Do not upgrade React. Fix the hydration warning in Header.tsx',
    question: false,
    scope: ['Fix the hydration warning'],
    constraints: ['Do not upgrade React'],
    forbidden: ['react'],
  },
  { prompt: 'where is the rate limiter configured?', question: true },
  {
    prompt: 'no wait, keep the column name, just update the API field',
    before: ['rename the column user_name to username'],
    question: false,
    scope: ['update the API field'],
    constraints: ['keep the column name'],
  },
  {
    prompt: 'Generate the OpenAPI spec from the routes with the existing script, no manual edits',
    question: false,
    scope: ['Generate the OpenAPI spec'],
    methods: ['existing script'],
    constraints: ['no manual edits'],
  },
]

export function score(table: EnvelopeCase[]): {
  total: number
  correct: number
  misses: { prompt: string; miss: string[] }[]
} {
  const misses = table.map((c) => ({ prompt: c.prompt, miss: envelopeMisses(c) })).filter((m) => m.miss.length)
  return { total: table.length, correct: table.length - misses.length, misses }
}
