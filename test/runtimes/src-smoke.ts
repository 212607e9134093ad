/**
 * Smoke test of src/ as published for Deno and Bun (and Node 24's type stripping): the TypeScript
 * sources imported as they are, no build step. Streams a short Anthropic tool call through
 * `TextDecoderStream` → `ProviderEventStream` → `collectTurn`, and a JSON document through
 * `JsonValueStream`, then prints one line `src-smoke ok {...}` (or throws).
 */
import { collectTurn, JsonValueStream, ProviderEventStream } from '../../src/index.ts';

const sse = [
  'event: message_start',
  'data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"stop_reason":null}}',
  '',
  'event: content_block_start',
  'data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"write_file","input":{}}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"path\\": \\"src/ma"}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"in.rs\\", \\"content\\": \\"fn main() {}\\"}"}}',
  '',
  'event: content_block_stop',
  'data: {"type":"content_block_stop","index":0}',
  '',
  'event: message_delta',
  'data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null}}',
  '',
  'event: message_stop',
  'data: {"type":"message_stop"}',
  '',
  '',
].join('\n');

function bytesOneByOne(text: string): ReadableStream<Uint8Array<ArrayBuffer>> {
  const bytes = new TextEncoder().encode(text);
  let i = 0;
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    pull(controller) {
      if (i < bytes.length) controller.enqueue(bytes.slice(i, ++i));
      else controller.close();
    },
  });
}

const turn = await collectTurn(bytesOneByOne(sse).pipeThrough(new TextDecoderStream()).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));
const call = turn.toolCalls[0];
const expected = JSON.stringify({ name: 'write_file', arguments: { path: 'src/main.rs', content: 'fn main() {}' } });
const actual = JSON.stringify({ name: call?.toolName, arguments: call?.arguments });
if (actual !== expected || turn.rawFinishReason !== 'tool_use') throw new Error(`collectTurn: expected ${expected}, got ${actual} (${turn.rawFinishReason})`);

const values = [];
for await (const value of bytesOneByOne('{"ü":[1,"😀",null]}').pipeThrough(new JsonValueStream())) values.push(value);
if (JSON.stringify(values) !== JSON.stringify([{ value: { ü: [1, '😀', null] }, complete: true }])) throw new Error(`JsonValueStream: got ${JSON.stringify(values)}`);

console.log(`src-smoke ok ${actual}`);
