/**
 * Typed tools: a tool name → Standard Schema map, and the types a UI reads of each call — its
 * input as it streams (a partial of the schema's input), and once complete the schema's output.
 *
 * @module
 */
import type { JsonValue } from '../types.ts';
import type { StandardSchemaIssue, StandardSchemaResult } from '../views/argument-validation-core.ts';
import type { ToolCallError } from './turn-error.ts';

/**
 * A Standard Schema v1 validator (`@standard-schema/spec`): zod ≥ 3.24, valibot ≥ 1, arktype ≥ 2
 * and others implement it. `types` carries the input and output types; `validate` checks a value.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardSchemaResult | Promise<StandardSchemaResult>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/** A map of tool names to their input schemas, as {@link defineTools} returns it. */
export type ToolSchemas = Readonly<Record<string, StandardSchemaV1>>;

/** The type a schema accepts (what the model must send). */
export type SchemaInput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly input: infer I }
    ? I
    : unknown
  : unknown;

/** The type a schema's `validate` gives back (after its transforms and defaults). */
export type SchemaOutput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : unknown
  : unknown;

/**
 * What a value of type `T` may look like while it streams: an object may lack members, an array
 * may be shorter (and its last element partial), a string may be a prefix of its final text (so a
 * union of string literals is any `string`); numbers, booleans and `null` only ever appear whole.
 * Deeply readonly, as every input in a snapshot (see {@link DeepReadonly}).
 */
export type PartialInput<T> = T extends string
  ? string
  : T extends number | boolean | null | undefined | bigint
    ? T
    : T extends readonly (infer E)[]
      ? readonly PartialInput<E>[]
      : T extends object
        ? { readonly [K in keyof T]?: PartialInput<T[K]> }
        : T;

/**
 * `T` with every member and element readonly, at every depth: the type of a call's input in a
 * snapshot, so that `call.input.path = …` or `call.input.files.push(…)` does not compile. A
 * snapshot's objects are shared with the snapshots before and after it (that is what makes an
 * unchanged part keep its identity), so writing to one would change what other snapshots show.
 * Functions and `Date`s are kept as they are; a `Map` or `Set` (a schema's transform may make
 * one) becomes a `ReadonlyMap` or `ReadonlySet`.
 *
 * Types only: at run time an input is not frozen. Freezing every object as the input grows
 * would cost a call per object and array per snapshot (and make V8 give the objects a slower
 * representation), for a mistake the compiler already reports; the snapshot itself and each call
 * in it are frozen (they are made once each).
 */
export type DeepReadonly<T> = unknown extends T
  ? T
  : [T, JsonValue] extends [JsonValue, T]
    ? ReadonlyJsonValue
    : T extends string | number | boolean | bigint | symbol | null | undefined | Date | ((...args: never[]) => unknown)
      ? T
      : T extends ReadonlyMap<infer K, infer V>
        ? ReadonlyMap<K, DeepReadonly<V>>
        : T extends ReadonlySet<infer V>
          ? ReadonlySet<DeepReadonly<V>>
          : { readonly [K in keyof T]: DeepReadonly<T[K]> };

/** A JSON value that cannot be written to: the input of a call of a tool the store was not told about. */
export type ReadonlyJsonValue = null | boolean | number | string | readonly ReadonlyJsonValue[] | { readonly [key: string]: ReadonlyJsonValue };

/**
 * Declare the application's tools once: each name with the Standard Schema of its input. The
 * result is the same map, frozen and typed, for `TurnStore`, `useTurn` and the other bindings:
 * each call's `input` is then typed by its `toolName`, partial while it streams, the schema's
 * output once complete.
 *
 * @throws {TypeError} for a value that is not a Standard Schema v1.
 * @example
 * ```ts
 * import * as z from 'zod';
 * const tools = defineTools({ write_file: z.object({ path: z.string(), content: z.string() }) });
 * const store = new TurnStore({ tools });
 * for (const call of store.getSnapshot().calls) {
 *   if (call.toolName === 'write_file') show(call.input.path, call.input.content); // typed
 * }
 * ```
 */
export function defineTools<const T extends Record<string, StandardSchemaV1>>(tools: T): Readonly<T> {
  for (const [name, schema] of Object.entries(tools)) {
    const standard = (schema as Partial<StandardSchemaV1> | null | undefined)?.['~standard'];
    if (standard === undefined || standard.version !== 1 || typeof standard.validate !== 'function') {
      throw new TypeError(`defineTools: the schema of "${name}" is not a Standard Schema v1 (zod ≥ 3.24, valibot ≥ 1, arktype ≥ 2, …)`);
    }
  }
  return Object.freeze({ ...tools });
}

/** Where a tool call stands in a {@link TurnSnapshot}. */
export type ToolCallStatus = 'streaming' | 'complete' | 'invalid' | 'failed';

/**
 * The paths of a call's input whose values are complete, as JSON Pointers (RFC 6901): `""` the
 * whole input, `/path` its `path` member, `/files/2/content` a member of an array element. A field
 * can be shown as final before the call ends. Immutable, like the snapshot that holds it. Under a
 * duplicate key (its last value wins, as in `JSON.parse`), the path and those under it are not
 * complete from the new value's start until its end.
 */
