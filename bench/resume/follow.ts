/**
 * What a herd of followers costs a relay's RedisEventLog (`node bench/resume-follow.mjs
 * [--cluster] [--streams N]`): N streams are open, each with a producer; N readers join their
 * live tails at once — what a relay does when a dead relay's pages all resume on it — and each
 * producer appends an event 500 ms later, then one every 800 ms. Printed: how long the readers
 * took to be served what the streams hold (`read`, as serveStream does before its headers), to
 * follow (`read` with `follow`), and how long after each append its reader got it; this
 * process's CPU while they joined; and the clients connected to Redis after the run (`INFO clients`). On one
 * Redis every follower shares one blocking read; on a cluster each stream followed has a
 * blocking read and a connection of its own.
 */
import { createClient, createCluster } from 'redis';
import { RedisEventLog } from '../../src/bindings/redis.ts';
import { newStreamId } from '../../src/index.ts';
import { startRedis } from '../../test/redis/redis-server.ts';
import { startCluster } from '../../test/redis/redis-cluster.ts';

const CLUSTER = process.argv.includes('--cluster');
const at = process.argv.indexOf('--streams');
const STREAMS = at === -1 ? 500 : Number(process.argv[at + 1]);
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
const ms = (v: number) => `${v.toFixed(v >= 100 ? 0 : 1)} ms`;

const redis = CLUSTER ? undefined : await startRedis();
const cluster = CLUSTER ? await startCluster({ masters: 3, replicas: 1, nodeTimeoutMs: 1000 }) : undefined;
const connect = async () => {
  if (cluster !== undefined) {
    const client = createCluster({ rootNodes: cluster.nodes.map((n) => ({ url: n.url })) });
    client.on('error', () => {});
    await client.connect();
    return client;
  }
  const client = createClient({ url: redis!.url });
  client.on('error', () => {});
  await client.connect();
  return client;
};
// The producers on one log (relay A's own streams, say), the readers on another: the relay measured.
const producing = new RedisEventLog(await connect(), { prefix: 'follow', leaseMs: 20_000, commandTimeoutMs: 5_000, replicas: CLUSTER ? 1 : 0 });
const reading = new RedisEventLog(await connect(), { prefix: 'follow', leaseMs: 20_000, commandTimeoutMs: 5_000, replicas: CLUSTER ? 1 : 0 });
const ids = Array.from({ length: STREAMS }, () => newStreamId());
const producers = await Promise.all(ids.map((id) => producing.open(id)));
await Promise.all(producers.map((p) => p.append({ type: 'message', text: 'first' })));

const served: number[] = [];
const following: number[] = [];
const received: number[][] = ids.map(() => []);
const appendedAt: number[][] = ids.map(() => []);
const cpuBefore = process.cpuUsage();
const joined = performance.now();
const readers = ids.map(async (id, i) => {
  const start = performance.now();
  // serveStream: what the stream holds, then the live tail.
  for await (const _ of await reading.read(id, 0, { follow: false })) void _;
  served.push(performance.now() - start);
  const tail = await reading.read(id, 1, { follow: true });
  following.push(performance.now() - start);
  for await (const entry of tail) {
    if (entry.kind !== 'event') break;
    received[i]?.push(performance.now());
  }
});
const joinCpu = async () => {
  await delay(500);
  const cpu = process.cpuUsage(cpuBefore);
  return (cpu.user + cpu.system) / 1000;
};
const cpuAtFirstAppend = await joinCpu();
for (let round = 0; round < 5; round++) {
  await Promise.all(producers.map(async (p, i) => {
    appendedAt[i]?.push(performance.now());
    await p.append({ type: 'message', text: `event ${round}` });
  }));
  await delay(800);
}
await Promise.all(producers.map((p) => p.end()));
await Promise.all(readers);
const latencies: number[] = [];
const firstLatencies: number[] = [];
for (let i = 0; i < ids.length; i++) {
  const got = received[i] as number[];
  const sent = appendedAt[i] as number[];
  for (let k = 0; k < got.length; k++) {
    const latency = (got[k] as number) - (sent[k] as number);
    latencies.push(latency);
    if (k === 0) firstLatencies.push(latency);
  }
}
const clientsOf = async () => {
  if (cluster !== undefined) {
    let n = 0;
    for (const node of cluster.nodes) if (node.alive()) n += Number(/connected_clients:(\d+)/.exec(await cluster.cli(node.port, 'INFO', 'clients'))?.[1]);
    return n;
  }
  const one = createClient({ url: redis!.url });
  await one.connect();
  const info = String(await one.sendCommand(['INFO', 'clients']));
  one.destroy();
  return Number(/connected_clients:(\d+)/.exec(info)?.[1]);
};
console.log(
  `${CLUSTER ? 'cluster (3 masters, a replica each)' : 'one redis-server'}, ${STREAMS} readers joining at once: served what the stream holds p50 ${ms(percentile(served, 50))} p99 ${ms(percentile(served, 99))}; following p50 ${ms(percentile(following, 50))} p99 ${ms(percentile(following, 99))} (all within ${ms(Math.max(...following))} of the join); ` +
    `CPU of this process in the first 500 ms ${ms(cpuAtFirstAppend)}; append → reader: first event p50 ${ms(percentile(firstLatencies, 50))} p99 ${ms(percentile(firstLatencies, 99))}, all ${latencies.length} p50 ${ms(percentile(latencies, 50))} p99 ${ms(percentile(latencies, 99))}; Redis clients connected after the run ${await clientsOf()}; wall ${ms(performance.now() - joined)}`,
);
await producing.close();
await reading.close();
await redis?.stop();
await cluster?.stop();
process.exit(0);
