/**
 * A seeded slice of the fuzzer (`npm run fuzz` runs any number of inputs): generated and mutated
 * JSON documents and mutated provider recordings, cut as text and as bytes, through both engines,
 * the field and path views and the provider pipeline into `collectTurn`. Deterministic: the same
 * inputs on every run. Timing and heap are not checked here (the command line reports them).
 */
import { describe, expect, it } from 'vitest';
import { check, makeCase } from './fuzz.ts';

const SEED = 20261122;
// About a minute on one core of the development machine.
const COUNT = 50_000;

describe('fuzz (seeded slice)', () => {
  it(`${COUNT} inputs of seed ${SEED}: values agree with JSON.parse, errors typed and the same for every cutting and both engines`, async () => {
    const failures: string[] = [];
    let provider = 0;
    for (let index = 0; index < COUNT; index++) {
      const input = makeCase(SEED, index);
      if (input.kind === 'provider') provider++;
      for (const failure of await check(input)) {
        // A record lost, repeated or swapped where the wire carries nothing to notice it by
        // (OpenAI Chat, Ollama, Cohere and Gemini chunks, Anthropic and Bedrock deltas in a block).
        if (failure.kind.startsWith('note:')) continue;
        if (failures.length < 5) failures.push(`[${failure.kind}] index ${index} (npm run fuzz -- --seed ${SEED} --index ${index}): ${failure.detail}`);
      }
    }
    expect(failures).toEqual([]);
    // The slice reaches both halves: JSON documents and provider streams (about one in ten).
    expect(provider).toBeGreaterThan(COUNT / 20);
  }, 600_000);
});
