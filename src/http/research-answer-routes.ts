/**
 * research_answer's free preview door, `GET /api/v1/research-answer/preview`: the answer format
 * (output schema), how deep the product reads, which method this instance answers with, and a real
 * captured answer (the declaration's output example). Static: it searches and fetches nothing and
 * charges nothing. Where research-answer is not on sale it answers 501, as the product's route does.
 */
import type { Hono } from 'hono';
import type { Catalogue } from '../catalogue/index.ts';
import { RESEARCH_ANSWER_DEPTH } from '../products/research/research-answer/index.ts';
import { problemResponse, problems } from './problem.ts';

export const RESEARCH_ANSWER_PREVIEW_PATH = '/api/v1/research-answer/preview';

export function registerResearchAnswerRoutes(app: Hono, catalogue: Catalogue, hasModel: boolean): void {
  const declared = catalogue.products.find((p) => p.id === 'research-answer');
  app.get(RESEARCH_ANSWER_PREVIEW_PATH, (c) => {
    if (!declared) return problemResponse(problems.notFound(c.req.path));
    if (declared.status !== 'available') return problemResponse(problems.notImplemented(declared.id, declared.reason));
    const depth = RESEARCH_ANSWER_DEPTH;
    return c.json(
      {
        note: `the answer format of research-answer and a real captured answer (read from a documentation test site on reserved example.com names); the paid call is ${declared.http?.method ?? 'POST'} ${declared.http?.path ?? ''} (${declared.http?.price ?? ''} USD) or the MCP tool ${declared.mcp?.tool ?? ''}`,
        method: hasModel ? 'llm' : 'extractive',
        reads: { search_results: depth.searchResults, pages: depth.pagesRead, passage_chars: depth.passageChars, passages: depth.passages, statements: depth.statements },
        input: declared.inputExample,
        example: declared.outputExample,
        output_schema: declared.outputSchema,
      },
      200,
      { 'cache-control': 'public, max-age=300' },
    );
  });
}
