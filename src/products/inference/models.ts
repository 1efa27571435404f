/**
 * The inference model catalogue: six chat models of distinct providers, all reachable through
 * one OpenAI-compatible chat-completion upstream. Served as data by GET /api/v1/models and used
 * as the `model` enum of the `inference` and `chat-completion` products.
 */
export interface InferenceModel {
  /** Id the caller passes as `model`; also the upstream model id. */
  id: string;
  name: string;
  provider: string;
  /** Total tokens (prompt + completion) the model accepts. */
  context_window: number;
  /** Most completion tokens the model returns in one call. */
  max_output_tokens: number;
  description: string;
}

export const INFERENCE_MODELS = [
  {
    id: 'openai/gpt-4.1-mini',
    name: 'GPT-4.1 mini',
    provider: 'OpenAI',
    context_window: 1_047_576,
    max_output_tokens: 32_768,
    description: 'Fast, low-cost general model with a very long context; a good default for extraction, tool-style prompts and short answers.',
  },
  {
    id: 'anthropic/claude-sonnet-4',
    name: 'Claude Sonnet 4',
    provider: 'Anthropic',
    context_window: 200_000,
    max_output_tokens: 64_000,
    description: 'Strong reasoning, writing and coding model with careful instruction following.',
  },
  {
    id: 'google/gemini-2.5-flash',
    name: 'Gemini 2.5 Flash',
    provider: 'Google',
    context_window: 1_048_576,
    max_output_tokens: 65_535,
    description: 'Fast model with built-in reasoning and a million-token context; suited to long documents.',
  },
  {
    id: 'meta-llama/llama-3.3-70b-instruct',
    name: 'Llama 3.3 70B Instruct',
    provider: 'Meta',
    context_window: 131_072,
    max_output_tokens: 16_384,
    description: 'Open-weight 70B instruction model; solid multilingual chat and summarisation.',
  },
  {
    id: 'mistralai/mistral-small-3.2-24b-instruct',
    name: 'Mistral Small 3.2',
    provider: 'Mistral AI',
    context_window: 131_072,
    max_output_tokens: 16_384,
    description: 'Compact open-weight 24B model; cheap and quick for classification, rewriting and function-style output.',
  },
  {
    id: 'deepseek/deepseek-chat-v3-0324',
    name: 'DeepSeek V3 (0324)',
    provider: 'DeepSeek',
    context_window: 163_840,
    max_output_tokens: 8_192,
    description: 'Open-weight mixture-of-experts chat model; strong at code and maths for its price.',
  },
] as const satisfies readonly InferenceModel[];

export type InferenceModelId = (typeof INFERENCE_MODELS)[number]['id'];

/** The model ids as a non-empty tuple, for `z.enum`. */
export const INFERENCE_MODEL_IDS = INFERENCE_MODELS.map((m) => m.id) as [InferenceModelId, ...InferenceModelId[]];
