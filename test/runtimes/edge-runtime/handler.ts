/**
 * The edge-runtime (Vercel Edge) entry, a classic script: a `fetch` event listener, as an Edge
 * Function is written, that runs the portable checks and responds with the report as JSON.
 */
import { runChecks } from '../portable.ts';

interface FetchEvent extends Event {
  readonly request: Request;
  respondWith(response: Response | Promise<Response>): void;
}

addEventListener('fetch', (event) => {
  const fetchEvent = event as FetchEvent;
  const filter = new URL(fetchEvent.request.url).searchParams.get('filter') ?? undefined;
  fetchEvent.respondWith(runChecks(filter).then((report) => Response.json(report)));
});
