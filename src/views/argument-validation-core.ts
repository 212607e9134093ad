/**
 * The validation view's core: early validation of tool-call arguments against Standard Schemas
 * (zod, valibot, arktype, …): each top-level field as soon as it is complete, the whole document
 * when it is complete.
 *
 * @module
 */
import { escapeToken } from '../json/json-pointer.ts';
import { FragmentAggregator } from '../json/fragment-aggregator.ts';
import { newPlace, placeOf } from '../json/deep-fragment.ts';
import type { JsonLimits } from '../json/scanner.ts';
import { TurnBuilder } from '../turn/ai-sdk-parts.ts';
import type {
  ArgumentIssue,
  ArgumentValidationErrorEvent,
  JsonObject,
  JsonValue,
  PipelineEvent,
  StreamFragment,
  StructuredEvent,
  StructuredProgress,
  ToolCallArgumentProgress,
  ToolCallEvent,
} from '../types.ts';

const place = /* @__PURE__ */ newPlace();

// ---------------------------------------------------------------------------------------------
// The part of Standard Schema v1 this stage relies on, declared structurally (no dependency).

/** One problem a Standard Schema found. */
export interface StandardSchemaIssue {
  readonly message: string;
  /** Where, from the validated value: keys and indices, or segments `{ key }`. */
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What a Standard Schema's `validate` returns: the (possibly transformed) value, or issues. */
export type StandardSchemaResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardSchemaIssue> };

/**
 * A schema implementing Standard Schema v1 (`@standard-schema/spec`): zod ≥ 3.24, valibot ≥ 1,
 * arktype ≥ 2 and others. Only `~standard.validate` is used.
 */
export interface StandardSchema {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardSchemaResult | Promise<StandardSchemaResult>;
  };
}

/**
 * How one tool's arguments are validated: a Standard Schema for the whole arguments, or the whole
 * and/or one schema per top-level field. See `ArgumentValidationStream` for how fields are found
 * when only the whole schema is given.
 */
export type ToolArgumentsSchema =
  | StandardSchema
  | {
      /** The schema of the complete arguments. */
      readonly schema?: StandardSchema;
      /** Schemas of top-level fields, each checked as soon as its field is complete. */
      readonly fields?: Readonly<Record<string, StandardSchema>>;
    };

// ---------------------------------------------------------------------------------------------
// Output

/** The stream was errored because a tool call's arguments failed validation (`errorOnInvalid`). */
export class ArgumentValidationError extends Error {
  override readonly name = 'ArgumentValidationError';
  readonly index: number;
  readonly toolCallId: string;
  readonly toolName: string;
  /** As `ArgumentValidationErrorEvent.path`. */
  readonly path: string;
  readonly issues: readonly ArgumentIssue[];
  /** As `ArgumentValidationErrorEvent.structured`. */
  readonly structured: boolean;

  constructor(event: ArgumentValidationErrorEvent) {
    const first = event.issues[0];
    const where = event.structured
      ? `Invalid structured output${event.path === '' ? '' : ` field ${event.path}`} #${event.index}`
      : `Invalid ${event.path === '' ? 'arguments' : `argument ${event.path}`} for tool call ${event.toolCallId || `#${event.index}`}${event.toolName ? ` (${event.toolName})` : ''}`;
    super(where + (first === undefined ? '' : `: ${first.message}${first.path.length > 0 ? ` at ${first.path.join('.')}` : ''}`));
    this.structured = event.structured === true;
    this.index = event.index;
    this.toolCallId = event.toolCallId;
    this.toolName = event.toolName;
    this.path = event.path;
    this.issues = event.issues;
  }
}