export interface CompletePaths {
  /** Whether the value at `pointer` is complete. */
  has(pointer: string): boolean;
  /** How many values are complete. */
  readonly size: number;
}

/** What every call of a snapshot has, whatever its tool. */
export interface ToolCallBase {
  /** The call's id (`""` while none is known: some providers send none). */
  readonly toolCallId: string;
  /** The call's content slot in the provider's response. */
  readonly index: number;
  /** The provider runs this call itself (a web search, code execution): show it, never run it. */
  readonly providerExecuted: boolean;
  /** Which values of the input are complete. */
  readonly complete: CompletePaths;
  /** The result of a call the provider ran, when the stream carried one. */
  readonly result?: unknown;
  /** The provider reported that call failed (its result is the error it gave). */
  readonly isError?: true;
}

/** A call of a known tool, while its input streams. */
export interface StreamingToolCall<Name extends string, Input> extends ToolCallBase {
  readonly toolName: Name;
  readonly status: 'streaming';
  /** The input so far: `{}` before its first member. */
  readonly input: PartialInput<Input>;
}

/**
 * A call of a known tool whose input is complete and valid: `input` is the schema's output
 * (readonly), `arguments` the model's arguments as they came. They differ where the schema
 * transforms: a zod object drops the members it does not name, a default fills one in, a coercion
 * changes a type. Without a schema (or a schema that changes nothing) they are the same object.
 */
export interface CompletedToolCall<Name extends string, Output, Input = Output> extends ToolCallBase {
  readonly toolName: Name;
  readonly status: 'complete';
  readonly input: DeepReadonly<Output>;
  /** The complete arguments exactly as `JSON.parse` makes them from the model's text, before the schema. */
  readonly arguments: DeepReadonly<Input>;
}

/** A call whose complete input the schema rejected: `input` is what the model sent. */
export interface InvalidToolCall<Name extends string, Input> extends ToolCallBase {
  readonly toolName: Name;
  readonly status: 'invalid';
  readonly input: PartialInput<Input>;
  /** The schema's issues. */
  readonly issues: readonly StandardSchemaIssue[];
}

/**
 * A call that did not arrive whole: its arguments were cut (the stream ended or was cut, the
 * model hit its token limit) or were not valid JSON, or the stream failed. `input` is what had
 * arrived.
 */
export interface FailedToolCall<Name extends string, Input> extends ToolCallBase {
  readonly toolName: Name;
  readonly status: 'failed';
  readonly input: PartialInput<Input>;
  /**
   * Why: an `IncompleteToolCallError` (cut), a `ToolCallArgumentsError` (invalid JSON), what the
   * schema threw, or the turn's own error (the snapshot's `error`: a `ProviderError`, a
   * `RelayError`, …); see {@link ToolCallError}.
   */
  readonly error: ToolCallError;
}

/** One call of a known tool, in any status. */
export type TypedToolCall<Name extends string, S> =
  | StreamingToolCall<Name, SchemaInput<S>>
  | CompletedToolCall<Name, SchemaOutput<S>, SchemaInput<S>>
  | InvalidToolCall<Name, SchemaInput<S>>
  | FailedToolCall<Name, SchemaInput<S>>;

/**
 * The call of one tool of `T` in any status, for a component that shows that tool:
 * `function WriteFile({ call }: { call: ToolCallOf<typeof tools, 'write_file'> })`.
 */
export type ToolCallOf<T extends ToolSchemas, K extends keyof T & string> = TypedToolCall<K, T[K]>;

/**
 * The type of the `toolName` of a call of a tool that is not among the application's tools. At run
 * time it is the tool's name, any string; its type only says it is none of the tools, so that
 * `call.toolName === 'write_file'` narrows a call to that tool (TypeScript keeps every member whose
 * name is a plain `string` in such a branch, branded or not). To branch on such a tool by name,
 * declare it in `defineTools` (a schema as loose as you like).
 */
export type UnknownToolName = `(unknown tool)${string}`;

/** A call of a tool the store was not told about: its input is JSON, untyped (and readonly). */
export type UntypedToolCall<Name extends string = string> =
  | (Omit<StreamingToolCall<Name, never>, 'input'> & { readonly input: ReadonlyJsonValue })
  | (Omit<CompletedToolCall<Name, never>, 'input' | 'arguments'> & { readonly input: ReadonlyJsonValue; readonly arguments: ReadonlyJsonValue })
  | (Omit<FailedToolCall<Name, never>, 'input'> & { readonly input: ReadonlyJsonValue });

/**
 * A call in a {@link TurnSnapshot}: typed by its `toolName` for the tools given (a call of any
 * other tool is an {@link UntypedToolCall} whose name is an {@link UnknownToolName}); without
 * tools, every call is untyped and its `toolName` a plain `string`.
 */
export type ToolCallSnapshot<T extends ToolSchemas = {}> = [keyof T & string] extends [never]
  ? UntypedToolCall
  : { [K in keyof T & string]: TypedToolCall<K, T[K]> }[keyof T & string] | UntypedToolCall<UnknownToolName>;
