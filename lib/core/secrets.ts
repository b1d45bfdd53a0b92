// Masks secrets in text that leaves the machine (Telegram messages): tokens, keys, passwords.
// Keeps a few leading characters so the human can still tell which credential it was.

const RULES: [RegExp, (m: string, ...g: string[]) => string][] = [
  // First: `Authorization: Bearer <token>` must mask the token, not the word Bearer.
  [/\b(Bearer|Basic|token)\s+([A-Za-z0-9._~+/=-]{8,})/g, (_m, k, v) => `${k} ${mask(v)}`],
  // key=value / key: value forms (password=…, --token …, API_KEY="…", Authorization: Bearer …)
  [/\b((?:[A-Z0-9_]*_)?(?:pass(?:word)?|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth|credentials?|client[_-]?secret)[A-Z0-9_]*)(\s*[=:]\s*|\s+)(["']?)([^\s"']{4,})\3/gi, (_m, k, sep, q, v) => `${k}${sep}${q}${mask(v)}${q}`],
  // Well-known token shapes anywhere.
  [/\b(sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{8,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|\d{6,12}:[A-Za-z0-9_-]{30,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,})\b/g, (m) => mask(m)],
  // user:password@ in URLs
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]{3,})@/gi, (_m, pre) => `${pre}****@`],
]

function mask(v: string): string {
  return v.length <= 8 ? '****' : `${v.slice(0, 4)}…****`
}

export function maskSecrets(text: string): string {
  let out = text
  for (const [re, fn] of RULES) out = out.replace(re, fn as (m: string, ...g: string[]) => string)
  return maskPem(out)
}

/**
 * PEM private-key blocks, found with indexOf rather than a lazy regex (a lazy scan from every BEGIN is
 * quadratic on text with many openers and no END). Each search result is reused while it is still ahead.
 */
function maskPem(text: string): string {
  const MARK = 'PRIVATE KEY-----'
  let out = ''
  let copied = 0 // text before this index is in `out`
  let from = 0 // where to look for the next BEGIN
  let mark = -2
  let end = -2
  let close = -1
  for (;;) {
    const b = text.indexOf('-----BEGIN ', from)
    if (b < 0) break
    if (mark < b) mark = text.indexOf(MARK, b)
    if (mark < 0) break
    if (mark - b - 11 > 40 || !/^[A-Z ]*$/.test(text.slice(b + 11, mark))) {
      from = b + 11
      continue
    }
    if (end < mark) {
      end = text.indexOf('-----END ', mark)
      close = end < 0 ? -1 : text.indexOf(MARK, end)
    }
    if (end < 0 || close < 0) break
    if (close - end - 9 > 40) {
      from = b + 11
      continue
    }
    out += text.slice(copied, b) + '[private key masked]'
    copied = from = close + MARK.length
  }
  return out + text.slice(copied)
}