/** Options of `ArgumentValidationStream` and {@link ArgumentValidationCore}. */
export interface ArgumentValidationStreamOptions {
  /** Schemas by tool name. */
  readonly tools?: Readonly<Record<string, ToolArgumentsSchema>>;
  /** The schema for every call whose tool is not in `tools` (calls with neither are not validated). */
  readonly schema?: ToolArgumentsSchema;
  /**
   * The schema of structured output: the JSON document of a response whose request asked for JSON
   * (`ProviderEventStream`'s `structuredOutput`), read from `structured-progress` events (or
   * `structured` parts, parsed here). Checked like a tool's arguments — each top-level field as
   * it completes, then the whole — and reported with `structured: true`. Without it, structured
   * output is not validated (`tools` and `schema` are for tool calls only).
   */
  readonly structured?: ToolArgumentsSchema;
  /**
   * Error the stream with an {@link ArgumentValidationError} at the first failure (after
   * everything before it has been delivered), instead of emitting `validation-error` events.
   * @default false
   */
  readonly errorOnInvalid?: boolean;
  /** As `ToolCallProgressStream`'s, for the arguments this stage parses itself. @default false */
  readonly isolateErrors?: boolean;
  /** The parser's limits, for the arguments this stage parses itself. */
  readonly limits?: JsonLimits;
}

/** What `ArgumentValidationStream` reads: any pipeline event. */
export type ArgumentValidationStreamInput = PipelineEvent | { readonly type: string };

/** What `ArgumentValidationStream` emits: its input, and `validation-error` events. */
export type ArgumentValidationStreamOutput = PipelineEvent;

// ---------------------------------------------------------------------------------------------
// The core

interface ResolvedSchemas {
  readonly whole: StandardSchema | undefined;
  /** Per-field schemas; `undefined`: validate the completed fields with the whole schema. */
  readonly fields: Readonly<Record<string, StandardSchema>> | undefined;
}

/** One validation to run, in order. */
interface Check {
  readonly call: CallIdentity;
  /** `""` for the whole, else the field's pointer. */
  readonly path: string;
  readonly schema: StandardSchema;
  readonly value: unknown;
  /** Prepended to each issue path (the field's key, for a field schema). */
  readonly prefix: ReadonlyArray<string | number>;
  /** Only issues under this top-level key count (validating a partial object with the whole schema). */
  readonly onlyKey: string | undefined;
  /**
   * The call's top-level fields already reported as failed: a field check adds its key; the
   * check of the whole leaves out issues under them, so no failure is reported twice.
   */
  readonly failedKeys: Set<string>;
}

/** Whose document a check is about. */
interface CallIdentity {
  readonly index: number;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly structured?: true;
}

interface CallState {
  /** `undefined` while the tool's name is not known yet (the schema depends on it). */
  schemas: ResolvedSchemas | undefined;
  readonly aggregator: FragmentAggregator;
  /** The completed top-level fields, for validation with the whole schema. */
  readonly completed: JsonObject;
  /** Top-level fields completed before the name was known: checked once it is. */
  readonly waiting: string[];
  readonly failedKeys: Set<string>;
}

function isStandardSchema(value: unknown): value is StandardSchema {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const standard = (value as { '~standard'?: unknown })['~standard'];
  return typeof standard === 'object' && standard !== null && typeof (standard as { validate?: unknown }).validate === 'function';
}

/**
 * The field schemas of an object schema where its library exposes them as a record of Standard
 * Schemas: zod's `shape`, valibot's `entries`.
 */
function fieldsOf(schema: StandardSchema): Readonly<Record<string, StandardSchema>> | undefined {
  for (const property of ['shape', 'entries']) {
    let record: unknown;
    try {
      record = (schema as unknown as Record<string, unknown>)[property];
    } catch {
      continue;
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) continue;
    const values = Object.values(record);
    if (values.length > 0 && values.every(isStandardSchema)) return record as Record<string, StandardSchema>;
  }
  return undefined;
}

function resolve(spec: ToolArgumentsSchema): ResolvedSchemas {
  if (isStandardSchema(spec)) return { whole: spec, fields: fieldsOf(spec) };
  const whole = spec.schema;
  if (spec.fields !== undefined) return { whole, fields: spec.fields };
  return { whole, fields: whole === undefined ? {} : fieldsOf(whole) };
}

function setMember(object: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

function hasOwn(record: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key);
}

