/**
 * A terminal view of a streaming turn: message text as it streams, reasoning dimmed, each tool
 * call as its fields complete (`write_file` → `creating src/main.rs`, then the content streaming
 * beneath), the exact arguments once the call is complete, and the finish reason with usage.
 * Portable: it writes text through a function or a `WritableStream<string>` the caller passes,
 * and uses no API of any one runtime.
 *
 * @module
 */
import { FieldEventParser } from '../views/field-event-parser.ts';
import { TurnBuilder } from '../turn/ai-sdk-parts.ts';
import type {
  ArgumentValidationErrorEvent,
  FailedToolCallEvent,
  FieldEvent,
  FinishedEvent,
  IncompleteToolCallEvent,
  JsonValue,
  PathUpdate,
  PipelineEvent,
  ProviderToolCallEvent,
  ProviderToolResultEvent,
  StreamFragment,
  StructuredEvent,
  ToolCallEvent,
  Usage,
  ValueKind,
} from '../types.ts';

// ---------------------------------------------------------------------------------------------
// The renderer interface

/** The tool call a {@link ToolRenderer} draws. */
export interface TerminalToolCall {
  /** The content slot of the call. */
  readonly index: number;
  /** The call id as known when the renderer was made (`''` if the provider had not sent it). */
  readonly toolCallId: string;
  /** The tool's name (`''` if unknown; `'structured output'` for a structured-output document). */
  readonly toolName: string;
}

/**
 * Text styles for the terminal: each wraps a whole piece of text in ANSI SGR codes when color is
 * on, and returns it unchanged when it is off.
 */
export interface TerminalStyle {
  /** Whether ANSI escapes are written. */
  readonly color: boolean;
  /** The terminal's width in columns (lines the sink composes are cut to it). */
  readonly width: number;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/**
 * The ways a tool call ends: complete (exact arguments), cut off, or invalid; a call the provider
 * ran itself ends with `provider-tool-call`.
 */
export type ToolCallEndEvent =
  | ToolCallEvent
  | ProviderToolCallEvent
  | IncompleteToolCallEvent
  | FailedToolCallEvent
  | StructuredEvent;

/**
 * What a {@link ToolRenderer} returns for one call: the text to write for each field event of the
 * call's arguments, and optionally for its end. Return `''` to write nothing. The sink writes the
 * call's header (`▶ name`) before the first text and its result line (`✓ name {…}`) after
 * `end`, each on a line of its own.
 *
 * Field events come one field at a time: `field-start {key}`, `field-delta {key, text}`*,
 * `field-end {key, string}`. A string's deltas are its decoded text, any other value's deltas
 * its JSON text; control characters (ANSI escapes included) are already replaced by visible
 * ones. Output does not depend on how the input was cut as long as a renderer's text depends
 * only on the characters it was given, not on how they were split into deltas.
 */
export interface ToolCallRenderer {
  /** Text for one field event. */
  field(event: FieldEvent): string;
  /** Text when the call ends, written before the sink's result line (close what is open). */
  end?(event: ToolCallEndEvent): string;
}

/**
 * Makes the {@link ToolCallRenderer} of one call; called once per call, when its first field
 * event arrives (or at its end, if it never streamed). Keep the call's state in the closure.
 *
 * @example
 * ```ts
 * const search: ToolRenderer = (call, style) => ({
 *   field: (event) => (event.type === 'field-end' && event.key === 'query' ? `  searching…\n` : ''),
 * });
 * new TerminalSink(output, { tools: { search } });
 * ```
 */
export type ToolRenderer = (call: TerminalToolCall, style: TerminalStyle) => ToolCallRenderer;

// ---------------------------------------------------------------------------------------------
// Styles and text hygiene

const RESET_BOLD_DIM = '\x1b[22m';
const DIM = '\x1b[2m';

function sgr(on: string, off: string): (text: string) => string {
  return (text) => (text === '' ? '' : `\x1b[${on}m${text}\x1b[${off}m`);
}

const identity = (text: string): string => text;

/** The styles of a terminal with color on or off. */
function makeStyle(color: boolean, width: number): TerminalStyle {
  if (!color) return { color, width, bold: identity, dim: identity, red: identity, green: identity, yellow: identity, cyan: identity };
  return {
    color,
    width,
    bold: sgr('1', '22'),
    dim: sgr('2', '22'),
    red: sgr('31', '39'),
    green: sgr('32', '39'),
    yellow: sgr('33', '39'),
    cyan: sgr('36', '39'),
  };
}

/** C0 controls but tab and line feed, DEL, and C1 controls (a lone ESC or CSI drives a terminal). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** The same and line feed, for a value printed on one line. */
const LINE_CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code === 0x0d) return ''; // CR: would move the cursor; a CRLF text reads as LF
  if (code < 0x20) return String.fromCharCode(0x2400 + code); // ␛, ␇, … (Control Pictures)
  if (code === 0x7f) return '\u2421'; // ␡
  return '\ufffd';
}

