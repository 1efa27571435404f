import type { IncomingMessage, ServerResponse } from 'node:http';
import { localSite } from './local-site.ts';

/**
 * A stand-in for the hosted chat-completions upstream (OpenRouter / OpenAI wire format), which cannot
 * run on this machine: `POST /chat/completions` with a Bearer key, a JSON completion or, with
 * `stream: true`, `data:` chunks ending in `data: [DONE]` (usage in the last chunk when asked).
 */
export interface OpenAiDouble {
  url: string;
  requests: { authorization?: string; body: Record<string, unknown> }[];
  /** The next answers fail with this HTTP status (e.g. 500) until reset to undefined. */
  failWith: number | undefined;
  /** Tokens the next completions report. */
  totalTokens: number;
  /** The assistant's text for a request (default "Pay first."); e.g. a JSON answer for the text products. */
  reply: ((body: Record<string, unknown>) => string) | undefined;
  /** `hang`: answer nothing (a timeout); `malformed-chunk`: a stream whose second event is not JSON. */
  fault: 'hang' | 'malformed-chunk' | undefined;
  close(): void;
}

export async function startOpenAiDouble(apiKey: string): Promise<OpenAiDouble> {
  const double: Omit<OpenAiDouble, 'url' | 'close'> = { requests: [], failWith: undefined, totalTokens: 39, reply: undefined, fault: undefined };
  const site = await localSite((req, res) => void handle(req, res));
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw || '{}') as Record<string, unknown>;
    double.requests.push({ authorization: req.headers.authorization, body });
    if (req.method !== 'POST' || req.url !== '/chat/completions') return send(res, 404, { error: { message: 'not found' } });
    if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401, { error: { message: 'invalid api key sk-secret-upstream-detail' } });
    if (double.failWith) return send(res, double.failWith, { error: { message: 'upstream exploded with key sk-secret-upstream-detail' } });
    if (double.fault === 'hang') return; // never answers; the client's timeout ends it
    const text = double.reply?.(body) ?? 'Pay first.';
    const model = String(body.model);
    const created = 1763769600;
    const prompt = 24;
    const usage = { prompt_tokens: prompt, completion_tokens: double.totalTokens - prompt, total_tokens: double.totalTokens };
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': OPENROUTER PROCESSING\n\n');
      const pieces = text === 'Pay first.' ? ['Pay ', 'first.'] : [text];
      for (const [i, piece] of pieces.entries()) {
        res.write(`data: ${JSON.stringify({ id: 'gen-1', object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content: piece } : { content: piece }, finish_reason: null }] })}\n\n`);
        if (double.fault === 'malformed-chunk') {
          res.end('data: {"id":"gen-1","object":"chat.completion.chunk","choices":[{"delta":{"content":"sk-secret-upstream-detail\n\n');
          return;
        }
      }
      const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage;
      res.write(`data: ${JSON.stringify({ id: 'gen-1', object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], ...(includeUsage ? { usage } : {}) })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    send(res, 200, {
      id: 'gen-1',
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage,
    });
  }
  return Object.assign(double, { url: site.url, close: site.close }) as OpenAiDouble;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
