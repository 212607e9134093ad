/**
 * The official Anthropic SDK against the replay server: argstream's turn from the SDK's event
 * objects (`messages.stream()`, `messages.create({stream: true})`), from its
 * `toReadableStream()` NDJSON, and from `fromResponse`, compared with the SDK's own
 * `finalMessage()` and with the MANIFEST.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { collectTurn } from '../../src/sinks/collect-turn.ts';
import { fromAsyncIterable } from '../../src/sources/iterable.ts';
import { fromResponse } from '../../src/sources/response.ts';
import { ProviderEventStream } from '../../src/transforms/provider-event-stream.ts';
import { manifestRecordings } from '../manifest.ts';
import { closeServersAfterEach, replay, turnCalls } from './replay.ts';

closeServersAfterEach();

const params = { model: 'claude-replay', max_tokens: 1024, messages: [{ role: 'user' as const, content: 'hi' }] };

function client(baseURL: string): Anthropic {
  return new Anthropic({ apiKey: 'sk-ant-replay', baseURL, maxRetries: 0 });
}

/** The SDK's final message, as the calls, text and stop reason argstream's turn must match. */
function sdkView(message: Anthropic.Message) {
  const callOf = (block: Anthropic.ContentBlock) => ({ id: (block as Anthropic.ToolUseBlock).id, name: (block as Anthropic.ToolUseBlock).name, arguments: (block as Anthropic.ToolUseBlock).input });
  // The application's calls, and apart the ones Anthropic ran, with the content of their result blocks.
  const calls = message.content.filter((block) => block.type === 'tool_use').map(callOf);
  const results = new Map(
    message.content.flatMap((block) => ('tool_use_id' in block && block.type.endsWith('_tool_result') ? [[block.tool_use_id, (block as { content: unknown }).content] as const] : [])),
  );
  const providerCalls = message.content
    .filter((block) => block.type === 'server_tool_use' || (block.type as string) === 'mcp_tool_use')
    .map((block) => ({ ...callOf(block), result: results.get((block as Anthropic.ServerToolUseBlock).id) }));
  const text = message.content.filter((block) => block.type === 'text').map((block) => (block as Anthropic.TextBlock).text).join('');
  const reasoning = message.content.filter((block) => block.type === 'thinking').map((block) => (block as Anthropic.ThinkingBlock).thinking).join('');
  return { calls, providerCalls, text, reasoning, stopReason: message.stop_reason };
}

/** The turn's provider-run calls as the SDK view has them. */
function providerCalls(turn: Awaited<ReturnType<typeof collectTurn>>) {
  return turn.providerToolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, arguments: call.arguments, result: call.result }));
}

const complete = manifestRecordings('anthropic').filter((recording) => recording.file !== 'anthropic/tool-use-truncated-max-tokens.sse');

describe('Anthropic SDK against the replay server', () => {
  it.each(complete.map((recording) => [recording.file, recording] as const))(
    'messages.stream(): argstream turn equals finalMessage() and the MANIFEST (%s)',
    async (file, recording) => {
      const server = await replay(file, 'anthropic');
      const stream = client(server.url).messages.stream(params);
      const turn = await collectTurn(fromAsyncIterable(stream).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));
      const sdk = sdkView(await stream.finalMessage());
      expect(turnCalls(turn)).toEqual(sdk.calls);
      expect(providerCalls(turn)).toEqual(sdk.providerCalls);
      expect(turn.text).toBe(sdk.text);
      expect(turn.reasoning).toBe(sdk.reasoning);
      expect(turn.rawFinishReason).toBe(sdk.stopReason);
      expect(JSON.stringify(turn.rawFinishReason)).toBe(recording.finish);
      expect(turnCalls(turn)).toEqual(
        recording.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.args === '' ? {} : JSON.parse(call.args) })),
      );
    },
  );

  it.each(complete.map((recording) => [recording.file] as const))(
    'messages.create({stream: true}) through fromAsyncIterable, toReadableStream() bytes, and fromResponse give the same turn as finalMessage() (%s)',
    async (file) => {
      const server = await replay(file, 'anthropic');
      const anthropic = client(server.url);
      const sdk = sdkView(await anthropic.messages.stream(params).finalMessage());
      const check = (turn: Awaited<ReturnType<typeof collectTurn>>) => {
        expect(turnCalls(turn)).toEqual(sdk.calls);
        expect(providerCalls(turn)).toEqual(sdk.providerCalls);
        expect(turn.text).toBe(sdk.text);
        expect(turn.reasoning).toBe(sdk.reasoning);
        expect(turn.rawFinishReason).toBe(sdk.stopReason);
      };
      const created = await anthropic.messages.create({ ...params, stream: true });
      check(await collectTurn(fromAsyncIterable(created).pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))));
      const ndjson = anthropic.messages.stream(params).toReadableStream();
      check(await collectTurn(ndjson.pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))));
      const createdBytes = (await anthropic.messages.create({ ...params, stream: true })).toReadableStream();
      check(await collectTurn(createdBytes.pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))));
      const response = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ ...params, stream: true }) });
      check(await collectTurn(fromResponse(response, { provider: 'anthropic' })));
    },
  );

  it('a max_tokens cut: the SDK keeps a partial input, argstream reports the call incomplete, never complete', async () => {
    const server = await replay('anthropic/tool-use-truncated-max-tokens.sse', 'anthropic');
    const stream = client(server.url).messages.stream(params);
    const turn = await collectTurn(fromAsyncIterable(stream).pipeThrough(new ProviderEventStream({ provider: 'anthropic' })));
    const message = await stream.finalMessage();
    const sdk = sdkView(message);
    expect(turn.rawFinishReason).toBe('max_tokens');
    expect(sdk.stopReason).toBe('max_tokens');
    expect(turn.text).toBe(sdk.text);
    expect(turn.toolCalls).toEqual([]);
    expect(turn.incompleteToolCalls.map((call) => [call.toolCallId, call.toolName])).toEqual(sdk.calls.map((call) => [call.id, call.name]));
    // The SDK's partial input drops the string that was being written; argstream's partial
    // arguments keep it (and its open path), and neither calls the tool.
    const sdkInput = sdk.calls[0]?.arguments as { filename: string; lines_of_text: string[] };
    expect(turn.incompleteToolCalls[0]?.partialArguments).toEqual({ ...sdkInput, lines_of_text: [...sdkInput.lines_of_text, 'Filing taxes'] });
    expect(turn.incompleteToolCalls[0]?.path).toBe('/lines_of_text/4');
  });

  it('an HTTP error: the SDK throws its APIError, fromResponse a ProviderError with the same status, type and message', async () => {
    const body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011"}';
    const { startReplayServer } = await import('../../src/cli/replay-server.ts');
    const server = await startReplayServer({ recording: new TextEncoder().encode(body), provider: 'anthropic', status: 529 });
    try {
      const sdkError = await client(server.url).messages.create({ ...params, stream: true }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(sdkError).toBeInstanceOf(Anthropic.APIError);
      const response = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: '{}' });
      const error = await collectTurn(fromResponse(response, { provider: 'anthropic' })).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({ name: 'ProviderError', provider: 'anthropic', status: (sdkError as InstanceType<typeof Anthropic.APIError>).status, type: 'overloaded_error' });
      expect((error as Error).message).toContain('Overloaded');
      expect(((sdkError as InstanceType<typeof Anthropic.APIError>).error as { error: { type: string } }).error.type).toBe('overloaded_error');
    } finally {
      await server.close();
    }
  });
});
