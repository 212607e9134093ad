/**
 * A chat server on argstream for an unchanged `useChat` page: `POST /api/chat` with the AI SDK's
 * request body (`{ id, messages, trigger, messageId }`, the chat's UI messages) → Anthropic's
 * Messages API (streaming, a `write_file` tool) → `fromResponse` → `UIMessageStreamEncoder` → the
 * AI SDK's UI message stream, which `useChat` (ai 5, 6 or 7, `DefaultChatTransport`) reads as it reads
 * an AI SDK server's. No `ai` package on the server.
 *
 * A web-standard handler (an edge function's code): serve.mjs bundles it and runs it in Node.
 */
import { fromResponse } from 'argstream';
// The encoder's own entry: a server needs no `ai` package (`argstream/ai-sdk` also has the page's
// transport, which loads `ai`).
import { UI_MESSAGE_STREAM_HEADERS, UIMessageStreamEncoder } from 'argstream/ai-sdk/server';

/** Where the model is. */
export interface Env {
  /** The `fetch` that reaches the Messages API (serve.mjs's recorded model replays there). @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** @default 'https://api.anthropic.com/v1/messages' */
  readonly url?: string;
  readonly apiKey?: string | undefined;
  /**
   * How a call's input goes to the page: `deltas`, as the AI SDK's own server sends it (a plain
   * `useChat` page re-parses it at each one), or `path-updates`, which `ArgstreamChatTransport`
   * applies in linear time (a plain page shows the input whole at `tool-input-available`).
   * @default 'deltas'
   */
  readonly toolInputs?: 'deltas' | 'path-updates';
}

const WRITE_FILE = {
  name: 'write_file',
  description: 'Write a text file in the project, replacing it if it exists.',
  input_schema: {
    type: 'object',
    properties: { path: { type: 'string', description: 'the path, from the project root' }, content: { type: 'string', description: "the file's whole content" } },
    required: ['path', 'content'],
  },
};

/** The parts of the AI SDK's UI messages this server reads (ai 5, 6 and 7 write them alike). */
interface UIPart {
  readonly type: string;
  readonly text?: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly state?: string;
  readonly input?: unknown;
  readonly output?: unknown;
  readonly errorText?: string;
}

interface UIMessage {
  readonly id: string;
  readonly role: 'system' | 'user' | 'assistant';
  readonly parts: readonly UIPart[];
}

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

/**
 * The chat's UI messages as Anthropic's: text parts as text, each tool part with an input as a
 * `tool_use`, and its output (the page's `addToolOutput`) as a `tool_result` in the user turn that
 * follows. An assistant message of several steps (`step-start` parts) is one turn per step.
 */
export function anthropicMessages(messages: readonly UIMessage[]): Array<{ role: 'user' | 'assistant'; content: Block[] }> {
  const out: Array<{ role: 'user' | 'assistant'; content: Block[] }> = [];
  const push = (role: 'user' | 'assistant', content: Block[]) => {
    if (content.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'user') {
      push('user', message.parts.flatMap((part): Block[] => (part.type === 'text' && part.text ? [{ type: 'text', text: part.text }] : [])));
      continue;
    }
    let blocks: Block[] = [];
    let results: Block[] = [];
    const endStep = () => {
      push('assistant', blocks);
      push('user', results);
      blocks = [];
      results = [];
    };
    for (const part of message.parts) {
      if (part.type === 'step-start') endStep();
      else if (part.type === 'text' && part.text) blocks.push({ type: 'text', text: part.text });
      else if ((part.type.startsWith('tool-') || part.type === 'dynamic-tool') && part.toolCallId !== undefined && part.input !== undefined && part.state !== 'input-streaming') {
        const name = part.type === 'dynamic-tool' ? (part.toolName ?? '') : part.type.slice('tool-'.length);
        blocks.push({ type: 'tool_use', id: part.toolCallId, name, input: part.input });
        if (part.state === 'output-available') results.push({ type: 'tool_result', tool_use_id: part.toolCallId, content: JSON.stringify(part.output) });
        if (part.state === 'output-error') results.push({ type: 'tool_result', tool_use_id: part.toolCallId, content: part.errorText ?? 'failed', is_error: true });
      }
    }
    endStep();
  }
  return out;
}

/** `POST /api/chat`: the model's answer to the chat, as the AI SDK's UI message stream. */
export async function handleChat(request: Request, env: Env = {}): Promise<Response> {
  const { messages } = (await request.json()) as { messages: UIMessage[] };
  const upstream = await (env.fetch ?? fetch)(env.url ?? 'https://api.anthropic.com/v1/messages', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      ...(env.apiKey === undefined ? {} : { 'x-api-key': env.apiKey }),
    },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 8192,
      stream: true,
      system: 'You write files with the write_file tool.',
      tools: [WRITE_FILE],
      messages: anthropicMessages(messages),
    }),
  });
  // A chat that goes on after a tool result continues its last assistant message, as the AI SDK's
  // server does with `originalMessages`.
  const last = messages[messages.length - 1];
  const encoder = new UIMessageStreamEncoder({ toolInputs: env.toolInputs ?? 'deltas', ...(last?.role === 'assistant' ? { messageId: last.id } : {}) });
  // An HTTP error status or an error in the stream reaches the page as an `error` chunk.
  return new Response(fromResponse(upstream, { provider: 'anthropic' }).pipeThrough(encoder), { headers: UI_MESSAGE_STREAM_HEADERS });
}
