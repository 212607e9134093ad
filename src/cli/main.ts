#!/usr/bin/env node
/**
 * The `argstream` command: `inspect` decodes a provider stream (a recording or standard input)
 * and prints one view of it live; `replay` serves a recording on the provider's endpoint for an
 * SDK or `curl` to talk to. Node only.
 *
 * @module
 */
/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { ProviderName } from '../errors.ts';
import { terminalText } from '../sinks/terminal.ts';
import { EXIT, PROVIDERS, UsageError, VIEWS, describeError, inspect, type Output, type View } from './inspect.ts';
import { guessProvider, startReplayServer, type ReplayProvider } from './replay-server.ts';

const HELP = `Usage: argstream <command> [options]

Commands:
  inspect [file|-]   decode a provider stream and print it as it arrives
  replay <file>      serve a recorded response on the provider's endpoint

Options:
  -h, --help         show help (argstream <command> --help for a command's)
  -v, --version      print the version

Exit codes: 0 complete turn · 1 unreadable stream or provider error · 2 usage · 3 incomplete turn
`;

const INSPECT_HELP = `Usage: argstream inspect [--provider <name>] [--view <view>] [--json] [file|-]

Decode a provider's streaming response — a recorded file, or standard input (no file, or -) —
and print the chosen view as each chunk arrives.

  curl -N https://api.anthropic.com/v1/messages … | argstream inspect --provider anthropic
  argstream inspect --view fields turn.sse

Options:
  -p, --provider <name>  ${PROVIDERS.join(', ')}
                         (default: recognised from the first records)
      --view <view>      what to print (default: turn):
                           events     the provider's StreamEvents (ProviderEventStream)
                           fragments  each tool call's argument fragments (ToolCallProgressStream)
                           fields     field-start / field-delta / field-end (FieldEventStream)
                           paths      JSON Pointer path updates (PathUpdateStream)
                           turn       the turn as it streams: text, reasoning, each tool call's
                                      fields, then a summary with the exact arguments
  -j, --json             one JSON object per line (the view's events; for turn, the
                         conversation events and a last {"type":"turn"} summary)
  -h, --help             show this help

Exit codes:
  0  the turn is complete: the provider's finish arrived and every tool call's arguments are
     complete, valid JSON
  1  the stream cannot be read: not the provider's wire format, cut inside an event, an error
     the provider sent (an HTTP error body, an error event), or an unreadable file
  2  usage error
  3  the stream is well formed but the turn is not complete: no finish (cut off between
     events), or a tool call's arguments were cut off or invalid
`;

const REPLAY_HELP = `Usage: argstream replay <file> [--provider <name>] [--host 127.0.0.1] [--port N] [--delay ms] [--status N]

Serve a recorded provider response on the provider's endpoint path, so that an official SDK
(pointed at it with its base URL option), curl or fetch can stream it as from the real API.

Options:
  -p, --provider <name>  ${PROVIDERS.join(', ')}
                         (default: recognised from the recording)
      --host <address>   address to listen on (default: 127.0.0.1, this machine only)
      --port <N>         port to listen on (default: a free one)
      --delay <ms>       pause between two provider events (default: 0)
      --chunk-size <N>   write N bytes at a time instead of one event at a time
      --status <N>       answer with this HTTP status; from 400 the recording is the error body
  -h, --help             show this help

Stops on Ctrl-C (SIGINT) or SIGTERM.
`;

/** stdout/stderr as {@link Output}s; a closed pipe (`| head`) ends the process quietly. */
function output(stream: NodeJS.WriteStream): Output {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
    throw error;
  });
  const color = stream.isTTY === true && process.env['NO_COLOR'] === undefined;
  const columns = stream.isTTY === true ? stream.columns : undefined;
  return { write: (text) => void (text === '' || stream.write(text)), color, columns };
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}

function providerOption(value: string | undefined): ProviderName | undefined {
  if (value === undefined) return undefined;
  if (!(PROVIDERS as readonly string[]).includes(value)) {
    throw new UsageError(`unknown provider ${JSON.stringify(value)}; use one of ${PROVIDERS.join(', ')}`);
  }
  return value as ProviderName;
}

function integerOption(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isInteger(number) || number < min || number > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** Run `parseArgs`, with its errors as usage errors. */
function parse<R>(run: () => R): R {
  try {
    return run();
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.replace(/\s*\n\s*/g, ' ') : String(error));
  }
}

