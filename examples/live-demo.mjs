// @ts-check
// The main job (`npm start`): a model streams a `write_file` tool call from an embedded local
// server, in a real provider's wire format, and the terminal shows the call while it streams —
// the path as soon as it is complete, the file's content as it is generated — then the exact
// arguments. No API key: the server replays a scripted turn with model-like timing.
//
//   npm start                       # Anthropic wire format, real-time pacing
//   npm start -- --provider openai-chat --fast
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { ConversationEventStream, ProviderEventStream } from 'argstream';

/** @typedef {import('argstream').ProviderName} ProviderName */

const { values: parsed } = parseArgs({
  options: {
    provider: { type: 'string', default: 'anthropic' },
    fast: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
});

if (parsed.provider !== 'anthropic' && parsed.provider !== 'openai-chat') {
  throw new Error(`--provider must be anthropic or openai-chat, not ${parsed.provider}`);
}
const options = { ...parsed, provider: /** @type {ProviderName} */ (parsed.provider) };

const FILE = `use std::io::{self, BufRead};

/// Counts the words on standard input, like \`wc -w\`.
fn main() {
    let stdin = io::stdin();
    let mut words = 0usize;
    for line in stdin.lock().lines() {
        let line = line.expect("read error");
        words += line.split_whitespace().count();
    }
    println!("{words} words — \\"done\\" ✓");
}
`;
const TURN = {
  text: "I'll create the word counter in src/main.rs.",
  call: { id: 'toolu_demo_01', name: 'write_file', arguments: { path: 'src/main.rs', content: FILE, overwrite: false } },
};

/**
 * Cut text into model-sized deltas (3 to 10 characters).
 * @param {string} text
 */
function deltas(text) {
  const out = [];
  for (let i = 0, n = 0; i < text.length; i += n) {
    n = 3 + ((i * 7) % 8);
    out.push(text.slice(i, i + n));
  }
  return out;
}

/**
 * The scripted turn as SSE events, in the wire format of `provider`.
 * @param {string} provider
 */
function* sseEvents(provider) {
  const argumentText = JSON.stringify(TURN.call.arguments);
  if (provider === 'anthropic') {
    /** @type {(type: string, data: object) => string} */
    const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    yield event('message_start', { message: { id: 'msg_demo', type: 'message', role: 'assistant', content: [], model: 'demo', stop_reason: null, usage: { input_tokens: 120, output_tokens: 1 } } });
    yield event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    for (const text of deltas(TURN.text)) yield event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
    yield event('content_block_stop', { index: 0 });
    yield event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: TURN.call.id, name: TURN.call.name, input: {} } });
    for (const partial_json of deltas(argumentText)) yield event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json } });
    yield event('content_block_stop', { index: 1 });
    yield event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 180 } });
    yield event('message_stop', {});
  } else if (provider === 'openai-chat') {
    /** @type {(delta: object, finish_reason?: string | null) => string} */
    const chunk = (delta, finish_reason = null) => `data: ${JSON.stringify({ id: 'chatcmpl-demo', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
    yield chunk({ role: 'assistant', content: '' });
    for (const content of deltas(TURN.text)) yield chunk({ content });
    yield chunk({ tool_calls: [{ index: 0, id: TURN.call.id, type: 'function', function: { name: TURN.call.name, arguments: '' } }] });
    for (const args of deltas(argumentText)) yield chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] });
    yield chunk({}, 'tool_calls');
    yield 'data: [DONE]\n\n';
  } else {
    throw new Error(`--provider must be anthropic or openai-chat, not ${provider}`);
  }
}

/** The embedded "model": streams the scripted turn, ~15 ms per event unless --fast. */
const server = createServer(async (request, response) => {
  const provider = new URL(request.url ?? '/', 'http://localhost').searchParams.get('provider') ?? 'anthropic';
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of sseEvents(provider)) {
    response.write(event);
    if (!options.fast) await new Promise((resolve) => setTimeout(resolve, 15));
  }
  response.end();
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());

/** @param {string} text */
const out = (text) => {
  if (!options.quiet) process.stdout.write(text);
};
/** @param {string} text */
const dim = (text) => (process.stdout.isTTY ? `\x1b[2m${text}\x1b[22m` : text);
/** @param {string} text */
const bold = (text) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[22m` : text);

try {
  out(dim(`argstream live demo — ${options.provider} wire format from http://127.0.0.1:${port}\n\n`));
  const response = await fetch(`http://127.0.0.1:${port}/v1/stream?provider=${options.provider}`);
  if (response.body === null) throw new Error('the server sent no body');
  const events = response.body
    .pipeThrough(new ProviderEventStream({ provider: options.provider }))
    .pipeThrough(new ConversationEventStream({ progress: true, passthrough: true }));

  let inContent = false;
  for await (const event of events) {
    if (event.type === 'part' && event.part.type === 'message') out(event.part.text);
    else if (event.type === 'part' && event.part.type === 'tool-call-start' && event.part.toolName) out(`\n\n${bold(`▶ ${event.part.toolName}`)}\n`);
    else if (event.type === 'tool-call-progress' && event.fragment.type === 'entry') {
      // The fragments say where each piece belongs: render the path once it is complete, and
      // stream the content as it arrives.
      const { key, value } = event.fragment;
      if (key === 'path' && value.type === 'start') out('  creating ');
      else if (key === 'path' && value.type === 'string') out(bold(value.text));
      else if (key === 'path' && value.type === 'done') out('\n');
      else if (key === 'content' && value.type === 'start') {
        inContent = true;
        out(dim('  ┌────────\n'));
      } else if (key === 'content' && value.type === 'string') out(value.text);
      else if (key === 'content' && value.type === 'done') {
        inContent = false;
        out(dim('  └────────\n'));
      }
    } else if (event.type === 'tool-call') {
      out(`\n${bold('tool call complete')} ${event.toolCallId}: ${event.toolName}(${JSON.stringify(event.arguments).slice(0, 60)}…)\n`);
      const exact = JSON.stringify(event.arguments) === JSON.stringify(TURN.call.arguments);
      out(`arguments equal what the model sent: ${exact ? 'yes' : 'NO'}\n`);
      if (!exact) process.exitCode = 1;
    } else if (event.type === 'finished') {
      out(dim(`\nfinished: ${event.reason} (${event.rawReason})${event.usage?.outputTokens ? `, ${event.usage.outputTokens} output tokens` : ''}\n`));
    }
  }
  if (inContent) throw new Error('the content never completed');
} finally {
  server.close();
}
