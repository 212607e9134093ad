// @ts-check
// A small encoder of the AWS event-stream binary framing that Bedrock's ConverseStream uses
// (`application/vnd.amazon.eventstream`), for the demo's embedded server. Each frame:
//
//   total length u32 BE · headers length u32 BE · prelude CRC-32 (of the 8 bytes before)
//   headers: { name length u8, name, value type u8 (7 = string), value length u16 BE, value }*
//   payload (JSON) · message CRC-32 (of everything before it)

/** @type {Uint32Array | undefined} */
let table;

/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as the frames carry it.
 * @param {Uint8Array} bytes
 */
export function crc32(bytes) {
  if (table === undefined) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of bytes) crc = /** @type {number} */ (table[(crc ^ byte) & 0xff]) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const utf8 = new TextEncoder();

/**
 * One event frame: `:event-type` `eventType`, a JSON payload.
 * @param {string} eventType e.g. `contentBlockDelta`
 * @param {object} payload
 * @returns {Uint8Array}
 */
export function eventFrame(eventType, payload) {
  /** @type {number[]} */
  const headers = [];
  for (const [name, value] of [[':event-type', eventType], [':content-type', 'application/json'], [':message-type', 'event']]) {
    const nameBytes = utf8.encode(name);
    const valueBytes = utf8.encode(value);
    headers.push(nameBytes.length, ...nameBytes, 7, valueBytes.length >> 8, valueBytes.length & 0xff, ...valueBytes);
  }
  const body = utf8.encode(JSON.stringify(payload));
  const total = 12 + headers.length + body.length + 4;
  const frame = new Uint8Array(total);
  const view = new DataView(frame.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headers.length);
  view.setUint32(8, crc32(frame.subarray(0, 8)));
  frame.set(headers, 12);
  frame.set(body, 12 + headers.length);
  view.setUint32(total - 4, crc32(frame.subarray(0, total - 4)));
  return frame;
}
