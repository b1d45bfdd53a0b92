// What secrets a text shows. Policy for look-alikes (the must-stay-quiet side), chosen so that a hit is worth a
// human's time:
// - A file holds a secret when its *contents* show a well-known credential shape (AWS, GitHub, Stripe
//   live, Slack, OpenAI, Anthropic, Google, npm, a PEM private key) or a credential-named assignment
//   (`API_KEY=…`, `"password": "…"`) whose value looks real: long enough, mixed characters, and not a
//   placeholder (`your-key-here`, `<token>`, `${VAR}`, `changeme`, `xxxx`, anything saying EXAMPLE,
//   dummy, fake, sample or test). AWS's documented example keys are placeholders.
// - In test code and fixtures (`test/`, `__tests__/`, `fixtures/`, `*.test.*`, `*.spec.*`), only the
//   well-known shapes count: a test's `password: "hunter2abc"` is a fixture, a real `ghp_…` is not.
// - A README that mentions API_KEY without a real-looking value is quiet.

import { BODY, LEAVING_TEXT } from './targets'

interface SecretRule {
  label: string
  re: RegExp
  /** Index of the capture holding the secret value (for the placeholder test); 0 = the whole match. */
  value?: number
  /** Well-known shapes count in test code too. */
  shape: boolean
  /** The service the credential is for: sent there (in a URL or a program's arguments), it is being used, not leaked. */
  home?: RegExp
}

/** Text with the credentials meant for `host` taken out (a GitHub token in a call to api.github.com is its use). */
export function withoutOwnCredentials(text: string, host: string | undefined): string {
  if (!host) return text
  let out = text
  for (const r of SECRET_RULES)
    if (r.home?.test(host.toLowerCase())) out = out.replace(new RegExp(r.re.source, 'g'), '')
  return out
}

// Built from parts so that Ratchet's own sources never hold a complete key-shaped literal.
const SECRET_RULES: SecretRule[] = [
  {
    label: 'a private key (PEM block)',
    re: /-----BEGIN ((?:RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY( BLOCK)?-----/,
    shape: true,
  },
  {
    label: 'an AWS access key id',
    re: /\b((?:AKIA|ASIA|AGPA|AROA)[0-9A-Z]{16})\b/,
    value: 1,
    shape: true,
    home: /(^|\.)amazonaws\.com$/,
  },
  {
    label: 'a GitHub token',
    re: /\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b/,
    value: 1,
    shape: true,
    home: /(^|\.)github\.com$/,
  },
  {
    label: 'a Stripe live key',
    re: /\b((?:sk|rk)_live_[0-9a-zA-Z]{20,})\b/,
    value: 1,
    shape: true,
    home: /(^|\.)stripe\.com$/,
  },
  {
    label: 'a Slack token',
    re: /\b(xox[abposr]-[0-9A-Za-z-]{10,})\b/,
    value: 1,
    shape: true,
    home: /(^|\.)slack\.com$/,
  },
  {
    label: 'a Slack webhook URL',
    re: /(https:\/\/hooks\.slack\.com\/services\/T[0-9A-Z]+\/B[0-9A-Z]+\/[0-9A-Za-z]{16,})/,
    value: 1,
    shape: true,
    home: /^hooks\.slack\.com$/,
  },
  {
    label: 'an Anthropic API key',
    re: /\b(sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{40,})/,
    value: 1,
    shape: true,
    home: /(^|\.)anthropic\.com$/,
  },
  {
    label: 'an OpenAI API key',
    re: /\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|sk-proj-[A-Za-z0-9_-]{40,})/,
    value: 1,
    shape: true,
    home: /(^|\.)openai\.com$/,
  },
  {
    label: 'a Google API key',
    re: /\b(AIza[0-9A-Za-z_-]{35})\b/,
    value: 1,
    shape: true,
    home: /(^|\.)googleapis\.com$/,
  },
  { label: 'an npm token', re: /\b(npm_[A-Za-z0-9]{36})\b/, value: 1, shape: true, home: /(^|\.)npmjs\.(org|com)$/ },
  {
    label: 'a Telegram bot token',
    re: /\b(\d{8,10}:AA[A-Za-z0-9_-]{33})\b/,
    value: 1,
    shape: true,
    home: /^api\.telegram\.org$/,
  },
  {
    label: 'a registry auth token',
    re: /(?:^|\n)[ \t]*(?:\/\/[^\s]*:)?_(?:authToken|auth|password)\s*=\s*["']?([^\s"']{8,})/,
    value: 1,
    shape: true,
  },
  {
    label: 'a password in a URL',
    re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@'"]+:([^\s@/'"]{6,})@[^\s/'"]+/i,
    value: 1,
    shape: true,
  },
]

// `NAME = value`, `"name": "value"`, `name: value`, `name => value`; the name is judged by credentialName.
const ASSIGNMENT =
  /(?:^|[\s{,;(])["']?([A-Za-z][A-Za-z0-9_.-]*)["']?[ \t]*(?:=|:=|:|=>)[ \t]*(["'`]?)([^\s"'`,;)}]+)\2/gm