/**
 * Model output as safe terminal text: control characters that would move the cursor or start an
 * escape sequence are replaced by visible ones (ESC by `␛`); CR is dropped; tab and line feed stay.
 * Each character is mapped alone, so the result does not depend on how the text was cut.
 */
function clean(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROLS, visible) : text;
}

/**
 * Text from a model or the wire (an id, a name, a key, an error message) made safe to write to a
 * terminal, by the rule {@link TerminalSink} draws with: C0 controls but tab and line feed, DEL and
 * C1 controls become visible characters (ESC `␛`, BEL `␇`, DEL `␡`, C1 `�`), CR is dropped, so
 * no escape sequence (a color, a cursor move, an OSC 52 clipboard write) reaches the terminal.
 * Each character is mapped alone: the result does not depend on how the text was cut.
 *
 * Not part of the package's surface: the CLI and the sink share it, so every terminal output of
 * argstream follows one rule.
 *
 * @param lineFeeds - `'keep'` for text whose lines are its own (a message, a file's content);
 * `'show'` for a value printed on one line (a line feed becomes `␊`).
 */
export function terminalText(text: string, lineFeeds: 'keep' | 'show' = 'keep'): string {
  return lineFeeds === 'keep' ? clean(text) : text.replace(LINE_CONTROLS, visible);
}

/** A field event with its text and key cleaned. */
function cleanField(event: FieldEvent): FieldEvent {
  if (event.type === 'field-delta') {
    return CONTROL.test(event.text) || CONTROL.test(event.key) ? { ...event, key: clean(event.key), text: clean(event.text) } : event;
  }
  return CONTROL.test(event.key) ? { ...event, key: clean(event.key) } : event;
}

/** The first line of `text`, cleaned. */
function oneLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return clean(line);
}

/** Cut `text` to `width` code points, ending with `…` when cut. */
function fit(text: string, width: number): string {
  const points = Array.from(text);
  if (points.length <= width) return text;
  return points.slice(0, Math.max(0, width - 1)).join('') + '…';
}

function stripAnsi(text: string): string {
  return text.includes('\x1b') ? text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '') : text;
}

function errorLine(reason: unknown): string {
  if (reason instanceof Error) {
    const name = reason.name && reason.name !== 'Error' ? `${reason.name}: ` : '';
    return oneLine(`${name}${reason.message}`);
  }
  return oneLine(String(reason));
}

// ---------------------------------------------------------------------------------------------
// The built-in tool renderers

/**
 * The renderer of any tool: each top-level field on its own line as `key: value`, the value
 * streaming as it arrives (a string's text, any other value's JSON text); the lines of a
 * multi-line string after the first are indented.
 */
export const genericToolRenderer: ToolRenderer = (_call, style) => {
  /** A line of the open string ended: indent the next one when it begins. */
  let indentNext = false;
  return {
    field(event: FieldEvent): string {
      switch (event.type) {
        case 'field-start':
          indentNext = false;
          return event.key === '' ? '  ' : `  ${style.dim(`${clean(event.key)}:`)} `;
        case 'field-delta': {
          let text = event.text;
          if (indentNext) text = `    ${text}`;
          indentNext = text.endsWith('\n');
          const body = indentNext ? text.slice(0, -1) : text;
          return body.replaceAll('\n', '\n    ') + (indentNext ? '\n' : '');
        }
        case 'field-end':
          if (indentNext) {
            indentNext = false;
            return '';
          }
          return '\n';
        default:
          return '';
      }
    },
  };
};

const PATH_KEYS: ReadonlySet<string> = new Set(['path', 'file_path', 'filePath', 'filename', 'file']);
const CONTENT_KEYS: ReadonlySet<string> = new Set(['content', 'contents', 'file_text', 'text']);

/**
 * The renderer of a file write (`write_file`, registered by default; register it under other
 * names through `tools`): `creating <path>` the moment the path is complete — `overwriting <path>`
 * when `overwrite: true` came before it, and a note when it comes after — then the content
 * streaming verbatim between two rules. Path fields: `path`, `file_path`, `filePath`,
 * `filename`, `file`; content fields: `content`, `contents`, `file_text`, `text`; other fields as
 * {@link genericToolRenderer} draws them.
 */
