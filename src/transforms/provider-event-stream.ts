/**
 * The first stage of the pipeline: a provider's streaming response body (or the event objects an
 * official SDK yields) in, typed {@link StreamEvent}s out. A thin shell over
 * {@link ProviderEventDecoder}.
 *
 * @module
 */
import type { StreamEvent } from '../types.ts';
import { Stage } from './stage.ts';
import { type ProviderEventStreamInput, type ProviderEventStreamOptions, providerCore } from '../providers/provider-event-decoder.ts';

export type { ProviderEventStreamInput, ProviderEventStreamOptions };

/**
 * Turns a provider's streaming response into typed {@link StreamEvent}s: `part`s of text,
 * reasoning and tool-call arguments per content slot, a `flush` when a slot completes, and one
 * `finished` with the normalized reason and usage.
 *
 * Input chunks are the body's bytes (UTF-8 decoded with `TextDecoder` in streaming mode, so a
 * character may be split anywhere), text, or the event objects an official SDK yields
 * (`client.messages.stream(…)` for Anthropic, `client.responses.create({stream: true})` for OpenAI
 * Responses, `{contentBlockDelta: {…}}` objects of the AWS SDK for Bedrock). The framing follows
 * the provider: SSE (decoded by `eventsource-parser`; comments skipped; `data: [DONE]` ends the
 * input; a byte order mark at the start of the input is skipped, as in NDJSON) for Anthropic, OpenAI Chat, OpenAI Responses and Gemini (`alt=sse`); NDJSON for Ollama;
 * AWS event-stream binary frames, CRC-checked, for Bedrock.
 *
 * Other text forms are recognised by their first non-blank character, for the SSE providers:
 * `{` starts newline-delimited JSON of event objects — what the Anthropic and OpenAI SDKs'
 * `toReadableStream()` write (one `JSON.stringify(event)` per line) — read like the SSE it came
 * from; `[` starts one JSON array of records (Gemini's `streamGenerateContent` without
 * `alt=sse`), each element decoded as soon as its closing brace arrives, holding only the
 * element being read (input that ends inside the array errors with code `'truncated'`). An HTTP error body fed as the stream (the output of
 * `curl` on a failed request: Anthropic's `{"type":"error","error":{…}}`, OpenAI's and Gemini's
 * `{"error":{…}}`, Ollama's `{"error":"…"}`, Bedrock's `{"message":"…"}`) errors the stream with
 * the `ProviderError` `fromResponse` gives for it — the provider's type, code and message — less
 * the `status`, which only the response knows.
 *
 * `flush` decodes trailing input: a last SSE event without its blank line, or a last NDJSON line
 * without its newline, is emitted if it is complete JSON; then every slot still open is flushed
 * (a cut tool call stays flagged by its incomplete JSON, for the parser downstream to report), and
 * `finished` is emitted only if the provider sent its end. Input that stops inside an event, line
 * or frame errors the stream (code `'truncated'`) after the events before it.
 *
 * Errors reach the reader after every event before them: a `ProviderError` with the provider's
 * error type and message for errors sent after HTTP 200 (Anthropic `error`, Responses `error` and
 * `response.failed`, Bedrock exception frames, …), or with type `'invalid-stream'` and an
 * {@link InvalidStreamCode} for input that is not the provider's wire format. Messages quote at
 * most 30 characters of input.
 *
 * A provider at an entry point of its own (`'ag-ui'`, `'langchain'`, `'gemini-interactions'`) may
 * be given by name: its module is loaded (a dynamic `import()`, which a bundler makes a chunk of
 * its own) from the construction on, and the first chunk waits for it; a module that cannot be
 * loaded errors the stream with a `ProviderError` of type `'unavailable'`. Its definition from its
 * entry point (`provider: LANGCHAIN_PROVIDER`) bundles it statically instead.
 *
 * @throws {TypeError} from the constructor for an unknown provider.
 * @throws {RangeError} from the constructor for a `maxBufferedBytes` that is not positive.
 *
 * @example
 * ```ts
 * const response = await fetch('https://api.anthropic.com/v1/messages', {
 *   method: 'POST',
 *   headers: {
 *     'x-api-key': apiKey,
 *     'anthropic-version': '2023-06-01',
 *     'content-type': 'application/json',
 *   },
 *   body: JSON.stringify({ model, max_tokens: 1024, stream: true, tools, messages }),
 * });
 * const events = response.body!.pipeThrough(new ProviderEventStream({ provider: 'anthropic' }));
 * for await (const event of events) {
 *   if (event.type === 'part' && event.part.type === 'message') process.stdout.write(event.part.text);
 *   if (event.type === 'part' && event.part.type === 'tool-call-start') console.log(`\n→ ${event.part.name}`);
 *   if (event.type === 'finished') console.log(`\n[${event.reason}]`, event.usage);
 * }
 * ```
 */
export class ProviderEventStream extends Stage<ProviderEventStreamInput, StreamEvent> {
  constructor(options: ProviderEventStreamOptions) {
    super(providerCore(options, 'ProviderEventStream'));
  }
}
