/**
 * argstream: WHATWG TransformStreams that parse LLM tool-call arguments while they stream in.
 *
 * @module
 */

// The vocabulary
export type {
  AssistantMessageEvent,
  ConversationEvent,
  DoneFragment,
  EntryFragment,
  EventMetadata,
  EventPart,
  FailedToolCallEvent,
  FinishedEvent,
  FinishReason,
  FlushEvent,
  IncompleteToolCallEvent,
  ItemFragment,
  JsonObject,
  JsonScalar,
  JsonValue,
  PartEvent,
  ReasoningEvent,
  ScalarFragment,
  SequenceGapWarning,
  StartFragment,
  StreamEvent,
  StreamFragment,
  StreamWarning,
  StringFragment,
  StructuredEvent,
  StructuredProgress,
  ToolCallArgumentProgress,
  ToolCallEvent,
  Usage,
  ValueKind,
} from './types.ts';
export type {
  FieldDeltaEvent,
  FieldEndEvent,
  FieldEvent,
  FieldEventSource,
  FieldStartEvent,
  PipelineEvent,
  SnapshotEvent,
  StreamingToolCallEvent,
} from './types.ts';
export type { PushCore } from './core.ts';

// Composition: several stages in one stream hop
export { chain } from './transforms/chain.ts';
export type { ChainableStage } from './transforms/chain.ts';
export type { Stage } from './transforms/stage.ts';

// Errors
export { JsonStreamError, ProviderError, RelayError, ToolCallArgumentsError } from './errors.ts';
export type { JsonStreamErrorCode, ProviderName, RelayErrorCode } from './errors.ts';

// The JSON engine: text → fragments → values
export type { JsonLimits } from './json/scanner.ts';
export { IncrementalJsonParser } from './json/incremental-json-parser.ts';
export type { IncrementalJsonParserOptions } from './json/incremental-json-parser.ts';
export { FragmentAggregator } from './json/fragment-aggregator.ts';
export type { FragmentAggregatorOptions } from './json/fragment-aggregator.ts';
export { IncrementalJsonValueParser } from './json/incremental-json-value-parser.ts';
export type { IncrementalJsonValueParserOptions } from './json/incremental-json-value-parser.ts';
export { JsonFragmentStream } from './transforms/json-fragment-stream.ts';
export type { JsonFragmentStreamOptions } from './views/json-fragment-core.ts';
export { FragmentValueCore, JsonValueCore } from './views/json-value-core.ts';
export { FragmentValueStream, JsonValueStream } from './transforms/json-value-stream.ts';
export type {
  FragmentValueStreamOptions,
  JsonValueStreamOptions,
  ValueSnapshot,
} from './views/json-value-core.ts';

// Providers: wire bytes or SDK objects → StreamEvents
export { ProviderEventDecoder } from './providers/provider-event-decoder.ts';
export { ProviderEventStream } from './transforms/provider-event-stream.ts';
export type {
  InvalidStreamCode,
  ProviderEventStreamInput,
  ProviderEventStreamOptions,
} from './providers/provider-event-decoder.ts';
export type { ProviderAdapter, ProviderDefinition } from './providers/adapter.ts';

// Turns: StreamEvents → progress and conversation events
export { ToolCallProgressStream } from './transforms/tool-call-progress-stream.ts';
export type {
  ToolCallProgressStreamOptions,
  ToolCallProgressStreamOutput,
} from './transforms/tool-call-progress-stream.ts';
export { ConversationEventStream } from './transforms/conversation-event-stream.ts';
export type {
  ConversationEventStreamOptions,
  ConversationStreamOutput,
} from './transforms/conversation-event-stream.ts';
export { TurnBuilder } from './turn/ai-sdk-parts.ts';
export type { TurnBuilderOptions } from './turn/turn-builder.ts';
export { collectTurn } from './sinks/collect-turn.ts';
export type { CollectTurnOptions, Turn } from './sinks/collect-turn.ts';