export const writeFileRenderer: ToolRenderer = (call, style) => {
  const generic = genericToolRenderer(call, style);
  let pathText = '';
  let path: string | undefined;
  let overwriteText = '';
  let overwrite = false;
  let contentOpen = false;
  let endsWithNewline = true;
  const rule = (corner: string) => style.dim(`  ${corner}────────`) + '\n';
  const closeContent = (note: string) => {
    contentOpen = false;
    return (endsWithNewline ? '' : '\n') + rule(`└${note}`);
  };
  return {
    field(event: FieldEvent): string {
      const key = event.key;
      if (PATH_KEYS.has(key) && path === undefined) {
        if (event.type === 'field-delta') pathText += event.text;
        if (event.type !== 'field-end') return '';
        path = pathText;
        return `  ${overwrite ? 'overwriting' : 'creating'} ${style.bold(path)}\n`;
      }
      if (key === 'overwrite') {
        if (event.type === 'field-delta') overwriteText += event.text;
        if (event.type !== 'field-end') return '';
        overwrite = overwriteText === 'true';
        return overwrite && path !== undefined ? `  ${style.yellow('(overwrite: true — replaces the existing file)')}\n` : '';
      }
      if (CONTENT_KEYS.has(key)) {
        switch (event.type) {
          case 'field-start':
            contentOpen = true;
            endsWithNewline = true;
            return rule('┌');
          case 'field-delta':
            endsWithNewline = event.text.endsWith('\n');
            return event.text;
          case 'field-end':
            return closeContent('');
        }
      }
      return generic.field(event);
    },
    end(): string {
      return contentOpen ? closeContent(' cut off ') : '';
    },
  };
};

// ---------------------------------------------------------------------------------------------
// Path updates back to fragments

function unescapeToken(token: string): string {
  return token.includes('~') ? token.replaceAll('~1', '/').replaceAll('~0', '~') : token;
}

/** The fragments a document's path updates were made from (the inverse of `PathUpdateEncoder`). */
class PathUpdateDecoder {
  /** The kind of the container open at each depth (0 = the root). */
  readonly #containers: ValueKind[] = [];

  /** The tokens of the previous update's path (relative paths are resolved against it). */
  #tokens: string[] = [];

