/** bazaar-category-heat: the 9 categories now and since the previous snapshot. */
import { z } from 'zod';
import { CATEGORIES } from '../../../bazaar/classify.ts';
import { ProductInputError, READ, product } from '../../kit/index.ts';
import { HEAT_RULE, categoryHeat } from '../figures.ts';
import { SnapshotRef, latestSnapshots, snapshotRef, usdField } from '../market.ts';

export const CLASSIFIER_RULE =
  'category by keywords (9 categories): words of the path, host label and MCP tool name score 2, words of the description and schema property names score 1; highest score wins, ties go to the earlier category, no score is `other`';

export const HeatEntry = z.object({
  category: z.enum(CATEGORIES).describe('Category'),
  note: z.string().describe('What the category holds'),
  listings: z.int().describe('Listings now'),
  listings_before: z.int().nullable().describe('Listings at the previous snapshot (null: none)'),
  new_listings: z.int().nullable().describe('Listings not in the previous snapshot'),
  removed_listings: z.int().nullable().describe('Listings of the previous snapshot gone now'),
  sellers: z.int().describe('Distinct pay-to addresses now'),
  median_price_usd: usdField('Median price now'),
  median_price_change_pct: z.number().nullable().describe('Median price change since the previous snapshot, percent'),
  reported_calls_30d: z.int().nullable().describe('30-day calls the lists report'),
  heat: z.number().nullable().describe('Listing change in percent since the previous snapshot (see rule)'),
});

export const bazaarCategoryHeat = product({
  id: 'bazaar-category-heat',
  title: 'Bazaar category heat',
  description:
    'Returns the activity ("heat") of the 9 bazaar service categories: listings, new and removed listings, sellers, median price and its change, and heat (listing change in percent) since the previous snapshot.',
  method: 'GET',
  price: '0.003',
  annotations: READ,
  requires: ['bazaar'],
  input: z.object({
    category: z.string().optional().describe(`Only this category (default: all 9): ${CATEGORIES.join(', ')}`),
  }),
  inputExample: {},
  output: z.object({
    snapshot: SnapshotRef.describe('The latest snapshot'),
    previous: SnapshotRef.nullable().describe('The snapshot compared against (null: none yet)'),
    categories: z.array(HeatEntry).describe('The 9 categories (or the one asked for), hottest first'),
    rule: z.string().describe('How heat is computed and ranked'),
    classifier: z.string().describe('How a listing gets its category'),
  }),
  outputExample: {
    snapshot: { id: 2, day: '2025-05-31' },
    previous: { id: 1, day: '2025-05-30' },
    categories: [{ category: 'inference', note: 'LLM and model inference: chat, completion, embeddings, generation', listings: 2, listings_before: 1, new_listings: 1, removed_listings: 0, sellers: 2, median_price_usd: 0.05, median_price_change_pct: 0, reported_calls_30d: 70, heat: 100 }],
    rule: HEAT_RULE,
    classifier: CLASSIFIER_RULE,
  },
  run: async (input, ctx) => {
    if (input.category !== undefined && !(CATEGORIES as readonly string[]).includes(input.category)) {
      throw new ProductInputError(`unknown category ${input.category}: one of ${CATEGORIES.join(', ')}`, 422, 'category', 'unknown_category');
    }
    const [latest, previous] = await latestSnapshots(ctx, 2);
    const [now, then] = await Promise.all([ctx.bazaar!.listings(latest!.id), previous ? ctx.bazaar!.listings(previous.id) : Promise.resolve(null)]);
    const categories = categoryHeat(then, now).filter((c) => input.category === undefined || c.category === input.category);
    return { snapshot: snapshotRef(latest!), previous: previous ? snapshotRef(previous) : null, categories, rule: HEAT_RULE, classifier: CLASSIFIER_RULE };
  },
});
