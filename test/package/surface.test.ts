import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as argstream from '../../src/index.ts';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));

describe('package surface', () => {
  it('package.json and deno.json export the same entry points (dist/X.js ↔ src/X.ts)', () => {
    const pkg = read('package.json');
    const deno = read('deno.json');
    const fromPackage = Object.entries(pkg.exports as Record<string, { default: string; types: string } | string>)
      .filter(([key]) => key !== './package.json')
      .map(([key, target]) => {
        const entry = target as { default: string; types: string };
        expect(Object.keys(entry)[0]).toBe('types'); // `types` must come first
        return [key, entry.default.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts')];
      });
    expect(Object.fromEntries(fromPackage)).toEqual(deno.exports);
    expect(deno.version).toBe(pkg.version);
  });

  it('package.json is ESM only, side-effect free, and supports Node ≥ 20', () => {
    const pkg = read('package.json');
    expect(pkg.type).toBe('module');
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.engines.node).toBe('>=20');
  });

  it('the root exports the engine under the names other code depends on', () => {
    for (const name of ['IncrementalJsonParser', 'FragmentAggregator', 'JsonStreamError', 'JsonFragmentStream', 'JsonValueStream', 'IncrementalJsonValueParser']) {
      expect(typeof (argstream as Record<string, unknown>)[name]).toBe('function');
    }
  });
});