// Views of a streaming tool call
export { FieldEventParser } from './views/field-event-parser.ts';
export type { FieldEventParserOptions } from './views/field-event-parser.ts';
export { FieldEventCore } from './views/field-event-core.ts';
export { FieldEventStream } from './transforms/field-event-stream.ts';
export type {
  FieldEventStreamInput,
  FieldEventStreamOptions,
  FieldEventStreamOutput,
} from './views/field-event-core.ts';
export { PathUpdateEncoder } from './views/path-update-encoder.ts';
export { PathUpdateCore } from './views/path-update-core.ts';
export { PathUpdateStream } from './transforms/path-update-stream.ts';
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
} from './types.ts';
export type {
  PathUpdateStreamInput,
  PathUpdateStreamOptions,
  PathUpdateStreamOutput,
} from './views/path-update-core.ts';
export { JsonFragmentRebuilder } from './sinks/json-fragment-rebuilder.ts';
export { ToolCallRebuilder } from './sinks/tool-call-rebuilder.ts';
export type {
  RebuiltToolCall,
  RebuiltToolCallState,
  ToolCallRebuilderInput,
  ToolCallRebuilderOptions,
} from './sinks/tool-call-rebuilder.ts';
export { ToolCallDeltaCore } from './views/tool-call-delta-core.ts';
export { ToolCallDeltaStream } from './transforms/tool-call-delta-stream.ts';
export type { ToolCallDeltaStreamOptions } from './views/tool-call-delta-core.ts';
export { JsonTextCore } from './views/json-text-core.ts';
export { JsonTextStream } from './transforms/json-text-stream.ts';
export type { JsonTextStreamOptions, JsonTruncation } from './views/json-text-core.ts';
export { TaggedToolCallStream } from './transforms/tagged-tool-call-stream.ts';
export type { TaggedToolCallStreamOptions } from './transforms/tagged-tool-call-stream.ts';
export { TaggedToolCallError, TaggedToolCallExtractor } from './turn/tagged-tool-call-extractor.ts';
export type {
  TaggedToolCallErrorCode,
  TaggedToolCallOptions,
} from './turn/tagged-tool-call-extractor.ts';
export { Coalescer } from './views/coalescer.ts';
export { CoalesceStream } from './transforms/coalesce-stream.ts';
export type { CoalesceInput, CoalesceStreamOptions } from './views/coalescer.ts';
export { ArgumentValidationCore, ArgumentValidationError } from './views/argument-validation-core.ts';
export { ArgumentValidationStream, validateArguments } from './transforms/argument-validation-stream.ts';
export type { ArgumentIssue, ArgumentValidationErrorEvent } from './types.ts';
export type {
  ArgumentValidationStreamInput,
  ArgumentValidationStreamOptions,
  ArgumentValidationStreamOutput,
  StandardSchema,
  StandardSchemaIssue,
  StandardSchemaResult,
  ToolArgumentsSchema,
} from './views/argument-validation-core.ts';

// A terminal view: a sink that draws a streaming turn as text (ANSI styles optional)
export { TerminalRenderer, TerminalSink, genericToolRenderer, writeFileRenderer } from './sinks/terminal.ts';
export type {
  TerminalOutput,
  TerminalRendererOptions,
  TerminalSinkOptions,
  TerminalStyle,
  TerminalToolCall,
  ToolCallEndEvent,
  ToolCallRenderer,
  ToolRenderer,
} from './sinks/terminal.ts';
// A stream as an async iterable where the platform has no `for await` over streams (Safari).
export { iterate } from './sinks/iterate.ts';
export type { IterateOptions } from './sinks/iterate.ts';

