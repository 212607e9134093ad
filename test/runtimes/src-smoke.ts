/**
 * Smoke test of src/ as published for Deno and Bun (and Node 24's type stripping): the TypeScript
 * sources imported as they are, no build step. Streams a short Anthropic tool call through
 * `TextDecoderStream` → `ProviderEventStream` → `collectTurn`, and a JSON document through
 * `JsonValueStream`, and a Gemini Interactions call through `ProviderEventStream` by name (its
 * adapter is a module of its own, loaded with a dynamic `import()` of a `.ts` file), then prints one
 * line `src-smoke ok {...}` (or throws).
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

const interactions = [
  'event: interaction.created',
  'data: {"interaction":{"id":"v1_1","status":"in_progress","object":"interaction"},"event_type":"interaction.created","event_id":"evt_1"}',
  '',
  'event: step.start',
  'data: {"index":0,"step":{"type":"function_call","id":"fc_1","name":"write_file","arguments":{}},"event_type":"step.start","event_id":"evt_2"}',
  '',
  'event: step.delta',
  'data: {"index":0,"delta":{"arguments":"{\\"path\\":\\"src/ma","type":"arguments_delta"},"event_type":"step.delta","event_id":"evt_3"}',
  '',
  'event: step.delta',
  'data: {"index":0,"delta":{"arguments":"in.rs\\",\\"content\\":\\"fn main() {}\\"}","type":"arguments_delta"},"event_type":"step.delta","event_id":"evt_4"}',
  '',
  'event: step.stop',
  'data: {"index":0,"event_type":"step.stop","event_id":"evt_5"}',
  '',
  'event: interaction.completed',
  'data: {"interaction":{"id":"v1_1","status":"requires_action","object":"interaction"},"event_type":"interaction.completed","event_id":"evt_6"}',
  '',
  '',
].join('\n');
const loaded = await collectTurn(bytesOneByOne(interactions).pipeThrough(new ProviderEventStream({ provider: 'gemini-interactions' })));
const loadedCall = loaded.toolCalls[0];
const loadedActual = JSON.stringify({ name: loadedCall?.toolName, arguments: loadedCall?.arguments });
if (loadedActual !== expected || loaded.rawFinishReason !== 'requires_action') throw new Error(`gemini-interactions by name: expected ${expected}, got ${loadedActual} (${loaded.rawFinishReason})`);

console.log(`src-smoke ok ${actual}`);
