// Moving money: refunds, charges, payouts and transfers (the stripe CLI, payment APIs over HTTP, payment MCP
// tools). Money that has moved does not come back by itself: a human decides unless the user asked for exactly
// this payment, naming it.

import { lastPart, withRows, type RowArgs, type RowTable } from './rows'
import type { Detector, FamilyMeta, Irrevocable } from './types'

export const meta: FamilyMeta = {
  id: 'payments',
  classes: ['irreversible'],
  patterns: ['payment', 'infra_destroy'],
  description:
    'Moving money or deleting billing records (stripe refunds/charges/payouts/transfers create, stripe post /v1/refunds, payment APIs over HTTP)',
  examples: [
    'stripe refunds create --charge ch_123',
    'stripe payouts create --amount 5000 --currency usd',
    'curl -X POST https://api.stripe.com/v1/refunds -d charge=ch_1',
  ],
}

/** Payment API endpoints that move money (a POST to them pays); the name in words. */
const MOVES_MONEY: [RegExp, string][] = [
  [/^\/?v1\/refunds\/?$/, 'a refund'],
  [/^\/?v1\/charges\/?$/, 'a charge'],
  [/^\/?v1\/charges\/[^/]+\/(capture|refunds?)$/, 'a capture or refund of a charge'],
  [/^\/?v1\/payment_intents(\/[^/]+\/(confirm|capture))?\/?$/, 'a payment'],
  [/^\/?v1\/payouts\/?$/, 'a payout'],
  [/^\/?v1\/transfers(\/[^/]+\/reversals)?\/?$/, 'a transfer'],
  [/^\/?v1\/invoices\/[^/]+\/pay$/, 'an invoice payment'],
  [
    /^\/?v[12]\/payments\/(captures\/[^/]+\/refund|authorizations\/[^/]+\/capture|payment)$/,
    'a PayPal payment or refund',
  ],
  [/^\/?v1\/payments\/payouts$/, 'a PayPal payout'],
]
const PAYMENT_HOSTS =
  /^(api\.stripe\.com|api(-m)?\.(sandbox\.)?paypal\.com|api\.squareup\.com|api\.braintreegateway\.com|api\.adyen\.com|checkout-test\.adyen\.com)$/i

