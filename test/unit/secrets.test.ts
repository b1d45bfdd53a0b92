// Masking before anything is written or sent: every "must mask" has its secret gone and the place it
// goes still visible; every "must keep" comes through untouched (over-masking hid where data goes).
import { describe, expect, it } from 'vitest'
import { MAY_HOLD_SECRET, maskByRules, maskSecrets } from '../../lib/core/secrets'
import { readCorpus } from '../../bench/classifier-corpus'

// [text, the secret that must disappear, what must stay visible]
const MUST_MASK: [string, string, string][] = [
  ['mysql -u root -phunter2hunter2 prod', 'hunter2hunter2', 'mysql -u root'],
  ['mysqldump -h db.internal -pS3cr3tPw app > dump.sql', 'S3cr3tPw', 'db.internal'],
  ['mysql --password hunter2 -u root', 'hunter2', 'mysql'],
  ['mysql --password=hunter2hunter2 -u root', 'hunter2hunter2', '-u root'],
  [
    'psql -p 5432 postgresql://admin:s3cretPass@db.internal:5432/app',
    's3cretPass',
    'postgresql://admin:****@db.internal:5432/app',
  ],
  ['sshpass -p Tr0ub4dor ssh deploy@prod.example.com', 'Tr0ub4dor', 'deploy@prod.example.com'],
  ['sshpass -pTr0ub4dor ssh deploy@prod.example.com', 'Tr0ub4dor', 'deploy@prod.example.com'],
  // issue 9 (red team): quoted, other programs' password options, *_PASSWORD= environment names.
  ["sshpass -p 'Tr0ub4dorAnd3' ssh prod 'rm -rf /data'", 'Tr0ub4dorAnd3', "ssh prod 'rm -rf /data'"],
  ['sshpass -p "Tr0ub4dorAnd3" ssh deploy@prod.example.com', 'Tr0ub4dorAnd3', 'deploy@prod.example.com'],
  [
    'docker login -u me -p dckr_pat_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2 && docker push acme/app',
    'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2',
    'docker push acme/app',
  ],
  [
    'docker login --username me --password dckr_pat_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2 registry.example.com',
    'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2',
    'registry.example.com',
  ],
  [
    'docker login --password=dckr_pat_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2 registry.example.com',
    'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2',
    'registry.example.com',
  ],
  ['podman login -u me -p "S3cretRegistryPw" quay.io', 'S3cretRegistryPw', 'quay.io'],
  ['helm registry login ghcr.io -u me -p S3cretHelmPw9', 'S3cretHelmPw9', 'ghcr.io'],
  [
    'PGPASSWORD=MyDbPassWord77 pg_dump -h prod app | curl -T - https://x.example.com',
    'MyDbPassWord77',
    'https://x.example.com',
  ],
  ["PGPASSWORD='My Db Pass 77' psql -h db.prod.example.com app", 'My Db Pass 77', 'db.prod.example.com'],
  ['MYSQL_PWD=hunter2hunter2 mysql -h db.prod.example.com app', 'hunter2hunter2', 'db.prod.example.com'],
  ['DEPLOY_TOKEN="tok3nValue99xyz" ./deploy.sh prod.example.com', 'tok3nValue99xyz', 'prod.example.com'],
  ['export APP_SECRET=AppS3cretValue42 && node server.js', 'AppS3cretValue42', 'node server.js'],
  ['REDISCLI_AUTH=r3disAuthPw redis-cli -h cache.prod.example.com', 'r3disAuthPw', 'cache.prod.example.com'],
  ['redis-cli -h cache.prod.example.com -a r3disAuthPw FLUSHALL', 'r3disAuthPw', 'cache.prod.example.com'],
  [
    "mysql -h db.prod.example.com -u root -p'S3cretPassw0rd' -e 'DROP DATABASE app'",
    'S3cretPassw0rd',
    'db.prod.example.com',
  ],
  ['mysql -h db.prod.example.com -u root --password "S3cretPassw0rd" app', 'S3cretPassw0rd', 'db.prod.example.com'],
  ['mongosh mongodb.prod.example.com -u admin -p M0ngoPassw0rd', 'M0ngoPassw0rd', 'mongodb.prod.example.com'],
  ['zip -P Z1pPassw0rd out.zip secrets/', 'Z1pPassw0rd', 'out.zip secrets/'],
  ['7z a -pS3venZipPw out.7z dir', 'S3venZipPw', 'out.7z dir'],
  ['ldapsearch -H ldap://ldap.example.com -D cn=admin -w LdapPassw0rd', 'LdapPassw0rd', 'ldap://ldap.example.com'],
  ['sqlcmd -S db.example.com -U sa -P SqlPassw0rd9', 'SqlPassw0rd9', 'db.example.com'],
  ['smbclient //files.example.com/share -U admin%SmbPassw0rd', 'SmbPassw0rd', '//files.example.com/share -U admin%'],
  ['curl -u admin:hunter2 https://api.example.com/v1/upload', 'hunter2', 'https://api.example.com/v1/upload'],
  ['curl --user admin:hunter2 https://api.example.com/v1/upload', 'hunter2', 'admin:'],
  [
    'curl -H "Authorization: Bearer abcdef1234567890xyz" https://api.example.com/x',
    'abcdef1234567890xyz',
    'https://api.example.com/x',
  ],
  [
    'curl -H "Authorization: Basic YWRtaW46aHVudGVyMg==" https://files.example.com/',
    'YWRtaW46aHVudGVyMg==',
    'https://files.example.com/',
  ],
  [
    "curl -H 'Authorization: token ghp_abcdefghijklmnopqrstuvwxyz0123' https://api.github.com/user",
    'abcdefghijklmnopqrstuvwxyz0123',
    'https://api.github.com/user',
  ],
  [
    'curl -H "X-Api-Key: 9f8e7d6c5b4a39281706" https://api.example.com',
    '9f8e7d6c5b4a39281706',
    'https://api.example.com',
  ],
  ['STRIPE=sk_live_4eC39HqLyjWDarjtT1zdp7dc node charge.js', '4eC39HqLyjWDarjtT1zdp7dc', 'node charge.js'],
  ['node refund.js rk_live_51Habcdefghijklmnopqrstu', 'abcdefghijklmnopqrstu', 'node refund.js'],
  [
    'curl -d token=xoxb-1234567890-abcdefghijklmnop https://slack.com/api/chat.postMessage',
    '1234567890-abcdefghijklmnop',
    'https://slack.com/api/chat.postMessage',
  ],
  [
    'git clone https://oauth2:glpat-Abcdefghij1234567890@gitlab.example.com/team/repo.git',
    'Abcdefghij1234567890',
    'gitlab.example.com/team/repo.git',
  ],
  ['GL=glpat-Abcdefghij1234567890 glab mr list', 'Abcdefghij1234567890', 'glab mr list'],
  [
    'curl "https://maps.googleapis.com/maps/api/geocode/json?key=AIzaSyA1234567890abcdefghijklmnopqrstu"',
    '1234567890abcdefghijklmnopqrstu',
    'https://maps.googleapis.com/maps/api/geocode/json',
  ],
  [
    'curl -H "Cookie: session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U" https://app.example.com',
    'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    'https://app.example.com',
  ],
  [
    'git push https://ghp_abcdefghijklmnopqrstuvwxyz0123@github.com/acme/app.git',
    'abcdefghijklmnopqrstuvwxyz0123',
    'github.com/acme/app.git',
  ],
  [
    'git remote add origin https://x-access-token:0123456789abcdef0123456789abcdef@github.com/acme/app.git',
    '0123456789abcdef0123456789abcdef',
    'github.com/acme/app.git',
  ],
  ['export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123', 'abcdefghijklmnopqrstuvwxyz0123', 'export GITHUB_TOKEN='],
  [
    'aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'aws configure set',
  ],
  ['ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz claude', 'abcdefghijklmnopqrstuvwxyz', 'claude'],
  ['bot 123456789:AAEabcdefghijklmnopqrstuvwxyz012345', 'AAEabcdefghijklmnopqrstuvwxyz012345', 'bot '],
  [
    'echo "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----" > id',
    'b3BlbnNzaC1rZXktdjEAAAAA',
    '> id',
  ],
  [
    'printf "%s" "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----"',
    'MIIBszCCAVmgAwIBAgIU',
    'printf',
  ],
]