  /** The tokens of `path`: absolute, or relative to the previous update's (`N` then a pointer). */
  #resolve(path: string): string[] {
    const slash = path.indexOf('/');
    const head = slash === -1 ? path : path.slice(0, slash);
    const rest = slash === -1 ? [] : path.slice(slash + 1).split('/').map(unescapeToken);
    if (head === '') return (this.#tokens = rest);
    const up = Number(head);
    if (!/^(0|[1-9]\d*)$/.test(head) || up > this.#tokens.length) throw new TypeError(`TerminalSink: bad path-update path ${JSON.stringify(path.slice(0, 40))}`);
    const tokens = this.#tokens.slice(0, this.#tokens.length - up);
    for (const token of rest) tokens.push(token);
    return (this.#tokens = tokens);
  }

  push(update: PathUpdate, out: StreamFragment[]): void {
    const tokens = this.#resolve(update.path);
    const depth = tokens.length;
    const wrap = (leaf: StreamFragment): StreamFragment => {
      let fragment = leaf;
      for (let d = depth - 1; d >= 0; d--) {
        const token = tokens[d] as string;
        fragment = this.#containers[d] === 'array' ? { type: 'item', index: Number(token), value: fragment } : { type: 'entry', key: token, value: fragment };
      }
      return fragment;
    };
    switch (update.kind) {
      case 'key':
      case 'json-complete':
        return;
      case 'start-object':
      case 'start-array':
      case 'start-string': {
        const kind: ValueKind = update.kind === 'start-object' ? 'object' : update.kind === 'start-array' ? 'array' : 'string';
        this.#containers[depth] = kind;
        out.push(wrap({ type: 'start', kind }));
        return;
      }
      case 'partial-string':
        out.push(wrap({ type: 'string', text: update.textValue }));
        return;
      case 'complete-string':
      case 'end-object':
      case 'end-array':
        out.push(wrap({ type: 'done' }));
        return;
      case 'complete-number':
        out.push(wrap(update.raw === undefined ? { type: 'scalar', value: update.value } : { type: 'scalar', value: update.value, raw: update.raw }));
        out.push(wrap({ type: 'done' }));
        return;
      case 'complete-boolean':
      case 'complete-null':
        out.push(wrap({ type: 'scalar', value: update.value }));
        out.push(wrap({ type: 'done' }));
        return;
      default:
        return update satisfies never;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The renderer core

/** Options of {@link TerminalRenderer} and {@link TerminalSink}. */
export interface TerminalRendererOptions {
  /**
   * Write ANSI styles (bold, dim, colors). Off, the output is plain text with no escape sequence
   * and no cursor movement, for a file, a pipe or a log. Pass `process.stdout.isTTY` in Node,
   * `Deno.stdout.isTerminal()` in Deno.
   * @default false
   */
  readonly color?: boolean;
  /**
   * The terminal's width in columns: a call's result line is cut to it (`process.stdout.columns`
   * in Node, `Deno.consoleSize().columns` in Deno). `0` (a terminal that does not know its size)
   * means the default; `Infinity` cuts nothing.
   * @default 80
   */
  readonly width?: number;
  /**
   * A renderer per tool name, over the defaults (`write_file` → {@link writeFileRenderer}); any
   * other tool is drawn by {@link genericToolRenderer}.
   * @default {}
   */
  readonly tools?: Readonly<Record<string, ToolRenderer>>;
}

/** One tool call (or structured-output document) the renderer follows. */
interface CallState {
  readonly index: number;
  toolCallId: string;
  toolName: string;
  renderer: ToolCallRenderer | undefined;
  /** The provider runs the call (its header and result line say so). */
  provider: boolean;
  /** The header has been written at least once. */
  shown: boolean;
  /** Field events were rendered (else the arguments are drawn from the final event). */
  streamed: boolean;
}

/** The slots reported by a stage before this one (field events or path updates came for them). */
const UPSTREAM_DONE: StreamFragment = { type: 'done' };

/**
 * The terminal renderer's core: `push(event) → text`, `end() → text`, `error(reason) → text`, no
 * stream and no I/O — {@link TerminalSink} is a thin shell over it.
 *
 * It reads any {@link PipelineEvent}: `ProviderEventStream`'s output directly (it parses the
 * arguments itself, with `isolateErrors`, so invalid arguments are a `✗` line, not an error), or
 * the output of any stage after it — progress, conversation events (with or without
 * `passthrough`), field events, path updates, raw argument deltas, validation errors, coalesced
 * text — in any mix; each call and each text slot is drawn once. What it draws:
 *
 * - message text as it streams; reasoning under a `∴ thinking` line, dimmed;
 * - each tool call: a `▶ name` header as soon as the name is known, then its fields as they
 *   complete through the call's {@link ToolRenderer}, then `✓ name {exact arguments}` (cut to
 *   the width), or `✗ name incomplete …` / `✗ name failed: …`, and `✗ name /field: …` for a
 *   validation error;
 * - a call the provider runs itself (a web search, code execution): the same, with
 *   `(run by the provider)` after its name in the header and the result line, then its result
 *   where the stream carries one, on one line: `↳ name result: {…}` or `✗ name failed: {…}`;
 * - refusal text (OpenAI's) under a `⊘ refused` line; a `refusal` stop reason (Anthropic's) as a
 *   `⊘ refused` line above the finish line;
 * - `finished: <reason> (<provider's reason>), <usage>`, at the end of input (below any call a
 *   stage reports as cut off after `finished`);
 * - with {@link error}, `✗ error: <name>: <message>` (the first line of it).
 *
 * The text does not depend on how the input was cut: with color on, escapes are written where
 * the style changes, not per chunk. Control characters in model output are made visible.
 *
 * @example
 * ```ts
 * const decoder = new ProviderEventDecoder({ provider: 'anthropic' });
 * const renderer = new TerminalRenderer({ color: false });
 * let text = '';
 * for (const chunk of chunks) for (const event of decoder.push(chunk)) text += renderer.push(event);
 * for (const event of decoder.end()) text += renderer.push(event);
 * text += renderer.end();
 * ```
 * @throws {RangeError} from the constructor, for a negative or NaN `width`.
 */
export class TerminalRenderer {
  readonly #style: TerminalStyle;
  readonly #tools: Readonly<Record<string, ToolRenderer>>;
  readonly #builder = new TurnBuilder({ progress: true, messages: false, isolateErrors: true });
  readonly #buffer: PipelineEvent[] = [];
  readonly #fieldEvents: FieldEvent[] = [];
  readonly #fragments: StreamFragment[] = [];
  /** Per slot: the field parser of its progress (or of its path updates). */
  readonly #documents = new Map<number, FieldEventParser>();
  readonly #updates = new Map<number, PathUpdateDecoder>();
  readonly #calls = new Map<number, CallState>();
  /** Slots whose field events or path updates came from a stage before this one. */
  readonly #upstream = new Set<number>();
  /**
   * What each slot's arguments are drawn from: the first of its progress, field events or path
   * updates to arrive. The others carry the same arguments again (views pass progress on), so
   * they are not drawn.
   */
  readonly #drawnFrom = new Map<number, 'progress' | 'fields' | 'paths'>();
  /** Text slots drawn from their parts (their `message`/`reasoning` event is then not drawn again). */
  readonly #streamedText = new Set<number>();
  /** What is being drawn: `text:<index>`, `reasoning:<index>`, `call:<index>`, `finished`, or nothing yet. */
  #block = '';
  /** The last two visible characters written. */
  #tail = '';
  #written = false;
  #dim = false;
  #out = '';
  /** The `finished` event, drawn at the end of input. */
  #pendingFinish: FinishedEvent | undefined;

  constructor(options: TerminalRendererOptions = {}) {
    // A terminal that does not know its size reports 0 columns: take the default.
    const width = options.width === undefined || options.width === 0 ? 80 : options.width;
    if (Number.isNaN(width) || width < 1) throw new RangeError(`TerminalRenderer: width must be a positive number of columns, not ${String(width)}`);
    this.#style = makeStyle(options.color === true, Math.floor(width));
    this.#tools = { write_file: writeFileRenderer, ...options.tools };
  }

  /** The styles in use (what tool renderers are given). */
  get style(): TerminalStyle {
    return this.#style;
  }

  /**
   * Render one event; returns the text to write (`''` if none).
   * @throws {TypeError} for events out of order (field events or path updates that do not fit
   *   together); the text drawn before the error is returned by the next call.
   */
  push(event: PipelineEvent): string {
    switch (event.type) {
      case 'field-start':
      case 'field-delta':
      case 'field-end': {
        const index = event.index ?? -1;
        if (!this.#drawsFrom(index, 'fields')) break;
        this.#fromUpstream(index, event.toolCallId, event.toolName);
        this.#field(index, cleanField(event));
        break;
      }
      case 'path-update': {
        const index = event.index ?? -1;
        if (!this.#drawsFrom(index, 'paths')) break;
        this.#fromUpstream(index, event.toolCallId, undefined);
        let decoder = this.#updates.get(index);
        if (decoder === undefined) this.#updates.set(index, (decoder = new PathUpdateDecoder()));
        const fragments = this.#fragments;
        try {
          decoder.push(event, fragments);
          for (const fragment of fragments) this.#fragment(index, fragment);
        } finally {
          fragments.length = 0;
        }
        if (event.kind === 'json-complete') this.#updates.delete(index);
        break;
      }
      default: {
        const buffer = this.#buffer;
        try {
          this.#builder.push(event, buffer);
        } finally {
          try {
            for (const output of buffer) this.#handle(output);
          } finally {
            buffer.length = 0;
          }
        }
      }
    }
    return this.#take();
  }

  /** The input ended: draw what was never closed (calls cut off) and end the last line. */
  end(): string {
    const buffer = this.#buffer;
    try {
      this.#builder.end(buffer);
      for (const output of buffer) this.#handle(output);
    } finally {
      buffer.length = 0;
    }
    this.#drawFinish();
    this.#newline();
    return this.#take();
  }

  /** The input failed: a one-line reason (`✗ error: ProviderError: Overloaded`), on a line of its own. */
  error(reason: unknown): string {
    this.#drawFinish();
    this.#newline();
    this.#plain(`${this.#style.red(`✗ error: ${errorLine(reason)}`)}\n`);
    this.#block = 'error';
    return this.#take();
  }

  #take(): string {
    const out = this.#out;
    this.#out = '';
    return out;
  }

  // --- what each event draws

  #handle(event: PipelineEvent): void {
    switch (event.type) {
      case 'part': {
        const part = event.part;
        if (part.type === 'message' || part.type === 'reasoning' || part.type === 'refusal') this.#text(event.index, part.type, part.text);
        else if (part.type === 'tool-call-start') this.#announce(event.index, part.toolCallId, part.toolName, part.providerExecuted);
        return;
      }
      case 'streaming-tool-call':
        this.#announce(event.index, event.toolCallId, event.toolName, event.providerExecuted);
        return;
      case 'tool-call-progress':
        this.#call(event.index, event.toolCallId, event.toolName, event.providerExecuted);
        if (this.#drawsFrom(event.index, 'progress')) this.#fragment(event.index, event.fragment);
        return;
      case 'structured-progress':
        this.#call(event.index, '', 'structured output');
        if (this.#drawsFrom(event.index, 'progress')) this.#fragment(event.index, event.fragment);
        return;
      case 'message':
      case 'reasoning':
      case 'refusal':
        if (!this.#streamedText.has(event.index)) this.#text(event.index, event.type, event.text);
        return;
      case 'tool-call':
      case 'tool-call-incomplete':
      case 'tool-call-failed':
        this.#end(event, this.#call(event.index, event.toolCallId, event.toolName, 'providerExecuted' in event ? event.providerExecuted : undefined));
        return;
      case 'provider-tool-call':
        this.#end(event, this.#call(event.index, event.toolCallId, event.toolName, true));
        return;
      case 'provider-tool-result':
        this.#providerResult(event);
        return;
      case 'structured':
        this.#end(event, this.#call(event.index, '', 'structured output'));
        return;
      case 'validation-error':
        this.#validation(event);
        return;
      case 'finished':
        // Drawn last, at the end of input: a call cut off is reported after `finished` (by this
        // renderer's builder or a stage before it), and belongs above the finish line.
        this.#pendingFinish = event;
        return;
      default:
        // `flush`, and what no stage of this version emits: nothing to draw.
        return;
    }
  }

  /** Whether slot `index` is drawn from `source` (the first source to arrive for it). */
  #drawsFrom(index: number, source: 'progress' | 'fields' | 'paths'): boolean {
    const drawn = this.#drawnFrom.get(index);
    if (drawn !== undefined) return drawn === source;
    this.#drawnFrom.set(index, source);
    return true;
  }

  /** Field events or path updates for `index` came from a stage before: the builder leaves the slot alone. */
  #fromUpstream(index: number, toolCallId: string | undefined, toolName: string | undefined): void {
    if (index >= 0 && !this.#upstream.has(index)) {
      this.#upstream.add(index);
      // A progress event tells the builder a stage before parses this slot (its echo is dropped).
      this.#builder.push({ type: 'tool-call-progress', index, toolCallId: '', toolName: '', fragment: UPSTREAM_DONE }, []);
    }
    this.#call(index, toolCallId ?? '', toolName ?? '');
  }

  #call(index: number, toolCallId: string, toolName: string, providerExecuted?: true): CallState {
    let call = this.#calls.get(index);
    if (call === undefined) {
      call = { index, toolCallId, toolName, renderer: undefined, provider: false, shown: false, streamed: false };
      this.#calls.set(index, call);
    } else {
      if (call.toolCallId === '' && toolCallId !== '') call.toolCallId = toolCallId;
      if (call.toolName === '' && toolName !== '') call.toolName = toolName;
    }
    if (providerExecuted === true) call.provider = true;
    return call;
  }

  /** A call's name is known: show its header now. */
  #announce(index: number, toolCallId: string, toolName: string, providerExecuted?: true): void {
    const call = this.#call(index, toolCallId, toolName, providerExecuted);
    if (call.toolName !== '' && !call.shown) this.#enter(call);
  }

  #fragment(index: number, fragment: StreamFragment): void {
    let parser = this.#documents.get(index);
    if (parser === undefined) this.#documents.set(index, (parser = new FieldEventParser()));
    const events = this.#fieldEvents;
    try {
      parser.pushFragment(fragment, events);
      for (const event of events) this.#field(index, cleanField(event));
    } finally {
      events.length = 0;
    }
    if (parser.complete) this.#documents.delete(index);
  }

  #field(index: number, event: FieldEvent): void {
    const call = this.#call(index, event.toolCallId ?? '', event.toolName ?? '');
    this.#enter(call);
    call.streamed = true;
    this.#plain(this.#rendererOf(call).field(event));
  }

  #rendererOf(call: CallState): ToolCallRenderer {
    if (call.renderer === undefined) {
      const make = Object.hasOwn(this.#tools, call.toolName) ? (this.#tools[call.toolName] as ToolRenderer) : genericToolRenderer;
      call.renderer = make({ index: call.index, toolCallId: call.toolCallId, toolName: call.toolName }, this.#style);
    }
    return call.renderer;
  }

  /** Make `call` the block being drawn: its header, after a blank line (`(continued)` when it comes back). */
  #enter(call: CallState): void {
    const block = `call:${call.index}`;
    if (this.#block === block) return;
    this.#blankLine();
    const name = call.toolName === '' ? '(unnamed tool call)' : oneLine(call.toolName);
    const provider = call.provider ? this.#style.cyan(' (run by the provider)') : '';
    this.#plain(`${this.#style.bold(`▶ ${name}`)}${provider}${call.shown ? this.#style.dim(' (continued)') : ''}\n`);
    call.shown = true;
    this.#block = block;
  }

  #end(event: ToolCallEndEvent, call: CallState): void {
    const renderer = this.#rendererOf(call);
    if (!call.streamed && (event.type === 'tool-call' || event.type === 'provider-tool-call' || event.type === 'structured')) {
      // No stage streamed this call's fields: draw them from its arguments.
      this.#enter(call);
      call.streamed = true;
      const args = event.type === 'structured' ? event.data : event.arguments;
      for (const field of fieldsOf(args)) this.#plain(renderer.field(cleanField(field)));
    }
    const closing = renderer.end !== undefined ? renderer.end(event) : '';
    const block = `call:${call.index}`;
    if (closing !== '' || !call.shown) this.#enter(call);
    else if (this.#block !== block) {
      // The result line names its call: after another call's fields (parallel calls end
      // together), it needs no second header.
      if (this.#block.startsWith('call:')) this.#newline();
      else this.#blankLine();
      this.#block = block;
    }
    this.#plain(closing);
    call.renderer = undefined;
    this.#newline();
    this.#plain(`${this.#result(event, call)}\n`);
    this.#documents.delete(call.index);
    this.#updates.delete(call.index);
    this.#drawnFrom.delete(call.index);
  }

  #result(event: ToolCallEndEvent, call: CallState): string {
    const style = this.#style;
    const name = call.toolName === '' ? '(unnamed tool call)' : oneLine(call.toolName);
    const by = call.provider ? ' (run by the provider)' : '';
    switch (event.type) {
      case 'tool-call':
      case 'provider-tool-call':
      case 'structured': {
        const args = event.type === 'structured' ? event.data : event.arguments;
        const repaired = event.type !== 'structured' && event.truncated === true ? ' (repaired: its arguments were cut off)' : '';
        const mark = repaired === '' ? '✓' : '⚠';
        // The JSON takes the columns the mark, the name and the notes leave.
        const room = style.width - Array.from(`${mark} ${name}${by}${repaired} `).length;
        const json = fit(clean(JSON.stringify(args)), Math.max(1, room));
        return `${repaired === '' ? style.green(mark) : style.yellow(mark)} ${style.bold(name)}${style.cyan(by)}${style.yellow(repaired)} ${style.dim(json)}`;
      }
      case 'tool-call-incomplete': {
        const where = event.path === '' ? 'at the top level' : `in ${oneLine(event.path)}`;
        const why = event.stopReason === undefined ? 'the stream ended' : `stop reason: ${oneLine(event.stopReason)}`;
        return style.red(`✗ ${name}${by} incomplete: its arguments stopped ${where} (${why})`);
      }
      case 'tool-call-failed':
        return style.red(`✗ ${name}${by} failed: ${errorLine(event.error)}`);
      default:
        return event satisfies never;
    }
  }

  /** A provider-run call's result: one line under its call (`↳ web_search result: […]`). */
  #providerResult(event: ProviderToolResultEvent): void {
    const style = this.#style;
    const call = [...this.#calls.values()].find((c) => c.provider && c.toolCallId === event.toolCallId);
    const toolName = event.toolName ?? call?.toolName ?? '';
    const name = toolName === '' ? '(provider tool)' : oneLine(toolName);
    const head = event.isError === true ? `✗ ${name} failed: ` : `↳ ${name} result: `;
    const json = fit(clean(JSON.stringify(event.result)), Math.max(1, style.width - Array.from(head).length));
    if (call !== undefined && this.#block === `call:${call.index}`) this.#newline();
    else this.#blankLine();
    this.#plain(`${event.isError === true ? style.red(head) : style.cyan(head)}${style.dim(json)}\n`);
    this.#block = `result:${event.index}`;
  }

  #validation(event: ArgumentValidationErrorEvent): void {
    const call = this.#call(event.index, event.toolCallId, event.toolName);
    this.#enter(call);
    this.#newline();
    const name = call.toolName === '' ? '(unnamed tool call)' : oneLine(call.toolName);
    const issues = event.issues.map((issue) => oneLine(issue.message)).join('; ');
    this.#plain(`${this.#style.red(`✗ ${name} ${event.path === '' ? 'arguments' : oneLine(event.path)}: ${issues}`)}\n`);
  }

  #text(index: number, kind: 'message' | 'reasoning' | 'refusal', text: string): void {
    if (text === '') return;
    this.#streamedText.add(index);
    const block = `${kind}:${index}`;
    if (this.#block !== block) {
      this.#blankLine();
      if (kind === 'reasoning') this.#dimmed('∴ thinking\n');
      if (kind === 'refusal') this.#plain(`${this.#style.red('⊘ refused')}\n`);
      this.#block = block;
    }
    if (kind === 'reasoning') this.#dimmed(clean(text));
    else this.#plain(clean(text));
  }

  #drawFinish(): void {
    const event = this.#pendingFinish;
    this.#pendingFinish = undefined;
    if (event !== undefined) this.#finished(event);
  }