/** Internal: follows the calls and says which validations each event makes due. */
class ArgumentValidator {
  readonly #tools: Readonly<Record<string, ToolArgumentsSchema>>;
  readonly #fallback: ToolArgumentsSchema | undefined;
  readonly #structured: ToolArgumentsSchema | undefined;
  readonly #resolved = new Map<ToolArgumentsSchema, ResolvedSchemas>();
  readonly #calls = new Map<number, CallState | null>();
  /**
   * The slots whose fragments this validator saw (their checks came with them), until their
   * conversation event.
   */
  readonly #followed = new Set<number>();

  constructor(options: ArgumentValidationStreamOptions) {
    this.#tools = options.tools ?? {};
    this.#fallback = options.schema;
    this.#structured = options.structured;
  }

  #schemasFor(toolName: string): ResolvedSchemas | undefined {
    return this.#resolve(hasOwn(this.#tools, toolName) ? this.#tools[toolName] : this.#fallback);
  }

  #resolve(spec: ToolArgumentsSchema | undefined): ResolvedSchemas | undefined {
    if (spec === undefined) return undefined;
    let resolved = this.#resolved.get(spec);
    if (resolved === undefined) {
      resolved = resolve(spec);
      this.#resolved.set(spec, resolved);
    }
    return resolved;
  }

  push(event: { readonly type: string }, checks: Check[]): void {
    switch (event.type) {
      case 'tool-call-progress':
        this.#progress(event as ToolCallArgumentProgress, checks);
        return;
      case 'structured-progress':
        this.#structuredProgress(event as StructuredProgress, checks);
        return;
      case 'tool-call': {
        const complete = event as ToolCallEvent;
        const index = complete.index;
        this.#calls.delete(index);
        // A call whose fragments never came this way — no argument text at all (`{}`), or a stage
        // before dropped its progress — is checked whole here. A truncated call is not checked.
        if (!this.#followed.delete(index) && complete.truncated !== true) {
          const whole = this.#schemasFor(complete.toolName)?.whole;
          const call = { index, toolCallId: complete.toolCallId, toolName: complete.toolName };
          if (whole !== undefined) {
            checks.push({ call, path: '', schema: whole, value: complete.arguments, prefix: [], onlyKey: undefined, failedKeys: new Set() });
          }
        }
        return;
      }
      case 'structured': {
        const { index, data } = event as StructuredEvent;
        this.#calls.delete(index);
        if (!this.#followed.delete(index)) {
          const whole = this.#resolve(this.#structured)?.whole;
          const call = { index, toolCallId: '', toolName: '', structured: true as const };
          if (whole !== undefined) checks.push({ call, path: '', schema: whole, value: data, prefix: [], onlyKey: undefined, failedKeys: new Set() });
        }
        return;
      }
      case 'tool-call-incomplete':
      case 'tool-call-failed':
      case 'provider-tool-call': {
        const index = (event as unknown as { readonly index: number }).index;
        this.#followed.delete(index);
        this.#calls.delete(index);
        return;
      }
      default:
    }
  }

  /** A fragment of structured output: followed as a call whose schema is the `structured` one. */
  #structuredProgress(event: StructuredProgress, checks: Check[]): void {
    this.#followed.add(event.index);
    let state = this.#calls.get(event.index);
    if (state === undefined) {
      const schemas = this.#resolve(this.#structured);
      state = schemas === undefined ? null : { schemas, aggregator: new FragmentAggregator(), completed: {}, waiting: [], failedKeys: new Set() };
      this.#calls.set(event.index, state);
    }
    if (state === null) return;
    this.#follow(state, { index: event.index, toolCallId: '', toolName: '', structured: true }, event.fragment, checks);
  }

  #progress(event: ToolCallArgumentProgress, checks: Check[]): void {
    // A call the provider runs is not the application's: its schemas do not apply.
    if (event.providerExecuted === true) return;
    this.#followed.add(event.index);
    let state = this.#calls.get(event.index);
    if (state === undefined) {
      // The schema depends on the tool's name; a call whose name comes after its first
      // fragments is followed until it does (`schemas` undefined), not left unvalidated.
      const named = event.toolName !== '' || Object.keys(this.#tools).length === 0;
      const schemas = named ? this.#schemasFor(event.toolName) : undefined;
      state = named && schemas === undefined ? null : { schemas, aggregator: new FragmentAggregator(), completed: {}, waiting: [], failedKeys: new Set() };
      this.#calls.set(event.index, state);
    }
    if (state === null) return;
    this.#follow(state, { index: event.index, toolCallId: event.toolCallId, toolName: event.toolName }, event.fragment, checks);
  }

  /** Add one fragment of a followed document; the checks it makes due go to `checks`. */
  #follow(state: CallState, call: CallIdentity, fragment: StreamFragment, checks: Check[]): void {
    const whole = state.aggregator.push(fragment);
    if (state.schemas === undefined && (call.toolName !== '' || whole !== undefined)) {
      // The name is known now (or never will be: the whole is complete without it).
      state.schemas = this.#schemasFor(call.toolName);
      if (state.schemas === undefined) {
        this.#calls.set(call.index, null);
        return;
      }
      for (const key of state.waiting.splice(0)) this.#fieldCheck(state, call, key, checks);
    }
    // `entry key → done`: a top-level member is complete.
    const at = placeOf(fragment, place);
    if (fragment.type === 'entry' && at.depth === 1 && at.leaf.type === 'done') {
      if (state.schemas === undefined) state.waiting.push(fragment.key);
      else this.#fieldCheck(state, call, fragment.key, checks);
    }
    if (whole !== undefined) {
      this.#calls.delete(call.index);
      const schema = state.schemas?.whole;
      if (schema !== undefined) checks.push({ call, path: '', schema, value: whole, prefix: [], onlyKey: undefined, failedKeys: state.failedKeys });
    }
  }

  /** The check of the completed top-level member `key`, if its schema has one. */
  #fieldCheck(state: CallState, call: Check['call'], key: string, checks: Check[]): void {
    const value = (state.aggregator.snapshot() as JsonObject)[key] as JsonValue;
    const path = '/' + escapeToken(key);
    const { fields, whole: wholeSchema } = state.schemas as ResolvedSchemas;
    if (fields !== undefined) {
      if (hasOwn(fields, key)) {
        checks.push({ call, path, schema: fields[key] as StandardSchema, value, prefix: [key], onlyKey: undefined, failedKeys: state.failedKeys });
      }
    } else if (wholeSchema !== undefined) {
      setMember(state.completed, key, value);
      checks.push({ call, path, schema: wholeSchema, value: { ...state.completed }, prefix: [], onlyKey: key, failedKeys: state.failedKeys });
    }
  }
}

