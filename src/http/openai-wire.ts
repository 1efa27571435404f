/**
 * The OpenAI-compatible door's wire: its paths, the product it sells, the model list and the error
 * shape of the OpenAI API (`{ error: { message, type, param, code } }`). Pure data, shared by the
 * door (openai-door.ts) and the discovery documents, so both derive from the catalogue alike.
 */
import type { AvailableProduct } from '../catalogue/types.ts';
import type { InferenceModel } from '../catalogue/models.ts';
import type { Problem } from '../checkout/problems.ts';

export const OPENAI_BASE_PATH = '/openai/v1';
export const OPENAI_CHAT_PATH = `${OPENAI_BASE_PATH}/chat/completions`;
export const OPENAI_MODELS_PATH = `${OPENAI_BASE_PATH}/models`;
/** The product a chat completion on this door is: its price, rails and schemes (`upto` included). */
export const OPENAI_DOOR_PRODUCT = 'chat-completion';

/** The product the door sells, when it is on sale on this instance (it needs the inference upstream). */
export function openAiDoorProduct(available: readonly AvailableProduct[]): AvailableProduct | undefined {
  return available.find((p) => p.id === OPENAI_DOOR_PRODUCT);
}

/** `GET /openai/v1/models`: the model catalogue as OpenAI's list object. */
export function openAiModelList(models: readonly InferenceModel[], created: number) {
  return { object: 'list', data: models.map((m) => ({ id: m.id, object: 'model', created, owned_by: m.provider })) };
}

/** The OpenAI error object for one of our problems: same status, its code, the first field as `param`. */
export function openAiError(problem: Problem, message: string): { error: { message: string; type: string; param: string | null; code: string } } {
  return { error: { message, type: errorType(problem.status), param: problem.errors?.[0]?.field ?? null, code: problem.code } };
}

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 404) return 'not_found_error';
  if (status === 409) return 'conflict_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return status === 503 ? 'service_unavailable_error' : 'api_error';
  return 'invalid_request_error';
}

/**
 * An OpenAI request body as the product's input: OpenAI fields the product does not take
 * (temperature, stream_options, tools…) are left to the product's schema, which drops them; message
 * content given as text parts is joined into one string.
 */
export function chatInputOf(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { messages?: unknown }).messages)) return body;
  const messages = (body as { messages: unknown[] }).messages.map((message) => {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) return message;
    const parts = content.filter((part): part is { type: 'text'; text: string } => (part as { type?: unknown })?.type === 'text' && typeof (part as { text?: unknown }).text === 'string');
    return parts.length === content.length ? { ...(message as object), content: parts.map((p) => p.text).join('\n') } : message;
  });
  return { ...body, messages };
}
