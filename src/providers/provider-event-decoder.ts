/**
 * The core of the pipeline's first stage: a provider's streaming response body (or the event
 * objects an official SDK yields) in, typed {@link StreamEvent}s out, with no stream.
 *
 * @module
 */
import { type EventSourceMessage, type EventSourceParser, type ParseError, createParser } from 'eventsource-parser';
import { ProviderError, type ProviderName, excerpt } from '../errors.ts';
import type { StreamEvent } from '../types.ts';
import type { PushCore, StageCore } from '../core.ts';
import type { Framing, ProviderAdapter, ProviderDefinition } from './adapter.ts';
import { createAiSdkAdapter } from './ai-sdk.ts';
import { AI_SDK_UI_TERMINAL, createAiSdkUiAdapter } from './ai-sdk-ui.ts';
import { createAnthropicAdapter } from './anthropic.ts';
import { type AwsEventStreamMessage, AwsEventStreamDecoder } from './aws-event-stream.ts';
import { createBedrockAdapter } from './bedrock.ts';
import { createCohereAdapter } from './cohere.ts';
import { isErrorBody, providerErrorFromBody } from './error-body.ts';
import { createGeminiAdapter } from './gemini.ts';
import { createOllamaAdapter } from './ollama.ts';
import { createOpenAIChatAdapter } from './openai-chat.ts';
import { createOpenAIResponsesAdapter } from './openai-responses.ts';
import { readPathUpdates } from './path-update-text.ts';
import { SseLineBreaks } from './sse-line-breaks.ts';

/**
 * What a {@link ProviderEventStream} accepts: the response body's bytes (`Uint8Array`), text
 * (after a `TextDecoderStream`; not for Bedrock, whose framing is binary), or event objects an
 * official SDK already decoded (for `'ai-sdk'`, only the part objects of `fullStream`; for
 * `'langchain'`, only LangChain's objects: message chunks, `[chunk, metadata]` tuples, events).
 */
export type ProviderEventStreamInput = string | Uint8Array | object;

/** Options of {@link ProviderEventStream}. */
export interface ProviderEventStreamOptions {
  /**
   * The provider API the input comes from; it chooses the framing and the adapter. `'ai-sdk'`
   * reads the parts of the AI SDK's `streamText(…).fullStream` (objects only); `'ai-sdk-ui'` the
   * AI SDK's UI message stream (an AI SDK server's SSE response to `useChat`, or its chunk objects);
   * `'ag-ui'` AG-UI's events (an AG-UI agent's SSE response, as `@ag-ui/encoder` writes it, or the
   * event objects `@ag-ui/client` yields).
   * `'langchain'` LangChain.js's stream objects (objects only: see `docs/langchain.md`);
   * `'gemini-interactions'` Gemini's Interactions API.
   *
   * `'ag-ui'`, `'langchain'` and `'gemini-interactions'` live at entry points of their own
   * (`argstream/ag-ui`, `argstream/langchain`, `argstream/gemini-interactions`), so that the main
   * entry does not carry them. By name, `ProviderEventStream` and `fromResponse` load the
   * provider's module (a dynamic `import()`: a chunk of its own in a page's bundle) before they
   * decode the first chunk; `ProviderEventDecoder`, which cannot wait, takes the provider's
   * {@link ProviderDefinition} (`AG_UI_PROVIDER`, `LANGCHAIN_PROVIDER`,
   * `GEMINI_INTERACTIONS_PROVIDER`) instead, as every stage does too.
   */
  readonly provider: ProviderName | ProviderDefinition;
  /**
   * Longest record: an SSE event's data, an NDJSON line, an element of a JSON array (Gemini
   * without `alt=sse`) or a JSON document, in UTF-16 code units of decoded text; an AWS
   * event-stream frame, in bytes. A longer record errors the stream with a `ProviderError` (type
   * `'invalid-stream'`, code `'max-buffered-bytes'`, message `<provider>: <record> grew beyond
   * maxBufferedBytes (<n>)`), whether it is still arriving or arrived whole in one chunk, instead
   * of buffering an endless line.
   * @default 16 MiB (16 777 216)
   */
  readonly maxBufferedBytes?: number;
  /**
   * The request asked for JSON output (OpenAI Chat `response_format` `json_schema`/`json_object`,
   * Responses `text.format` `json_schema`, Gemini `responseMimeType: "application/json"`,
   * Anthropic `output_config.format` (beta: `output_format`), Ollama `format`, …): the message
   * text of the response is that JSON document. Its `message` parts become `structured` parts
   * (`{type: 'structured', json}`), so the stages after this one parse it as they parse tool-call
   * arguments: `structured-progress` fragments, a `structured` event with the parsed `data`,
   * field events, path updates, validation (`ArgumentValidationStream`'s `structured` schema).
   * Reasoning stays reasoning, tool calls stay tool calls, and a refusal (a `refusal` part, or
   * a message slot the adapter marks `{refusal: true}`) stays text: it is not JSON. Empty message
   * text is dropped (it opens no document).
   * @default false
   */
  readonly structuredOutput?: boolean;
}

