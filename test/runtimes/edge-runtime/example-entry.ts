/**
 * The edge-runtime entry of the edge function example: Vercel's handler (`examples/edge-function/
 * vercel.ts`) behind a `fetch` event listener, as Vercel runs an Edge Function.
 */
import handler from '../../../examples/edge-function/vercel.ts';

interface FetchEvent extends Event {
  readonly request: Request;
  respondWith(response: Response | Promise<Response>): void;
}

addEventListener('fetch', (event) => {
  const fetchEvent = event as FetchEvent;
  fetchEvent.respondWith(handler(fetchEvent.request));
});
