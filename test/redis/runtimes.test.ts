/**
 * `argstream/redis` on the runtimes it claims besides Node: Bun and Deno run node-redis through
 * their Node compatibility, and RedisEventLog on it (test/redis/runtime-check.ts) against a real
 * redis-server. Skipped, saying why, where redis-server or the runtime (test/runtimes/) is
 * missing; in CI it fails instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, localBin, notInstalled } from '../runtimes/harness.ts';
import { IN_CI, skipWithoutRedis, startRedis, type RedisServer } from './redis-server.ts';

const skip = skipWithoutRedis();

describe.skipIf(skip)('RedisEventLog on Bun and Deno, on redis-server', () => {
  let server: RedisServer;

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const runtimes: ReadonlyArray<[string, string[]]> = [
    ['bun', ['test/redis/runtime-check.ts']],
    ['deno', ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', 'test/redis/runtime-check.ts']],
  ];
  for (const [name, args] of runtimes) {
    it(`RedisEventLog runs on ${name}: keepStream, a live reader and a resume on another instance, a stop, a hostile id`, async (context) => {
      const bin = localBin(name);
      if (bin === undefined) {
        if (IN_CI) throw new Error(`${name} is required in CI: ${notInstalled(name)}`);
        context.skip(notInstalled(name));
        return;
      }
      const result = await execute(bin, [...args, server.url], { timeoutMs: 90_000 });
      const line = result.stdout.split('\n').find((text) => text.startsWith('runtime-check '));
      expect(line, `${name} printed no result: ${result.stdout}\n${result.stderr}`).toBeDefined();
      const seen = JSON.parse((line as string).slice('runtime-check '.length)) as Record<string, unknown>;
      expect(seen).toEqual({
        outcome: 'ended',
        followed: [...Array.from({ length: 40 }, (_, i) => i + 1), 'end'],
        resumed: [36, 37, 38, 39, 40].map((n) => ({ type: 'field-delta', key: 'content', text: `line ${n} é\n` })),
        stop: 204,
        stopped: 'stopped',
        cancelled: 'stopped',
        hostile: 400,
      });
      expect(result.code).toBe(0);
    }, 120_000);
  }
});
