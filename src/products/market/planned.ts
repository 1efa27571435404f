import { z } from 'zod';

export const cryptoPriceOutput = z.object({
  symbol: z.string().describe('Token symbol'),
  price: z.number().describe('Price in USD'),
  change_24h: z.number().describe('Price change over 24 hours, in percent'),
});
