/**
 * The Deno script example (examples/deno/main.ts), run by the deno binary as its README says,
 * against a local replay server serving a recording: it prints each argument as its field
 * completes, then the call; an HTTP error reads as the provider's message. Skipped, saying what
 * to install, when deno is missing — failed instead in CI.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, type TestContext } from 'vitest';
import { startReplayServer } from '../../src/cli/replay-server.ts';
import { manifestEntry } from '../manifest.ts';
import { execute, localBin, notInstalled } from '../runtimes/harness.ts';
import { FIXTURES } from '../helpers.ts';

const EXAMPLE_DIR = fileURLToPath(new URL('../../examples/deno/', import.meta.url));
const IN_CI = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false' && process.env['CI'] !== '0';

/** The deno binary, or a skip (a failure in CI) saying what to install. */
function deno(context: TestContext): string {
  const bin = localBin('deno');
  if (bin !== undefined) return bin;
  const missing = notInstalled('deno');
  if (IN_CI) throw new Error(`deno is required in CI: ${missing}`);
  console.warn(`skipped the Deno example: ${missing}`);
  context.skip(`deno is not installed here: ${missing}`);
  throw new Error('unreachable');
}

describe('examples/deno', () => {
  it('streams a recorded Anthropic turn from a replay server and prints each field as it completes, then each call', async (context) => {
    const bin = deno(context);
    const recording = manifestEntry('anthropic/text-then-2-parallel-tool-use.sse');
    const server = await startReplayServer({ recording: readFileSync(`${FIXTURES}providers/${recording.file}`), provider: 'anthropic' });
    try {
      const result = await execute(bin, ['run', '--no-prompt', '--allow-net', 'main.ts', server.url], { cwd: EXAMPLE_DIR, timeoutMs: 60_000 });
      expect(result.stderr.replace(/\x1b\[[0-9;]*m/g, '')).not.toMatch(/error/i);
      expect(result.code).toBe(0);
      const lines = result.stdout.split('\n');
      for (const call of recording.toolCalls) {
        const args = JSON.parse(call.args) as Record<string, unknown>;
        const done = lines.indexOf(`✓ ${call.name}(${JSON.stringify(args)})`);
        expect(done, `✓ ${call.name} in\n${result.stdout}`).not.toBe(-1);
        for (const [key, value] of Object.entries(args)) {
          const field = lines.indexOf(`  ${call.name}.${key} = ${JSON.stringify(value)}`);
          expect(field, `${call.name}.${key} in\n${result.stdout}`).not.toBe(-1);
          // Each field is printed when it completes, before the call is.
          expect(field).toBeLessThan(done);
        }
      }
      expect(lines).toContain('finished: tool-calls');
    } finally {
      await server.close();
    }
  });

  it('an HTTP error: exit 1 with the status and the provider\'s type and message', async (context) => {
    const bin = deno(context);
    const body = new TextEncoder().encode('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    const server = await startReplayServer({ recording: body, provider: 'anthropic', status: 529 });
    try {
      const result = await execute(bin, ['run', '--no-prompt', '--allow-net', 'main.ts', server.url], { cwd: EXAMPLE_DIR, timeoutMs: 60_000 });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^anthropic .*529.*overloaded_error.*Overloaded\n$/);
    } finally {
      await server.close();
    }
  });

  it('type-checks under deno check (Deno\'s own types and defaults)', async (context) => {
    const bin = deno(context);
    const result = await execute(bin, ['check', 'main.ts'], { cwd: EXAMPLE_DIR, timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
  });
});
