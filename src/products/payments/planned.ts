import { z } from 'zod';
import { planned } from '../kit/index.ts';

export const prepaidAccessToken = planned({
  id: 'prepaid-access-token',
  title: 'Prepaid access token',
  description: 'Sells a prepaid access token for 1.00 USD and returns the token with its balance, scope and expiry.',
  price: '1.00',
  input: z.object({
    label: z.string().max(100).optional().describe('Free-text label stored with the token'),
  }),
  inputExample: { label: 'research-agent-1' },
  // A Bearer token never buys a paid response (the description's authentication rule 4), so a token
  // sold for 1.00 could only be honest as a prepaid allowance spent through a payment rail: a funded
  // batch-settlement channel the caller already opens by itself on every route (its deposit is the
  // prepayment), or an MPP session once MPP sessions are offered. Selling that as a "token" would
  // add nothing but a second name for a deposit, so it stays off sale until MPP sessions exist.
  reason:
    'not sold: a Bearer token never buys a paid response here; prepay instead with a batch-settlement channel deposit (every paid route offers it), or an MPP session once offered',
});