import { AdapterDecoder, type EventConversion, type InvalidStreamCode } from './adapter-decoder.ts';

export type { InvalidStreamCode } from './adapter-decoder.ts';

/**
 * How text input is read, decided by its first non-blank character: `sse` (the provider's SSE);
 * `ndjson`, one JSON record per line (Ollama, or an SDK's `toReadableStream()` output of event
 * objects for an SSE provider); `array`, one JSON array whose elements are records, each read as
 * soon as it is complete (Gemini's stream without `alt=sse`); `document`, one JSON document read
 * whole at the end (an HTTP error body spread over several lines).
 */
type TextMode = 'sse' | 'ndjson' | 'array' | 'document';

/** Where the reading of a JSON array of records stands (`array` mode). */
interface ArrayScan {
  /** Bracket depth: 0 before the array's `[`, 1 between its elements. */
  depth: number;
  /** 0: outside a string; 1: inside one; 2: inside one, right after a backslash. */
  string: 0 | 1 | 2;
  /**
   * The element being read, as the pieces earlier chunks held of it: joined once, when it ends.
   * (Joining at every chunk re-copied the element each time: quadratic in its length.)
   */
  readonly pieces: string[];
  /** The total length of `pieces`, in UTF-16 code units. */
  length: number;
  /** Whether the current chunk holds part of an element (from `start`). */
  inElement: boolean;
  closed: boolean;
}

