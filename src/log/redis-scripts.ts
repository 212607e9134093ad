/**
 * The Lua scripts of `RedisEventLog`: each operation that reads and writes several keys runs as
 * one script, so that it is atomic (a reader never sees a state between two commands) and costs
 * one round trip. Internal.
 *
 * The keys of one stream share a hash tag, `{<streamId>}`, so a script's keys live in one slot.
 *
 * - `KEYS.events`: a Redis Stream; event n is the entry `0-n` with fields `t` (its SSE event
 *   name, absent when it has none) and `d` (its JSON). The terminal entry is the one after the
 *   last event, with a field `x`: `end`, or `error` and `d` the error's record.
 * - `KEYS.meta`: a hash: `last` (the last event id), `bytes` (event data so far), `max` (the
 *   size limit), `ttl`, `state` (`open`, `ended`, `failed`), `owner` (the producer instance's
 *   control stream, where a stop is sent).
 * - `KEYS.lease`: the producer's token, with the lease time as expiry, renewed while it runs.
 * - `KEYS.stop`: set by a stop request; the producer also reads it at each write and renewal.
 * - An instance's control stream (`<prefix>:c:<instance>`): wake-ups and stops for that
 *   instance's blocking read; it always has an expiry, so it never outlives its instance.
 *
 * @module
 */

/** open(events, meta, lease; token, leaseMs, ttlMs, maxBytes, owner) → 'ok' | 'exists' */
export const OPEN = `
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
local lease = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
redis.call('HSET', KEYS[2], 'last', 0, 'bytes', 0, 'max', ARGV[4], 'ttl', ttl, 'state', 'open', 'owner', ARGV[5])
redis.call('PEXPIRE', KEYS[2], ttl + lease)
redis.call('SET', KEYS[3], ARGV[1], 'PX', lease)
return 'ok'
`;

/**
 * append(events, meta, lease, stop; token, leaseMs, first, count, tooLargeRecord, lostRecord, type1, data1, …)
 * → {'ok', stopFlag} | {'dup'} | {'lost'} | {'closed', state} | {'gap', last} | {'too-large', appended} | {'conflict'}
 *
 * A batch is retried as a whole after a connection error; when the stream already holds its last
 * event with the same data, the first try went through: 'dup', not an error and not a duplicate.
 * 'gap': Redis holds fewer events than the producer wrote before this batch (a failover before
 * they were replicated): the stream is failed with `lostRecord`, after the events Redis holds, so
 * that no reader takes what is left for the whole stream.
 */
export const APPEND = `
local first = tonumber(ARGV[3])
local count = tonumber(ARGV[4])
local meta = redis.call('HMGET', KEYS[2], 'last', 'bytes', 'max', 'ttl', 'state')
if not meta[1] then return {'lost'} end
local last = tonumber(meta[1])
local final = first + count - 1
if last >= final then
  local entry = redis.call('XRANGE', KEYS[1], '0-' .. final, '0-' .. final)
  if #entry == 1 then
    local fields = entry[1][2]
    for i = 1, #fields, 2 do
      if fields[i] == 'd' and fields[i + 1] == ARGV[6 + 2 * count] then return {'dup'} end
    end
  end
  return {'conflict'}
end
if meta[5] ~= 'open' then return {'closed', meta[5]} end
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return {'lost'} end
if last > first - 1 then return {'conflict'} end
local ttl = tonumber(meta[4])
if last < first - 1 then
  redis.call('XADD', KEYS[1], '0-' .. (last + 1), 'x', 'error', 'd', ARGV[6])
  redis.call('HSET', KEYS[2], 'state', 'failed')
  redis.call('DEL', KEYS[3])
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  return {'gap', tostring(last)}
end
local lease = tonumber(ARGV[2])
local bytes = tonumber(meta[2])
local max = tonumber(meta[3])
local appended = 0
for i = 0, count - 1 do
  local kind = ARGV[7 + 2 * i]
  local data = ARGV[8 + 2 * i]
  if bytes + #data > max then
    redis.call('XADD', KEYS[1], '0-' .. (last + 1), 'x', 'error', 'd', ARGV[5])
    redis.call('HSET', KEYS[2], 'last', last, 'bytes', bytes, 'state', 'failed')
    redis.call('DEL', KEYS[3])
    redis.call('PEXPIRE', KEYS[1], ttl)
    redis.call('PEXPIRE', KEYS[2], ttl)
    return {'too-large', appended}
  end
  last = last + 1
  bytes = bytes + #data
  if kind == '' then
    redis.call('XADD', KEYS[1], '0-' .. last, 'd', data)
  else
    redis.call('XADD', KEYS[1], '0-' .. last, 't', kind, 'd', data)
  end
  appended = appended + 1
end
redis.call('HSET', KEYS[2], 'last', last, 'bytes', bytes)
redis.call('PEXPIRE', KEYS[1], ttl + lease)
redis.call('PEXPIRE', KEYS[2], ttl + lease)
redis.call('PEXPIRE', KEYS[3], lease)
return {'ok', redis.call('EXISTS', KEYS[4])}
`;