  #finished(event: FinishedEvent): void {
    this.#blankLine();
    // A stop reason that says the model declined (Anthropic's `refusal`) is marked like refusal text.
    if (event.reason === 'refusal') this.#plain(`${this.#style.red('⊘ refused (the model stopped: refusal)')}\n`);
    const raw = event.rawReason === undefined || event.rawReason === event.reason ? '' : ` (${oneLine(event.rawReason)})`;
    this.#plain(`${this.#style.dim(`finished: ${oneLine(event.reason)}${raw}${oneLine(usageText(event.usage))}`)}\n`);
    this.#block = 'finished';
  }

  // --- writing

  /** Text in the normal style (it may carry its own complete styles). */
  #plain(text: string): void {
    if (text === '') return;
    if (this.#dim) {
      this.#out += RESET_BOLD_DIM;
      this.#dim = false;
    }
    this.#write(text);
  }

  /** Streamed text in the dim style: one escape where dim begins, one where it ends. */
  #dimmed(text: string): void {
    if (text === '') return;
    if (this.#style.color && !this.#dim) {
      this.#out += DIM;
      this.#dim = true;
    }
    this.#write(text);
  }

  #write(text: string): void {
    this.#out += text;
    const seen = stripAnsi(text);
    if (seen !== '') {
      this.#tail = (this.#tail + seen).slice(-2);
      this.#written = true;
    }
  }

  /** End the current line, if one is open. */
  #newline(): void {
    if (this.#written && !this.#tail.endsWith('\n')) this.#plain('\n');
  }

  /** Begin a new block: after a blank line, unless nothing was written yet. */
  #blankLine(): void {
    if (!this.#written) return;
    this.#newline();
    if (this.#tail !== '\n\n') this.#plain('\n');
  }
}

