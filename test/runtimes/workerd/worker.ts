/**
 * The workerd (Cloudflare Workers) entry: a module worker whose fetch handler runs the portable
 * checks inside the request and answers with the report as JSON.
 */
import { runChecks } from '../portable.ts';

export default {
  async fetch(request: Request): Promise<Response> {
    const filter = new URL(request.url).searchParams.get('filter') ?? undefined;
    return Response.json(await runChecks(filter));
  },
};
