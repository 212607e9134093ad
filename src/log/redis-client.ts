/**
 * What `RedisEventLog` asks of a Redis client, and the adapters that give it from the clients
 * people use: node-redis (`createClient`, `createCluster`) and ioredis (`Redis`, `Cluster`),
 * recognised by their shape — nothing here imports either. Another client (or a Valkey client)
 * fits by implementing {@link RedisEventLogClient}.
 *
 * @module
 */

/**
 * A connection of the log's own, to one Redis node, for its blocking reads (`XREAD BLOCK`): a
 * blocking command holds its connection until it returns, so it never goes on a connection that
 * carries other commands.
 */
export interface RedisConnection {
  /** Send one command (`args[0]` its name) and resolve with Redis's reply; reject with Redis's error. */
  send(args: readonly string[]): Promise<unknown>;
  /** Close it at once (a command in flight is abandoned). */
  close(): void;
}

/** Options of {@link RedisEventLogClient.send}. */
export interface SendOptions {
  /**
   * How long the log waits for the reply (it gives up after, on its own clock). A client that can
   * drop a command not yet sent after a while (node-redis's `timeout`: a command queued while
   * disconnected) may use it, so that an outage does not pile up commands nobody waits for.
   */
  readonly timeoutMs?: number;
}

/**
 * What `RedisEventLog` needs of Redis, for a client the log does not know (another library, a
 * Valkey client, a wrapper with tracing): commands routed by key, and connections of its own for
 * blocking reads. node-redis and ioredis clients are adapted to it by the log itself.
 *
 * Replies are as Redis sends them: RESP2 arrays or RESP3 maps, strings (or bytes) and numbers;
 * a Lua `false` as `null` or `false`. Errors reject with Redis's error (its message starting with
 * its code: `NOSCRIPT …`, `MOVED …`) or the client's.
 * @example
 * ```ts
 * // A client of your own: commands by key, and a new connection for blocking reads.
 * const client: RedisEventLogClient = {
 *   cluster: false,
 *   send: (key, args) => mine.command(args),
 *   connection: async (key) => {
 *     const own = await mine.newConnection();
 *     return { send: (args) => own.command(args), close: () => own.end() };
 *   },
 * };
 * const log = new RedisEventLog(client);
 * ```
 */
export interface RedisEventLogClient {
  /**
   * Whether Redis is a Redis Cluster. The log then keeps every command within one hash slot: a
   * stream's keys share one (`{<streamId>}`), and its blocking reads go one slot at a time.
   */
  readonly cluster: boolean;
  /**
   * Send one command (`args[0]` its name) to the node serving `key`'s hash slot (`key` is the
   * first key the command names; in a cluster, follow `MOVED` as a cluster client does). A
   * `WAIT` (which names no key) is sent for `key` too: it must go over the same connection as the
   * writes to `key`'s slot before it, since Redis counts the replicas that acknowledged *that
   * connection's* writes.
   */
  send(key: string, args: readonly string[], options?: SendOptions): Promise<unknown>;
  /**
   * A new connection to the node serving `key`'s hash slot, for the log's blocking reads. The log
   * closes it when it no longer needs it, and asks for a new one after an error (the node may
   * have changed: a failover).
   */
  connection(key: string): Promise<RedisConnection>;
}

// ---------------------------------------------------------------------------------------------
// Hash slots

/** CRC16-CCITT (XMODEM) of `key`'s UTF-8 bytes: Redis Cluster's key hash. */
function crc16(key: string): number {
  let crc = 0;
  for (const byte of new TextEncoder().encode(key)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The Redis Cluster hash slot of `key` (0–16383): CRC16 of its hash tag — the text between its
 * first `{` and the next `}`, when that is not empty — or of the whole key. Every key of a
 * `RedisEventLog` stream has the tag `{<stream id>}`: one slot.
 * @example
 * ```ts
 * hashSlot('chat:{Q3v0xYqT9cS5oWb1nLr2hA}:e') === hashSlot('chat:{Q3v0xYqT9cS5oWb1nLr2hA}:m'); // true
 * hashSlot('foo'); // 12182, as `CLUSTER KEYSLOT foo` says
 * ```
 */
export function hashSlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % 16384;
  }
  return crc16(key) % 16384;
}

// ---------------------------------------------------------------------------------------------
// The shapes of the clients the log adapts (only what it uses)