/** The field events of a complete value (a call no stage streamed). */
function fieldsOf(value: JsonValue): FieldEvent[] {
  const events: FieldEvent[] = [];
  const field = (key: string, member: JsonValue) => {
    events.push({ type: 'field-start', key });
    const text = typeof member === 'string' ? member : JSON.stringify(member);
    if (text !== '') events.push({ type: 'field-delta', key, text });
    events.push({ type: 'field-end', key, string: typeof member === 'string' });
  };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) for (const [key, member] of Object.entries(value)) field(key, member);
  else field('', value);
  return events;
}

function usageText(usage: Usage | undefined): string {
  if (usage === undefined) return '';
  const parts: string[] = [];
  if (usage.inputTokens !== undefined) parts.push(`${usage.inputTokens} input`);
  if (usage.outputTokens !== undefined) parts.push(`${usage.outputTokens} output`);
  if (usage.reasoningTokens !== undefined && usage.reasoningTokens > 0) parts.push(`${usage.reasoningTokens} reasoning`);
  return parts.length === 0 ? '' : `, ${parts.join(' + ')} tokens`;
}

// ---------------------------------------------------------------------------------------------
// The sink

/**
 * Where a {@link TerminalSink} writes: an object with a `write(text)` method (its result is
 * awaited when it is a promise: backpressure), or a `WritableStream<string>`. The sink never
 * closes or aborts it: several turns can be drawn into one terminal.
 */
