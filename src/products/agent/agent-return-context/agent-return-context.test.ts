import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { twoDays } from '../../bazaar/fixture.ts';
import { agentReturnContext } from './index.ts';

describe('agent-return-context', () => {
  it('first call: the cursor and hash; return with it: the delta since, and the same hash for the same rows', async () => {
    const ctx = fakeContext({ bazaar: twoDays() });
    const first = await agentReturnContext.run({}, ctx);
    expect(agentReturnContext.output.parse(first)).toEqual(first);
    expect(first).toMatchObject({ latest: { id: 2 }, since: null, changed: true, snapshot_ids: [2] });
    expect(first.evidence_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const cursorAtOne = Buffer.from(JSON.stringify({ v: 'agent-return-context/v1', s: 1 })).toString('base64url');
    const back = await agentReturnContext.run({ cursor: cursorAtOne, include: ['delta', 'trending'] }, ctx);
    expect(back.since).toEqual({ id: 1, day: '2025-05-30' });
    expect(back.delta!.counts).toEqual({ added: 2, removed: 1, repriced: 1, schema_changed: 0 });
    expect(back.trending!.map((t) => t.service)).toEqual(['https://ai.invalid', 'https://scrape.invalid', 'https://prices.invalid']);
    expect(back.snapshot_ids).toEqual([2, 1]);
    expect((await agentReturnContext.run({ cursor: cursorAtOne, include: ['delta', 'trending'] }, ctx)).evidence_hash).toBe(back.evidence_hash);
    const current = await agentReturnContext.run({ cursor: first.next_cursor, include: ['delta'] }, ctx);
    expect(current).toMatchObject({ changed: false, delta: null });
    await expect(agentReturnContext.run({ cursor: 'x' }, ctx)).rejects.toMatchObject({ status: 400, field: 'cursor' });
  });
});
