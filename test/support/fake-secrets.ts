// Realistic-looking but fake credentials for the evidence tests.
// Key-shaped test values are assembled at run time, so this file itself holds no key-shaped literal.
const j = (...parts: string[]) => parts.join('')
export const FAKE = {
  awsId: j('AKIA', 'Q3EGRT7', 'YUOP2HJK9'),
  awsSecret: j('q8Vh3kPz1Lw9Rt2X', 'n5Bc7Md4Fg6Jk0Ls8Qw1Er3T'),
  github: j('ghp_', 'R8tY2uI9oP4aS6dF1gH3jK5lZ7xC0vB2nM4q'),
  stripe: j('sk_', 'live_', '51HqPb2LkQ9wErT7yU3iO5pA'),
  slack: j('xoxb-', '2048-4096-', 'Qw8Er7Ty6Ui5Op4As3Df2Gh'),
  anthropic: j('sk-ant-', 'api03-', 'Zx8Cv7Bn6Mq5Wr4Et3Yu2Io1Pa9Sd8Fg7Hj6Kl5Qz4Xw3Ec2Rv1Tb0Yn-AbCdEfGh_123'),
  openai: j('sk-proj-', 'Lm3Nb5Vc7Xz9Qa1Ws2Ed4Rf6Tg8Yh0Uj2Ik4Ol6Pz8Xc0Vb'),
  npm: j('npm_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'),
  pem: j('-----BEGIN ', 'RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7y\n-----END ', 'RSA PRIVATE KEY-----\n'),
}
