/**
 * `argstream inspect`: decode a recorded or live provider stream and print one view of it as it
 * arrives, then say whether the turn was complete (through the exit code).
 *
 * @module
 */
/// <reference types="node" />
import { open } from 'node:fs/promises';
import { JsonStreamError, ProviderError, ToolCallArgumentsError, type ProviderName } from '../errors.ts';
import { TerminalRenderer, terminalText } from '../sinks/terminal.ts';
import { chain } from '../transforms/chain.ts';
import { ConversationEventStream } from '../transforms/conversation-event-stream.ts';
import { FieldEventStream } from '../transforms/field-event-stream.ts';
import { PathUpdateStream } from '../transforms/path-update-stream.ts';
import { ProviderEventStream } from '../transforms/provider-event-stream.ts';
import { ToolCallProgressStream } from '../transforms/tool-call-progress-stream.ts';
import { TurnBuilder } from '../turn/ai-sdk-parts.ts';
import type {
  FailedToolCallEvent,
  FinishedEvent,
  IncompleteToolCallEvent,
  PipelineEvent,
  ProviderToolCallEvent,
  ToolCallEvent,
} from '../types.ts';
import { formatEvent, formatEventJson } from './format.ts';
import { guessProvider } from './guess-provider.ts';

/** The provider APIs whose wire bytes `inspect` reads. */
export const PROVIDERS: readonly ProviderName[] = ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'ollama', 'bedrock', 'cohere', 'ai-sdk-ui', 'ag-ui', 'gemini-interactions'];

/** What `--view` chooses: which stage's output is printed. */
export type View = 'events' | 'fragments' | 'fields' | 'paths' | 'turn';

/** Every `--view`. */
export const VIEWS: readonly View[] = ['events', 'fragments', 'fields', 'paths', 'turn'];

/**
 * Exit codes of `argstream` (and what `inspect` means by them).
 *
 * - `0`: the turn was complete: the provider sent its finish, and every tool call's arguments
 *   were complete, valid JSON.
 * - `1`: the stream could not be read: not the provider's wire format, cut inside an event, an
 *   error the provider sent (an HTTP error body, an error event), or an input file that cannot be
 *   read.
 * - `2`: the command line is wrong (unknown command or option, a missing or invalid value).
 * - `3`: the stream was well formed but the turn is not complete: it ended without the
 *   provider's finish, or a tool call's arguments were cut off or invalid.
 */
export const EXIT = { ok: 0, error: 1, usage: 2, incomplete: 3 } as const;

/** A problem with the command line: exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Where `inspect` writes (process.stdout and process.stderr, or test doubles). */
export interface Output {
  write(text: string): void;
  readonly color: boolean;
  /** The terminal's width in columns; `undefined` when it is not a terminal. */
  readonly columns: number | undefined;
}

/** What `argstream inspect` was asked for. */
export interface InspectOptions {
  /** Omitted: guessed from the first records of the input. */
  readonly provider: ProviderName | undefined;
  readonly view: View;
  readonly json: boolean;
  /** A file path, or `'-'` / `undefined` for standard input. */
  readonly input: string | undefined;
}

/** How many bytes are looked at to recognise the provider before giving up. */
const GUESS_BYTES = 64 * 1024;