function segment(item: PropertyKey | { readonly key: PropertyKey }): string | number {
  const key = typeof item === 'object' && item !== null ? item.key : item;
  return typeof key === 'number' ? key : typeof key === 'symbol' ? (key.description ?? '') : key;
}

/** The issues of a result that count for `check`, or `undefined` if there are none. */
function issuesOf(check: Check, result: StandardSchemaResult): ArgumentIssue[] | undefined {
  if (result.issues === undefined) return undefined;
  const issues: ArgumentIssue[] = [];
  for (const issue of result.issues) {
    const path = [...check.prefix, ...(issue.path ?? []).map(segment)];
    if (check.onlyKey !== undefined && String(path[0]) !== check.onlyKey) continue;
    // Already reported when its field completed.
    if (check.path === '' && path.length > 0 && check.failedKeys.has(String(path[0]))) continue;
    issues.push({ message: String(issue.message), path });
  }
  if (issues.length === 0) return undefined;
  if (check.path !== '') check.failedKeys.add(String(check.onlyKey ?? check.prefix[0]));
  return issues;
}

function isPromise(value: unknown): value is PromiseLike<StandardSchemaResult> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * The core of `ArgumentValidationStream`: `push(event) → outputs`, `end() → outputs`, where
 * outputs are the events passed on with `validation-error` events after the ones that completed a
 * value. The one core whose result may come later: while every validator answers synchronously
 * (zod, valibot and arktype do for synchronous schemas) it returns the array; when one returns a
 * promise, `push` returns a promise of the same array, and the next event must wait for it.
 *
 * @throws {ArgumentValidationError} with `errorOnInvalid`, at the first failure (the promise
 *   rejects with it for an async validator); `out` then holds what came before.
 * @example
 * ```ts
 * const core = new ArgumentValidationCore({ tools: { write_file: WriteFile } });
 * for (const event of events) {
 *   for (const output of await core.push(event)) if (output.type === 'validation-error') reject(output);
 * }
 * ```
 */
