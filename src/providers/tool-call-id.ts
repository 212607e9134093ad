/**
 * Ids for tool calls a provider sends without one (Gemini, Ollama's native API, some
 * OpenAI-compatible servers).
 *
 * @module
 */

/** What a generated tool-call id may be derived from. */
export interface ToolCallIdInput {
  /** The tool's name (`''` if the provider never sent one). */
  readonly name: string;
  /** The call's position among the tool calls of this response: 0, 1, 2, … */
  readonly position: number;
}

/** Makes the id of a tool call that arrived without one. Must be deterministic to keep replays stable. */
export type ToolCallIdFactory = (call: ToolCallIdInput) => string;

/**
 * The default {@link ToolCallIdFactory}: `call_<position>_<name>`, e.g. `call_0_get_weather`.
 *
 * Unique within one response and the same on every replay of it. Ids repeat across responses, so
 * pass your own factory (e.g. one that prefixes a turn id) if ids must be unique in a conversation.
 */
export const defaultToolCallId: ToolCallIdFactory = ({ name, position }) => `call_${position}_${name}`;