/** An async iterator over a Node stream's chunks, as bytes. */
function nodeChunks(stream: NodeJS.ReadableStream): AsyncIterator<Uint8Array> {
  return (stream as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
}

/**
 * The input as a pull stream (no read-ahead, so each chunk is decoded and printed as it arrives),
 * starting with the chunks already read to recognise the provider.
 */
function inputStream(first: Uint8Array[], rest: AsyncIterator<Uint8Array>, exhausted: boolean): ReadableStream<Uint8Array> {
  let done = exhausted;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const held = first.shift();
        if (held !== undefined) {
          controller.enqueue(held);
          return;
        }
        if (done) {
          controller.close();
          return;
        }
        const next = await rest.next();
        if (next.done) {
          done = true;
          controller.close();
        } else {
          controller.enqueue(typeof next.value === 'string' ? new TextEncoder().encode(next.value) : next.value);
        }
      },
      async cancel() {
        await rest.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/** Read the input far enough to recognise its provider (the first records). */
async function recognise(iterator: AsyncIterator<Uint8Array>): Promise<{ provider: ProviderName; held: Uint8Array[]; exhausted: boolean }> {
  const held: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    held.push(next.value);
    length += next.value.length;
    const provider = guessProvider(concat(held));
    if (provider !== undefined) return { provider, held, exhausted: false };
    if (length >= GUESS_BYTES) break;
  }
  const provider = length === 0 ? undefined : guessProvider(concat(held));
  if (provider !== undefined) return { provider, held, exhausted: true };
  throw new UsageError(
    length === 0
      ? 'the input is empty'
      : `cannot tell which provider the input comes from; pass --provider (${PROVIDERS.join(', ')})`,
  );
}

/** The decoder and the stage whose output a view prints, as one stage (one hop per read). */
function viewOf(view: View, json: boolean, provider: ProviderName): TransformStream<Uint8Array | string, PipelineEvent> {
  const decoder = new ProviderEventStream({ provider });
  switch (view) {
    case 'events':
      return decoder;
    case 'fragments':
      return chain(decoder, new ToolCallProgressStream({ isolateErrors: true }));
    // A view prints its own events: the progress they were made from is not passed on.
    case 'fields':
      return chain(decoder, new FieldEventStream({ isolateErrors: true, keepProgress: false }));
    case 'paths':
      return chain(decoder, new PathUpdateStream({ isolateErrors: true, relativePaths: false, keepProgress: false }));
    case 'turn':
      // As JSON: the conversation events. As text: the terminal renderer reads the events as
      // they come (it parses the arguments itself).
      return json ? chain(decoder, new ConversationEventStream({ isolateErrors: true })) : decoder;
  }
}

/** What the turn came to, whatever the view: read from the events the view prints. */
class TurnOutcome {
  readonly toolCalls: ToolCallEvent[] = [];
  /** Calls the provider ran itself (a web search): not the application's to run. */
  readonly providerToolCalls: ProviderToolCallEvent[] = [];
  refusal: string | undefined;
  readonly incomplete: IncompleteToolCallEvent[] = [];
  readonly failed: FailedToolCallEvent[] = [];
  text = '';
  reasoning = '';
  finished: FinishedEvent | undefined;
  /** The raw events carry no conversation events: a builder makes them, to judge the turn. */
  readonly #builder: TurnBuilder | undefined;
  readonly #out: PipelineEvent[] = [];

  constructor(raw: boolean) {
    this.#builder = raw ? new TurnBuilder({ isolateErrors: true }) : undefined;
  }

  push(event: PipelineEvent): void {
    if (this.#builder === undefined) {
      this.#take(event);
      return;
    }
    this.#builder.push(event, this.#out);
    this.#drain();
  }

  end(): void {
    if (this.#builder === undefined) return;
    this.#builder.end(this.#out);
    this.#drain();
  }

  #drain(): void {
    for (const event of this.#out) this.#take(event);
    this.#out.length = 0;
  }

  #take(event: PipelineEvent): void {
    switch (event.type) {
      case 'tool-call':
        this.toolCalls.push(event);
        break;
      case 'provider-tool-call':
        this.providerToolCalls.push(event);
        break;
      case 'refusal':
        this.refusal = (this.refusal ?? '') + event.text;
        break;
      case 'tool-call-incomplete':
        this.incomplete.push(event);
        break;
      case 'tool-call-failed':
        this.failed.push(event);
        break;
      case 'message':
        this.text += event.text;
        break;
      case 'reasoning':
        this.reasoning += event.text;
        break;
      case 'finished':
        this.finished = event;
        break;
    }
  }

  /** One line saying what the turn came to, for the end of the `turn` view. */
  summary(): string {
    const counts: string[] = [];
    const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
    if (this.toolCalls.length > 0) {
      counts.push(`${plural(this.toolCalls.length, 'tool call')} (${this.toolCalls.map((call) => call.toolName || '(unnamed)').join(', ')})`);
    }
    if (this.providerToolCalls.length > 0) {
      const names = this.providerToolCalls.map((call) => call.toolName || '(unnamed)').join(', ');
      counts.push(`${plural(this.providerToolCalls.length, 'call')} run by the provider (${names})`);
    }
    if (this.refusal !== undefined || this.finished?.reason === 'refusal') counts.push('refused');
    if (this.incomplete.length > 0) counts.push(`${this.incomplete.length} incomplete`);
    if (this.failed.length > 0) counts.push(`${this.failed.length} failed`);
    if (this.finished === undefined) counts.push('no finish');
    if (counts.length === 0) counts.push('no tool call');
    return `── turn ${this.problem() === undefined ? 'complete' : 'not complete'}: ${counts.join(', ')}`;
  }

  /** Why the turn is not complete, in one line; `undefined` when it is. */
  problem(): string | undefined {
    const problems: string[] = [];
    for (const call of this.incomplete) {
      problems.push(
        `tool call ${describeCall(call)} is incomplete: its arguments stopped in ${call.path === '' ? 'the root value' : call.path}${call.stopReason === undefined ? '' : ` (${call.stopReason})`}`,
      );
    }
    for (const call of this.failed) problems.push(`tool call ${describeCall(call)} failed: ${call.error.message}`);
    if (this.finished === undefined) problems.push('the stream ended without the provider\'s finish (the turn was cut off)');
    return problems.length === 0 ? undefined : problems.join('; ');
  }
}

function describeCall(call: { readonly toolName: string; readonly toolCallId: string }): string {
  return `${call.toolName || '(unnamed)'}${call.toolCallId ? ` (${call.toolCallId})` : ''}`;
}

/** An error of the stream in one line, with what the provider said. */
export function describeError(error: unknown): string {
  let text: string;
  if (error instanceof ProviderError) {
    // Invalid-stream messages start with the provider's name; a provider's own error gets it,
    // with its type and code, so that the line says who failed and how.
    const code = error.code === undefined || error.code === error.type ? '' : ` (${error.code})`;
    text =
      error.type === 'invalid-stream' || error.message.startsWith(`${error.provider}`)
        ? error.message
        : `${error.provider} error${error.type === 'error' ? '' : ` ${error.type}`}${code}: ${error.message}`;
  } else if (error instanceof JsonStreamError || error instanceof ToolCallArgumentsError) {
    text = error.message;
  } else if (error instanceof Error) {
    text = error.message;
  } else {
    text = String(error);
  }
  return text.replace(/\s*\n\s*/g, ' ');
}

/**
 * Run `inspect`; resolves to the exit code. Stream errors are written to `stderr` in one line.
 * What it writes of the input (ids, names, keys, text, error messages) and the file name show
 * their control characters as `TerminalSink` does: nothing from the model or the wire drives the
 * terminal.
 */
export async function inspect(options: InspectOptions, stdout: Output, stderr: Output, stdin: NodeJS.ReadableStream): Promise<number> {
  const problemLine = (text: string) => stderr.write(`argstream: ${terminalText(text, 'show')}\n`);
  const fromStdin = options.input === undefined || options.input === '-';
  let source = stdin;
  if (!fromStdin) {
    try {
      source = (await open(options.input as string)).createReadStream();
    } catch (error) {
      problemLine(`cannot read ${options.input}: ${describeError(error)}`);
      return EXIT.error;
    }
  }
  const iterator = nodeChunks(source);
  let provider = options.provider;
  let held: Uint8Array[] = [];
  let exhausted = false;
  try {
    if (provider === undefined) ({ provider, held, exhausted } = await recognise(iterator));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    problemLine(`cannot read ${fromStdin ? 'standard input' : options.input}: ${describeError(error)}`);
    return EXIT.error;
  }

  const output = inputStream(held, iterator, exhausted).pipeThrough(viewOf(options.view, options.json, provider));
  const renderer =
    options.view === 'turn' && !options.json
      ? // Not a terminal: no width to cut the result lines to, the whole arguments are wanted.
        new TerminalRenderer({ color: stdout.color, width: stdout.columns ?? 1_000_000 })
      : undefined;
  const outcome = new TurnOutcome(options.view === 'events' || renderer !== undefined);
  try {
    for await (const event of output) {
      outcome.push(event);
      if (renderer !== undefined) stdout.write(renderer.push(event));
      else stdout.write(`${options.json ? formatEventJson(event) : formatEvent(event)}\n`);
    }
    outcome.end();
    if (renderer !== undefined) {
      stdout.write(renderer.end());
      const summary = terminalText(outcome.summary(), 'show');
      stdout.write(`${stdout.color ? `\x1b[2m${summary}\x1b[22m` : summary}\n`);
    }
  } catch (error) {
    if (renderer !== undefined) stdout.write(renderer.error(error));
    problemLine(describeError(error));
    return EXIT.error;
  }
  if (options.view === 'turn' && renderer === undefined) {
    {
      stdout.write(
        `${formatEventJson({
          type: 'turn',
          text: outcome.text,
          reasoning: outcome.reasoning,
          refusal: outcome.refusal,
          toolCalls: outcome.toolCalls,
          providerToolCalls: outcome.providerToolCalls,
          incompleteToolCalls: outcome.incomplete,
          failedToolCalls: outcome.failed,
          finishReason: outcome.finished?.reason,
          rawFinishReason: outcome.finished?.rawReason,
          usage: outcome.finished?.usage,
        })}\n`,
      );
    }
  }
  const problem = outcome.problem();
  if (problem !== undefined) {
    problemLine(problem);
    return EXIT.incomplete;
  }
  return EXIT.ok;
}