/** The characters that end a run of plain string content: a quote or a backslash. */
const STRING_STOP = /["\\]/g;

/** The providers at an entry point of their own: known by name, loaded when a stream needs one. */
type EntryProviderName = 'ag-ui' | 'langchain' | 'gemini-interactions';

/**
 * Each provider API of the main entry: its framing, adapter factory, and what ends its stream (for
 * the message of a stream cut before it: the record after which its adapter emits `finished`).
 * A provider added here costs every pipeline; one that few users need gets an entry point of its
 * own (named as the provider: `argstream/<name>`) and a line in `LOADERS`.
 */
const PROVIDERS: Readonly<Record<Exclude<ProviderName, EntryProviderName>, Omit<ProviderDefinition, 'name'>>> = {
  anthropic: { framing: 'sse', create: () => createAnthropicAdapter(), terminal: '`message_stop` (or a `message_delta` with a `stop_reason`)' },
  'openai-chat': { framing: 'sse', create: () => createOpenAIChatAdapter(), terminal: 'a chunk with a `finish_reason`, or `[DONE]`' },
  'openai-responses': { framing: 'sse', create: () => createOpenAIResponsesAdapter(), terminal: '`response.completed`, `response.incomplete` or `response.failed`' },
  gemini: { framing: 'sse', create: () => createGeminiAdapter(), terminal: 'a candidate with a `finishReason`' },
  ollama: { framing: 'ndjson', create: () => createOllamaAdapter(), terminal: 'a line with `"done": true`' },
  bedrock: { framing: 'aws-event-stream', create: () => createBedrockAdapter(), terminal: '`messageStop`' },
  cohere: { framing: 'sse', create: () => createCohereAdapter(), terminal: '`message-end`' },
  'ai-sdk': { framing: 'objects', create: () => createAiSdkAdapter(), terminal: 'the `finish` (or `abort`) part', objects: 'part objects (`streamText(…).fullStream`)' },
  'ai-sdk-ui': { framing: 'sse', create: () => createAiSdkUiAdapter({ readUpdates: readPathUpdates }), terminal: AI_SDK_UI_TERMINAL },
};

/**
 * The providers at an entry point of their own, loaded by name (a dynamic import: a bundler makes
 * each a chunk of its own, which a page loads only when it reads that provider). The module and
 * the entry point `argstream/<name>` export its definition as {@link definitionName}.
 */
const LOADERS: Readonly<Record<EntryProviderName, () => Promise<Readonly<Record<string, unknown>>>>> = {
  'ag-ui': () => import('./ag-ui.ts'),
  langchain: () => import('./langchain.ts'),
  'gemini-interactions': () => import('./gemini-interactions.ts'),
};

/** `'gemini-interactions'` → `GEMINI_INTERACTIONS_PROVIDER`. */
const definitionName = (name: EntryProviderName): string => `${name.replace(/-/g, '_').toUpperCase()}_PROVIDER`;

const has = (table: object, name: string): boolean => Object.prototype.hasOwnProperty.call(table, name);

/** Each provider loading or loaded (a failed load is tried again by the next stream: a chunk the network lost). */
const loading = new Map<EntryProviderName, Promise<ProviderDefinition>>();
/** Each provider loaded: a stream made after the load decodes at once, as with its definition. */
const loaded: Partial<Record<EntryProviderName, ProviderDefinition>> = {};

function load(name: EntryProviderName): Promise<ProviderDefinition> {
  let promise = loading.get(name);
  if (promise === undefined) {
    promise = LOADERS[name]().then(
      (module) => (loaded[name] = module[definitionName(name)] as ProviderDefinition),
      (error: unknown) => {
        loading.delete(name);
        throw new ProviderError(name, 'unavailable', `${name}: the provider's module could not be loaded`, { cause: error });
      },
    );
    loading.set(name, promise);
  }
  return promise;
}

/**
 * The definition `provider` names or is, or the name of a provider to load first.
 * @throws {TypeError} for an unknown name or an object that is not a definition.
 */
function providerOf(provider: ProviderName | ProviderDefinition, who: string): ProviderDefinition | EntryProviderName {
  if (typeof provider === 'string') {
    if (has(PROVIDERS, provider)) return { ...PROVIDERS[provider as keyof typeof PROVIDERS], name: provider };
    if (has(LOADERS, provider)) return provider as EntryProviderName;
  } else if (typeof provider?.create === 'function' && typeof provider.name === 'string') {
    return provider;
  }
  throw new TypeError(
    `${who}: unknown provider ${typeof provider === 'string' ? JSON.stringify(provider) : String(provider)}; use one of ${[...Object.keys(PROVIDERS), ...Object.keys(LOADERS)].join(', ')}, or a definition argstream exports`,
  );
}

/** The name of `provider`, a name or a definition. Internal. */
export function providerName(provider: ProviderName | ProviderDefinition): ProviderName {
  return typeof provider === 'string' ? provider : provider.name;
}

/**
 * The first stage's core for `options`: a {@link ProviderEventDecoder} at once, or, for the name of
 * a provider at an entry point of its own, a core that loads it before its first chunk (its push
 * and end answer with a promise until then). Internal: used by `ProviderEventStream` and
 * `fromResponse`, which can wait.
 * @throws {TypeError} for an unknown provider; {@link RangeError} for a bad `maxBufferedBytes`.
 */
export function providerCore(options: ProviderEventStreamOptions, who: string): StageCore<ProviderEventStreamInput, StreamEvent> {
  const named = providerOf(options.provider, who);
  const provider = typeof named === 'string' ? (loaded[named] ?? named) : named;
  if (typeof provider !== 'string') return new ProviderEventDecoder(options, provider);
  checkMaxBuffered(options);
  return new LoadingDecoder(provider, options);
}

function checkMaxBuffered(options: ProviderEventStreamOptions): number {
  const max = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
  if (!(max > 0)) throw new RangeError(`ProviderEventStream: maxBufferedBytes must be positive, got ${String(max)}`);
  return max;
}

/**
 * A {@link ProviderEventDecoder} of a provider loaded first. Loading begins at construction (with
 * the request, not after its first bytes); a failed load errors the stream with a `ProviderError`
 * of type `'unavailable'` (the import's error as its `cause`) at the first chunk or at the end.
 */
class LoadingDecoder implements StageCore<ProviderEventStreamInput, StreamEvent> {
  readonly #loaded: Promise<ProviderEventDecoder>;
  #decoder: ProviderEventDecoder | undefined;

  constructor(name: EntryProviderName, options: ProviderEventStreamOptions) {
    const copy = { ...options };
    this.#loaded = load(name).then((definition) => (this.#decoder = new ProviderEventDecoder(copy, definition)));
    // Told at the first chunk or the end; a stream never read leaves no unhandled rejection.
    this.#loaded.catch(() => undefined);
  }

  push(chunk: ProviderEventStreamInput, out: StreamEvent[] = []): StreamEvent[] | Promise<StreamEvent[]> {
    const decoder = this.#decoder;
    return decoder !== undefined ? decoder.push(chunk, out) : this.#loaded.then((loaded) => loaded.push(chunk, out));
  }

  end(out: StreamEvent[] = []): StreamEvent[] | Promise<StreamEvent[]> {
    const decoder = this.#decoder;
    return decoder !== undefined ? decoder.end(out) : this.#loaded.then((loaded) => loaded.end(out));
  }
}

const DEFAULT_MAX_BUFFERED = 16 * 1024 * 1024;

/**
 * Data no provider sends (it starts with U+0000), fed as one more `data:` line when the input
 * ends: if the last event was not terminated, the parser joins the sentinel to it, so the end
 * reveals an event cut in the middle, including one cut right after its `event:` line.
 */
const END_SENTINEL = '\u0000argstream:end-of-input';

/** How a line of an SSE stream starts (a field or a comment), to tell SSE from anything else. */
const SSE_LINE = /^(?:(?:data|event|id|retry)?:|(?:data|event|id|retry)$)/;

/**
 * The synchronous core of {@link ProviderEventStream}: framing, decoding and the provider
 * adapter, with no stream: `push(chunk) → events`, `end() → events`. Events are appended to `out`
 * as soon as they are known, so when a later record throws, `out` holds everything before it.
 *
 * @example
 * ```ts
 * const decoder = new ProviderEventDecoder({ provider: 'openai-chat' });
 * for (const chunk of chunks) for (const event of decoder.push(chunk)) handle(event);
 * for (const event of decoder.end()) handle(event);
 * ```
 */
export class ProviderEventDecoder implements PushCore<ProviderEventStreamInput, StreamEvent> {
  readonly #provider: ProviderName;
  readonly #framing: Framing;
  /** What the objects of an `objects` provider are, for the message of text given instead. */
  readonly #objects: string | undefined;
  /** The records, once framed: through the adapter, and the checks of the end. */
  readonly #records: AdapterDecoder;
  readonly #maxBuffered: number;
  readonly #textDecoder = new TextDecoder('utf-8');
  #usedBytes = false;
  /** Whether any input has arrived (a byte order mark is only skipped at the very start). */
  #started = false;
  #sse: EventSourceParser | undefined;
  readonly #sseLineBreaks = new SseLineBreaks();
  /** How text is read; `undefined` until the first non-blank character. */
  #mode: TextMode | undefined;
  /** The text of a JSON document read whole (`document` mode). */
  #document = '';
  /** The reading of a JSON array of records (`array` mode). */
  #array: ArrayScan = { depth: 0, string: 0, pieces: [], length: 0, inElement: false, closed: false };
  #aws: AwsEventStreamDecoder | undefined;
  /** The unterminated NDJSON line. */
  #line = '';
  /** The last character of the text fed, to know whether the input ended on a line break. */
  #lastChar = '';
  /** The first characters of non-blank text, quoted when the input turns out not to be SSE. */
  #head = '';
  #ending = false;

  /**
   * @throws {TypeError} for an unknown provider, or the name of a provider at an entry point of its
   * own (`'ag-ui'`, `'langchain'`, `'gemini-interactions'`): a decoder cannot wait for its module;
   * the message says which definition to import instead.
   * @throws {RangeError} for a `maxBufferedBytes` that is not positive.
   */
  constructor(options: ProviderEventStreamOptions);
  /** @internal */
  constructor(options: ProviderEventStreamOptions, loaded: ProviderDefinition);
  constructor(options: ProviderEventStreamOptions, loaded?: ProviderDefinition) {
    const provider = loaded ?? providerOf(options.provider, 'ProviderEventDecoder');
    if (typeof provider === 'string') {
      const definition = definitionName(provider);
      throw new TypeError(
        `ProviderEventDecoder: provider "${provider}" is at an entry point of its own, and a decoder cannot wait for its module: import { ${definition} } from 'argstream/${provider}' and pass { provider: ${definition} } (ProviderEventStream and fromResponse load it by name)`,
      );
    }
    const max = checkMaxBuffered(options);
    this.#provider = provider.name;
    this.#framing = provider.framing;
    this.#objects = provider.objects;
    this.#records = new AdapterDecoder(provider.name, provider.create(), provider.terminal, options.structuredOutput === true ? structuredOutput() : undefined);
    this.#maxBuffered = max;
  }

  /**
   * Decode one chunk; appends the events it completes to `out` (returned).
   * @throws {ProviderError} for input that is not the provider's wire format, or an error the
   * provider reports; every later call throws the same error. Type `'after-end'` for a record that
   * carries content or a call after the provider's terminal record (Anthropic `message_stop`,
   * Responses `response.completed` / `.incomplete`, the AI SDK's `finish`, or `data: [DONE]` for
   * any SSE provider), after everything before it: nothing is added to a finished turn. Framing
   * after the end (comments, keep-alives such as Anthropic's `ping`, blank data, `[DONE]`) is
   * ignored.
   */
  push(chunk: ProviderEventStreamInput, out: StreamEvent[] = []): StreamEvent[] {
    this.#records.run(out, this.#pushStep, chunk);
    return out;
  }

  /** {@link push}'s step, made once (not a closure per chunk). */
  readonly #pushStep = (chunk: ProviderEventStreamInput): void => this.#push(chunk);

  /**
   * The input ended: decode what is left (a last SSE event without its blank line, a last NDJSON
   * line without its newline), then let the adapter flush its open slots.
   *
   * A stream that had records but whose terminal record never came is not a complete turn, even
   * though it ended cleanly between two records (a proxy or a load balancer cut the connection,
   * a server stopped): it throws `'truncated'` too, after appending what the adapter flushed (so
   * what arrived reaches the reader first). The terminal record is the one after which the
   * adapter emits `finished`: Anthropic `message_stop` (or a `message_delta` with a
   * `stop_reason`: nothing of the turn comes after it), an OpenAI Chat chunk with a
   * `finish_reason`, Responses `response.completed` / `.incomplete` / `.failed`, a Gemini
   * candidate's `finishReason`, an Ollama line with `done: true`, Bedrock `messageStop`, Cohere
   * `message-end`, the AI SDK's `finish` part or chunk (its `abort` is an error of its own,
   * `'aborted'`, when it arrives); `data:
   * [DONE]` counts as one too (the server said the stream is complete). An input with no record at all (an empty body) is not refused.
   * @throws {ProviderError} type `'invalid-stream'`, code `'truncated'` when the input stopped
   * inside an event, line or frame, or between two records before the terminal one; `'not-sse'`
   * when SSE was expected and no event came at all.
   */
  end(out: StreamEvent[] = []): StreamEvent[] {
    this.#records.run(
      out,
      () => {
        this.#ending = true;
        this.#end();
        this.#records.close();
      },
      undefined,
    );
    return out;
  }

  #push(chunk: ProviderEventStreamInput): void {
    if (this.#framing === 'objects' && (typeof chunk === 'string' || toBytes(chunk) !== undefined)) {
      throw this.#invalid(
        'invalid-input',
        `the ${this.#provider} input is the stream of ${this.#objects ?? 'objects'}, not text or bytes`,
      );
    }
    if (typeof chunk === 'string') {
      if (this.#framing === 'aws-event-stream' && this.#mode !== 'document') {
        throw this.#invalid(
          'invalid-input',
          'Bedrock event streams are binary: pass the body bytes (Uint8Array), without a TextDecoderStream',
        );
      }
      // An empty string says nothing; it must not end the decoding of bytes held before it.
      if (chunk === '') return;
      // Text decoded without stripping it (or built by hand) may begin with a byte order mark,
      // which SSE and JSON both ignore there; bytes go through TextDecoder, which drops it.
      const bom = !this.#started && chunk.charCodeAt(0) === 0xfeff;
      this.#started = true;
      // Bytes held by the decoder cannot continue in a string: decode them (as U+FFFD if partial).
      const text = this.#usedBytes ? this.#textDecoder.decode() + chunk : bom ? chunk.slice(1) : chunk;
      this.#usedBytes = false;
      this.#text(text);
      return;
    }
    const bytes = toBytes(chunk);
    if (bytes !== undefined) {
      // A frame begins with its length (big-endian, at most 16 MiB): a first byte of `{` is the
      // JSON error body of an HTTP error instead.
      if (this.#framing === 'aws-event-stream' && this.#aws === undefined && this.#mode === undefined && bytes.length > 0) {
        if (bytes[0] === 0x7b) this.#mode = 'document';
      }
      if (this.#framing === 'aws-event-stream' && this.#mode !== 'document') {
        this.#aws ??= new AwsEventStreamDecoder({ maxFrameBytes: this.#maxBuffered });
        this.#aws.push(bytes, (frame) => this.#frame(frame));
      } else {
        if (bytes.length > 0) this.#started = true;
        this.#usedBytes = true;
        this.#text(this.#textDecoder.decode(bytes, { stream: true }));
      }
      return;
    }
    if (typeof chunk === 'object' && chunk !== null) {
      // An event object an SDK already decoded.
      this.#records.records++;
      this.#record(chunk);
      return;
    }
    throw this.#invalid(
      'invalid-input',
      `expected a Uint8Array, a string or an SDK event object, got ${chunk === null ? 'null' : typeof chunk}`,
    );
  }

  #end(): void {
    if (this.#usedBytes && this.#framing !== 'aws-event-stream') this.#text(this.#textDecoder.decode());
    if (this.#mode === 'document') {
      if (this.#usedBytes) this.#text(this.#textDecoder.decode());
      if (!this.#records.done) this.#endDocument();
    } else if (this.#mode === 'array') {
      if (!this.#array.closed) {
        const first = this.#array.pieces[0];
        throw this.#invalid('truncated', `the stream ended inside its JSON array${first === undefined ? '' : `: "${excerpt(first.trimStart())}" is incomplete`}`);
      }
    } else if (this.#mode === 'ndjson') {
      if (!this.#records.done && this.#line !== '') {
        const line = this.#line;
        this.#line = '';
        this.#ndjsonLine(line);
      }
    }
    switch (this.#framing) {
      case 'objects':
      case 'ndjson':
        break;
      case 'aws-event-stream':
        if (this.#mode !== 'document') this.#aws?.end();
        break;
      case 'sse': {
        if (this.#mode !== 'sse') break;
        if (this.#sse !== undefined && !this.#records.done) {
          // Terminate an unterminated last line unless the text already ended on a line break.
          const lineBreak = this.#lastChar === '\n' || this.#lastChar === '\r' || this.#lastChar === '' ? '' : '\n';
          this.#sse.feed(this.#sseLineBreaks.normalize(`${lineBreak}data:${END_SENTINEL}\n\n`));
        }
        if (this.#records.records === 0 && !this.#records.done && this.#head !== '' && !SSE_LINE.test(this.#head)) {
          throw this.#invalid('not-sse', `expected an SSE stream but found no event; the input begins "${excerpt(this.#head)}"`);
        }
        break;
      }
    }
    this.#records.finish();
  }

  #text(text: string): void {
    if (text === '' || (this.#records.done && this.#mode !== 'sse')) return;
    this.#lastChar = text[text.length - 1] as string;
    // Copied, not sliced: a slice would keep the whole first chunk alive for the stream's life.
    if (this.#head.length < 30) this.#head = copyString((this.#head + text.slice(0, 60)).trimStart().slice(0, 30));
    if (this.#mode === undefined) {
      // Blank lines before the first record mean nothing in SSE nor in NDJSON.
      const first = text.search(/\S/);
      if (first === -1) return;
      const head = text[first];
      this.#mode = this.#framing === 'ndjson' ? 'ndjson' : head === '{' ? 'ndjson' : head === '[' ? 'array' : 'sse';
    }
    if (this.#mode === 'array') {
      this.#arrayText(text);
      return;
    }
    if (this.#mode === 'document') {
      this.#document += text;
      if (this.#document.length > this.#maxBuffered) {
        throw this.#tooLong('a JSON document');
      }
      return;
    }
    if (this.#mode === 'ndjson') {
      this.#ndjson(text);
      return;
    }
    this.#sse ??= createParser({
      onEvent: (message) => this.#sseEvent(message),
      onError: (error) => this.#sseError(error),
      onComment: () => {},
      maxBufferSize: this.#maxBuffered,
    });
    this.#sse.feed(this.#sseLineBreaks.normalize(text));
  }

  #sseEvent(message: EventSourceMessage): void {
    if (this.#records.done) {
      this.#afterDone(message.data);
      return;
    }
    let data = message.data;
    let unterminated = false;
    if (this.#ending) {
      if (data === END_SENTINEL) {
        if (message.event !== undefined || message.id !== undefined) {
          throw this.#invalid('truncated', `the stream ended inside an SSE event ("event: ${excerpt(message.event ?? '')}" without its data)`);
        }
        return;
      }
      if (data.endsWith(`\n${END_SENTINEL}`)) {
        data = data.slice(0, -(END_SENTINEL.length + 1));
        unterminated = true;
        if (data.trim() === '') {
          throw this.#invalid('truncated', 'the stream ended inside an SSE event (a data line without its value)');
        }
      }
    }
    // An event that arrived whole in one chunk is held as long as one that grew over several.
    if (data.length > this.#maxBuffered) throw this.#tooLong('an SSE event');
    if (data.trim() === '') return;
    if (data === '[DONE]') {
      this.#records.done = true;
      this.#records.endRecord ??= '[DONE]';
      return;
    }
    let record: unknown;
    try {
      record = JSON.parse(data);
    } catch (cause) {
      if (unterminated) {
        throw this.#invalid('truncated', `the stream ended inside an SSE event: "${excerpt(data)}" is incomplete`, cause);
      }
      if (message.event === 'error') {
        // A named error event whose data is plain text is still the provider's error, not garbage.
        throw new ProviderError(this.#provider, 'error', `${this.#provider} sent an error event: "${excerpt(data)}"`, { cause });
      }
      throw this.#invalid('not-json', `SSE data is not JSON: "${excerpt(data)}"`, cause);
    }
    this.#records.records++;
    this.#record(record, message.event);
  }

  #sseError(error: ParseError): void {
    if (this.#records.done) return;
    switch (error.type) {
      case 'unknown-field':
        // At the end, a line cut inside a field name ("eve") is a truncation, not foreign input.
        throw this.#ending && (this.#records.records > 0 || isFieldNamePrefix(error.line ?? ''))
          ? this.#invalid('truncated', `the stream ended inside an SSE line: "${excerpt(error.line ?? '')}"`, error)
          : this.#invalid(
              'not-sse',
              `expected an SSE stream, got a line that is not an SSE field: "${excerpt(error.line ?? '')}"`,
              error,
            );
      case 'max-buffer-size-exceeded':
        throw this.#tooLong('an SSE event', error);
      default:
        // An invalid `retry:` value: reconnection hints are not ours to follow.
        break;
    }
  }

  #ndjson(text: string): void {
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      const line = this.#line + text.slice(start, newline);
      this.#line = '';
      if (line.length > this.#maxBuffered) throw this.#tooLong('an NDJSON line');
      start = newline + 1;
      if (this.#records.records === 0 && line.trim() !== '' && !parses(line)) {
        // The first line is not a JSON value by itself: one document over several lines (a
        // pretty-printed error body), read whole at the end.
        this.#mode = 'document';
        this.#text(`${line}\n${text.slice(start)}`);
        return;
      }
      this.#ndjsonLine(line);
    }
    this.#line += text.slice(start);
    if (this.#line.length > this.#maxBuffered) {
      throw this.#tooLong('an NDJSON line');
    }
  }

  #ndjsonLine(rawLine: string): void {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (line.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (cause) {
      throw this.#ending
        ? this.#invalid('truncated', `the stream ended inside an NDJSON line: "${excerpt(line)}" is incomplete`, cause)
        : this.#invalid('not-json', `NDJSON line is not JSON: "${excerpt(line)}"`, cause);
    }
    this.#firstRecord(record, line);
  }

  /** A record of NDJSON or of a whole document: the first may be an HTTP error body. */
  #firstRecord(record: unknown, text: string): void {
    if (this.#records.records === 0 && isErrorBody(this.#provider, record)) {
      throw providerErrorFromBody(this.#provider, text);
    }
    if (this.#records.records === 0 && this.#framing === 'sse' && isCompleteResponse(this.#provider, record)) {
      throw this.#invalid('not-sse', 'got a complete response, not a stream: request it with `stream: true`');
    }
    this.#records.records++;
    this.#record(record);
  }

  /**
   * Read text of a JSON array of records: each element is decoded as soon as its closing bracket
   * (or, for a scalar, the `,` or `]` after it) arrives; only the element being read is held, as
   * the pieces of the chunks that carried it, so each character is scanned once and copied once.
   * @throws {ProviderError} code `'max-buffered-bytes'` for an element longer than
   * `maxBufferedBytes`, whether it is still arriving or arrived whole in one chunk.
   */
  #arrayText(text: string): void {
    const scan = this.#array;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      if (scan.string !== 0) {
        if (!scan.inElement) {
          scan.inElement = true;
          start = i;
        }
        if (scan.string === 2) {
          scan.string = 1;
          continue;
        }
        // Skip the plain content of the string at once: the next quote or backslash ends it.
        STRING_STOP.lastIndex = i;
        const stop = STRING_STOP.exec(text);
        if (stop === null) break;
        i = stop.index;
        scan.string = text.charCodeAt(i) === 0x5c ? 2 : 0;
        continue;
      }
      const c = text.charCodeAt(i);
      const blank = c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
      if (scan.closed || scan.depth === 0) {
        if (blank) continue;
        if (scan.depth === 0 && c === 0x5b && !scan.closed) {
          scan.depth = 1;
          continue;
        }
        throw this.#invalid('not-json', `expected one JSON array of records, got "${excerpt(text.slice(i).trim())}" ${scan.closed ? 'after it' : 'before it'}`);
      }
      if (scan.depth === 1 && (c === 0x2c || c === 0x5d)) {
        // `,` or `]` between elements: a scalar element ends here.
        if (scan.inElement || scan.pieces.length > 0) this.#arrayElement(this.#takeElement(text, start, i));
        scan.inElement = false;
        if (c === 0x5d) scan.closed = true;
        continue;
      }
      if (scan.depth === 1 && blank && !scan.inElement && scan.pieces.length === 0) continue;
      if (!scan.inElement) {
        scan.inElement = true;
        start = i;
      }
      if (c === 0x22) scan.string = 1;
      else if (c === 0x7b || c === 0x5b) scan.depth++;
      else if (c === 0x7d || c === 0x5d) {
        scan.depth--;
        if (scan.depth === 1) {
          this.#arrayElement(this.#takeElement(text, start, i + 1));
          scan.inElement = false;
        }
      }
    }
    if (scan.inElement) {
      scan.inElement = false;
      this.#holdElement(text.slice(start));
    }
  }

  /** Keep a piece of the element being read, within `maxBufferedBytes`. */
  #holdElement(piece: string): void {
    const scan = this.#array;
    scan.length += piece.length;
    if (scan.length > this.#maxBuffered) {
      scan.pieces.length = 0;
      throw this.#tooLong('an element of the JSON array');
    }
    if (piece !== '') scan.pieces.push(piece);
  }

  /** The whole text of the element that ends at `text[end]`, the held pieces cleared. */
  #takeElement(text: string, start: number, end: number): string {
    const scan = this.#array;
    this.#holdElement(text.slice(start, end));
    const element = scan.pieces.length === 1 ? (scan.pieces[0] as string) : scan.pieces.join('');
    scan.pieces.length = 0;
    scan.length = 0;
    return element;
  }

  #arrayElement(text: string): void {
    if (this.#records.done || text.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (cause) {
      throw this.#invalid('not-json', `an element of the JSON array is not JSON: "${excerpt(text.trim().replace(/\s+/g, ' '))}"`, cause);
    }
    this.#firstRecord(record, text);
  }

  #endDocument(): void {
    const text = this.#document;
    this.#document = '';
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      throw this.#invalid('not-json', `expected ${this.#framing === 'sse' ? 'an SSE stream' : 'the provider\'s stream'}, got text that is not JSON: "${excerpt(text.trim().replace(/\s+/g, ' '))}"`, cause);
    }
    if (isErrorBody(this.#provider, value)) throw providerErrorFromBody(this.#provider, text);
    this.#firstRecord(value, text);
  }

  #frame(frame: AwsEventStreamMessage): void {
    const messageType = frame.headers[':message-type'];
    if (messageType === 'error') {
      throw new ProviderError(
        this.#provider,
        headerText(frame.headers[':error-code']) ?? 'error',
        headerText(frame.headers[':error-message']) ?? 'the AWS event stream reported an error',
      );
    }
    const name = headerText(messageType === 'exception' ? frame.headers[':exception-type'] : frame.headers[':event-type']);
    const text = new TextDecoder('utf-8').decode(frame.payload);
    let payload: unknown = {};
    if (text.trim() !== '') {
      try {
        payload = JSON.parse(text);
      } catch (cause) {
        throw this.#invalid('not-json', `AWS event-stream payload is not JSON: "${excerpt(text)}"`, cause);
      }
    }
    this.#records.records++;
    this.#record(payload, name);
    if (messageType === 'exception') {
      // The adapter throws for exceptions it knows; any other exception frame still ends the stream.
      throw new ProviderError(this.#provider, name ?? 'exception', `the stream sent an exception frame${name ? ` (${name})` : ''}`, {
        cause: payload,
      });
    }
  }

  #record(record: unknown, event?: string): void {
    this.#records.record(record, event);
  }

  /**
   * SSE data after `data: [DONE]`: blank data, another `[DONE]` and data that is not a JSON
   * record are framing and ignored; a record is read, and refused if it carries anything.
   */
  #afterDone(data: string): void {
    const text = data.trim();
    if (text[0] !== '{') return;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      return;
    }
    this.#record(record);
  }

  /** The error of a record (`what`) longer than `maxBufferedBytes`: one message shape for every framing. */
  #tooLong(what: string, cause?: unknown): ProviderError {
    return this.#invalid('max-buffered-bytes', `${what} grew beyond maxBufferedBytes (${this.#maxBuffered})`, cause);
  }

  #invalid(code: InvalidStreamCode, message: string, cause?: unknown): ProviderError {
    return this.#records.invalid(code, message, cause);
  }
}

