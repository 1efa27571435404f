import type { Context, Hono } from 'hono';
import type { InferenceModel } from '../catalogue/models.ts';
import { parseJsonBody, readBodyLimited } from './input.ts';
import { httpAnswer } from './paid-response.ts';
import { callerOf, x402PaymentOf, type PaidRouteDeps } from './paid-routes.ts';
import { problems } from './problem.ts';
import type { Problem } from '../checkout/problems.ts';
import { OPENAI_CHAT_PATH, OPENAI_MODELS_PATH, chatInputOf, openAiDoorProduct, openAiError, openAiModelList } from './openai-wire.ts';

/**
 * The OpenAI-compatible door: `POST /openai/v1/chat/completions` sells the `chat-completion`
 * product (its price, every rail and scheme it takes, `upto` included) through the same checkout,
 * gate and ledger as its route, so the official `openai` client with an x402-paying `fetch` works
 * unchanged; `GET /openai/v1/models` lists the model catalogue, free. The 402 stays the x402
 * challenge (the paying fetch reads it); every other error is OpenAI's error object.
 */
export function registerOpenAiDoor(app: Hono, deps: PaidRouteDeps & { models: readonly InferenceModel[] }): void {
  const created = Math.floor(Date.now() / 1000);
  const list = openAiModelList(deps.models, created);
  app.get(OPENAI_MODELS_PATH, (c) => c.json(list));
  app.all(OPENAI_CHAT_PATH, (c) => handleChat(c, deps));
}

async function handleChat(c: Context, deps: PaidRouteDeps): Promise<Response> {
  const fail = (problem: Problem, message = problem.detail ?? problem.title, headers: Record<string, string> = {}) =>
    c.json(openAiError(problem, message), problem.status as 400, { 'cache-control': 'no-store', ...headers });
  if (c.req.method !== 'POST') return fail(problems.methodNotAllowed(c.req.method, ['POST']), `${c.req.method} is not allowed; POST a chat completion request`, { allow: 'POST' });
  const product = openAiDoorProduct(deps.catalogue.available('http'));
  if (!product) return fail(problems.notImplemented('chat-completion', 'this instance has no inference upstream configured'));
  const body = await readBodyLimited(c, deps.maxBodyBytes);
  if (!body.ok) return fail(problems.tooLarge(deps.maxBodyBytes));
  const json = parseJsonBody(body.text);
  if (!json.ok) return fail(problems.invalidInput(json.errors));
  const result = await deps.checkout.decide({
    door: { kind: 'order', path: OPENAI_CHAT_PATH },
    product,
    method: 'POST',
    input: { kind: 'value', value: chatInputOf(json.value) },
    payment: x402PaymentOf(c),
    publicOrigin: deps.publicBaseUrl ?? new URL(c.req.url).origin,
    caller: callerOf(c, deps),
  });
  if (result.kind === 'problem') {
    const headers: Record<string, string> = {};
    if (result.retryAfter !== undefined) headers['retry-after'] = String(result.retryAfter);
    return fail(result.problem, result.message, headers);
  }
  return httpAnswer(c, result, deps);
}
