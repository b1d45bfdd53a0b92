// Masks secrets in text before it is written anywhere (activity log, queue, sessions, custodiet
// records, reviewer prompts) or sent (Telegram): tokens, keys, passwords, credentials in URLs.
// Keeps a few leading characters of a token so the human can tell which credential it was, and never
// touches the destination: the scheme, host and path of a URL always stay visible.
// Every pattern is linear on untrusted text: no nested quantifiers (test/unit/secrets.test.ts).

const KEYWORD =
  '(?:pass(?:word)?|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth(?:orization)?|credentials?|client[_-]?secret)'

// [programs, their password options] (regex alternations). docker-likes only after `login`.
const PASSWORD_OPTIONS: [string, string][] = [
  ['sshpass', '-p'],
  [String.raw`(?:docker|podman|nerdctl|buildah|skopeo|helm|oras)\b[^\n|;&]{0,200}?\blogin`, '-p'],
  ['redis-cli', '-a|--pass'],
  ['mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop', '-p'],
  ['zip|unzip|zipcloak', '-P'],
  ['7z|7za|7zr|rar|unrar', '-p'],
  ['ldapsearch|ldapmodify|ldapadd|ldapdelete|ldappasswd|ldapwhoami', '-w'],
  ['sqlcmd|bcp|isql|osql', '-P'],
  ['smbclient|rpcclient|smbmap', '-U'],
]

type Rule = [RegExp, (m: string, ...g: string[]) => string]
// Built on first use: constructing a dozen regexes from strings cost every hook's start-up ~0.2 ms, and most
// text never reaches the rules (MAY_HOLD_SECRET).
let rules: Rule[] | undefined
const RULES = (): Rule[] =>
  (rules ??= [
    // PEM blocks (keys, certificates): the whole body (bounded: a lazy scan from every BEGIN to the end is
    // quadratic on text with many openers and no END — redos test).
    [/-----BEGIN ([A-Z0-9 ]{1,40})-----[\s\S]{0,16384}?-----END \1-----/g, (_m, label) => `[${label} masked]`],
    // `Authorization: Bearer <token>`, `token <token>`: mask the credential, keep the scheme word.
    [/\b(Bearer|Basic|Digest|token)\s+([A-Za-z0-9._~+/=-]{8,})/g, (_m, k, v) => `${k} ${mask(v)}`],
    // mysql-family `-p<password>` (attached: `-p pass` is a prompt, and `-p` is a port or "parents" elsewhere).
    [
      /\b(mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mariadb|mariadb-dump)\b([^\n|;&]{0,400}?\s)(-p)()(?:'([^'\n]*)'|"([^"\n]*)"|([^\s'"]+))/g,
      maskOptionValue as (m: string, ...g: string[]) => string,
    ],
    // Programs whose short option takes a password (`sshpass -p 'x'`, `docker login -p x`, `redis-cli -a x`,
    // `zip -P x`, `ldapsearch -w x`, `sqlcmd -P x`, `smbclient -U user%x`), quoted or not, attached or not. Only
    // that program's option, after its name in the same simple command: `ssh -p 2222`, `mkdir -p`, `docker run
    // -p 8080:80` and `zip -a` stay as they are.
    ...PASSWORD_OPTIONS.map(
      ([programs, opts]): Rule => [
        new RegExp(
          String.raw`\b(${programs})\b([^\n|;&]{0,400}?\s)(${opts})(\s*)(?:'([^'\n]*)'|"([^"\n]*)"|([^\s'"]+))`,
          'g',
        ),
        maskOptionValue as (m: string, ...g: string[]) => string,
      ],
    ),
    // `SOMETHING_PASSWORD=x`, `PGPASSWORD=x`, `MYSQL_PWD=x`, `API_TOKEN='x'`: an environment name ending in a
    // credential word, quoted value or not (the generic rule below needs a separator before the word).
    [
      /\b([A-Z][A-Z0-9_]{0,60}(?:PASSWORD|PASSWD|PASS|PWD|TOKEN|SECRET|API_?KEY|ACCESS_KEY|PRIVATE_KEY|AUTH|CREDENTIALS?))=(?:'([^'\n]*)'|"([^"\n]*)"|([^\s'"]+))/g,
      (m, k, sq, dq, bare) => {
        const v = sq ?? dq ?? bare
        if (/^\$/.test(v)) return m // a variable names the secret without holding it
        const hidden = /PASS|PWD/.test(k) ? '****' : mask(v)
        return sq !== undefined ? `${k}='${hidden}'` : dq !== undefined ? `${k}="${hidden}"` : `${k}=${hidden}`
      },
    ],
    // curl/wget style `-u user:password`, `--user user:password`: keep the user.
    [
      /(\s(?:-u|--user|--proxy-user)(?:\s+|=)?)(["']?)([^\s:"'@]{1,100}):([^\s"']+)\2/g,
      (_m, pre, q, user) => `${pre}${q}${user}:****${q}`,
    ],
    // Options: --password X, --token=X, -api-key X.
    [
      new RegExp(
        String.raw`(\s--?[A-Za-z0-9_-]{0,40}${KEYWORD}[A-Za-z0-9_-]{0,40})(=|\s+)(["']?)(?!(?:Bearer|Basic|Digest|token)\s)([^\s"'-][^\s"']{3,})\3`,
        'gi',
      ),
      (_m, k, sep, q, v) => `${k}${sep}${q}${mask(v)}${q}`,
    ],
    // Assignments and headers: PASSWORD=X, api_key: X, X-Api-Key: X, "secret": "X".
    [
      new RegExp(
        String.raw`\b((?:[A-Za-z0-9]{1,40}[_-]){0,6}${KEYWORD}[A-Za-z0-9_-]{0,40})(["']?\s*[=:]\s*)(["']?)(?!(?:Bearer|Basic|Digest|token)\s|\$)([^\s"'&@]{4,})\3`,
        'gi',
      ),
      (_m, k, sep, q, v) => `${k}${sep}${q}${mask(v)}${q}`,
    ],
    // Environment-style names followed by a value (aws configure set aws_secret_access_key X).
    [
      new RegExp(
        String.raw`\b((?:[A-Za-z0-9]{1,40}_){1,6}${KEYWORD}[A-Za-z0-9_]{0,40})(\s+)([^\s"'=-][^\s"']{7,})`,
        'gi',
      ),
      (_m, k, sep, v) => `${k}${sep}${mask(v)}`,
    ],
    // Well-known token shapes anywhere.
    [
      /\b(sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{8,}|[sr]k_(?:live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abposre]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|\d{6,12}:[A-Za-z0-9_-]{30,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,})/g,
      (m) => mask(m),
    ],
    // Credentials in URLs: scheme://user:password@host → the password only; a bare long token as the user too.
    [/(\b[a-z][a-z0-9+.-]{0,20}:\/\/[^\s:/@]{1,200}:)([^\s@/]{3,})@/gi, (_m, pre) => `${pre}****@`],
    [/(\b[a-z][a-z0-9+.-]{0,20}:\/\/)([^\s:/@]{20,})@/gi, (_m, pre, v) => `${pre}${mask(v)}@`],
  ])