/**
 * `structuredOutput`: message text becomes structured JSON (`structured` parts), except a refusal
 * (a `refusal` part, or a message slot the adapter marks `{refusal: true}`), which stays text.
 */
function structuredOutput(): EventConversion {
  /** The message slots that are refusals, left as text. */
  const refusals = new Set<number>();
  return (event, out) => {
    if (event.type !== 'part' || event.part.type !== 'message') {
      out.push(event);
      return;
    }
    // A refusal is text about the JSON that was not written, not part of it.
    if (event.metadata?.['refusal'] === true) refusals.add(event.index);
    if (refusals.has(event.index)) {
      out.push(event);
      return;
    }
    if (event.part.text === '') return;
    const part = { type: 'structured', json: event.part.text } as const;
    out.push(event.metadata === undefined ? { type: 'part', index: event.index, part } : { type: 'part', index: event.index, part, metadata: event.metadata });
  };
}

function toBytes(chunk: ProviderEventStreamInput): Uint8Array | undefined {
  if (chunk instanceof Uint8Array) return chunk;
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return undefined;
}

/** A flat copy of a short string that shares no memory with the string it came from. */
function copyString(text: string): string {
  let copy = '';
  for (let i = 0; i < text.length; i++) copy += text[i];
  return copy;
}

/** A non-streaming response body (the request lacked `stream: true`): it holds no stream event. */
function isCompleteResponse(provider: ProviderName, record: unknown): boolean {
  if (typeof record !== 'object' || record === null) return false;
  const { type, object } = record as { type?: unknown; object?: unknown };
  return (
    (provider === 'anthropic' && type === 'message') ||
    (provider === 'openai-chat' && object === 'chat.completion') ||
    (provider === 'openai-responses' && object === 'response') ||
    (provider === 'gemini-interactions' && object === 'interaction') ||
    (provider === 'cohere' && type === undefined && 'finish_reason' in record && 'message' in record)
  );
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isFieldNamePrefix(line: string): boolean {
  return line !== '' && ['event', 'data', 'id', 'retry'].some((field) => field.startsWith(line));
}

function headerText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
