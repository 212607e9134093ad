/**
 * Shared by the SDK tests: a replay server per recording (closed after the test), and the
 * comparison of argstream's turn with an SDK's own result. Nothing here reaches the network: every
 * client gets a fake key and the replay server's URL.
 */
import { afterEach } from 'vitest';
import { startReplayServer, type ReplayProvider, type ReplayServer } from '../../src/cli/replay-server.ts';
import { readFixture } from '../helpers.ts';
import type { Turn } from '../../src/sinks/collect-turn.ts';

const servers: ReplayServer[] = [];

/** Close the servers a test started. Call once at the top of a test file. */
export function closeServersAfterEach(): void {
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
}

/** Serve `providers/<file>` on 127.0.0.1 for the current test. */
export async function replay(file: string, provider: ReplayProvider, options: { chunkSize?: number; status?: number } = {}): Promise<ReplayServer> {
  const server = await startReplayServer({ recording: readFixture(`providers/${file}`), provider, ...options });
  servers.push(server);
  return server;
}

/** A tool call as both sides are compared: id, name and parsed arguments. */
export interface ComparedCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: unknown;
}

/** argstream's complete tool calls, in order. */
export function turnCalls(turn: Turn): ComparedCall[] {
  return turn.toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, arguments: call.arguments }));
}
