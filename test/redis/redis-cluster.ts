/**
 * A real Redis Cluster for the tests: `masters` primaries with `replicas` replicas each, every
 * node a `redis-server --cluster-enabled yes` on a free loopback port (and a free cluster bus
 * port) with a temporary directory, joined by `redis-cli --cluster create`; ready once every node
 * says `cluster_state:ok` and every replica is in sync. Nodes are killed by pid (SIGKILL), as a
 * crash does, for the failover tests.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort, spawnGroup, type GroupProcess } from '../runtimes/harness.ts';
import { IN_CI, redisMissing, redisServerBinary, skipWithoutRedis } from './redis-server.ts';

/** redis-cli beside redis-server (Debian's redis-server brings redis-tools; Homebrew installs both). */
export function redisCliBinary(): string | undefined {
  const server = redisServerBinary();
  if (server === undefined) return undefined;
  const cli = join(dirname(server), 'redis-cli');
  try {
    accessSync(cli, constants.X_OK);
    return cli;
  } catch {
    return undefined;
  }
}

/**
 * `describe`'s skip flag for the cluster tests: as `skipWithoutRedis`, and redis-cli is needed
 * too (to join the nodes) — skipped with a warning where it is missing, a failure in CI.
 */
export function skipWithoutCluster(): boolean {
  if (skipWithoutRedis()) return true;
  if (redisCliBinary() !== undefined) return false;
  const why = 'redis-cli is not installed beside redis-server: `apt-get install redis-tools` (Debian/Ubuntu) to run the Redis Cluster tests';
  if (IN_CI) throw new Error(`redis-cli is required in CI: ${why}`);
  console.warn(`skipped: ${why}`);
  return true;
}

export interface ClusterNode {
  readonly port: number;
  readonly url: string;
  /** Its cluster node id. */
  readonly id: string;
  /** Whether it serves slots now (a replica promoted by a failover is one). */
  master(): Promise<boolean>;
  alive(): boolean;
  /** Kill it at once (SIGKILL), as a crash does. */
  kill(): Promise<void>;
  /** Start it again, on its port with its cluster config: a master that was failed over rejoins as a replica. */
  restart(): Promise<void>;
  /** Stop it (SIGSTOP): it neither answers nor replicates; its connections stay open. */
  pause(): void;
  /** Let it run again (SIGCONT). */
  resume(): void;
}

