/**
 * RedisEventLog on a runtime other than the test's Node (Bun, Deno): run by
 * test/redis/runtimes.test.ts as `<runtime> test/redis/runtime-check.ts <redis url>`, against the
 * test's redis-server. Two logs on two clients (two instances): a turn kept with keepStream (its
 * source a function, called once the stream is open), followed live on the other instance, a
 * resume after an id through serveStream, a stop from the other instance, a hostile id. Prints
 * one line, `runtime-check {…}`, with what it saw.
 */
import { createClient } from 'redis';
import { RedisEventLog } from '../../src/bindings/redis.ts';
import { EventStreamDecoder, keepStream, newStreamId, serveStream, stopStream, type LogEntry } from '../../src/index.ts';

const url = ((globalThis as { Deno?: { args: string[] } }).Deno?.args ?? process.argv.slice(2))[0] as string;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function connected() {
  const client = createClient({ url, socket: { connectTimeout: 2000 } });
  client.on('error', () => {});
  await client.connect();
  return client;
}

const a = await connected();
const b = await connected();
const producing = new RedisEventLog(a, { prefix: 'runtime-check', leaseMs: 2_000 });
const reading = new RedisEventLog(b, { prefix: 'runtime-check', leaseMs: 2_000 });
const seen: Record<string, unknown> = {};
try {
  const events = Array.from({ length: 40 }, (_, i) => ({ type: 'field-delta', key: 'content', text: `line ${i + 1} é\n` }));
  const id = newStreamId();
  let i = 0;
  const kept = await keepStream(producing, id, async () =>
    new ReadableStream({
      async pull(controller) {
        await delay(2);
        if (i < events.length) controller.enqueue(events[i++]);
        else controller.close();
      },
    }),
  );
  const followed: LogEntry[] = [];
  for await (const entry of await reading.read(id, 0)) followed.push(entry);
  seen['outcome'] = (await kept.done).status;
  seen['followed'] = followed.map((entry) => (entry.kind === 'event' ? entry.id : entry.kind));
  const resumed = await serveStream(reading, id, new Request('http://relay/s', { headers: { 'last-event-id': '35' } }), { snapshot: false });
  const decoded: unknown[] = [];
  const reader = resumed.body!.pipeThrough(new EventStreamDecoder()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    decoded.push(value);
  }
  seen['resumed'] = decoded;
  // A stop from the other instance cancels the source.
  const endless = newStreamId();
  let cancelled: unknown;
  const stopped = await keepStream(producing, endless, () =>
    new ReadableStream({
      async pull(controller) {
        await delay(5);
        controller.enqueue({ type: 'tick' });
      },
      cancel: (reason) => void (cancelled = reason),
    }),
  );
  await delay(50);
  seen['stop'] = (await stopStream(reading, endless)).status;
  seen['stopped'] = (await stopped.done).status;
  seen['cancelled'] = (cancelled as { code?: unknown } | undefined)?.code;
  seen['hostile'] = (await serveStream(reading, 'abcdefghijklmnop:*', new Request('http://relay/s'))).status;
} catch (error) {
  seen['error'] = String(error);
} finally {
  await producing.close();
  await reading.close();
  a.destroy();
  b.destroy();
}
console.log(`runtime-check ${JSON.stringify(seen)}`);
