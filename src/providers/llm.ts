import { readTextLimited } from '../read-limited.ts';

/**
 * The inference upstream: any OpenAI-compatible chat-completions API (OpenRouter by default, whose
 * model ids the catalogue uses). The operator configures its URL and key; the key is sent only to
 * that URL and never logged, and upstream error bodies are never passed on (they can echo secrets).
 */
export interface ChatMessage {
  role: string;
  content: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  /** Cap on completion tokens (the model's own maximum by default). */
  max_tokens?: number;
  /** Sampling temperature; the upstream's default when absent (text products ask for 0: stable answers). */
  temperature?: number;
}

/** The OpenAI chat-completion object, as much of it as we rely on; other fields pass through. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  choices: unknown[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
  [key: string]: unknown;
}

/** A completed stream: the upstream's `data:` payloads in order (without `[DONE]`) and its usage. */
export interface ChatStream {
  chunks: Record<string, unknown>[];
  usage?: ChatCompletion['usage'];
}

export interface ChatUpstreamOptions {
  /** Base URL ending before `/chat/completions`, e.g. `https://openrouter.ai/api/v1`. */
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  /** Operator option: meter `upto` calls by usage at this many atomic USDC (micro-USD) per 1,000 tokens. */
  atomicPerThousandTokens?: bigint;
  /** The model the text products' LLM modes use (INFERENCE_TEXT_MODEL). */
  textModel?: string;
}

/** Upstream answered, but not with a completion: the caller is not charged (502). */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    message: string,
    readonly status?: number,
    /** The upstream did not answer within INFERENCE_TIMEOUT_MS. */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** A response larger than this is not a chat completion we sell for cents. */
const MAX_UPSTREAM_BYTES = 8 * 1024 * 1024;

export class ChatUpstream {
  constructor(private readonly options: ChatUpstreamOptions) {}

  get atomicPerThousandTokens(): bigint | undefined {
    return this.options.atomicPerThousandTokens;
  }

  /** The model of the text products' LLM modes. */
  get textModel(): string {
    return this.options.textModel ?? 'openai/gpt-4.1-mini';
  }

  async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatCompletion> {
    const text = await this.post({ ...request, stream: false }, signal);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new UpstreamError('the inference upstream answered with something other than JSON');
    }
    if (!isCompletion(body)) throw new UpstreamError('the inference upstream answered without a chat completion');
    return body;
  }

  /**
   * Runs a streamed completion to its end and returns its chunks. The whole stream is read before
   * anything is released, because the caller is charged only for a completion that finished.
   */
  async stream(request: ChatRequest, signal: AbortSignal): Promise<ChatStream> {
    const text = await this.post({ ...request, stream: true, stream_options: { include_usage: true } }, signal);
    const chunks: Record<string, unknown>[] = [];
    let done = false;
    let usage: ChatCompletion['usage'];
    for (const line of text.split(/\r?\n/)) {
      if (!line.startsWith('data:')) continue; // comments (": keep-alive"), event names, blank lines
      const data = line.slice(5).trim();
      if (data === '[DONE]') {
        done = true;
        break;
      }
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        throw new UpstreamError('the inference upstream sent a malformed stream event');
      }
      if (typeof chunk !== 'object' || chunk === null) throw new UpstreamError('the inference upstream sent a malformed stream event');
      if ('error' in chunk) throw new UpstreamError('the inference upstream failed during the stream');
      const chunkUsage = (chunk as { usage?: ChatCompletion['usage'] }).usage;
      if (chunkUsage) usage = chunkUsage;
      chunks.push(chunk as Record<string, unknown>);
    }
    if (!done) throw new UpstreamError('the inference upstream stream ended before [DONE]');
    return { chunks, usage };
  }

  /** Sends one request and reads its whole answer within INFERENCE_TIMEOUT_MS (headers and body alike). */
  private async post(body: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const failed = (error: unknown, what: string) =>
      error instanceof UpstreamError ? error : timeout.aborted ? new UpstreamError('the inference upstream did not answer in time', undefined, true) : new UpstreamError(`${what} (${(error as Error).name})`);
    let response: Response;
    try {
      response = await fetch(`${this.options.baseUrl.replace(/\/$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.options.apiKey}`, accept: body.stream ? 'text/event-stream' : 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, timeout]),
      });
    } catch (error) {
      throw failed(error, 'the inference upstream could not be reached');
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new UpstreamError(`the inference upstream answered HTTP ${response.status}`, response.status);
    }
    try {
      return await readBounded(response);
    } catch (error) {
      throw failed(error, 'the inference upstream connection broke');
    }
  }
}

async function readBounded(response: Response): Promise<string> {
  const text = await readTextLimited(response.body, MAX_UPSTREAM_BYTES);
  if (text === undefined) throw new UpstreamError('the inference upstream answer is too large');
  return text;
}

function isCompletion(value: unknown): value is ChatCompletion {
  const v = value as Partial<ChatCompletion> | null;
  return typeof v === 'object' && v !== null && typeof v.id === 'string' && Array.isArray(v.choices) && v.choices.length > 0;
}