async function runInspect(args: string[], stdout: Output, stderr: Output): Promise<number> {
  const { values, positionals } = parse(() =>
    parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        provider: { type: 'string', short: 'p' },
        view: { type: 'string' },
        json: { type: 'boolean', short: 'j' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    stdout.write(INSPECT_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError(`inspect reads one input, got ${positionals.length}: ${positionals.join(' ')}`);
  const view = (values.view ?? 'turn') as View;
  if (!VIEWS.includes(view)) throw new UsageError(`unknown view ${JSON.stringify(values.view)}; use one of ${VIEWS.join(', ')}`);
  const input = positionals[0];
  if ((input === undefined || input === '-') && process.stdin.isTTY) {
    throw new UsageError('no input: give a recording file, or pipe a stream into standard input');
  }
  return inspect(
    { provider: providerOption(values.provider), view, json: values.json === true, input },
    stdout,
    stderr,
    process.stdin,
  );
}

/** What to paste to reach the server: a curl line and the SDK's base URL option. */
function howToReach(provider: ReplayProvider, url: string): { path: string; sdk: string } {
  switch (provider) {
    case 'anthropic':
      return { path: '/v1/messages', sdk: `new Anthropic({ baseURL: '${url}', apiKey: 'replay' })` };
    case 'openai-chat':
      return { path: '/v1/chat/completions', sdk: `new OpenAI({ baseURL: '${url}/v1', apiKey: 'replay' })` };
    case 'openai-responses':
      return { path: '/v1/responses', sdk: `new OpenAI({ baseURL: '${url}/v1', apiKey: 'replay' })` };
    case 'gemini':
      return {
        path: '/v1beta/models/replay:streamGenerateContent?alt=sse',
        sdk: `new GoogleGenAI({ apiKey: 'replay', httpOptions: { baseUrl: '${url}' } })`,
      };
    case 'ollama':
      return { path: '/api/chat', sdk: `new Ollama({ host: '${url}' })` };
    case 'bedrock':
      return { path: '/model/replay/converse-stream', sdk: `new BedrockRuntimeClient({ endpoint: '${url}' })` };
    case 'cohere':
      return { path: '/v2/chat', sdk: `new CohereClientV2({ token: 'replay', environment: '${url}' })` };
    case 'gemini-interactions':
      return { path: '/v1beta/interactions', sdk: `new GoogleGenAI({ apiKey: 'replay', httpOptions: { baseUrl: '${url}' } })` };
    default:
      return { path: '/', sdk: '' };
  }
}

async function runReplay(args: string[], stdout: Output, stderr: Output): Promise<number> {
  const { values, positionals } = parse(() =>
    parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        provider: { type: 'string', short: 'p' },
        host: { type: 'string' },
        port: { type: 'string' },
        delay: { type: 'string' },
        'chunk-size': { type: 'string' },
        status: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    stdout.write(REPLAY_HELP);
    return EXIT.ok;
  }
  const file = positionals[0];
  if (file === undefined) throw new UsageError('replay needs a recording file');
  if (positionals.length > 1) throw new UsageError(`replay serves one recording, got ${positionals.length}: ${positionals.join(' ')}`);
  const port = integerOption('port', values.port, 0, 65535);
  const delay = integerOption('delay', values.delay, 0, 3_600_000);
  const chunkSize = integerOption('chunk-size', values['chunk-size'], 1, 2 ** 31);
  const status = integerOption('status', values.status, 200, 599);
  let provider = providerOption(values.provider);
  let recording: Uint8Array;
  try {
    recording = await readFile(file);
  } catch (error) {
    stderr.write(`argstream: ${terminalText(`cannot read ${file}: ${describeError(error)}`, 'show')}\n`);
    return EXIT.error;
  }
  provider ??= guessProvider(recording);
  if (provider === undefined) {
    throw new UsageError(`cannot tell which provider ${file} comes from; pass --provider (${PROVIDERS.join(', ')})`);
  }
  let server: Awaited<ReturnType<typeof startReplayServer>>;
  try {
    server = await startReplayServer({
      recording,
      provider: provider as ReplayProvider,
      host: values.host ?? '127.0.0.1',
      ...(port === undefined ? {} : { port }),
      ...(delay === undefined ? {} : { chunkDelayMs: delay }),
      ...(chunkSize === undefined ? {} : { chunkSize }),
      ...(status === undefined ? {} : { status }),
    });
  } catch (error) {
    stderr.write(`argstream: cannot start the replay server: ${terminalText(describeError(error), 'show')}\n`);
    return EXIT.error;
  }
  const { path, sdk } = howToReach(provider as ReplayProvider, server.url);
  stdout.write(
    [
      `argstream replay: serving ${terminalText(file, 'show')} (${provider}, ${recording.length} bytes) at ${server.url}`,
      `  endpoint  ${server.endpoints.join(', ')}`,
      `  curl      curl -N -X POST -H 'content-type: application/json' -d '{}' '${server.url}${path}'`,
      `  SDK       ${sdk}`,
      `  inspect   curl -sN -X POST -d '{}' '${server.url}${path}' | npx argstream inspect --provider ${provider}`,
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  return EXIT.ok;
}

async function main(argv: string[]): Promise<number> {
  const stdout = output(process.stdout);
  const stderr = output(process.stderr);
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'inspect':
        return await runInspect(rest, stdout, stderr);
      case 'replay':
        return await runReplay(rest, stdout, stderr);
      case '-h':
      case '--help':
      case 'help':
        stdout.write(HELP);
        return EXIT.ok;
      case '-v':
      case '--version':
        stdout.write(`${version()}\n`);
        return EXIT.ok;
      case undefined:
        stderr.write(HELP);
        return EXIT.usage;
      default:
        throw new UsageError(
          command.startsWith('-') ? `unknown option ${JSON.stringify(command)}` : `unknown command ${JSON.stringify(command)}; use inspect or replay`,
        );
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const scope = command === 'inspect' || command === 'replay' ? ` ${command}` : '';
    // A usage error quotes the command line (a file name, an option's value): shown, not obeyed.
    stderr.write(`argstream${scope}: ${terminalText(error.message, 'show')} (see argstream${scope} --help)\n`);
    return EXIT.usage;
  }
}

process.exitCode = await main(process.argv.slice(2));
