/**
 * The turns of the resume bench, shared by its provider (which replays them) and its clients
 * (which check what they receive against them): Anthropic Messages SSE, as lists of SSE events.
 *
 * - Recorded: six recordings from test/fixtures/providers/anthropic (text, thinking, parallel
 *   calls, a server tool with escapes and emoji, a call cut by `max_tokens`), replayed byte for
 *   byte — 14 to 118 events each, so the provider spreads them over a turn's length (a model
 *   that pauses between events, as one does while it thinks).
 * - Scripted: a `write_file` call built as the API streams one (a short text block, then the
 *   call's JSON in `input_json_delta` pieces of 120–320 characters cut anywhere, escapes and
 *   non-ASCII included), of `SCRIPTED_SIZES` events: long turns at a provider's pace, with the
 *   arguments' bytes to make Redis memory and CPU per relayed MB figures of a real workload.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const RECORDINGS = [
  'text-then-tool-use.sse',
  'text-ping-then-tool-use.sse',
  'text-then-2-parallel-tool-use.sse',
  'server-tool-use-code-execution-escapes-emoji.sse',
  'thinking-then-text.sse',
  'tool-use-truncated-max-tokens.sse',
] as const;

/** The scripted turns' lengths, in `input_json_delta` events. */
export const SCRIPTED_SIZES = [45, 48, 51, 54, 57, 60] as const;

export interface Turn {
  readonly name: string;
  readonly recorded: boolean;
  /** Its SSE events, each `event: …\ndata: …\n\n`. */
  readonly events: readonly string[];
}

/** Deterministic choices. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sse(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

const WORDS = ['state', 'value', 'stream', 'reader', 'chunk', 'offset', 'turn', 'event', 'buffer', 'limit', 'résumé', 'naïve', 'id', 'path'];

/** A source file's lines: code with quotes, backslashes, tabs, non-ASCII and the odd emoji. */
function sourceLine(random: () => number, n: number): string {
  const word = () => WORDS[Math.floor(random() * WORDS.length)] as string;
  switch (Math.floor(random() * 6)) {
    case 0:
      return `export function ${word()}${n}(${word()}: string, limit = ${Math.floor(random() * 1000)}): string {`;
    case 1:
      return `\tconst ${word()}${n} = "${word()} \\"${word()}\\" ${word()}";`;
    case 2:
      return `\tif (${word()}.length > limit) throw new RangeError(\`${word()} too long: \${${word()}.length}\`);`;
    case 3:
      return `\t// ${word()} → ${word()}: ${random() < 0.3 ? '🚀 ' : ''}keep the ${word()} as it was (C:\\\\${word()}\\\\${word()})`;
    case 4:
      return `\treturn ${word()}.replace(/\\s+/g, ' ') + '\\n';`;
    default:
      return '}';
  }
}

/** A scripted `write_file` turn of `deltas` input_json_delta events (10–13 KB of arguments for 45–60). */
function scripted(deltas: number, seed: number): Turn {
  const random = rng(seed);
  const name = `write-file-${deltas}`;
  const pieces: string[] = [];
  // The call's JSON: the content grows until it fills `deltas` pieces of 40–120 characters.
  const lines: string[] = [];
  let target = 0;
  const sizes: number[] = [];
  for (let i = 0; i < deltas; i++) {
    const size = 120 + Math.floor(random() * 201);
    sizes.push(size);
    target += size;
  }
  const path = `src/generated/module-${deltas}.ts`;
  let json = JSON.stringify({ path, content: '' });
  while (json.length < target) {
    lines.push(sourceLine(random, lines.length));
    json = JSON.stringify({ path, content: `${lines.join('\n')}\n` });
  }
  // Cut by code points (a piece never splits a surrogate pair); the last piece takes the rest.
  const points = Array.from(json);
  let at = 0;
  for (let i = 0; i < sizes.length && at < points.length; i++) {
    const size = i === sizes.length - 1 ? points.length - at : (sizes[i] as number);
    pieces.push(points.slice(at, at + size).join(''));
    at += size;
  }
  if (at < points.length) pieces.push(points.slice(at).join(''));
  const id = `bench${String(deltas).padStart(4, '0')}`;
  const text = [`I'll write `, `\`${path}\` with the `, `module you asked for.`];
  const events = [
    sse('message_start', { type: 'message_start', message: { id: `msg_${id}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 812, output_tokens: 1 } } }),
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ...text.map((t) => sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } })),
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: `toolu_${id}`, name: 'write_file', input: {} } }),
    ...pieces.map((partial) => sse('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: partial } })),
    sse('content_block_stop', { type: 'content_block_stop', index: 1 }),
    sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: Math.ceil(json.length / 4) } }),
    sse('message_stop', { type: 'message_stop' }),
  ];
  return { name, recorded: false, events };
}

/** Every turn, by name: the recordings read from `fixtures` (the Anthropic folder), the scripted ones built. */
export function loadTurns(fixtures: string): Map<string, Turn> {
  const turns = new Map<string, Turn>();
  for (const name of RECORDINGS) {
    const text = readFileSync(join(fixtures, name), 'utf8');
    turns.set(name, { name, recorded: true, events: text.split(/(?<=\n\n)/).filter((e) => e.trim() !== '') });
  }
  for (const size of SCRIPTED_SIZES) {
    const turn = scripted(size, 7919 * size);
    turns.set(turn.name, turn);
  }
  return turns;
}

/** One request the scripted provider answered, as it reports them to the bench (GET /requests). */
export interface ProviderRequest {
  client: number;
  relay: string;
  startedAt: number;
  finishedAt: number | undefined;
  how: 'running' | 'completed' | 'cancelled';
}