const CREDENTIAL_WORDS = new Set([
  'secret',
  'token',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'apikey',
  'credential',
  'credentials',
])
const CREDENTIAL_PAIRS = new Set([
  'api key',
  'access key',
  'private key',
  'client secret',
  'auth key',
  'signing key',
  'encryption key',
  'master key',
  'secret key',
  'webhook url',
])
// `token_url`, `password_file`, `secret_name`, `TOKEN_EXPIRY`: about a credential, not one.
const NOT_A_VALUE = new Set([
  'file',
  'path',
  'env',
  'name',
  'id',
  'length',
  'url',
  'uri',
  'type',
  'header',
  'field',
  'endpoint',
  'prefix',
  'suffix',
  'count',
  'hint',
  'label',
  'policy',
  'expiry',
  'expires',
  'ttl',
  'limit',
  'usage',
  'regex',
  'pattern',
  'min',
  'max',
  'required',
  'enabled',
  'dir',
  'var',
  'variable',
  'key',
  'hash',
  'algorithm',
  'format',
  'provider',
  'store',
  'location',
  'mode',
  'reset',
  'confirm',
  'confirmation',
  'placeholder',
])

/** Does this name say "credential"? Words split on `_ - .` and camelCase: `AWS_SECRET_ACCESS_KEY`, `clientSecret`, `apiKey`. */
export function credentialName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter(Boolean)
  if (!words.length) return false
  const last = words[words.length - 1]
  const hit =
    words.some((w) => CREDENTIAL_WORDS.has(w)) || words.some((w, i) => CREDENTIAL_PAIRS.has(`${w} ${words[i + 1]}`))
  if (!hit) return false
  // `SECRET_KEY`, `API_KEY`, `webhook_url` end in a word that alone would mean "about it".
  if (NOT_A_VALUE.has(last) && !CREDENTIAL_PAIRS.has(words.slice(-2).join(' '))) return false
  return true
}

