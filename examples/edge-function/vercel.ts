/**
 * The same handler as a Vercel Edge Function: copy this file to `api/chat.ts` (with `index.ts`
 * beside it as `api/_relay.ts`, and the import below changed to match); configure
 * `ANTHROPIC_API_KEY` (and optionally `ANTHROPIC_URL`, `ANTHROPIC_MODEL`) in the project's
 * environment variables.
 */
import { handleRequest } from './index.ts';

/** Run on the Edge runtime. */
export const config = { runtime: 'edge' };

/** POST /api/chat */
export default function handler(request: Request): Promise<Response> {
  return handleRequest(request, {
    ANTHROPIC_URL: process.env['ANTHROPIC_URL'],
    ANTHROPIC_API_KEY: process.env['ANTHROPIC_API_KEY'],
    ANTHROPIC_MODEL: process.env['ANTHROPIC_MODEL'],
    KEEP_ALIVE_MS: process.env['KEEP_ALIVE_MS'],
  });
}