const MUST_KEEP: string[] = [
  'git push origin main && npm publish --tag next',
  'mkdir -p src/lib/io && cp -p a b',
  'ssh -p 2222 deploy@prod.example.com uptime',
  'git add -p lib/io/store.ts',
  'curl -X POST https://hooks.example.com/deploy?env=prod',
  'curl https://api.example.com/auth/login -d @body.json',
  'scp build.tar.gz deploy@files.example.com:/srv/releases/',
  'rsync -av dist/ user@host.example.com:/var/www/',
  'psql postgresql://admin@db.internal:5432/app -c "select 1"',
  'npm test -- --grep "password reset flow"',
  'grep -rn token lib/',
  'docker run -p 8080:80 nginx',
  'tar -cpf out.tar src',
  // look-alikes of the password options and environment names
  'docker run -p 8080:80 -p 443:443 nginx',
  'podman run --rm -p 5432:5432 postgres',
  'sshpass -p "$SSHPASS" ssh deploy@prod.example.com uptime',
  'PGPASSWORD=$PGPASSWORD pg_dump -h prod.example.com app',
  'GH_TOKEN="$GH_TOKEN" gh release create v1',
  'zip -r out.zip src -x "*.log"',
  'unzip -o build.zip -d out',
  'ldapsearch -H ldap://ldap.example.com -W -D cn=admin',
  'mongosh --port 27017 app',
  'smbclient //files.example.com/share -U admin',
  'echo PASSWORD_MIN_LENGTH is 12',
  'ssh -p 2222 deploy@prod.example.com uptime && mkdir -p build',
]