const PLACEHOLDER =
  /example|dummy|fake|sample|placeholder|changeme|change[-_]me|your|xxxx|\*\*\*|\.\.\.|<|>|\$\{|\$\(|^\$[A-Z_]|%\(|\{\{|redacted|secret_here|replace|insert|todo|tbd|none|null|undefined|^true$|^false$|mock|test|^fixme|^x+$|^0+$|^1234|abcdef|qwerty/i

/** Shannon entropy in bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>()
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1)
  let h = 0
  for (const n of counts.values()) {
    const p = n / s.length
    h -= p * Math.log2(p)
  }
  return h
}

function looksReal(value: string, minLen: number): boolean {
  if (value.length < minLen || PLACEHOLDER.test(value)) return false
  if (/^(.)\1+$/.test(value)) return false
  // A code reference, not a value: process.env.X, os.environ["X"], settings.API_KEY, getToken().
  if (/^[A-Za-z_$][\w$]*(\.[\w$]+)+$|\(|^[A-Z][A-Z0-9_]+$/.test(value)) return false
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(value)).length
  return classes >= 2 && entropy(value) >= 3
}

function isTestPath(rel: string): boolean {
  return (
    /(^|\/)(test|tests|__tests__|spec|specs|fixtures?|__fixtures__|testdata|mocks?|__mocks__)\//i.test(rel) ||
    /\.(test|spec)\.[a-z]+$/i.test(rel)
  )
}

function isDocPath(rel: string): boolean {
  return /\.(md|mdx|rst|txt|adoc|html?)$/i.test(rel) || /(^|\/)docs?\//i.test(rel)
}

/**
 * What secrets a file's text shows, named without their values. `rel` decides the policy for test
 * code, docs and env templates (see the header).
 */
export function secretsIn(text: string, rel = '', shapesOnly = false): string[] {
  const found = new Set<string>()
  const testy = shapesOnly || isTestPath(rel)
  for (const r of SECRET_RULES) {
    const m = r.re.exec(text)
    if (!m) continue
    const v = r.value ? m[r.value] : m[0]
    // AWS documents AKIAIOSFODNN7EXAMPLE: a well-known shape saying EXAMPLE is a placeholder.
    if (r.value && /example|dummy|fake|x{6,}|0{8,}/i.test(v)) continue
    found.add(r.label)
  }
  if (!testy) {
    const envStyle =
      rel === BODY ||
      LEAVING_TEXT.has(rel) ||
      /(^|\/)\.env|\.(env|ini|cfg|conf|properties|toml|ya?ml|sh|bash|zsh|tfvars|npmrc|pypirc)$|(^|\/)(\.npmrc|\.pypirc|config)$/i.test(
        rel,
      )
    const minLen = isDocPath(rel) ? 20 : 8
    ASSIGNMENT.lastIndex = 0
    let m: RegExpExecArray | null
    let n = 0
    while ((m = ASSIGNMENT.exec(text)) && n++ < 5000) {
      const [, key, quote, value] = m
      // In code, only quoted literals are values; in env/config files the bare form is the value.
      if (!quote && !envStyle) continue
      if (credentialName(key) && looksReal(value, minLen)) found.add(key)
    }
  }
  return [...found]
}

/** Names of values meant to be public (bundled into a web page): never tracked as secrets. */
const PUBLIC_NAME =
  /^(NEXT_PUBLIC|NUXT_PUBLIC|VITE|REACT_APP|EXPO_PUBLIC|GATSBY|PUBLIC|STORYBOOK)_|publishable|(^|_)pub(lic)?_?key$/i

/**
 * The secret values in a secret file's text (what lib/io/known-secrets.ts tracks, hashed): the values of the
 * well-known shapes, of credential-named assignments that look real (not `NEXT_PUBLIC_…`, a publishable key
 * or a placeholder), passwords in URLs and `.netrc`, and the bodies of PEM private keys. At most `max`.
 */
export function secretValuesIn(text: string, max = 200): string[] {
  const out = new Set<string>()
  const add = (v: string | undefined) => {
    if (v && out.size < max && !/example|dummy|fake|x{6,}|0{8,}/i.test(v)) out.add(v)
  }
  for (const r of SECRET_RULES) {
    if (!r.value) continue
    const re = new RegExp(r.re.source, r.re.flags.includes('g') ? r.re.flags : r.re.flags + 'g')
    let m: RegExpExecArray | null
    let n = 0
    while ((m = re.exec(text)) && n++ < 200) add(m[r.value])
  }
  for (const m of text.matchAll(
    /-----BEGIN ((?:RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY( BLOCK)?-----([\s\S]{0,16384}?)-----END/g,
  ))
    add(m[3].replace(/^[A-Za-z-]+:.*$/gm, '').replace(/\s+/g, ''))
  for (const m of text.matchAll(/(?:^|\s)password\s+(\S{8,})/gm)) if (looksReal(m[1], 8)) add(m[1])
  ASSIGNMENT.lastIndex = 0
  let m: RegExpExecArray | null
  let n = 0
  while ((m = ASSIGNMENT.exec(text)) && n++ < 5000) {
    const [, key, , value] = m
    if (credentialName(key) && !PUBLIC_NAME.test(key) && looksReal(value, 8)) add(value)
  }
  return [...out]
}