/**
 * finish(events, meta, lease; token, kind ('end' | 'error'), data, lastId, lostRecord)
 * → 'ok' | 'lost' | 'gap' | 'done-ended' | 'done-failed'
 * ('done-…': the stream was finished already — by a first try of this call, or by the size limit;
 * 'gap': Redis holds fewer events than the producer's `lastId` — lost in a failover — and the
 * stream is failed with `lostRecord` instead: never an end after a hole).
 */
export const FINISH = `
local meta = redis.call('HMGET', KEYS[2], 'last', 'state', 'ttl')
if not meta[1] then return 'lost' end
if meta[2] ~= 'open' then return 'done-' .. meta[2] end
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 'lost' end
local id = '0-' .. (tonumber(meta[1]) + 1)
local status = 'ok'
if tonumber(meta[1]) ~= tonumber(ARGV[4]) then
  redis.call('XADD', KEYS[1], id, 'x', 'error', 'd', ARGV[5])
  redis.call('HSET', KEYS[2], 'state', 'failed')
  status = 'gap'
elseif ARGV[2] == 'end' then
  redis.call('XADD', KEYS[1], id, 'x', 'end')
  redis.call('HSET', KEYS[2], 'state', 'ended')
else
  redis.call('XADD', KEYS[1], id, 'x', 'error', 'd', ARGV[3])
  redis.call('HSET', KEYS[2], 'state', 'failed')
end
redis.call('DEL', KEYS[3])
local ttl = tonumber(meta[3])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return status
`;

/** renew(meta, lease, stop, events; token, leaseMs) → 'ok' | 'stop' | 'lost' */
export const RENEW = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 'lost' end
local lease = tonumber(ARGV[2])
local ttl = tonumber(redis.call('HGET', KEYS[1], 'ttl') or '0')
redis.call('PEXPIRE', KEYS[2], lease)
redis.call('PEXPIRE', KEYS[1], ttl + lease)
redis.call('PEXPIRE', KEYS[4], ttl + lease)
if redis.call('EXISTS', KEYS[3]) == 1 then return 'stop' end
return 'ok'
`;

/** stop(meta, stop) → {'not-found'} | {'done'} | {'ok', owner} */
export const STOP = `
local meta = redis.call('HMGET', KEYS[1], 'state', 'owner', 'ttl')
if not meta[1] then return {'not-found'} end
if meta[1] ~= 'open' then return {'done'} end
redis.call('SET', KEYS[2], '1', 'PX', tonumber(meta[3]))
return {'ok', meta[2]}
`;

/**
 * read(meta, events, lease; after, count) → false (no stream) | {last, state, leased, entries}:
 * the stream's state and up to `count` entries after `after`, read at one instant.
 */
export const READ = `
local meta = redis.call('HMGET', KEYS[1], 'last', 'state')
if not meta[1] then return false end
local entries = redis.call('XRANGE', KEYS[2], '(0-' .. ARGV[1], '+', 'COUNT', ARGV[2])
return {meta[1], meta[2], redis.call('EXISTS', KEYS[3]), entries}
`;

/** status(meta, lease) → false | {last, state, leased} */
export const STATUS = `
local meta = redis.call('HMGET', KEYS[1], 'last', 'state')
if not meta[1] then return false end
return {meta[1], meta[2], redis.call('EXISTS', KEYS[2])}
`;

/**
 * control(control; ttlMs, field, value) → the entry's id: a message on an instance's control
 * stream (capped), and the stream's expiry set to `ttlMs` in the same step — a message for an
 * instance that is gone (a stop for its producer) makes a key that expires, never one that stays.
 */
export const CONTROL = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', '128', '*', ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return id
`;