export type TerminalOutput = { write(text: string): unknown } | WritableStream<string>;

/** Options of {@link TerminalSink}. */
export interface TerminalSinkOptions extends TerminalRendererOptions {}

function isWritableStream(output: TerminalOutput): output is WritableStream<string> {
  return typeof (output as { getWriter?: unknown }).getWriter === 'function';
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * A sink that draws a streaming turn in a terminal (see {@link TerminalRenderer} for what it
 * draws and what it reads). Pipe `ProviderEventStream`'s output into it, or the output of any
 * stage after it.
 *
 * - **Closing** draws what was left open (a call cut off is a `✗ … incomplete` line) and ends the
 *   last line; the output is not closed.
 * - **An upstream error** (a `ProviderError`, a network failure) is drawn as one line,
 *   `✗ error: <reason>`, and `pipeTo` rejects with it as usual.
 * - A failing `write` of the output errors the sink (and cancels the source of a pipe).
 *
 * @throws {RangeError} for a negative or NaN `width`.
 * @example
 * ```ts
 * // Node
 * await response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *   .pipeTo(new TerminalSink({ write: (text) => process.stdout.write(text) }, { color: process.stdout.isTTY }));
 * // Deno
 * const encoder = new TextEncoder();
 * const writer = Deno.stdout.writable.getWriter();
 * await response.body!
 *   .pipeThrough(new ProviderEventStream({ provider: 'anthropic' }))
 *   .pipeTo(new TerminalSink({ write: (text) => writer.write(encoder.encode(text)) }, { color: Deno.stdout.isTerminal() }));
 * ```
 */
export class TerminalSink extends WritableStream<PipelineEvent> {
  constructor(output: TerminalOutput, options: TerminalSinkOptions = {}) {
    const renderer = new TerminalRenderer(options);
    let writer: WritableStreamDefaultWriter<string> | undefined;
    const send = async (text: string): Promise<void> => {
      if (text === '') return;
      if (writer !== undefined) await writer.write(text);
      else {
        const result = (output as { write(text: string): unknown }).write(text);
        if (isThenable(result)) await result;
      }
    };
    const release = () => {
      writer?.releaseLock();
      writer = undefined;
    };
    super({
      start() {
        if (isWritableStream(output)) writer = output.getWriter();
      },
      async write(event) {
        let text: string;
        try {
          text = renderer.push(event);
        } catch (error) {
          await send(renderer.error(error)).catch(() => undefined);
          release();
          throw error;
        }
        await send(text);
      },
      async close() {
        try {
          await send(renderer.end());
        } finally {
          release();
        }
      },
      async abort(reason) {
        try {
          await send(renderer.error(reason));
        } catch {
          // The output failed too: the reason is what the caller gets.
        } finally {
          release();
        }
      },
    });
  }
}