export interface RedisCluster {
  readonly nodes: readonly ClusterNode[];
  /** The nodes to give a cluster client to start from (it discovers the rest). */
  readonly rootNodes: ReadonlyArray<{ host: string; port: number }>;
  /** `redis-cli` against a node: its output. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The node that serves `key`'s slot now (the master). */
  masterOf(key: string): Promise<ClusterNode>;
  /** The replica of `master` (its first). */
  replicaOf(master: ClusterNode): Promise<ClusterNode>;
  /** Poll `check` every 50 ms until it holds, for at most `ms`. */
  waitFor(check: () => Promise<boolean>, ms: number, what: string): Promise<void>;
  /** Wait until every live node says `cluster_state:ok`, every master that serves slots has its replicas, and every replica is in sync. */
  healthy(ms: number): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Start a cluster: `masters` primaries, `replicas` replicas of each. `nodeTimeoutMs` is Redis's
 * `cluster-node-timeout`: a master that stops answering is failed over after it (plus an election).
 */
export async function startCluster(options: { masters?: number; replicas?: number; nodeTimeoutMs?: number } = {}): Promise<RedisCluster> {
  const binary = redisServerBinary();
  const cliBinary = redisCliBinary();
  if (binary === undefined || cliBinary === undefined) throw new Error(redisMissing());
  const masters = options.masters ?? 3;
  const replicas = options.replicas ?? 1;
  const dir = mkdtempSync(join(tmpdir(), 'argstream-cluster-'));
  const count = masters * (1 + replicas);
  const cli = (port: number, ...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile(cliBinary, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 20_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}${stderr}`)) : resolve(stdout)));
    });
  const processes: GroupProcess[] = [];
  const ports: number[] = [];
  const argsOf: string[][] = [];
  try {
    for (let i = 0; i < count; i++) {
      // The cluster bus on a port of its own (not port + 10000, which may be taken or out of range).
      const port = await freePort();
      let bus = await freePort();
      while (bus === port) bus = await freePort();
      const nodeDir = join(dir, String(port));
      mkdirSync(nodeDir);
      const args = [
          '--port', String(port),
          '--cluster-port', String(bus),
          '--bind', '127.0.0.1',
          '--cluster-enabled', 'yes',
          '--cluster-config-file', join(nodeDir, 'nodes.conf'),
          '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 1000),
          // A replica takes over however long it has been cut off: the tests kill masters, not links.
          '--cluster-replica-validity-factor', '0',
          '--save', '',
          '--appendonly', 'no',
          '--dir', nodeDir,
          '--daemonize', 'no',
          '--protected-mode', 'yes',
          '--loglevel', 'warning',
        ];
      argsOf.push(args);
      processes.push(spawnGroup(binary, args));
      ports.push(port);
    }
    for (const [i, port] of ports.entries()) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        if (!(processes[i] as GroupProcess).alive()) throw new Error(`redis-server on ${port} exited: ${(processes[i] as GroupProcess).output()}`);
        if ((await cli(port, 'PING').catch(() => '')).trim() === 'PONG') break;
        if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not answer`);
        await sleep(25);
      }
    }
    await cli(ports[0] as number, '--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', String(replicas), '--cluster-yes');
  } catch (error) {
    for (const process of processes) await process.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const info = async (port: number) => Object.fromEntries((await cli(port, 'CLUSTER', 'INFO')).split(/\r?\n/).filter((l) => l.includes(':')).map((l) => l.split(':') as [string, string]));
  const ids = await Promise.all(ports.map(async (port) => (await cli(port, 'CLUSTER', 'MYID')).trim()));
  const nodes: ClusterNode[] = ports.map((port, i) => ({
    port,
    url: `redis://127.0.0.1:${port}`,
    id: ids[i] as string,
    async master() {
      return /^role:master/m.test(await cli(port, 'INFO', 'replication'));
    },
    alive: () => (processes[i] as GroupProcess).alive(),
    kill: () => (processes[i] as GroupProcess).stop(),
    async restart() {
      processes[i] = spawnGroup(binary, argsOf[i] as string[]);
      const deadline = Date.now() + 10_000;
      while ((await cli(port, 'PING').catch(() => '')).trim() !== 'PONG') {
        if (!(processes[i] as GroupProcess).alive() || Date.now() > deadline) throw new Error(`redis-server on ${port} did not come back: ${(processes[i] as GroupProcess).output()}`);
        await sleep(25);
      }
    },
    pause: () => process.kill((processes[i] as GroupProcess).pid, 'SIGSTOP'),
    resume: () => process.kill((processes[i] as GroupProcess).pid, 'SIGCONT'),
  }));
  const live = () => nodes.filter((node) => node.alive());

  const cluster: RedisCluster = {
    healthy: async () => {},
    nodes,
    rootNodes: ports.slice(0, masters).map((port) => ({ host: '127.0.0.1', port })),
    cli,
    async masterOf(key) {
      const slot = (await cli((live()[0] as ClusterNode).port, 'CLUSTER', 'KEYSLOT', key)).trim();
      // CLUSTER NODES, as the live node sees it: "<id> <ip:port@bus> <flags> <master> … <slot ranges>"
      const table = await cli((live()[0] as ClusterNode).port, 'CLUSTER', 'NODES');
      for (const line of table.split('\n')) {
        const parts = line.trim().split(' ');
        if (parts.length < 8 || !(parts[2] ?? '').includes('master') || (parts[2] ?? '').includes('fail')) continue;
        for (const range of parts.slice(8)) {
          const [from, to] = range.split('-').map(Number) as [number, number | undefined];
          if (Number(slot) >= from && Number(slot) <= (to ?? from)) {
            const node = nodes.find((n) => n.id === parts[0]);
            if (node !== undefined) return node;
          }
        }
      }
      throw new Error(`no master serves slot ${slot}`);
    },
    async replicaOf(master) {
      const table = await cli(master.port, 'CLUSTER', 'NODES');
      for (const line of table.split('\n')) {
        const parts = line.trim().split(' ');
        if (parts[3] === master.id) {
          const node = nodes.find((n) => n.id === parts[0]);
          if (node !== undefined && node.alive()) return node;
        }
      }
      throw new Error(`no replica of ${master.port}`);
    },
    async waitFor(check, ms, what) {
      const deadline = Date.now() + ms;
      while (!(await check().catch(() => false))) {
        if (Date.now() > deadline) throw new Error(`the cluster did not reach: ${what} within ${ms} ms`);
        await sleep(50);
      }
    },
    async stop() {
      for (const node of nodes) if (node.alive()) node.resume();
      for (const process of processes) await process.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.healthy = (ms) =>
    cluster.waitFor(async () => {
      for (const node of live()) {
        if ((await info(node.port))['cluster_state'] !== 'ok') return false;
        const replication = await cli(node.port, 'INFO', 'replication');
        if (/^role:slave/m.test(replication) && !/^master_link_status:up/m.test(replication)) return false;
        if (/^role:master/m.test(replication) && Number(/^connected_slaves:(\d+)/m.exec(replication)?.[1] ?? 0) < replicas) return false;
      }
      return true;
    }, ms, 'cluster_state:ok on every node, every master with its replicas, every replica in sync');
  // Ready: every node sees the cluster ok, and every replica has caught up with its master.
  await cluster.healthy(30_000);
  return cluster;
}