/** What a request to a payment API moves, or undefined: `https://api.stripe.com/v1/refunds` → `a refund on Stripe`. */
export function paymentEndpoint(url: string, method: string): string | undefined {
  const m = /^https?:\/\/([^/:?#]+)(?::\d+)?(\/[^?#]*)?/i.exec(url)
  if (!m || !PAYMENT_HOSTS.test(m[1]) || method.toUpperCase() !== 'POST') return undefined
  const what = MOVES_MONEY.find(([re]) => re.test(m[2] ?? ''))?.[1]
  return what && `${what} through ${m[1]} (POST ${m[2]})`
}

/** The ids a payment names (`--charge ch_1`, `-d charge=ch_1`, `--amount 500`), for the note and the request. */
function ids(a: RowArgs): string[] {
  const out = a.opts('--charge', '--payment-intent', '--customer', '--destination', '--invoice')
  for (const d of a.opts('-d', '--data')) {
    const m = /^(charge|payment_intent|customer|destination|amount)=(.+)$/.exec(d)
    if (m && m[1] !== 'amount') out.push(m[2])
  }
  return out
}
function amount(a: RowArgs): string {
  const v =
    a.opt('--amount') ??
    a
      .opts('-d', '--data')
      .find((d) => d.startsWith('amount='))
      ?.slice(7)
  const cur =
    a.opt('--currency') ??
    a
      .opts('-d', '--data')
      .find((d) => d.startsWith('currency='))
      ?.slice(9)
  return v ? ` of ${v}${cur ? ` ${cur}` : ''} (smallest currency unit)` : ''
}
const mode = (a: RowArgs) => (a.has('--live') ? ' in live mode' : '')
const pays = (what: string) => (a: RowArgs) =>
  `${what}${amount(a)}${ids(a).length ? ` for ${ids(a).join(', ')}` : ''} on Stripe${mode(a)}`
const payNames = (word: string) => (a: RowArgs) => (ids(a).length ? ids(a) : [[word, `${word}s`]])

const STRIPE_VALUES = [
  '--api-key',
  '--project-name',
  '--stripe-account',
  '--stripe-version',
  '-e',
  '--expand',
  '--color',
  '--log-level',
  '--config',
  '--idempotency',
  '-i',
]

export const rows: Record<string, RowTable> = {
  stripe: {
    values: STRIPE_VALUES,
    rows: [
      {
        cmd: ['refunds', 'create'],
        pattern: 'payment',
        kind: 'pays',
        what: pays('a refund'),
        names: payNames('refund'),
      },
      {
        cmd: ['charges', 'create'],
        pattern: 'payment',
        kind: 'pays',
        what: pays('a charge'),
        names: payNames('charge'),
      },
      {
        cmd: ['charges', 'capture'],
        pattern: 'payment',
        kind: 'pays',
        what: (a) => `the capture of charge ${a.rest[0] ?? ''}${amount(a)} on Stripe${mode(a)}`,
        names: (a) => [a.rest[0]],
      },
      {
        cmd: ['payment_intents', /^(create|confirm|capture)$/],
        when: (a) => a.ops[1] !== 'create' || a.has('--confirm') || a.opts('-d', '--data').includes('confirm=true'),
        pattern: 'payment',
        kind: 'pays',
        what: (a) =>
          `a payment${a.ops[1] !== 'create' && a.rest[0] ? ` (${a.rest[0]})` : ''}${amount(a)} on Stripe${mode(a)}`,
        names: (a) => (a.ops[1] !== 'create' && a.rest[0] ? [a.rest[0]] : payNames('payment')(a)),
      },
      {
        cmd: ['payouts', 'create'],
        pattern: 'payment',
        kind: 'pays',
        what: pays('a payout to the bank account'),
        names: payNames('payout'),
      },
      {
        cmd: ['transfers', 'create'],
        pattern: 'payment',
        kind: 'pays',
        what: pays('a transfer'),
        names: payNames('transfer'),
      },
      {
        cmd: ['invoices', 'pay'],
        pattern: 'payment',
        kind: 'pays',
        what: (a) => `payment of invoice ${a.rest[0] ?? ''} on Stripe${mode(a)}`,
        names: (a) => [a.rest[0]],
      },
      {
        cmd: [/^(customers|products|plans|coupons|accounts)$/, 'delete'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) =>
          `Stripe ${a.ops[0].replace(/s$/, '')} ${a.rest[0] ?? ''}${a.ops[0] === 'customers' ? ' with its saved payment methods' : ''}${mode(a)}`,
        names: (a) => [a.rest[0]],
      },
      {
        cmd: ['subscriptions', 'cancel'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `Stripe subscription ${a.rest[0] ?? ''} (a cancelled subscription cannot be resumed)${mode(a)}`,
        names: (a) => [a.rest[0]],
      },
      {
        cmd: ['post'],
        when: (a) => !!paymentEndpoint(`https://api.stripe.com/${(a.rest[0] ?? '').replace(/^\//, '')}`, 'POST'),
        pattern: 'payment',
        kind: 'pays',
        what: (a) =>
          `${paymentEndpoint(`https://api.stripe.com/${(a.rest[0] ?? '').replace(/^\//, '')}`, 'POST')}${amount(a)}${ids(a).length ? ` for ${ids(a).join(', ')}` : ''}${mode(a)}`,
        names: (a) => (ids(a).length ? ids(a) : [lastPart(a.rest[0] ?? '')]),
      },
      {
        cmd: ['delete'],
        pattern: 'infra_destroy',
        kind: 'destroys',
        what: (a) => `Stripe object ${a.rest[0] ?? ''}${mode(a)}`,
        names: (a) => [lastPart(a.rest[0] ?? '')],
      },
    ],
  },
}

export const programs: Record<string, Detector> = withRows({}, rows)

/** A payment MCP tool (`mcp__stripe__create_refund`): what it moves, from its name and inputs. */
export function paymentTool(action: string, server: string, input: Record<string, unknown>): Irrevocable | undefined {
  if (
    !/(^|_)(refund|charge|payout|transfer|pay|payment|capture)s?(_|$)/.test(action) ||
    /(^|_)(list|get|retrieve|search|read|show|view)(_|$)/.test(action)
  )
    return undefined
  const named = Object.entries(input)
    .filter(
      ([k, v]) =>
        /(^|_)(id|charge|payment_intent|customer|invoice|amount|destination)$/i.test(k) &&
        (typeof v === 'string' || typeof v === 'number'),
    )
    .slice(0, 6)
  const names = named.filter(([k]) => !/amount/i.test(k)).map(([, v]) => [String(v)])
  return {
    kind: 'pays',
    what: `${action.replace(/_/g, ' ')} through ${server}${named.length ? ` (${named.map(([k, v]) => `${k} ${String(v)}`).join(', ')})` : ''}`,
    names: names.length ? names : [[server]],
  }
}

// Keyed by words the agent types: a word like `valueOf` or `__proto__` must find nothing here, not Object.prototype's.
for (const table of [rows]) Object.setPrototypeOf(table, null)
