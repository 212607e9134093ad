/**
 * `ProviderEventDecoder` keeps no input alive beyond what it must buffer: the first characters it
 * quotes when the input turns out not to be SSE used to be a 30-character slice of the first chunk,
 * which in V8 keeps the whole chunk. Measured in a child process with `--expose-gc`.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

const SCRIPT = `
const { ProviderEventDecoder } = await import(${JSON.stringify(DIST)});
const decoders = [];
const chunkOf = (i) => (': padding ' + String(i).padStart(4, '0') + ' ' + 'x'.repeat(100) + '\\n').repeat(9000) + '\\n';
// Warm up first: the first decoding compiles code and fills caches (about 1 MB).
new ProviderEventDecoder({ provider: 'anthropic' }).push(chunkOf(99));
gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < 16; i++) {
  // 1 MB of complete SSE comment lines: nothing in it needs to be buffered.
  const chunk = chunkOf(i);
  const decoder = new ProviderEventDecoder({ provider: 'anthropic' });
  decoder.push(chunk);
  decoders.push(decoder);
}
gc();
const after = process.memoryUsage().heapUsed;
console.log(JSON.stringify({ retainedBytes: after - before, decoders: decoders.length }));
`;

describe('ProviderEventDecoder memory', () => {
  it('ProviderEventDecoder does not keep its first chunk alive after decoding it', () => {
    const output = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', SCRIPT], { encoding: 'utf8' });
    const { retainedBytes, decoders } = JSON.parse(output.trim().split('\n').at(-1) as string) as { retainedBytes: number; decoders: number };
    expect(decoders).toBe(16);
    // Sixteen 1 MB chunks: decoders that kept their chunks would hold 16 MB (what V8 compiles
    // and caches on the way is about 1 MB).
    expect(retainedBytes).toBeLessThan(4 * 1024 * 1024);
  });
});
