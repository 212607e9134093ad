#!/usr/bin/env node
// `npm run bench:hostile`: what hostile documents cost under the default limits, against the same
// bytes flat, on every path a user chains. Each document (~600 KB, valid, within every default
// limit) and its flat counterpart (the same elements, of the same length, in one array) are fed
// as one tool call's argument parts of 4096 characters. Prints, per path, the time ratio
// (median of 5 runs after 2 warm-ups) and the peak heap ratio (sampled after every chunk, above
// the heap after a full GC), the serialized size of the path updates against the input, and what
// each event path relays to a page through EventStreamEncoder against the provider's own bytes
// (the same chunks as an Anthropic stream frames them).
// Needs `npm run build` (the script runs it) and `node --expose-gc`.
import {
  chain,
  EventStreamEncoder,
  collectTurn,
  ConversationEventStream,
  FieldEventStream,
  FragmentAggregator,
  IncrementalJsonParser,
  IncrementalJsonValueParser,
  JsonFragmentStream,
  JsonTextStream,
  PathUpdateStream,
  ToolCallProgressStream,
  ToolCallRebuilder,
} from '../dist/index.js';

const SIZE = 600_000;
const CHUNK = 4096;
const DEPTH = 255; // the default maxDepth is 256: one level is left for the elements

/** `open` + `element` repeated to about SIZE characters + `close`. */
function repeat(open, element, last, close) {
  const count = Math.max(1, Math.floor((SIZE - open.length - close.length - last.length) / element.length));
  return open + element.repeat(count) + last + close;
}

const documents = [
  ['scalars 255 deep', repeat('['.repeat(DEPTH), '0,', '0', ']'.repeat(DEPTH)), repeat('[', '0,', '0', ']')],
  ['empty arrays 255 deep', repeat('['.repeat(DEPTH - 1), '[],', '[]', ']'.repeat(DEPTH - 1)), repeat('[', '[],', '[]', ']')],
  ['short strings 255 deep', repeat('['.repeat(DEPTH), '"x",', '"x"', ']'.repeat(DEPTH)), repeat('[', '"x",', '"x"', ']')],
  ['members 255 deep', repeat('{"a":'.repeat(DEPTH) + '{', '"b":0,', '"b":0', '}'.repeat(DEPTH + 1)), repeat('{', '"b":0,', '"b":0', '}')],
  ['100 KB key over numbers', repeat(`{"${'k'.repeat(100_000)}":[`, '0,', '0', ']}'), repeat('{"k":[', '0,', '0', ']}')],
];

function events(text) {
  const out = [{ type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'c', toolName: 'f' } }];
  for (let i = 0; i < text.length; i += CHUNK) out.push({ type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: text.slice(i, i + CHUNK) } });
  out.push({ type: 'flush', index: 0 }, { type: 'finished', reason: 'tool-calls', rawReason: 'tool_use' });
  return out;
}

function chunksOf(text) {
  const out = [];
  for (let i = 0; i < text.length; i += CHUNK) out.push(text.slice(i, i + CHUNK));
  return out;
}

function source(items) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < items.length) {
        sample();
        controller.enqueue(items[i++]);
      } else controller.close();
    },
  });
}

let peak = 0;
function sample() {
  const used = process.memoryUsage().heapUsed;
  if (used > peak) peak = used;
}

async function drain(stream, each = () => {}) {
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    each(value);
  }
}

/** Each path: text → work, resolved when done. `extra` collects a figure (serialized size). */
const paths = {
  'fragments + aggregator': async (text) => {
    const parser = new IncrementalJsonParser();
    const aggregator = new FragmentAggregator();
    for (const chunk of chunksOf(text)) {
      for (const fragment of parser.push(chunk)) aggregator.push(fragment);
      sample();
    }
    for (const fragment of parser.end()) aggregator.push(fragment);
  },
  'fused value parser': async (text) => {
    const parser = new IncrementalJsonValueParser();
    for (const chunk of chunksOf(text)) {
      parser.push(chunk);
      sample();
    }
    parser.end();
  },
  JsonFragmentStream: (text) => drain(source(chunksOf(text)).pipeThrough(new JsonFragmentStream())),
  'chain(JsonFragmentStream, JsonTextStream)': (text) => drain(source(chunksOf(text)).pipeThrough(chain(new JsonFragmentStream(), new JsonTextStream()))),
  ToolCallProgressStream: (text) => drain(source(events(text)).pipeThrough(new ToolCallProgressStream())),
  'ConversationEventStream({progress})': (text) => drain(source(events(text)).pipeThrough(new ConversationEventStream({ progress: true }))),
  FieldEventStream: (text) => drain(source(events(text)).pipeThrough(new FieldEventStream())),
  'PathUpdateStream (serialized)': async (text, extra) => {
    let size = 0;
    // The path updates alone (the stage passes the progress it was given on, which a relay of path
    // updates leaves out with keepProgress: false).
    await drain(source(events(text)).pipeThrough(new PathUpdateStream()), (update) => {
      if (update.type === 'path-update') size += JSON.stringify(update).length + 1;
    });
    extra.serialized = size;
  },
  'PathUpdateStream → ToolCallRebuilder': async (text) => {
    const rebuilder = new ToolCallRebuilder();
    await drain(source(events(text)).pipeThrough(new PathUpdateStream()), (update) => rebuilder.push(update));
  },
  'collectTurn (values)': (text) => collectTurn(source(events(text))),
};

