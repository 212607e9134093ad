/**
 * A real `redis-server` for the tests: started on a free loopback port with a temporary
 * directory, stopped (or killed and restarted, for the fault tests) by its pid.
 */
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort, spawnGroup, withTimeout, type GroupProcess } from '../runtimes/harness.ts';

export const IN_CI = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false' && process.env['CI'] !== '0';

/** The redis-server binary on PATH (or /usr/bin, /usr/local/bin), or `undefined`. */
export function redisServerBinary(): string | undefined {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/bin', '/usr/local/bin', '/usr/sbin'];
  for (const dir of dirs) {
    if (dir === '') continue;
    const path = join(dir, 'redis-server');
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not there
    }
  }
  return undefined;
}

/** Why the Redis tests cannot run here (and what to install), or `undefined` when they can. */
export function redisMissing(): string | undefined {
  return redisServerBinary() === undefined
    ? 'redis-server is not installed: `apt-get install redis-server` (Debian/Ubuntu; `brew install redis` on macOS) to run the Redis event log tests'
    : undefined;
}

/**
 * `describe`'s skip flag for the Redis tests: skipped (with a warning saying what to install)
 * where redis-server is missing — except in CI, where a missing redis-server fails the run.
 */
export function skipWithoutRedis(): boolean {
  const why = redisMissing();
  if (why === undefined) return false;
  if (IN_CI) throw new Error(`redis-server is required in CI: ${why}`);
  console.warn(`skipped: ${why}`);
  return true;
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Kill it at once (SIGKILL), as a crash does. */
  kill(): Promise<void>;
  /** Stop it answering (SIGSTOP): its connections stay open, nothing comes back — a hung server, a partition. */
  pause(): void;
  /** Let it answer again (SIGCONT). */
  resume(): void;
  /** Start it again on the same port and directory (with `appendonly`, it reloads its data). */
  restart(): Promise<void>;
  /** Stop it and remove its directory. */
  stop(): Promise<void>;
}

/**
 * Start `redis-server` on a free 127.0.0.1 port with its own temporary directory: no RDB
 * snapshots, and no append-only file unless `persistent` (then `appendfsync always`, so a killed
 * server loses nothing).
 */
export async function startRedis(options: { persistent?: boolean } = {}): Promise<RedisServer> {
  const binary = redisServerBinary();
  if (binary === undefined) throw new Error(redisMissing());
  const dir = mkdtempSync(join(tmpdir(), 'argstream-redis-'));
  const port = await freePort();
  const args = [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--save', '',
    '--appendonly', options.persistent === true ? 'yes' : 'no',
    ...(options.persistent === true ? ['--appendfsync', 'always'] : []),
    '--dir', dir,
    '--daemonize', 'no',
    '--protected-mode', 'yes',
    '--loglevel', 'warning',
  ];
  let server: GroupProcess | undefined;
  const launch = async () => {
    const started = spawnGroup(binary, args);
    server = started;
    // Ready when it accepts a connection that answers PING.
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (!started.alive()) throw new Error(`redis-server exited: ${started.output()}`);
      if (await pings(port)) return;
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}: ${started.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      await server?.stop();
    },
    pause() {
      if (server !== undefined) process.kill(server.pid, 'SIGSTOP');
    },
    resume() {
      if (server !== undefined) process.kill(server.pid, 'SIGCONT');
    },
    async restart() {
      await launch();
    },
    async stop() {
      if (server !== undefined && server.alive()) process.kill(server.pid, 'SIGCONT');
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether something on `port` answers `PING` with `+PONG`. */
async function pings(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return withTimeout(
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let reply = '';
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (data) => {
        reply += data.toString();
        if (reply.includes('\r\n')) {
          socket.destroy();
          resolve(reply.startsWith('+PONG'));
        }
      });
      socket.on('error', () => resolve(false));
    }),
    1000,
    'PING',
  ).catch(() => false);
}