/** A node-redis client (`createClient()` from the `redis` package), as much of it as the log uses. */
export interface NodeRedisClientLike {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  sendCommand(args: readonly string[], options?: { timeout?: number }): Promise<unknown>;
  duplicate(): NodeRedisClientLike;
  on(event: 'error', listener: (error: Error) => void): unknown;
  destroy(): void;
}

/** A node-redis cluster client (`createCluster()`), as much of it as the log uses. */
export interface NodeRedisClusterLike {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[], options?: { timeout?: number }): Promise<unknown>;
  readonly slots: ReadonlyArray<{ readonly master: unknown } | undefined>;
  nodeClient(node: never): NodeRedisClientLike | Promise<NodeRedisClientLike>;
}

/** An ioredis client (`new Redis()`), as much of it as the log uses. */
export interface IoRedisLike {
  readonly status: string;
  readonly options: { readonly keyPrefix?: string | undefined; readonly host?: string | undefined; readonly port?: number | undefined };
  connect(): Promise<unknown>;
  call(command: string, ...args: string[]): Promise<unknown>;
  duplicate(): IoRedisLike;
  on(event: 'error', listener: (error: Error) => void): unknown;
  disconnect(): void;
}

/** An ioredis cluster client (`new Cluster()`), as much of it as the log uses. */
export interface IoRedisClusterLike {
  readonly isCluster: boolean;
  readonly status: string;
  readonly options: { readonly keyPrefix?: string | undefined; readonly redisOptions?: { readonly keyPrefix?: string | undefined } | undefined };
  readonly slots: ReadonlyArray<readonly string[] | undefined>;
  connect(): Promise<unknown>;
  call(command: string, ...args: string[]): Promise<unknown>;
  nodes(role: 'master'): IoRedisLike[];
}

/**
 * What `RedisEventLog` takes: a node-redis client or cluster, an ioredis client or cluster (each
 * recognised by its shape), or a {@link RedisEventLogClient} of your own.
 */
export type RedisClientLike = NodeRedisClientLike | NodeRedisClusterLike | IoRedisLike | IoRedisClusterLike | RedisEventLogClient;

type NodeRedisClient = NodeRedisClientLike;
type NodeRedisCluster = NodeRedisClusterLike;
type IoRedis = IoRedisLike;
type IoRedisCluster = IoRedisClusterLike;

type Shape = Record<string, unknown>;

const isFunction = (value: unknown): boolean => typeof value === 'function';

/** What the log can use, said when it is given something else. */
const WHAT_TO_PASS =
  'pass a node-redis client (createClient() or createCluster() from the redis package, version 5 or later), an ioredis client (new Redis() or new Cluster()), or an object implementing RedisEventLogClient (cluster, send, connection)';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object' && typeof value !== 'function') return typeof value;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? `a ${name}` : 'an object of another shape';
}

/**
 * The client given to `RedisEventLog`, as a {@link RedisEventLogClient}.
 * @throws {TypeError} for anything the log cannot use, saying what to pass; for an ioredis client
 * with a `keyPrefix` (the log has its own `prefix`: the two would disagree on key names in replies).
 */
export function redisEventLogClient(client: unknown): RedisEventLogClient {
  if (typeof client !== 'object' || client === null) throw new TypeError(`RedisEventLog: got ${describe(client)}: ${WHAT_TO_PASS}`);
  const shape = client as Shape;
  // One of ours (or a wrapper implementing it).
  if (typeof shape['cluster'] === 'boolean' && isFunction(shape['send']) && isFunction(shape['connection'])) return client as RedisEventLogClient;
  // ioredis: `call` for any command; a Cluster says so.
  if (isFunction(shape['call']) && typeof shape['status'] === 'string' && typeof shape['options'] === 'object' && shape['options'] !== null) {
    if (shape['isCluster'] === true && isFunction(shape['nodes'])) return ioredisCluster(client as IoRedisCluster);
    if (isFunction(shape['duplicate'])) return ioredis(client as IoRedis);
  }
  // node-redis: `sendCommand(args)`; a cluster's takes the routing key first and has per-node clients.
  if (isFunction(shape['sendCommand']) && typeof shape['isOpen'] === 'boolean') {
    if (isFunction(shape['nodeClient']) && 'slots' in shape) return nodeRedisCluster(client as NodeRedisCluster);
    if (isFunction(shape['duplicate']) && isFunction(shape['connect'])) return nodeRedis(client as NodeRedisClient);
  }
  if (isFunction(shape['sendCommand']) || isFunction(shape['call'])) {
    throw new TypeError(`RedisEventLog: got ${describe(client)}, a Redis client the log does not know: ${WHAT_TO_PASS}`);
  }
  throw new TypeError(`RedisEventLog: got ${describe(client)}, not a Redis client: ${WHAT_TO_PASS}`);
}