// Typed tools and one snapshot of the turn for any UI (React, Vue and Svelte bindings: argstream/react, …)
export { defineTools } from './store/tools.ts';
export type {
  CompletePaths,
  CompletedToolCall,
  DeepReadonly,
  FailedToolCall,
  InvalidToolCall,
  PartialInput,
  ReadonlyJsonValue,
  SchemaInput,
  SchemaOutput,
  StandardSchemaV1,
  StreamingToolCall,
  ToolCallBase,
  ToolCallOf,
  ToolCallSnapshot,
  ToolCallStatus,
  ToolSchemas,
  TypedToolCall,
  UnknownToolName,
  UntypedToolCall,
} from './store/tools.ts';
export { IncompleteToolCallError } from './store/turn-store.ts';
export { TurnStore } from './store/source-reading.ts';
export { TextBlocks } from './store/text-blocks.ts';
export type { ConsumeOptions, ToolCallError, TurnError, TurnSnapshot, TurnStatus, TurnStoreOptions, TurnStoreSchedule } from './store/turn-store.ts';
// The object of a structured-output response as it streams (the AI SDK's useObject: argstream/react)
export { ObjectStore } from './store/object-store.ts';
export type {
  AiSdkSchema,
  AiSdkValidation,
  DeepPartial,
  InferObject,
  ObjectFinishEvent,
  ObjectSchema,
  ObjectSnapshot,
  ObjectStoreOptions,
  ObjectStoreSchedule,
  Resolvable,
} from './store/object-store.ts';
export { ObjectStreamError } from './store/object-stream-error.ts';
export type { ObjectStreamErrorCode } from './store/object-stream-error.ts';

// Sources: a fetch Response with its status checked, and any (async) iterable (an SDK's stream) as
// a ReadableStream. The AI SDK's stream parts are the provider 'ai-sdk' of ProviderEventStream.
export { fromResponse } from './sources/response.ts';
export type { FromResponseOptions } from './sources/response.ts';
export { fromAsyncIterable } from './sources/iterable.ts';

// ---------------------------------------------------------------------------------------------
// Relay: events to a browser as Server-Sent Events or NDJSON, and back
export { EVENT_STREAM_HEADERS, EventStreamEncoder } from './relay/event-stream-encoder.ts';
export type { EventStreamEncoderOptions } from './relay/event-stream-encoder.ts';
export { EventStreamDecoder } from './relay/event-stream-decoder.ts';
export type { EventStreamDecoderOptions } from './relay/event-stream-decoder.ts';
export { NDJSON_HEADERS, NdjsonDecoder, NdjsonEncoder } from './relay/ndjson.ts';
export type { NdjsonDecoderOptions, NdjsonEncoderOptions } from './relay/ndjson.ts';
export { lastEventId, resumeEventStream } from './relay/resume.ts';
export { readRelay } from './relay/read-relay.ts';
export type { ReadRelayOptions } from './relay/read-relay.ts';
export type { RetryOptions } from './relay/retry-policy.ts';
export type { RelayTerminal, ResumeEventStreamOptions } from './relay/resume.ts';
export { compactEvents } from './relay/compact.ts';
export type { RelayEncoderOptions } from './relay/relay-encoder.ts';
export type { RelayDecoderOptions } from './relay/relay-decoder.ts';
export type { ErrorClass } from './relay/wire.ts';
export type { PageErrorMessage, PageErrorOptions } from './relay/error-record.ts';

// ---------------------------------------------------------------------------------------------
// The event log: a stream kept while it is produced, served to any request and resumed with
// Last-Event-ID on any instance (RedisEventLog: argstream/redis)
export { EventLogError, MAX_EVENT_ID, STREAM_ID_PATTERN, checkStreamId, encodeError, encodeEvent, isEventLogError, newStreamId, parseEventId } from './log/event-log.ts';
export type { EventLog, EventLogErrorCode, EventLogProducer, LogEntry, OpenOptions, ReadOptions } from './log/event-log.ts';
export { MemoryEventLog } from './log/memory-event-log.ts';
export type { MemoryEventLogOptions } from './log/memory-event-log.ts';
export { eventLogErrorResponse, keepStream, resumeAfter, serveStream, stopStream } from './log/relay-log.ts';
export type { KeepOutcome, KeepStreamOptions, KeepStreamSource, KeptStream, ServeStreamOptions } from './log/relay-log.ts';

// ---------------------------------------------------------------------------------------------
// Provider-run tool calls and refusals
export type {
  CompleteToolCall,
  ProviderToolCallEvent,
  ProviderToolResultEvent,
  ProviderToolResultPart,
  RefusalEvent,
  ToolCallStartPart,
} from './types.ts';
export type { ProviderToolCall } from './sinks/collect-turn.ts';

// ---------------------------------------------------------------------------------------------
// Path updates with paths relative to the previous update (a long key is not repeated)
export type { PathUpdateCallIdentity, PathUpdateEncoderOptions } from './views/path-update-encoder.ts';
