/**
 * `argstream/ai-sdk/server`: argstream's events as the AI SDK's UI message stream, for a `useChat`
 * page served by an argstream server — without loading the `ai` package (what `argstream/ai-sdk`
 * also exports, with the client's transport that needs it).
 *
 * @module
 */
export { TOOL_INPUT_UPDATES, UI_MESSAGE_STREAM_HEADERS, UIMessageChunkEncoder, UIMessageStreamEncoder } from '../../ai-sdk/ui-message-stream-encoder.ts';
export type { UIMessageChunk, UIMessageFinishReason, UIMessageStreamEncoderOptions } from '../../ai-sdk/ui-message-stream-encoder.ts';