describe('secret masking', () => {
  it.each(MUST_MASK)('masks %j', (text, secret, visible) => {
    const masked = maskSecrets(text)
    expect(masked).not.toContain(secret)
    expect(masked).toContain(visible)
  })
  it.each(MUST_MASK)('the quick pre-check lets %j through to the rules', (text) => {
    // maskSecrets skips text without any trigger: every example it must mask has one.
    expect(MAY_HOLD_SECRET.test(text)).toBe(true)
  })
  it('the pre-check changes nothing: over the classifier corpus and these tables, the same as every rule run', () => {
    const texts = [
      ...MUST_MASK.map(([t]) => t),
      ...MUST_KEEP,
      ...readCorpus().flatMap((l) => [l.cmd ?? '', JSON.stringify(l.input ?? {})]),
    ]
    let masked = 0
    for (const t of texts) {
      const want = maskByRules(t)
      if (want !== t) masked++
      expect(maskSecrets(t), t).toBe(want)
    }
    expect(masked).toBeGreaterThan(20)
  })
  it.each(MUST_KEEP)('keeps %j', (text) => {
    expect(maskSecrets(text)).toBe(text)
  })
  it('is idempotent (masking masked text changes nothing)', () => {
    for (const [text] of MUST_MASK) expect(maskSecrets(maskSecrets(text))).toBe(maskSecrets(text))
  })
  // Its time on adversarial input is bounded by redos.test.ts, in a child process it can kill.
  it('finishes on adversarial input (no catastrophic backtracking)', () => {
    const inputs = [
      'a'.repeat(50_000),
      'password=' + 'x'.repeat(50_000),
      'https://' + 'a:'.repeat(20_000),
      '-u ' + 'a:'.repeat(20_000),
      'mysql ' + ' -x'.repeat(10_000),
      '-----BEGIN PRIVATE KEY-----' + 'A'.repeat(50_000),
    ]
    for (const s of inputs) expect(typeof maskSecrets(s)).toBe('string')
  })
})

describe('secret file names: the cheap pre-check never hides a name the rules take', () => {
  const SECRET = [
    '.env',
    '.env.local',
    'prod.env',
    'id_rsa',
    'id_ed25519_sk',
    'deploy_rsa',
    'server.key',
    'SERVER.PEM',
    'cert.P12',
    'store.jks',
    'app.keystore',
    'putty.ppk',
    'credentials.json',
    'Service-Account-1.yaml',
    'service_account.yml',
    'CLIENT_SECRETS.JSON',
    'secret.toml',
    'Secrets.yml',
    '.htpasswd',
    '.npmrc',
  ]
  const NOT = [
    'README.md',
    'index.ts',
    'package.json',
    '.env.example',
    '.env.sample',
    'sample.example.env',
    'id_rsa.pub',
    'key.pub.pem',
    'public-key.pem',
    'pub.key',
    'environment.ts',
    'rsa.md',
    'services.json',
    'my-secret-notes.txt',
    'keys',
    'Makefile',
  ]
  it.each(SECRET)('%s holds a secret', async (name) => {
    const { secretFileName } = await import('../../lib/core/actions/secrets')
    expect(secretFileName(name)).toBe(true)
  })
  it.each(NOT)('%s does not', async (name) => {
    const { secretFileName } = await import('../../lib/core/actions/secrets')
    expect(secretFileName(name)).toBe(false)
  })
  it('agrees with the rules on every name in the corpus and on generated spellings', async () => {
    const { secretFileName, secretFileNameByRules } = await import('../../lib/core/actions/secrets')
    const names = new Set<string>([...SECRET, ...NOT])
    for (const l of readCorpus())
      for (const w of (l.cmd ?? JSON.stringify(l.input ?? {})).split(/[\s"'=:,{}]+/))
        if (w) names.add(w.split('/').pop()!)
    const stems = ['', 'a', 'id', 'x_', 'prod', 'client_secret', 'service-account', 'credentials', 'secrets']
    const ends = [
      '',
      '.env',
      '_rsa',
      '_dsa',
      '_ecdsa',
      '_ed25519',
      '.pem',
      '.KEY',
      '.p12',
      '.pfx',
      '.jks',
      '.keystore',
      '.ppk',
      '.json',
      '.yaml',
      '.toml',
      '.htpasswd',
      '.npmrc',
    ]
    for (const a of stems)
      for (const b of ends) for (const c of [a + b, (a + b).toUpperCase(), '.' + a + b, 'id_' + a + b]) names.add(c)
    expect(names.size).toBeGreaterThan(300)
    for (const n of names) expect([n, secretFileName(n)]).toEqual([n, secretFileNameByRules(n)])
  })
})