/** The stage of each event path, for what it relays to a page. */
const relayed = {
  ToolCallProgressStream: () => new ToolCallProgressStream(),
  'ConversationEventStream({progress})': () => new ConversationEventStream({ progress: true }),
  FieldEventStream: () => new FieldEventStream(),
  'PathUpdateStream (serialized)': () => new PathUpdateStream(),
};

/** The bytes of an Anthropic stream of one call whose arguments are `text`, in the chunks the paths read. */
function providerBytes(text) {
  const record = (type, data) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  let sse = record('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_01', name: 'f', input: {} } });
  for (const chunk of chunksOf(text)) sse += record('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: chunk } });
  sse += record('content_block_stop', { type: 'content_block_stop', index: 0 }) + record('message_stop', { type: 'message_stop' });
  return new TextEncoder().encode(sse).byteLength;
}

/** What `stage` relays to a page through EventStreamEncoder, in bytes. */
async function relayedBytes(stage, text) {
  let bytes = 0;
  await drain(source(events(text)).pipeThrough(stage()).pipeThrough(new EventStreamEncoder()), (chunk) => {
    bytes += chunk.byteLength;
  });
  return bytes;
}

async function measure(run, text) {
  const times = [];
  let heap = 0;
  const extra = {};
  for (let r = 0; r < 7; r++) {
    globalThis.gc();
    const base = process.memoryUsage().heapUsed;
    peak = base;
    const start = performance.now();
    await run(text, extra);
    const ms = performance.now() - start;
    sample();
    if (r >= 2) {
      times.push(ms);
      heap = Math.max(heap, peak - base);
    }
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], heap, extra };
}

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc (npm run bench:hostile)');
const filter = process.argv[2] === undefined ? undefined : new RegExp(process.argv[2], 'i');
console.log(`Hostile documents under the default limits, ${SIZE / 1000} KB each, ${CHUNK}-character chunks; ratios to the same bytes flat (Node ${process.versions.node}).\n`);
console.log('| document | path | ms | flat ms | time × flat | peak heap × flat | serialized ÷ input | relayed ÷ provider |');
console.log('|---|---|--:|--:|--:|--:|--:|--:|');
let worst = { time: 0, heap: 0, relayed: 0 };
for (const [name, hostile, flat] of documents) {
  for (const [path, run] of Object.entries(paths)) {
    if (filter !== undefined && !filter.test(`${name} ${path}`)) continue;
    const h = await measure(run, hostile);
    const f = await measure(run, flat);
    const time = h.ms / f.ms;
    // Heaps under 1 MB are noise (the stream machinery alone): count them as 1 MB.
    const heapRatio = Math.max(h.heap, 1e6) / Math.max(f.heap, 1e6);
    const relay = relayed[path] === undefined ? undefined : (await relayedBytes(relayed[path], hostile)) / providerBytes(hostile);
    worst = { time: Math.max(worst.time, time), heap: Math.max(worst.heap, heapRatio), relayed: Math.max(worst.relayed, relay ?? 0) };
    const serialized = h.extra.serialized === undefined ? '' : (h.extra.serialized / hostile.length).toFixed(1);
    console.log(`| ${name} | ${path} | ${h.ms.toFixed(1)} | ${f.ms.toFixed(1)} | ${time.toFixed(2)} | ${heapRatio.toFixed(2)} | ${serialized} | ${relay === undefined ? '' : relay.toFixed(2)} |`);
  }
}
console.log(`\nworst: ${worst.time.toFixed(2)}× the time, ${worst.heap.toFixed(2)}× the peak heap of the same bytes flat; ${worst.relayed.toFixed(2)}× the provider's bytes relayed`);
