// A Deno script that streams a model's tool calls with argstream and prints each argument the
// moment it is complete, before the call itself is.
//
//   deno run --allow-net --allow-env=ANTHROPIC_API_KEY main.ts              # the Anthropic API
//   deno run --allow-net main.ts http://127.0.0.1:8787                      # or any base URL,
//                                                                           # e.g. `argstream replay`
//
// `argstream` is mapped by ./deno.json to this repository's src/. In your own project, write
// `import … from 'jsr:@argstream/argstream'` (or `npm:argstream`), or map "argstream" to one of
// them in your deno.json "imports".
import { FieldEventStream, fromResponse, ProviderError } from 'argstream';

// Deno's global, declared so that the repository's Node type-check accepts this file too
// (delete it in your project: `deno check` knows Deno).
declare const Deno: {
  readonly args: readonly string[];
  readonly env: { get(name: string): string | undefined };
  readonly stdout: { write(bytes: Uint8Array): Promise<number> };
  exit(code: number): never;
};

const baseUrl = (Deno.args[0] ?? 'https://api.anthropic.com').replace(/\/+$/, '');
const apiKey = Deno.args[0] === undefined ? Deno.env.get('ANTHROPIC_API_KEY') : 'not needed';
if (apiKey === undefined) {
  console.error('Set ANTHROPIC_API_KEY, or pass the base URL of a server to stream from.');
  Deno.exit(2);
}

const response = await fetch(`${baseUrl}/v1/messages`, {
  method: 'POST',
  headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
  body: JSON.stringify({
    model: 'claude-sonnet-5',
    max_tokens: 1024,
    stream: true,
    tools: [
      {
        name: 'get_weather',
        description: 'The current weather in a city',
        input_schema: {
          type: 'object',
          properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
          required: ['location'],
        },
      },
      {
        name: 'get_time',
        description: 'The current time in a time zone',
        input_schema: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] },
      },
    ],
    messages: [{ role: 'user', content: 'What are the weather and the time in New York?' }],
  }),
});

// fromResponse checks the status: an HTTP error becomes a ProviderError with the provider's
// own type and message. FieldEventStream turns each call's argument text into field events; given
// to fromResponse, it runs in the same read as the decoding.
const events = fromResponse(response, { provider: 'anthropic' }, new FieldEventStream());

const encoder = new TextEncoder();
const write = (text: string) => Deno.stdout.write(encoder.encode(text));
let value = '';
try {
  for await (const event of events) {
    switch (event.type) {
      case 'part':
        if (event.part.type === 'message') await write(event.part.text);
        if (event.part.type === 'tool-call-start') await write(`\n▶ ${event.part.toolName}\n`);
        break;
      case 'field-start':
        value = '';
        break;
      case 'field-delta':
        value += event.text;
        break;
      case 'field-end':
        // A string's deltas are its decoded text; any other value's, its JSON text.
        await write(`  ${event.toolName}.${event.key} = ${event.string ? JSON.stringify(value) : value}\n`);
        break;
      case 'tool-call':
        await write(`✓ ${event.toolName}(${JSON.stringify(event.arguments)})\n`);
        break;
      case 'tool-call-incomplete':
        await write(`✗ ${event.toolName}: its arguments were cut off at ${event.path || 'the top level'}\n`);
        break;
      case 'finished':
        await write(`finished: ${event.reason}\n`);
        break;
    }
  }
} catch (error) {
  if (!(error instanceof ProviderError)) throw error;
  // e.g. "anthropic HTTP 529: overloaded_error: Overloaded"; error.status, .type, .code apart.
  console.error(error.message);
  Deno.exit(1);
}
