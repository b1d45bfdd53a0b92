import * as family from '../../../lib/core/actions/payments'
import { familyTable } from './table'

familyTable(family, {
  valid: [
    ['stripe refunds create --charge ch_123', 'payment', /^a refund for ch_123 on Stripe$/],
    [
      'stripe refunds create --payment-intent pi_9 --amount 500 --live',
      'payment',
      /a refund of 500 \(smallest currency unit\) for pi_9 on Stripe in live mode/,
    ],
    [
      'stripe charges create --amount 2000 --currency usd --customer cus_1',
      'payment',
      /a charge of 2000 usd .* for cus_1/,
    ],
    ['stripe charges capture ch_5', 'payment', /capture of charge ch_5/],
    ['stripe payment_intents confirm pi_1', 'payment', /a payment \(pi_1\)/],
    ['stripe payment_intents create --amount 100 --currency eur --confirm', 'payment', /a payment of 100 eur/],
    ['stripe payouts create --amount 5000 --currency usd', 'payment', /a payout to the bank account of 5000 usd/],
    ['stripe transfers create --amount 100 --currency usd --destination acct_1', 'payment', /a transfer .* for acct_1/],
    ['stripe invoices pay in_7', 'payment', /payment of invoice in_7/],
    ['stripe post /v1/refunds -d charge=ch_2', 'payment', /a refund through api\.stripe\.com .* for ch_2/],
    ['stripe customers delete cus_1', 'infra_destroy', /Stripe customer cus_1 with its saved payment methods/],
    [
      'stripe subscriptions cancel sub_1',
      'infra_destroy',
      /subscription sub_1 \(a cancelled subscription cannot be resumed\)/,
    ],
    ['stripe delete /v1/products/prod_1', 'infra_destroy', /Stripe object \/v1\/products\/prod_1/],
  ],
  invalid: [
    'stripe refunds list',
    'stripe charges retrieve ch_1',
    'stripe payment_intents create --amount 100 --currency eur',
    'stripe listen --forward-to localhost:3000/webhook',
    'stripe logs tail',
    'stripe trigger payment_intent.succeeded',
    'stripe login',
    'stripe get /v1/refunds',
    'stripe post /v1/customers -d email=a@b.co',
  ],
})