export class ArgumentValidationCore {
  readonly #validator: ArgumentValidator;
  readonly #progress: TurnBuilder;
  readonly #errorOnInvalid: boolean;
  readonly #events: PipelineEvent[] = [];

  constructor(options: ArgumentValidationStreamOptions) {
    if (options.tools === undefined && options.schema === undefined && options.structured === undefined) {
      throw new TypeError(
        'ArgumentValidationStream: give `tools` (schemas by tool name), `schema` (for every call) and/or `structured` (for structured output)',
      );
    }
    this.#validator = new ArgumentValidator(options);
    this.#errorOnInvalid = options.errorOnInvalid === true;
    // Raw argument text that no stage before parsed is parsed here, as ToolCallProgressStream would.
    this.#progress = new TurnBuilder({ ...options.limits, progress: true, messages: false, isolateErrors: options.isolateErrors === true });
  }

  push(event: PipelineEvent, out: PipelineEvent[] = []): PipelineEvent[] | Promise<PipelineEvent[]> {
    return this.#validate(() => this.#progress.push(event, this.#events), out);
  }

  end(out: PipelineEvent[] = []): PipelineEvent[] | Promise<PipelineEvent[]> {
    return this.#validate(() => this.#progress.end(this.#events), out);
  }

  #validate(step: () => void, out: PipelineEvent[]): PipelineEvent[] | Promise<PipelineEvent[]> {
    const events = this.#events;
    let failure: { error: unknown } | undefined;
    try {
      step();
    } catch (error) {
      failure = { error };
    }
    const taken = events.splice(0);
    const next = (from: number): PipelineEvent[] | Promise<PipelineEvent[]> => {
      for (let i = from; i < taken.length; i++) {
        const event = taken[i] as PipelineEvent;
        out.push(event);
        const checks: Check[] = [];
        this.#validator.push(event, checks);
        const pending = runChecks(checks, out, this.#errorOnInvalid);
        if (pending !== undefined) return pending.then(() => next(i + 1));
      }
      if (failure !== undefined) throw failure.error;
      return out;
    };
    return next(0);
  }
}

/**
 * Run the checks in order, appending a `validation-error` to `out` for each failure; synchronous
 * results are handled synchronously, and only an async result makes the rest wait for it.
 */
function runChecks(checks: readonly Check[], out: PipelineEvent[], errorOnInvalid: boolean): Promise<void> | undefined {
  const report = (check: Check, result: StandardSchemaResult): void => {
    const issues = issuesOf(check, result);
    if (issues === undefined) return;
    const event: ArgumentValidationErrorEvent = {
      type: 'validation-error',
      index: check.call.index,
      toolCallId: check.call.toolCallId,
      toolName: check.call.toolName,
      path: check.path,
      issues,
      ...(check.call.structured ? { structured: true as const } : {}),
    };
    if (errorOnInvalid) throw new ArgumentValidationError(event);
    out.push(event);
  };
  for (let i = 0; i < checks.length; i++) {
    const check = checks[i] as Check;
    const result = check.schema['~standard'].validate(check.value);
    if (!isPromise(result)) {
      report(check, result);
      continue;
    }
    return (async () => {
      report(check, await result);
      for (const rest of checks.slice(i + 1)) report(rest, await rest.schema['~standard'].validate(rest.value));
    })();
  }
  return undefined;
}
