/**
 * Error messages stay short whatever the input: they quote at most a short excerpt and a
 * shortened path. A JsonStreamError's message is at most 200 characters, a ToolCallArgumentsError's
 * 300, a ProviderError's 500 (the provider's own text, whose whole body stays on `cause`).
 */
import { describe, expect, it } from 'vitest';
import { JsonStreamError, ProviderError, ToolCallArgumentsError } from '../../src/index.ts';
import { runStream } from '../providers/event-stream-helpers.ts';
import { parseFragments, parseValue, thrown } from './json-helpers.ts';

const both = (text: string, options = {}): JsonStreamError[] => [thrown(() => parseValue([text], options)), thrown(() => parseFragments([text], options))];

describe('error messages are bounded', () => {
  it('a 1 MB key: the message quotes a shortened path, error.path keeps the whole key', () => {
    const key = 'k'.repeat(1_000_000);
    for (const error of both(`{"${key}":x}`)) {
      expect(error).toBeInstanceOf(JsonStreamError);
      expect(error.code).toBe('invalid-json');
      expect(error.path).toBe(`/${key}`);
      expect(error.message.length).toBeLessThanOrEqual(200);
      expect(error.message).toMatch(/^Unexpected 'x' at offset 1000004 in \/k+…k+: expected a value$/);
    }
  });

  it('a 100,000-deep document: the message is short, the path whole', () => {
    const text = '['.repeat(100_000) + 'x';
    const error: JsonStreamError = thrown(() => parseValue([text], { maxDepth: Infinity }));
    expect(error.code).toBe('invalid-json');
    expect(error.path).toBe('/0'.repeat(100_000));
    expect(error.message.length).toBeLessThanOrEqual(200);
    // Both engines at that depth: a deep fragment builds its wrappers only when read.
    for (const error of both(text, { maxDepth: Infinity })) {
      expect(error.path).toBe('/0'.repeat(100_000));
      expect(error.message.length).toBeLessThanOrEqual(200);
    }
  });

  it('the default max-depth error is short', () => {
    for (const error of both('['.repeat(300))) {
      expect(error.code).toBe('max-depth');
      expect(error.path).toBe('/0'.repeat(256));
      expect(error.message.length).toBeLessThanOrEqual(200);
      expect(error.message).toMatch(/^Nesting deeper than maxDepth \(256\) at offset 256 in \/0\/0.*….*\/0$/);
    }
  });

  it('max-string-length and unexpected-end deep inside long keys are short', () => {
    const deep = '{"' + 'a'.repeat(5000) + '":'.repeat(1) + '[{"' + 'b'.repeat(5000) + '":"';
    for (const error of both(deep + 'x'.repeat(20), { maxStringLength: 10_000 })) {
      expect(error.code).toBe('unexpected-end');
      expect(error.message.length).toBeLessThanOrEqual(200);
    }
    for (const error of both(deep + 'x'.repeat(20), { maxStringLength: 10 })) {
      expect(error.code).toBe('max-string-length');
      expect(error.message.length).toBeLessThanOrEqual(200);
    }
  });

  it('a JsonStreamError built with a long message is capped, never cutting a surrogate pair', () => {
    const error = new JsonStreamError('invalid-json', 'x'.repeat(198) + '😀'.repeat(1000), 0, '');
    expect(error.message.length).toBeLessThanOrEqual(200);
    expect(error.message.endsWith('…')).toBe(true);
    expect(/[\ud800-\udbff]…$/.test(error.message)).toBe(false);
  });

  it('ToolCallArgumentsError quotes a short id and name, and a capped cause', () => {
    const cause = both(`{"${'k'.repeat(100_000)}":x}`)[0]!;
    const error = new ToolCallArgumentsError('c'.repeat(100_000), 'n'.repeat(100_000), 3, cause);
    expect(error.message.length).toBeLessThanOrEqual(300);
    expect(error.message).toContain(cause.message);
    expect(error.message.startsWith(`Invalid arguments for tool call ${'c'.repeat(30)}…`)).toBe(true);
    expect(error.toolCallId).toBe('c'.repeat(100_000));
    expect(error.cause).toBe(cause);
  });

  it('a provider error event with a 1 MB message and type gives a ProviderError of at most 500 characters', async () => {
    const message = 'm'.repeat(1_000_000);
    const type = 't'.repeat(100_000);
    const text = `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`;
    const { error } = await runStream('anthropic', [text]);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).type).toBe(type);
    expect((error as ProviderError).message.length).toBeLessThanOrEqual(500);
    expect((error as ProviderError).message.startsWith('mmm')).toBe(true);
    const built = new ProviderError('openai-chat', 'server_error', message);
    expect(built.message.length).toBeLessThanOrEqual(500);
  });
});
