// Private by its name alone (the must-stay-quiet side, chosen so that a hit is worth a human's time): `.env` and
// `.env.*` (but not the templates `.env.example`, `.env.sample`, `.env.template`, `.env.dist`, `.env.defaults`), SSH
// private keys, `*.pem`/`*.key`/`*.p12`/`*.pfx`/keystores, `.netrc`, `.git-credentials`, `.pgpass`, cloud credential
// files, `credentials.json`, and Ratchet's own machine state under `.ratchet/`. Public halves (`id_rsa.pub`,
// `*.crt`) are not private.

export type HazardKind = 'secret' | 'private_file' | 'ratchet_state' | 'destination'

export interface Hazard {
  kind: HazardKind
  /** Human words: "contains AWS_SECRET_ACCESS_KEY", "an SSH private key". Never the secret itself. */
  why: string
}

/** The files under .ratchet/ that are the user's, tracked in git (lib/io/registry.ts owner 'human', tracked; and vendor/*.tgz). */
const USER_FILES = new Set(['guardrails.json', 'incidents.json', 'config.json', '.gitignore', ''])

const ENV_TEMPLATE =
  /^\.env\.(example|sample|template|dist|defaults|schema|tpl)$|^\.env\.[^/]*\.(example|sample|template)$/i

/** Private by its name alone. `rel` is the path as it would leave (repo-relative for git). */
export function privateByName(rel: string): Hazard | undefined {
  const p = rel.replace(/\\/g, '/').replace(/^\.\//, '')
  const base = p.slice(p.lastIndexOf('/') + 1)
  const parts = p.split('/')
  const ri = parts.indexOf('.ratchet')
  if (ri >= 0) {
    const inner = parts.slice(ri + 1).join('/')
    // The user's own tracked files (rules, incidents, the secret-free config) are meant to be shared; the rest is machine state.
    if (!USER_FILES.has(inner) && !/^vendor\/[^/]+\.tgz$/.test(inner))
      return { kind: 'ratchet_state', why: "Ratchet's machine state (approvals, activity log, sessions)" }
  }
  // `.env`, `.env.production`, `prod.env`, `.envrc` — but not the templates meant to be shared.
  if (
    (/^\.env([.-]|$)/i.test(base) || /\.env$/i.test(base) || base === '.envrc') &&
    !ENV_TEMPLATE.test(base) &&
    !/^(\w+[.-])?(example|sample|template)\.env$/i.test(base)
  )
    return { kind: 'private_file', why: 'an environment file (usually holds keys and passwords)' }
  if (
    /^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/.test(base) ||
    (parts.includes('.ssh') && !base.endsWith('.pub') && base !== 'known_hosts' && base !== 'config')
  )
    return { kind: 'private_file', why: 'an SSH private key' }
  if (
    /\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg|kdbx|ovpn)$/i.test(base) &&
    !/\.pub\.(pem|key)$/i.test(base) &&
    !/^(public|pub)[-_.]/i.test(base)
  )
    return { kind: 'private_file', why: `a key or certificate store (${base.slice(base.lastIndexOf('.'))})` }
  if (
    /^(\.netrc|_netrc|\.git-credentials|\.pgpass|\.htpasswd|\.pypirc|\.dockercfg|credentials\.json|client_secrets?\.json|service[-_]account.*\.json|token\.json|\.s3cfg|terraform\.tfstate(\.backup)?|.*\.tfvars)$/i.test(
      base,
    )
  )
    return { kind: 'private_file', why: `a credentials file (${base})` }
  if (
    (parts.includes('.aws') && /^(credentials|config)$/.test(base)) ||
    (parts.includes('.docker') && base === 'config.json') ||
    (parts.includes('.kube') && base === 'config') ||
    (parts.includes('gcloud') && /credentials|\.db$/.test(base))
  )
    return { kind: 'private_file', why: `a cloud credentials file (${parts.slice(-2).join('/')})` }
  return undefined
}
