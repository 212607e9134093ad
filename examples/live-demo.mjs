// @ts-check
// The main job (`npm start`): a model streams a `write_file` tool call from an embedded local
// server, in a real provider's wire format, and the terminal shows the call while it streams —
// the path as soon as it is complete, the file's content as it is generated — then the exact
// arguments. Beside the stream it notes what an SDK that waits for the complete call would show,
// and at the end when it would have shown it: both measured in this run. No API key: the server
// replays a scripted turn with model-like timing.
//
//   npm start                              # Anthropic's wire format, real-time pacing
//   npm start -- --provider bedrock        # any of: anthropic openai-chat openai-responses gemini ollama bedrock
//   npm start -- --fast                    # no pacing (the tests use it)
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { ProviderEventStream, TerminalSink, writeFileRenderer } from 'argstream';
import { PROVIDERS, scriptedResponse } from './live-demo/wire-formats.mjs';

/** @typedef {import('argstream').ProviderName} ProviderName */
/** @typedef {import('argstream').ToolRenderer} ToolRenderer */

const HELP = `Usage: npm start -- [--provider <name>] [--fast]

A model streams a write_file tool call from an embedded server on 127.0.0.1, and argstream's
TerminalSink draws it while it streams.

  --provider <name>  the wire format the server speaks (default: anthropic):
                     ${PROVIDERS.join(', ')}
                     (gemini is Vertex AI with streamed function-call arguments; ollama's
                     native API sends each tool call whole)
  --fast             send the events without pacing
  --help             show this text
`;

const { values: options } = parseArgs({
  options: {
    provider: { type: 'string', default: 'anthropic' },
    fast: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (options.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (!PROVIDERS.includes(/** @type {ProviderName} */ (options.provider))) {
  // The value is echoed only when it is a plain name: a terminal never gets a control character from here.
  const given = /^[\w.-]{1,40}$/.test(options.provider) ? `, not ${options.provider}` : '';
  process.stderr.write(`--provider must be one of ${PROVIDERS.join(', ')}${given}\n\n${HELP}`);
  process.exit(2);
}
const provider = /** @type {ProviderName} */ (options.provider);

// 1. What the model writes: a sentence, then one write_file call.
const FILE = `use std::io::{self, BufRead};

/// Counts the lines, words and characters on standard input, like \`wc\`.
fn main() {
    let stdin = io::stdin();
    let (mut lines, mut words, mut chars) = (0usize, 0usize, 0usize);
    for line in stdin.lock().lines() {
        let line = line.expect("read error");
        lines += 1;
        words += line.split_whitespace().count();
        chars += line.chars().count() + 1;
    }
    println!("{lines} lines, {words} words, {chars} characters — \\"done\\" ✓");
}
`;
const TURN = {
  text: "I'll create the word counter in src/main.rs.",
  call: { id: 'call_demo01', name: 'write_file', arguments: { path: 'src/main.rs', content: FILE, overwrite: false } },
  usage: { input: 120, output: 210 },
};

// 2. The embedded "model": a local server that streams the turn in the provider's wire format,
//    one event every 20 ms (a delta of 3 to 10 characters each: about 300 characters a second).
const scripted = scriptedResponse(provider, TURN);
const server = createServer(async (request, response) => {
  for await (const _ of request); // the request body (the prompt) is not read further
  response.writeHead(200, { 'content-type': scripted.contentType, 'cache-control': 'no-cache' });
  for (const chunk of scripted.chunks) {
    response.write(chunk);
    if (!options.fast) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  response.end();
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
const url = `http://127.0.0.1:${port}${scripted.path}`;

const color = process.stdout.isTTY === true;
const dim = (/** @type {string} */ text) => (color ? `\x1b[2m${text}\x1b[22m` : text);
process.stdout.write(dim(`argstream live demo: the model (${provider} wire format) streams from ${url}\n\n`));

// 3. What a user writes: fetch → ProviderEventStream → TerminalSink. The only addition is a
//    write_file renderer that wraps the built-in one to note the moments that matter.
const started = performance.now();
const seconds = () => (performance.now() - started) / 1000;
/** @type {{ path?: number, content?: number, complete?: number, arguments?: unknown }} */
const seen = {};

/** @type {ToolRenderer} */
const writeFileWithMoments = (call, style) => {
  const draw = writeFileRenderer(call, style);
  const note = (/** @type {string} */ text) => style.cyan(`   ← ${text}`);
  return {
    field(event) {
      const text = draw.field(event);
      if (event.type === 'field-start' && event.key === 'content') seen.content ??= seconds();
      if (event.type === 'field-end' && event.key === 'path') {
        seen.path = seconds();
        const sdk = scripted.wholeCalls ? `${provider} sent the call whole: any SDK shows it now` : 'an SDK that waits for the complete call shows nothing yet';
        return `${text.replace(/\n$/, '')}${note(`${seen.path.toFixed(2)} s: ${sdk}`)}\n`;
      }
      return text;
    },
    end(event) {
      seen.complete = seconds();
      if (event.type === 'tool-call') seen.arguments = event.arguments;
      return `${draw.end?.(event) ?? ''}${note(`${seen.complete.toFixed(2)} s: the call is complete; a complete-call SDK shows it now`)}\n`;
    },
  };
};

let piped = true;
try {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ stream: true }) });
  if (!response.ok || response.body === null) throw new Error(`the server answered ${response.status}`);
  await response.body
    .pipeThrough(new ProviderEventStream({ provider }))
    .pipeTo(
      new TerminalSink(
        { write: (text) => process.stdout.write(text) },
        { color, width: process.stdout.columns ?? 80, tools: { write_file: writeFileWithMoments } },
      ),
    )
    .catch(() => {
      // TerminalSink drew the stream's error as its last line, control characters made visible;
      // the error is not printed again raw (its message quotes what the stream sent).
      piped = false;
    });
} finally {
  server.close();
}
// 4. The check, and the comparison measured above (after a stream error, the sink's last line said it).
if (!piped) process.exitCode = 1;
else {
  const exact = JSON.stringify(seen.arguments) === JSON.stringify(TURN.call.arguments);
  process.stdout.write(`\narguments equal what the model sent: ${exact ? 'yes' : 'NO'}\n`);
  if (!exact) process.exitCode = 1;
  if (seen.path !== undefined && seen.complete !== undefined) {
    const content = seen.content === undefined ? '' : ` and the content from ${seen.content.toFixed(2)} s on`;
    process.stdout.write(
      `argstream showed the path after ${seen.path.toFixed(2)} s${content}; ` +
        `a complete-call SDK would have shown it after ${seen.complete.toFixed(2)} s, when the call's last event arrived` +
        `${scripted.wholeCalls ? ` (${provider} sends each tool call whole)` : ''}.\n`,
    );
  }
}