const ignore = () => {};

// ---------------------------------------------------------------------------------------------
// node-redis

function nodeRedisConnection(connection: NodeRedisClient): RedisConnection {
  // Without a listener an 'error' event would throw; the failures show in the commands.
  connection.on('error', ignore);
  connection.connect().catch(ignore);
  return {
    send: (args) => connection.sendCommand(args),
    close: () => connection.destroy(),
  };
}

function nodeRedis(client: NodeRedisClient): RedisEventLogClient {
  const open = () => {
    // Connect the client given if nobody has (commands wait in its queue meanwhile, within the log's deadline).
    if (!client.isOpen) client.connect().catch(ignore);
  };
  return {
    cluster: false,
    send(_key, args, options) {
      open();
      return client.sendCommand(args, options?.timeoutMs === undefined ? undefined : { timeout: options.timeoutMs });
    },
    async connection() {
      open();
      return nodeRedisConnection(client.duplicate());
    },
  };
}

function nodeRedisCluster(cluster: NodeRedisCluster): RedisEventLogClient {
  let connecting: Promise<unknown> | undefined;
  const open = () => {
    if (!cluster.isOpen && connecting === undefined) connecting = cluster.connect().catch(ignore).finally(() => (connecting = undefined));
  };
  /** The cluster's own client of the master serving `key`'s slot. */
  const master = async (key: string): Promise<NodeRedisClient> => {
    open();
    if (connecting !== undefined) await connecting;
    const node = cluster.slots[hashSlot(key)]?.master;
    if (node === undefined) throw new Error('the cluster client knows no master for the slot yet');
    return await cluster.nodeClient(node as never);
  };
  return {
    cluster: true,
    async send(key, args, options) {
      open();
      if (connecting !== undefined) await connecting;
      const timeout = options?.timeoutMs === undefined ? undefined : { timeout: options.timeoutMs };
      // WAIT counts the writes of the connection it is sent on: the node's, which the writes took.
      if (args[0] === 'WAIT') return (await master(key)).sendCommand(args, timeout);
      return cluster.sendCommand(key, false, [...args], timeout);
    },
    async connection(key) {
      return nodeRedisConnection((await master(key)).duplicate());
    },
  };
}

// ---------------------------------------------------------------------------------------------
// ioredis

function ioredisConnection(connection: IoRedis): RedisConnection {
  connection.on('error', ignore);
  return {
    send: ([command, ...args]) => connection.call(command as string, ...args),
    close: () => connection.disconnect(),
  };
}

function checkPrefix(keyPrefix: unknown): void {
  if (keyPrefix !== undefined && keyPrefix !== null && keyPrefix !== '') {
    throw new TypeError("RedisEventLog: the ioredis client has a keyPrefix: pass a client without one, and the log's own option instead (new RedisEventLog(client, { prefix }))");
  }
}

function ioredis(client: IoRedis): RedisEventLogClient {
  checkPrefix(client.options.keyPrefix);
  const open = () => {
    if (client.status === 'wait') client.connect().catch(ignore);
  };
  return {
    cluster: false,
    send(_key, [command, ...args]) {
      open();
      return client.call(command as string, ...args);
    },
    async connection() {
      open();
      return ioredisConnection(client.duplicate());
    },
  };
}

function ioredisCluster(cluster: IoRedisCluster): RedisEventLogClient {
  checkPrefix(cluster.options.keyPrefix ?? cluster.options.redisOptions?.keyPrefix);
  const open = () => {
    if (cluster.status === 'wait') cluster.connect().catch(ignore);
  };
  /** The cluster's own connection to the master serving `key`'s slot. */
  const master = (key: string): IoRedis => {
    open();
    const address = cluster.slots[hashSlot(key)]?.[0];
    const node = address === undefined ? undefined : cluster.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === address);
    if (node === undefined) throw new Error('the cluster client knows no master for the slot yet');
    return node;
  };
  return {
    cluster: true,
    async send(key, [command, ...args]) {
      open();
      // ioredis routes a command by the keys it finds in it; WAIT has none (it would go to any node).
      if (command === 'WAIT') return master(key).call(command, ...args);
      return cluster.call(command as string, ...args);
    },
    async connection(key) {
      return ioredisConnection(master(key).duplicate());
    },
  };
}
