/**
 * The events of the consumer views over a streaming tool call: field events (axio's
 * ToolArgStream) and the streaming-tool-call event of raw argument deltas.
 *
 * @module
 */
import type { ArgumentValidationErrorEvent } from './transforms/argument-validation-stream.ts';
import type { PathUpdate } from './transforms/path-update-stream.ts';
import type { ConversationEvent, EventMetadata, StreamEvent, StructuredProgress, ToolCallArgumentProgress } from './types.ts';

/**
 * The identity of the tool call (or structured-output slot) a field event belongs to: present
 * when the field events were made from `tool-call-progress` (or `structured-progress`) events,
 * absent when they were made from plain fragments.
 */
export interface FieldEventSource {
  /** The content slot. */
  readonly index?: number;
  readonly toolCallId?: string;
  readonly toolName?: string;
}

/** A top-level member's key is complete; its value begins. */
export interface FieldStartEvent extends FieldEventSource {
  readonly type: 'field-start';
  /** The member's decoded key; `''` for a root that is not an object. */
  readonly key: string;
}

/**
 * A piece of a top-level member's value: decoded text for a string (no quotes, escapes
 * resolved), JSON text for any other value. The deltas of one field concatenate to the string,
 * or to JSON text that parses to the value.
 */
export interface FieldDeltaEvent extends FieldEventSource {
  readonly type: 'field-delta';
  readonly key: string;
  /** Never empty. */
  readonly text: string;
}

/** A top-level member's value is complete. */
export interface FieldEndEvent extends FieldEventSource {
  readonly type: 'field-end';
  readonly key: string;
  /** True when the value was a string (its deltas are decoded text, not JSON). */
  readonly string: boolean;
}

/** Field-level events for the top-level members of a document. */
export type FieldEvent = FieldStartEvent | FieldDeltaEvent | FieldEndEvent;

/**
 * A raw argument delta of a tool call, exactly as the provider sent it (never repaired), or the
 * call's completion (`isComplete: true`, `argumentsDelta: ''`). The `argumentsDelta`s of one call
 * concatenate to its raw argument text.
 */
export interface StreamingToolCallEvent {
  readonly type: 'streaming-tool-call';
  /** The content slot of the call. */
  readonly index: number;
  /** The call id as known so far (`''` until the provider sends it). */
  readonly toolCallId: string;
  /** The tool name as known so far (`''` until the provider sends it). */
  readonly toolName: string;
  /** The call is run by the provider, not the application (its start part said so). */
  readonly providerExecuted?: true;
  /** This delta of the raw argument text (`''` on a start or completion event). */
  readonly argumentsDelta: string;
  /** True on the one final event of the call, at its flush. */
  readonly isComplete: boolean;
  /** The message the call belongs to, when the stage was given one. */
  readonly messageId?: string;
  /** The provider metadata of the parts this event replaced (a call's `caller`, item ids, …). */
  readonly metadata?: EventMetadata;
}

/**
 * Every event a stage of the pipeline can emit: the provider's streaming events, the progress of
 * tool-call arguments and structured output, conversation events, field events, path updates,
 * raw argument deltas and validation errors. Every event stage accepts all of them, acts on the
 * ones it owns and passes the others through unchanged and in order; `collectTurn` reads any of
 * them.
 */
export type PipelineEvent =
  | StreamEvent
  | ToolCallArgumentProgress
  | StructuredProgress
  | ConversationEvent
  | FieldEvent
  | PathUpdate
  | StreamingToolCallEvent
  | ArgumentValidationErrorEvent;
