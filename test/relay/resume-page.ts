/**
 * The page of test/relay/resume-browser.test.ts: the README's resume recipe as a page writes it —
 * `readRelay` into a `TurnStore`, no reconnect code — with what it received left on `window` for
 * the test to read.
 */
import { readRelay, TurnStore, type PipelineEvent } from '../../src/index.ts';

interface PageState {
  events: PipelineEvent[];
  retries: string[];
  done: boolean;
  error: string | undefined;
  status: string | undefined;
  arguments: unknown;
  start(): void;
}

const page = window as unknown as PageState;
page.events = [];
page.retries = [];
page.done = false;
page.error = undefined;
page.status = undefined;
page.start = () => {
  const events = readRelay('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":"write it"}' }, {
    initialDelayMs: 50,
    maxDelayMs: 300,
    onRetry: (attempt, error) => {
      const cause = (error as { cause?: { name?: string; message?: string } }).cause;
      page.retries.push(`${attempt}: ${String(error)}${cause === undefined ? '' : ` (cause ${cause.name}: ${cause.message})`}`);
    },
  });
  const [shown, kept] = events.tee();
  void new TurnStore().consume(shown).then((turn) => {
    page.status = turn.status;
    page.arguments = turn.calls[0]?.status === 'complete' ? turn.calls[0].input : undefined;
  });
  void (async () => {
    const reader = kept.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      page.events.push(value);
    }
    page.done = true;
  })().catch((error: unknown) => {
    page.error = String(error);
  });
};
