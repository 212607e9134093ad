/**
 * `argstream/ai-sdk`: the AI SDK's apps with argstream's linear tool-input streaming, in both
 * directions — a `ChatTransport` for `useChat` that keeps tool inputs out of the AI SDK's
 * re-parse, and (from an argstream server) the AI SDK's UI message stream. `ai` (5 or 7) is an
 * optional peer dependency this entry loads (the transport extends its HTTP transport): a server
 * without `ai` imports the encoder from `argstream/ai-sdk/server`.
 *
 * @module
 */
export { ArgstreamChatTransport } from '../../ai-sdk/chat-transport.ts';
export type { ArgstreamChatTransportOptions } from '../../ai-sdk/chat-transport.ts';
export { TOOL_INPUT_UPDATES, UI_MESSAGE_STREAM_HEADERS, UIMessageChunkEncoder, UIMessageStreamEncoder } from '../../ai-sdk/ui-message-stream-encoder.ts';
export type { UIMessageChunk, UIMessageFinishReason, UIMessageStreamEncoderOptions } from '../../ai-sdk/ui-message-stream-encoder.ts';
