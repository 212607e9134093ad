/**
 * argstream: WHATWG TransformStreams that parse LLM tool-call arguments while they stream in.
 *
 * @module
 */
export type {
  DoneFragment,
  EntryFragment,
  EventMetadata,
  EventPart,
  FinishReason,
  FinishedEvent,
  FlushEvent,
  ItemFragment,
  JsonObject,
  JsonScalar,
  JsonValue,
  PartEvent,
  ScalarFragment,
  StartFragment,
  StreamEvent,
  StreamFragment,
  StringFragment,
  ToolCallArgumentProgress,
  Usage,
  ValueKind,
} from './types.ts';
export { JsonStreamError, ProviderError } from './errors.ts';
export { ProviderEventStream, ProviderEventDecoder } from './transforms/provider-event-stream.ts';
export type { InvalidStreamCode, ProviderEventStreamInput, ProviderEventStreamOptions } from './transforms/provider-event-stream.ts';
export type { ProviderAdapter } from './transforms/providers/adapter.ts';
export type { JsonStreamErrorCode, ProviderName } from './errors.ts';
export type { JsonLimits } from './json/scanner.ts';
export { IncrementalJsonParser } from './json/incremental-json-parser.ts';
export type { IncrementalJsonParserOptions } from './json/incremental-json-parser.ts';
export { FragmentAggregator } from './json/fragment-aggregator.ts';
export { IncrementalJsonValueParser } from './json/incremental-json-value-parser.ts';
export type { IncrementalJsonValueParserOptions } from './json/incremental-json-value-parser.ts';
export { JsonFragmentStream } from './transforms/json-fragment-stream.ts';
export type { JsonFragmentStreamOptions } from './transforms/json-fragment-stream.ts';
export { JsonValueStream, FragmentValueStream } from './transforms/json-value-stream.ts';
export type { JsonValueStreamOptions, FragmentValueStreamOptions, ValueSnapshot } from './transforms/json-value-stream.ts';
export type {
  ConversationEvent,
  FailedToolCallEvent,
  IncompleteToolCallEvent,
  MessageEvent,
  ReasoningEvent,
  StructuredEvent,
  StructuredProgress,
  ToolCallEvent,
} from './types.ts';
export { ToolCallArgumentsError } from './errors.ts';
export { ToolCallProgressStream } from './transforms/tool-call-progress-stream.ts';
export type { ToolCallProgressStreamOptions, ToolCallProgressStreamOutput } from './transforms/tool-call-progress-stream.ts';
export { ConversationEventStream } from './transforms/conversation-event-stream.ts';
export type { ConversationEventStreamOptions, ConversationStreamOutput } from './transforms/conversation-event-stream.ts';
export type { EventBuilderOptions } from './turn/event-builder.ts';
export { collectTurn } from './sinks/collect-turn.ts';
export type { CollectTurnOptions, Turn } from './sinks/collect-turn.ts';
export type { FieldDeltaEvent, FieldEndEvent, FieldEvent, FieldEventSource, FieldStartEvent, StreamingToolCallEvent } from './view-types.ts';
export { FieldEventParser } from './json/field-event-parser.ts';
export type { FieldEventParserOptions } from './json/field-event-parser.ts';
export { FieldEventStream } from './transforms/field-event-stream.ts';
export type { FieldEventStreamInput, FieldEventStreamOptions } from './transforms/field-event-stream.ts';
export { ToolCallDeltaStream } from './transforms/tool-call-delta-stream.ts';
export type { ToolCallDeltaStreamOptions } from './transforms/tool-call-delta-stream.ts';
export { JsonTextStream } from './transforms/json-text-stream.ts';
export type { JsonTextStreamOptions, JsonTruncation } from './transforms/json-text-stream.ts';
export { CoalesceStream } from './transforms/coalesce-stream.ts';
export type { CoalesceInput, CoalesceStreamOptions } from './transforms/coalesce-stream.ts';
export { TaggedToolCallStream } from './transforms/tagged-tool-call-stream.ts';
export type { TaggedToolCallStreamOptions } from './transforms/tagged-tool-call-stream.ts';
export { TaggedToolCallError } from './turn/tagged-tool-call-extractor.ts';
export type { TaggedToolCallErrorCode, TaggedToolCallOptions } from './turn/tagged-tool-call-extractor.ts';
export { PathUpdateEncoder, PathUpdateStream } from './transforms/path-update-stream.ts';
export type {
  PathUpdate,
  PathUpdateBase,
  PathUpdateBoolean,
  PathUpdateCompleteString,
  PathUpdateJsonComplete,
  PathUpdateKey,
  PathUpdateKind,
  PathUpdateMark,
  PathUpdateNull,
  PathUpdateNumber,
  PathUpdatePartialString,
  PathUpdateStreamInput,
  PathUpdateStreamOutput,
} from './transforms/path-update-stream.ts';
export { JsonFragmentRebuilder } from './sinks/json-fragment-rebuilder.ts';
export { ToolCallRebuilder } from './sinks/tool-call-rebuilder.ts';
export type { RebuiltToolCall, RebuiltToolCallState, ToolCallRebuilderInput, ToolCallRebuilderOptions } from './sinks/tool-call-rebuilder.ts';
export { ArgumentValidationError, ArgumentValidationStream, validateArguments } from './transforms/argument-validation-stream.ts';
export type {
  ArgumentIssue,
  ArgumentValidationErrorEvent,
  ArgumentValidationStreamOptions,
  ArgumentValidationStreamOutput,
  StandardSchema,
  StandardSchemaIssue,
  StandardSchemaResult,
  ToolArgumentsSchema,
} from './transforms/argument-validation-stream.ts';
