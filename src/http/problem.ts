import { problemBody, type Problem } from '../checkout/problems.ts';

export { problemBody, problems, type FieldError, type Problem } from '../checkout/problems.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problemBody(problem)), {
    status: problem.status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store', ...headers },
  });
}