/** `-p 'x'`, `-pX`, `-U user%pass`: the value masked, its quotes and the option kept. */
function maskOptionValue(
  whole: string,
  cmd: string,
  mid: string,
  opt: string,
  sep: string,
  sq?: string,
  dq?: string,
  bare?: string,
): string {
  let v = sq ?? dq ?? bare ?? ''
  // A variable (`-p "$PASS"`) names the secret without holding it.
  if (!v || v.includes('****') || v.startsWith('$')) return whole
  // `-U user%pass` names a user; only its password part is secret.
  if (opt === '-U') {
    const at = v.indexOf('%')
    if (at < 0) return whole
    v = v.slice(0, at + 1) + '****'
  } else v = '****' // a password, not a token: no leading characters
  return `${cmd}${mid}${opt}${sep}${sq !== undefined ? `'${v}'` : dq !== undefined ? `"${v}"` : v}`
}

function mask(v: string): string {
  if (v.includes('****')) return v
  return v.length <= 8 ? '****' : `${v.slice(0, 4)}…****`
}

/**
 * Every rule above needs one of these in the text before it can match anything (a program name, a
 * credential word, `=`, `://`, a token's prefix…); text with none of them is returned as it is, so most
 * activity lines and session files never compile the rules' two dozen regexes, ~1 ms of every hook's
 * start-up. A superset on purpose (case-insensitive, substrings): a new rule adds its trigger here, and
 * test/unit/secrets.test.ts checks that every example that must be masked trips it.
 */
export const MAY_HOLD_SECRET =
  /[=]|:\/\/|\d{6}:|-u|BEGIN|bearer|basic|digest|token|pass|pwd|secret|key|auth|credential|mysql|mariadb|sshpass|docker|podman|nerdctl|buildah|skopeo|helm|oras|redis|mongo|zip|7z|rar|ldap|sqlcmd|bcp|isql|osql|smb|rpcclient|sk-|[sr]k_|gh[pousr]_|github_pat|glpat|xox|akia|aiza|eyj/i

export function maskSecrets(text: string): string {
  return MAY_HOLD_SECRET.test(text) ? maskByRules(text) : text
}

/** Every rule, without the pre-check (what maskSecrets must always equal). */
export function maskByRules(text: string): string {
  let out = text
  for (const [re, fn] of RULES()) out = out.replace(re, fn as (m: string, ...g: string[]) => string)
  return out
}

/** Masks every string inside a JSON-like value (records about to be written). Keys are kept. */
export function maskDeep<T>(value: T): T {
  if (typeof value === 'string') return maskSecrets(value) as T
  if (Array.isArray(value)) return value.map(maskDeep) as T
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = maskDeep(v)
    return out as T
  }
  return value
}
