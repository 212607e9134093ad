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
} from './types.js';
export { JsonStreamError, ProviderError } from './errors.js';
export type { JsonStreamErrorCode, ProviderName } from './errors.js';
export type { JsonLimits } from './json/scanner.js';
export { IncrementalJsonParser } from './json/incremental-json-parser.js';
export type { IncrementalJsonParserOptions } from './json/incremental-json-parser.js';
export { FragmentAggregator } from './json/fragment-aggregator.js';
export { IncrementalJsonValueParser } from './json/incremental-json-value-parser.js';
export type { IncrementalJsonValueParserOptions } from './json/incremental-json-value-parser.js';
export { JsonFragmentStream } from './transforms/json-fragment-stream.js';
export type { JsonFragmentStreamOptions } from './transforms/json-fragment-stream.js';
export { JsonValueStream, FragmentValueStream } from './transforms/json-value-stream.js';
export type { JsonValueStreamOptions, FragmentValueStreamOptions, ValueSnapshot } from './transforms/json-value-stream.js';
export type {
  ConversationEvent,
  FailedToolCallEvent,
  IncompleteToolCallEvent,
  MessageEvent,
  ReasoningEvent,
  StructuredEvent,
  StructuredProgress,
  ToolCallEvent,
} from './types.js';
export { ToolCallArgumentsError } from './errors.js';
export { ToolCallProgressStream } from './transforms/tool-call-progress-stream.js';
export type { ToolCallProgressStreamOptions, ToolCallProgressStreamOutput } from './transforms/tool-call-progress-stream.js';
export { ConversationEventStream } from './transforms/conversation-event-stream.js';
export type { ConversationEventStreamOptions, ConversationStreamOutput } from './transforms/conversation-event-stream.js';
export type { EventBuilderOptions } from './turn/event-builder.js';
export { collectTurn } from './sinks/collect-turn.js';
export type { CollectTurnOptions, Turn } from './sinks/collect-turn.js';
